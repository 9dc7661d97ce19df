// Package corpus builds a HOME holding every agent's history, made from
// the real CLI recordings in testdata/ (Cursor, which has none, from the
// synthetic layout of internal/agent/cursor's own benchmark): the
// benchmarks' machine, and `make corpus`'s. Each scanner's
// scan_bench_test.go builds its own tree the same way.
package corpus

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the driver the scanners read with
)

// recordedHome and recordedCwd are the fixed paths `make fixtures` records
// under (testdata/README.md): rewritten to the HOME when copying, since
// the scanners drop sessions whose working directory is gone.
const (
	recordedHome = "/tmp/paddock-fixtures-home"
	recordedCwd  = recordedHome + "/proj"
)

// DefaultTestdata is the repository's testdata/ as seen from a package
// three levels down (go test runs in the package directory).
const DefaultTestdata = "../../../testdata"

// corpusProjects is how many working directories the sessions of each
// runtime are spread over (the same 50 for all runtimes, as on a machine
// where several agents work on the same projects).
const corpusProjects = 50

// Runtimes is the order the corpus interleaves the runtimes' mtimes in;
// it is the registry's order.
func Runtimes() []string { return []string{"claude", "codex", "opencode", "kimi", "cursor", "pi"} }

// Corpus is a HOME with every runtime's history in the agents' default
// places (layout in Paths).
type Corpus struct {
	Home   string
	Counts map[string]int      // sessions written per runtime
	Newest map[string][]string // per runtime: the ids of its newest listable sessions, newest first (at most corpusNewest)
	Close  func() error        // closes OpenCode's writer (its -wal and -shm stay while it is open)
}

// corpusNewest is how many newest ids Corpus.Newest keeps per runtime.
const corpusNewest = 200

// Paths are the agents' directories under a HOME (where the benchmarks
// point each scanner), and the recordings copied into them.
type Paths struct {
	Home     string
	Testdata string // the recordings; DefaultTestdata when empty
}

func (p Paths) testdata() string {
	if p.Testdata == "" {
		return DefaultTestdata
	}
	return p.Testdata
}

func (p Paths) Claude() string   { return filepath.Join(p.Home, ".claude") }
func (p Paths) Codex() string    { return filepath.Join(p.Home, ".codex") }
func (p Paths) XDGData() string  { return filepath.Join(p.Home, ".local", "share") }
func (p Paths) OpenCode() string { return filepath.Join(p.XDGData(), "opencode") }
func (p Paths) Kimi() string     { return filepath.Join(p.Home, ".kimi-code") }
func (p Paths) Cursor() string   { return filepath.Join(p.Home, ".cursor") }
func (p Paths) Pi() string       { return filepath.Join(p.Home, ".pi", "agent") }

// Project is the n-th project's working directory.
func (p Paths) Project(n int) string {
	return filepath.Join(p.Home, "work", fmt.Sprintf("proj%02d", n))
}

// Split divides total sessions over the six runtimes: total/6 each,
// the remainder to the first runtimes in Runtimes.
func Split(total int) map[string]int {
	out := make(map[string]int, len(Runtimes()))
	for r, name := range Runtimes() {
		out[name] = total / len(Runtimes())
		if r < total%len(Runtimes()) {
			out[name]++
		}
	}
	return out
}

// sessionTime is the mtime (and for OpenCode and Cursor the recorded
// update time) of the i-th of a runtime's n sessions, r its place in
// Runtimes, of total: each runtime's sessions spread over the same
// stretch, step apart on the whole (one minute in Write), interleaved,
// the newest an hour ago (older than any scanner's "written just now"
// window, so an unchanged rescan may answer from its cache).
func sessionTime(base time.Time, step time.Duration, r, i, n, total int) time.Time {
	every := float64(total) / float64(max(n, 1))
	return base.Add(-time.Hour - time.Duration((float64(i)*every+float64(r))*float64(step)))
}

// Write writes counts[runtime] sessions of each runtime under home, one
// minute apart.
func Write(home string, counts map[string]int) (*Corpus, error) {
	return write(Paths{Home: home}, counts, time.Minute, time.Now())
}

func write(p Paths, counts map[string]int, step time.Duration, base time.Time) (*Corpus, error) {
	for n := range corpusProjects {
		if err := os.MkdirAll(p.Project(n), 0o755); err != nil {
			return nil, err
		}
	}
	c := &Corpus{Home: p.Home, Counts: counts, Newest: map[string][]string{}, Close: func() error { return nil }}
	writers := map[string]func(Paths, int, func(int) time.Time) ([]string, error){
		"claude": writeClaude,
		"codex":  writeCodex,
		"kimi":   writeKimi,
		"cursor": writeCursor,
		"pi":     writePi,
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	for r, name := range Runtimes() {
		at := func(i int) time.Time { return sessionTime(base, step, r, i, counts[name], total) }
		var ids []string
		var err error
		if name == "opencode" {
			ids, c.Close, err = writeOpenCode(p, counts[name], at)
		} else {
			ids, err = writers[name](p, counts[name], at)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		c.Newest[name] = ids[:min(len(ids), corpusNewest)]
	}
	return c, nil
}

// recording is one session file of a recording, with the id it uses.
type recording struct {
	id   string
	data []byte
}

// readRecordings reads the files matching glob (under testdata/), each
// with its id taken from the path by idOf.
func readRecordings(p Paths, glob string, idOf func(path string) string) ([]recording, error) {
	files, err := filepath.Glob(filepath.Join(p.testdata(), glob))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no recordings match testdata/%s (%v)", glob, err)
	}
	slices.Sort(files)
	out := make([]recording, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, recording{id: idOf(f), data: data})
	}
	return out, nil
}

// rewrite is a recording under a new id and working directory.
func (r recording) rewrite(id, cwd string) []byte {
	data := bytes.ReplaceAll(r.data, []byte(r.id), []byte(id))
	return bytes.ReplaceAll(data, []byte(recordedCwd), []byte(cwd))
}

func writeFileAt(path string, data []byte, at time.Time) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	return os.Chtimes(path, at, at)
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]`)

// claudeProjectDir is Claude Code's folder name for a cwd.
func claudeProjectDir(cwd string) string { return nonAlnum.ReplaceAllString(cwd, "-") }

func stripExt(path string) string { return strings.TrimSuffix(filepath.Base(path), ".jsonl") }

// writeClaude copies the Claude Code 2.1.328 transcripts round-robin,
// as internal/agent/claude's BenchmarkScan10k does.
func writeClaude(p Paths, n int, at func(int) time.Time) ([]string, error) {
	recs, err := readRecordings(p, "claude-*/claude/projects/*/*.jsonl", stripExt)
	if err != nil {
		return nil, err
	}
	ids := make([]string, n)
	for i := range n {
		id := fmt.Sprintf("%08x-%04x-4000-8000-%012x", i, i%0xffff, i)
		cwd := p.Project(i % corpusProjects)
		path := filepath.Join(p.Claude(), "projects", claudeProjectDir(cwd), id+".jsonl")
		if err := writeFileAt(path, recs[i%len(recs)].rewrite(id, cwd), at(i)); err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

// codexRolloutID is the id at the end of a rollout file name.
var codexRolloutID = regexp.MustCompile(`([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$`)

func codexID(path string) string { return codexRolloutID.FindStringSubmatch(path)[1] }

// writeCodex copies the Codex 0.169.0 rollouts into day directories, with
// a state database and a session index naming the threads, as
// internal/agent/codex's BenchmarkScan does.
func writeCodex(p Paths, n int, at func(int) time.Time) ([]string, error) {
	recs, err := readRecordings(p, "codex-*/codex/sessions/*/*/*/rollout-*.jsonl", codexID)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(p.Codex(), 0o755); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: filepath.Join(p.Codex(), "state_5.sqlite")}).EscapedPath()+"?_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT, name TEXT, model TEXT, source TEXT, thread_source TEXT)`); err != nil {
		return nil, err
	}
	tx, err := db.Begin()
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var index strings.Builder
	ids := make([]string, n)
	for i := range n {
		id := fmt.Sprintf("01a20000-%04x-7000-8000-%012x", i%0xffff, i)
		t := at(i)
		path := filepath.Join(p.Codex(), "sessions", t.Format("2006/01/02"), "rollout-"+t.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
		if err := writeFileAt(path, recs[i%len(recs)].rewrite(id, p.Project(i%corpusProjects)), t); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`INSERT INTO threads VALUES (?, 'first prompt', ?, 'mock-model', 'cli', 'user')`, id, fmt.Sprintf("thread %d", i)); err != nil {
			return nil, err
		}
		if i%2 == 0 {
			fmt.Fprintf(&index, `{"id":%q,"thread_name":"indexed %d","updated_at":%q}`+"\n", id, i, t.Format(time.RFC3339Nano))
		}
		ids[i] = id
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	old := at(0)
	return ids, writeFileAt(filepath.Join(p.Codex(), "session_index.jsonl"), []byte(index.String()), old)
}

// kimiSessionID is the session folder a wire.jsonl belongs to.
func kimiSessionID(wire string) string {
	return filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(wire))))
}

// writeKimi copies the Kimi Code 2.1.0 sessions (the main agent's
// wire.jsonl and the session's state.json), as internal/agent/kimi's
// BenchmarkScan does, but with the recorded state.json rather than a
// generated one.
func writeKimi(p Paths, n int, at func(int) time.Time) ([]string, error) {
	wires, err := readRecordings(p, "kimi-*/kimi/sessions/*/*/agents/main/wire.jsonl", kimiSessionID)
	if err != nil {
		return nil, err
	}
	states, err := readRecordings(p, "kimi-*/kimi/sessions/*/*/state.json", func(path string) string { return filepath.Base(filepath.Dir(path)) })
	if err != nil {
		return nil, err
	}
	ids := make([]string, n)
	for i := range n {
		proj := i % corpusProjects
		id := fmt.Sprintf("session_%08d-0000-4000-8000-000000000000", i)
		dir := filepath.Join(p.Kimi(), "sessions", fmt.Sprintf("wd_proj%02d_%012x", proj, proj), id)
		cwd := p.Project(proj)
		wire, state := wires[i%len(wires)], states[i%len(states)]
		if wire.id != state.id {
			return nil, fmt.Errorf("kimi recordings out of step: %s, %s", wire.id, state.id)
		}
		if err := writeFileAt(filepath.Join(dir, "state.json"), state.rewrite(id, cwd), at(i)); err != nil {
			return nil, err
		}
		if err := writeFileAt(filepath.Join(dir, "agents", "main", "wire.jsonl"), wire.rewrite(id, cwd), at(i)); err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

// piID is the session id at the end of a Pi session file name
// (<time>_<id>.jsonl); the header line carries the same id.
func piID(path string) string {
	name := stripExt(path)
	return name[strings.LastIndexByte(name, '_')+1:]
}

// piFolder is Pi's session folder name for a cwd.
func piFolder(cwd string) string {
	return "--" + strings.ReplaceAll(strings.TrimPrefix(cwd, "/"), "/", "-") + "--"
}

// writePi copies the Pi 0.73.1 sessions, as internal/agent/pi's
// BenchmarkScan does.
func writePi(p Paths, n int, at func(int) time.Time) ([]string, error) {
	recs, err := readRecordings(p, "pi-*/pi/sessions/*/*.jsonl", piID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, n)
	for i := range n {
		id := fmt.Sprintf("01a20000-0000-7000-8000-%012d", i)
		cwd := p.Project(i % corpusProjects)
		t := at(i)
		path := filepath.Join(p.Pi(), "sessions", piFolder(cwd), t.UTC().Format("2006-01-02T15-04-05-000Z")+"_"+id+".jsonl")
		if err := writeFileAt(path, recs[i%len(recs)].rewrite(id, cwd), t); err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

// writeCursor writes Cursor Agent CLI chats in the synthetic layout of
// internal/agent/cursor's BenchmarkScan (no recording exists): meta.json,
// prompt_history.json and a store.db each (one small store copied:
// listing never opens it), one in ten with a -wal as an open chat has,
// one in twenty a subagent's (never listed).
func writeCursor(p Paths, n int, at func(int) time.Time) ([]string, error) {
	store, err := cursorStore(filepath.Join(p.Home, "cursor-store-template.db"))
	if err != nil {
		return nil, err
	}
	var ids []string
	for i := range n {
		cwd := p.Project(i % corpusProjects)
		ws := md5.Sum([]byte(cwd))
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		dir := filepath.Join(p.Cursor(), "chats", hex.EncodeToString(ws[:]), id)
		t := at(i)
		subagent := i%20 == 7
		meta, _ := json.Marshal(map[string]any{
			"schemaVersion": 1, "createdAtMs": t.Add(-time.Hour).UnixMilli(), "updatedAtMs": t.UnixMilli(),
			"hasConversation": true, "isSubagent": subagent, "title": fmt.Sprintf("Chat number %d", i), "cwd": cwd,
		})
		prompts, _ := json.Marshal([]any{"first prompt of the chat", map[string]any{"text": "a second, longer prompt with more words in it"}, "last"})
		files := map[string][]byte{"meta.json": meta, "prompt_history.json": prompts, "store.db": store}
		if i%10 == 0 {
			files["store.db-wal"] = make([]byte, 4096)
		}
		for name, data := range files {
			if err := writeFileAt(filepath.Join(dir, name), data, t); err != nil {
				return nil, err
			}
		}
		if !subagent {
			ids = append(ids, id)
		}
	}
	return ids, os.Remove(filepath.Join(p.Home, "cursor-store-template.db"))
}

// cursorStore writes a small store.db in Cursor's shape at path (blobs
// keyed by the SHA-256 of their data, a root blob listing the messages,
// meta row "0" as hex JSON) and returns its bytes.
func cursorStore(path string) ([]byte, error) {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	put := func(data []byte) ([]byte, error) {
		sum := sha256.Sum256(data)
		_, err := db.Exec("INSERT OR IGNORE INTO blobs (id, data) VALUES (?, ?)", hex.EncodeToString(sum[:]), data)
		return sum[:], err
	}
	for _, q := range []string{
		"CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)",
		"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
	} {
		if _, err := db.Exec(q); err != nil {
			return nil, err
		}
	}
	var root []byte
	for _, m := range []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "<user_info>OS: linux, shell: bash</user_info>\n<user_query>\nhello\n</user_query>"}}},
		map[string]any{"role": "assistant", "id": "1", "content": []any{map[string]any{"type": "text", "text": "hi"}}},
	} {
		data, _ := json.Marshal(m)
		id, err := put(data)
		if err != nil {
			return nil, err
		}
		root = append(root, protoBytes(1, id)...)
	}
	rootID, err := put(root)
	if err != nil {
		return nil, err
	}
	meta, _ := json.Marshal(map[string]any{"agentId": "tmpl", "latestRootBlobId": hex.EncodeToString(rootID)})
	if _, err := db.Exec("INSERT INTO meta (key, value) VALUES ('0', ?)", hex.EncodeToString(meta)); err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// protoBytes encodes one length-delimited protobuf field.
func protoBytes(field int, payload []byte) []byte {
	var out []byte
	for _, v := range []uint64{uint64(field<<3 | 2), uint64(len(payload))} {
		for v >= 0x80 {
			out = append(out, byte(v)|0x80)
			v >>= 7
		}
		out = append(out, byte(v))
	}
	return append(out, payload...)
}

// sqliteDSN is a file: DSN for path with the given query.
func sqliteDSN(path, query string) string {
	return "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath() + "?" + query
}

// table is every row of one table, as database/sql scans them.
type table struct {
	cols []string
	rows [][]any
}

func readTable(db *sql.DB, name string) (table, error) {
	rows, err := db.Query("SELECT * FROM " + name)
	if err != nil {
		return table{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return table{}, err
	}
	t := table{cols: cols}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return table{}, err
		}
		t.rows = append(t.rows, vals)
	}
	return t, rows.Err()
}

func (t table) col(name string) int { return slices.Index(t.cols, name) }

func (t table) insert(tx *sql.Tx, name string, row []any) error {
	q := "INSERT INTO " + name + " (" + strings.Join(t.cols, ", ") + ") VALUES (?" + strings.Repeat(", ?", len(t.cols)-1) + ")"
	_, err := tx.Exec(q, row...)
	return err
}

// openCodeID matches OpenCode's session, message and part ids wherever
// they appear (id columns, and parentID inside message data).
var openCodeID = regexp.MustCompile(`\b(ses|msg|prt)_([0-9A-Za-z]{20,})`)

// writeOpenCode writes one opencode.db holding n sessions: copies of the
// sessions OpenCode 1.18.33 recorded (their session, message and part
// rows, in the recording's own schema) under new ids, moved in time and
// to a project of the temp HOME. As internal/agent/opencode's BenchmarkScan
// does, the writer stays open, so -wal and -shm are there as a running
// OpenCode leaves them; the returned func closes it.
func writeOpenCode(p Paths, n int, at func(int) time.Time) (ids []string, closeDB func() error, err error) {
	recorded, err := filepath.Glob(filepath.Join(p.testdata(), "opencode-*", "opencode", "opencode.db"))
	if err != nil || len(recorded) == 0 {
		return nil, nil, fmt.Errorf("no recorded opencode.db (%v)", err)
	}
	src, err := sql.Open("sqlite", sqliteDSN(recorded[0], "mode=ro"))
	if err != nil {
		return nil, nil, err
	}
	defer src.Close()
	var schema []string
	rows, err := src.Query("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index', name")
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, nil, err
		}
		schema = append(schema, s)
	}
	if err := rows.Close(); err != nil {
		return nil, nil, err
	}
	tables := map[string]table{}
	for _, name := range []string{"project", "session", "message", "part"} {
		if tables[name], err = readTable(src, name); err != nil {
			return nil, nil, fmt.Errorf("recorded %s: %w", name, err)
		}
	}
	sessions := tables["session"]
	if len(sessions.rows) == 0 {
		return nil, nil, fmt.Errorf("the recorded opencode.db has no sessions")
	}

	if err := os.MkdirAll(p.OpenCode(), 0o755); err != nil {
		return nil, nil, err
	}
	dbPath := filepath.Join(p.OpenCode(), "opencode.db")
	db, err := sql.Open("sqlite", sqliteDSN(dbPath, "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)"))
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(1)
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	for _, stmt := range schema {
		if _, err = db.Exec(stmt); err != nil {
			return nil, nil, err
		}
	}
	tx, err := db.Begin()
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	for _, row := range tables["project"].rows {
		if err = tables["project"].insert(tx, "project", row); err != nil {
			return nil, nil, err
		}
	}
	sid, supdated := sessions.col("id"), sessions.col("time_updated")
	for i := range n {
		s := sessions.rows[i%len(sessions.rows)]
		prefix := fmt.Sprintf("%05d", i)
		cwd := p.Project(i % corpusProjects)
		delta := at(i).UnixMilli() - s[supdated].(int64)
		copyRow := func(t table, row []any) []any {
			out := slices.Clone(row)
			for c, v := range out {
				switch v := v.(type) {
				case string:
					v = strings.ReplaceAll(v, recordedCwd, cwd)
					out[c] = openCodeID.ReplaceAllString(v, "${1}_"+prefix+"${2}")
				case int64:
					if strings.HasPrefix(t.cols[c], "time_") {
						out[c] = v + delta
					}
				}
			}
			return out
		}
		ns := copyRow(sessions, s)
		if err = sessions.insert(tx, "session", ns); err != nil {
			return nil, nil, err
		}
		for _, name := range []string{"message", "part"} {
			t := tables[name]
			for _, row := range t.rows {
				if row[t.col("session_id")] != s[sid] {
					continue
				}
				if err = t.insert(tx, name, copyRow(t, row)); err != nil {
					return nil, nil, err
				}
			}
		}
		ids = append(ids, ns[sid].(string))
	}
	if err = tx.Commit(); err != nil {
		return nil, nil, err
	}
	if _, err = db.Exec("PRAGMA wal_checkpoint(PASSIVE)"); err != nil {
		return nil, nil, err
	}
	for _, f := range []string{dbPath, dbPath + "-wal"} {
		if err = os.Chtimes(f, at(0), at(0)); err != nil {
			return nil, nil, err
		}
	}
	return ids, db.Close, nil
}
