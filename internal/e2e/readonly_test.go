package e2e

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"paddock/internal/history/historytest"
	"paddock/internal/testkit/servetest"
	"paddock/internal/testkit/sharedtest"
)

// TestAgentFilesUntouched holds paddock to its read-only promise to the
// byte: the real binary, with HOME pointed at a copy of every fixture tree
// laid out as the agents' homes, lists every session, reads each one's
// newest page and every older page, its page and activity, its events
// and images, its subagents, exports it in every format, builds the
// search index and searches it — while a writer, like a live agent,
// appends to JSONL histories and commits rows into an OpenCode database it
// holds open in WAL mode (its -wal and -shm exist). Afterwards every file
// and directory under the agents' directories has the bytes, size, mtime
// and ctime it had before (a chown to the same owner, which SQLite does as
// root to a -wal or -shm it opens, shows only in the ctime), and the
// writer's files are as the writer left them after its last write.
func TestAgentFilesUntouched(t *testing.T) {
	if !historytest.HasCtime() {
		t.Skip("this platform's stat has no change time (ctime): the test would miss a chown or chmod")
	}
	for _, set := range []struct {
		name  string
		build func(t *testing.T, home string)
	}{
		{"recordings", recordingsHome},
		{"shared fixtures", sharedHome},
	} {
		t.Run(set.name, func(t *testing.T) {
			home := t.TempDir()
			set.build(t, home)
			syntheticCursorChat(t, home)
			untouched(t, home)
		})
	}
}

// agentDirs are the agents' own directories in a fake HOME, as paddock
// finds them with none of their variables set.
var agentDirs = []string{".claude", ".codex", ".local/share/opencode", ".pi/agent", ".kimi-code", ".kimi", ".cursor"}

// untouched runs paddock over home with a live writer and compares the
// agents' directories before and after.
func untouched(t *testing.T, home string) {
	var roots []string
	for _, d := range agentDirs {
		if st, err := os.Stat(filepath.Join(home, d)); err == nil && st.IsDir() {
			roots = append(roots, filepath.Join(home, d))
		}
	}
	w := startWriter(t, home)
	before := treeState(t, roots)

	srv := servetest.Start(t, home)
	api := newAPIClient(t, srv)
	waitIndexed(t, api)

	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { w.run(ctx, t) })
	read := walk(t, api)
	stop()
	wg.Wait()
	written := w.state(t)
	last := w.lastSession()
	until(t, 30*time.Second, "paddock lists the writer's last session (it read the database after the last write)", func() (bool, string) {
		var out struct{ Sessions []apiSession }
		if err := api.get("/api/v1/sessions?runtime=opencode&limit=1000", &out); err != nil {
			return false, err.Error()
		}
		for _, s := range out.Sessions {
			if s.ID == last {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d OpenCode sessions, not %s", len(out.Sessions), last)
	})
	again := walk(t, api)
	srv.Stop(t)
	t.Logf("sessions read with a writer running %v, after it stopped %v; the writer committed %d OpenCode turns and appended %d lines to %d histories",
		read, again, w.turns, w.lines, len(w.appendTo))
	for _, rt := range []string{"claude", "codex", "opencode", "pi", "kimi", "cursor"} {
		if read[rt] == 0 {
			t.Errorf("no %s session was read: the run does not cover its files", rt)
		}
	}

	after := treeState(t, roots)
	for _, p := range slices.Sorted(maps.Keys(after)) {
		want, ok := before[p]
		if w, mine := written[p]; mine {
			want, ok = w, true
		}
		switch {
		case !ok:
			t.Errorf("%s created", p)
		case after[p] != want:
			t.Errorf("%s changed:\n  before %s\n  after  %s", p, want, after[p])
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s removed", p)
		}
	}
}

func treeState(t *testing.T, roots []string) map[string]string {
	t.Helper()
	out := make(map[string]string)
	for _, r := range roots {
		maps.Copy(out, historytest.TreeState(t, r))
	}
	return out
}

// waitIndexed waits until the search index has been built: it reads every
// session's conversation once the catalog has listed them all.
func waitIndexed(t *testing.T, api *apiClient) {
	t.Helper()
	until(t, 2*time.Minute, "the search index built", func() (bool, string) {
		var out struct {
			Index struct {
				Ready          bool
				Indexed, Total int
			}
		}
		if err := api.get("/api/v1/search?q=hello", &out); err != nil {
			return false, err.Error()
		}
		return out.Index.Ready, fmt.Sprintf("%+v", out.Index)
	})
}

// walk reads everything paddock shows of every session and returns, per
// runtime, how many sessions it read a record of. Statuses other than 200 are counted, not failed:
// what is asserted here is what the reads leave behind.
func walk(t *testing.T, api *apiClient) map[string]int {
	t.Helper()
	statuses, read := map[int]int{}, map[string]int{}
	get := func(path string) []byte {
		body, status := api.raw(path)
		statuses[status]++
		return body
	}
	var all []struct {
		ID, Runtime string
	}
	for cursor := ""; ; {
		var page struct {
			Sessions []struct{ ID, Runtime string }
			Next     string `json:"next_cursor"`
		}
		q := "/api/v1/sessions?limit=1000"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		if err := json.Unmarshal(get(q), &page); err != nil {
			t.Fatalf("session list: %v", err)
		}
		for _, s := range page.Sessions {
			all = append(all, struct{ ID, Runtime string }{s.ID, s.Runtime})
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	get("/")
	get("/search?q=paddock")
	get("/api/v1/search?q=turn")
	for _, s := range all {
		base := "/" + url.PathEscape(s.Runtime) + "/" + url.PathEscape(s.ID)
		var one struct {
			Session struct {
				Subagents []struct{ ID string }
			}
		}
		_ = json.Unmarshal(get("/api/v1/sessions"+base), &one)
		// The newest page, then every older one, three messages at a time.
		q := "/api/v1/sessions" + base + "/messages?limit=3"
		for range 200 {
			var page struct {
				Messages []struct{ Index int }
				Next     string
			}
			if json.Unmarshal(get(q), &page) != nil || page.Next == "" {
				break
			}
			q = "/api/v1/sessions" + base + "/messages?limit=3&before=" + url.QueryEscape(page.Next)
		}
		get("/s" + base)
		get("/s" + base + "/messages?before=1")
		get("/s" + base + "/activity")
		var evs struct {
			Events []struct{ URL string }
		}
		_ = json.Unmarshal(get("/api/v1/sessions"+base+"/events"), &evs)
		for _, e := range evs.Events {
			if e.URL != "" {
				get(e.URL)
			}
		}
		for _, f := range []string{"markdown", "json", "jsonl", "text"} {
			get("/api/v1/sessions" + base + "/export?format=" + f)
			get("/s" + base + "/export?format=" + f + "&tools=1")
		}
		for _, a := range one.Session.Subagents {
			get("/api/v1/sessions" + base + "/agents/" + url.PathEscape(a.ID) + "/messages")
			get("/s" + base + "/agents/" + url.PathEscape(a.ID))
		}
		if len(evs.Events) > 0 {
			read[s.Runtime]++
		}
	}
	t.Logf("walked %d sessions: HTTP statuses %v", len(all), statuses)
	return read
}

// raw GETs path and returns the body and status (0 and nothing when the
// request failed).
func (c *apiClient) raw(path string) ([]byte, int) {
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, 0
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	hc := *c.http
	hc.Timeout = time.Minute
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return body, resp.StatusCode
}

// writer is a live agent: it commits turns into an OpenCode database it
// holds open in WAL mode and appends lines to JSONL histories, while
// paddock reads.
type writer struct {
	home     string
	db       *sql.DB
	dbPath   string
	appendTo []string
	lines    int
	turns    int
}

// startWriter opens the OpenCode database in home (creating one when the
// fixtures have none) the way OpenCode does, commits a first turn so that
// its -wal and -shm exist, and picks a history of each JSONL agent to
// append to.
func startWriter(t *testing.T, home string) *writer {
	t.Helper()
	dir := filepath.Join(home, ".local", "share", "opencode")
	w := &writer{home: home, dbPath: filepath.Join(dir, "opencode.db")}
	if err := os.MkdirAll(filepath.Join(home, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.dbPath); err != nil {
		t.Fatalf("no OpenCode database to write to: %v", err)
	}
	// A small autocheckpoint: checkpoints (and WAL restarts) happen while
	// paddock reads, as they do under a long-running OpenCode.
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: w.dbPath}).EscapedPath()+
		"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(64)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	w.db = db
	w.turn(t)
	for _, p := range []string{w.dbPath + "-wal", w.dbPath + "-shm"} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the writer holds no %s: %v", filepath.Base(p), err)
		}
	}
	for _, pattern := range []string{
		".claude/projects/*/*.jsonl",
		".codex/sessions/*/*/*/rollout-*.jsonl",
		".pi/agent/sessions/*/*.jsonl",
		".kimi-code/sessions/*/*/agents/main/wire.jsonl",
	} {
		matches, _ := filepath.Glob(filepath.Join(home, pattern))
		if len(matches) == 0 {
			t.Fatalf("no history matches %s", pattern)
		}
		slices.Sort(matches)
		w.appendTo = append(w.appendTo, matches[0])
	}
	return w
}

// turnsPerSession: the writer starts a new session after this many turns.
const turnsPerSession = 10

func (w *writer) sessionID(turn int) string {
	return fmt.Sprintf("ses_rowriter%05d", turn/turnsPerSession)
}

// lastSession is the id of the session the writer committed to last.
func (w *writer) lastSession() string { return w.sessionID(w.turns - 1) }

// turn commits a prompt and an answer (to a new session every
// turnsPerSession turns), in one transaction as OpenCode commits a turn's
// rows.
func (w *writer) turn(t *testing.T) {
	id, at, n := w.sessionID(w.turns), time.Now().UnixMilli(), strconv.Itoa(w.turns)
	tx, err := w.db.Begin()
	if err != nil {
		t.Error(err)
		return
	}
	defer tx.Rollback()
	type stmt struct {
		q    string
		args []any
	}
	var stmts []stmt
	if w.turns%turnsPerSession == 0 {
		stmts = append(stmts,
			stmt{`INSERT OR IGNORE INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('global', '/', 0, 0, '[]')`, nil},
			stmt{`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
				VALUES (?, 'global', 'slug', ?, ?, '1.18.33', ?, ?)`, []any{id, filepath.Join(w.home, "proj"), "written while paddock reads " + id, at, at}})
	}
	stmts = append(stmts,
		stmt{`UPDATE session SET time_updated = ? WHERE id = ?`, []any{at + 1, id}},
		stmt{`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
			[]any{"msg_" + id + "_" + n + "_1", id, at, at, `{"role":"user","time":{"created":` + strconv.FormatInt(at, 10) + `}}`}},
		stmt{`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
			[]any{"prt_" + id + "_" + n + "_1", "msg_" + id + "_" + n + "_1", id, at, at, `{"type":"text","text":"prompt ` + n + ` ` + strings.Repeat("x", 2000) + `"}`}},
		stmt{`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
			[]any{"msg_" + id + "_" + n + "_2", id, at + 1, at + 1, `{"role":"assistant","time":{"created":` + strconv.FormatInt(at+1, 10) + `}}`}},
		stmt{`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
			[]any{"prt_" + id + "_" + n + "_2", "msg_" + id + "_" + n + "_2", id, at + 1, at + 1, `{"type":"text","text":"answer ` + n + `"}`}})
	for _, s := range stmts {
		if _, err := tx.Exec(s.q, s.args...); err != nil {
			t.Errorf("writer: %v", err)
			return
		}
	}
	if err := tx.Commit(); err != nil {
		t.Errorf("writer: %v", err)
		return
	}
	w.turns++
}

// appendLine appends a copy of path's last line, so the history stays in
// its agent's format.
func (w *writer) appendLine(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
		return
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	if _, err := f.Write(append(slices.Clone(lines[len(lines)-1]), '\n')); err != nil {
		t.Error(err)
		return
	}
	w.lines++
}

// run writes every 20 ms until ctx ends.
func (w *writer) run(ctx context.Context, t *testing.T) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		w.turn(t)
		w.appendLine(t, w.appendTo[i%len(w.appendTo)])
	}
}

// state is the writer's files as its last write left them.
func (w *writer) state(t *testing.T) map[string]string {
	out := make(map[string]string)
	for _, p := range append([]string{w.dbPath, w.dbPath + "-wal", w.dbPath + "-shm"}, w.appendTo...) {
		maps.Copy(out, historytest.TreeState(t, p))
	}
	return out
}

// recordingsHome lays out the recordings under testdata/ as the agents'
// homes.
func recordingsHome(t *testing.T, home string) {
	rec := filepath.Join("..", "..", "testdata")
	copyInto(t, filepath.Join(rec, "claude-2.1.328", "claude"), filepath.Join(home, ".claude"))
	copyInto(t, filepath.Join(rec, "codex-0.169.0", "codex"), filepath.Join(home, ".codex"))
	copyInto(t, filepath.Join(rec, "opencode-1.18.33", "opencode"), filepath.Join(home, ".local", "share", "opencode"))
	copyInto(t, filepath.Join(rec, "pi-0.73.1", "pi"), filepath.Join(home, ".pi", "agent"))
	copyInto(t, filepath.Join(rec, "kimi-2.1.0", "kimi"), filepath.Join(home, ".kimi-code"))
	recordedDirs(t, "/tmp/paddock-fixtures-home/proj")
}

// sharedHome lays out ../shared's real recordings and public fixtures as
// the agents' homes: each where its agent keeps it, the public ones in a
// folder of their own.
func sharedHome(t *testing.T, home string) {
	real, pub := sharedtest.Fixtures(t, "real"), sharedtest.Fixtures(t, "public")
	claude := filepath.Join(home, ".claude")
	copyInto(t, filepath.Join(real, "claude-2.1.328", "projects"), filepath.Join(claude, "projects"))
	copyInto(t, filepath.Join(real, "claude-2.1.328", "sessions-pid.json"), filepath.Join(claude, "sessions", "4242.json"))
	copyInto(t, filepath.Join(real, "codex-0.169.0", "codex-home"), filepath.Join(home, ".codex"))
	copyInto(t, filepath.Join(real, "opencode-1.18.33", "data"), filepath.Join(home, ".local", "share", "opencode"))
	copyInto(t, filepath.Join(real, "pi-0.73.1", "pi-agent-dir"), filepath.Join(home, ".pi", "agent"))
	copyInto(t, filepath.Join(real, "kimi-code-2.1.0", "kimi-code-home"), filepath.Join(home, ".kimi-code"))

	// Claude: each fixture in a project folder named for where it lies,
	// a subagents tree beside its session.
	err := filepath.WalkDir(filepath.Join(pub, "claude"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(pub, p)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		cut := len(parts) - 1
		for i, s := range parts {
			if s == "subagents" && i >= 2 {
				cut = i - 1
				break
			}
		}
		copyInto(t, p, filepath.Join(claude, "projects", "-public-"+strings.Join(parts[:cut], "-"), filepath.Join(parts[cut:]...)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	codex := filepath.Join(home, ".codex", "sessions")
	copyInto(t, filepath.Join(pub, "codex", "claude-code-log", "test", "test_data", "codex", "sessions"), codex)
	for i, f := range []string{
		"agentsview/internal/parser/testdata/codex/blockquotes_session.jsonl",
		"agentsview/internal/parser/testdata/codex/function_calls.jsonl",
		"ccusage/apps/ccusage/test/fixtures/codex/sessions/project-alpha/session-alpha.jsonl",
	} {
		copyInto(t, filepath.Join(pub, "codex", f), filepath.Join(codex, "2026", "01", "09",
			fmt.Sprintf("rollout-2026-01-09T00-00-0%d-aaaaaaaa-aaaa-4aaa-8aaa-00000000000%d.jsonl", i, i)))
	}
	opencode := filepath.Join(home, ".local", "share", "opencode")
	sqlDump := filepath.Join(pub, "opencode", "deja-vu", "fixtures", "registry", "opencode", "opencode.sql")
	copyInto(t, sqlDump, filepath.Join(opencode, "public", "opencode.sql"))
	loadDump(t, sqlDump, filepath.Join(opencode, "opencode-public.db"))
	kimi := filepath.Join(home, ".kimi-code")
	copyInto(t, filepath.Join(pub, "kimi", "deja-vu", "fixtures", "registry", "kimi"), kimi)
	for _, s := range []string{"sample-main", "sample-compaction"} {
		copyInto(t, filepath.Join(pub, "kimi", "kimi-code", s), filepath.Join(kimi, "sessions", "wd_public_0123456789ab", "session_"+s))
	}
	copyInto(t, filepath.Join(pub, "kimi", "agentsview"), filepath.Join(kimi, "public", "agentsview"))
	for i, f := range []string{
		"pi-mono/packages/coding-agent/test/fixtures/large-session.jsonl",
		"pi-mono/packages/coding-agent/test/fixtures/before-compaction.jsonl",
		"agentsview/internal/parser/testdata/pi/session.jsonl",
		"deja-vu/fixtures/registry/pi/session.jsonl",
	} {
		copyInto(t, filepath.Join(pub, "pi", f), filepath.Join(home, ".pi", "agent", "sessions", "--public--", fmt.Sprintf("p%d.jsonl", i)))
	}
	copyInto(t, filepath.Join(pub, "pi", "pi-mono", "packages", "coding-agent", "test", "fixtures", "assistant-message-with-thinking-code.json"),
		filepath.Join(home, ".pi", "agent", "public", "assistant-message-with-thinking-code.json"))
	copyInto(t, filepath.Join(pub, "cursor", "deja-vu", "fixtures", "registry", "cursor"), filepath.Join(home, ".cursor"))
	recordedDirs(t, "/tmp/fakehome1/proj", "/tmp/fakehome-codex/proj", "/tmp/fakehome-opencode/proj", "/tmp/fakehome-pi/proj",
		"/tmp/fakehome-kimi/proj", "/tmp/work", "/tmp/agentsview-quote")
}

// recordedDirs makes the working directories the recordings name exist
// for the test (removing what it made afterwards): paddock lists only
// sessions whose directory exists, and each listed session is one more
// that the run reads.
func recordedDirs(t *testing.T, dirs ...string) {
	for _, d := range dirs {
		top := d
		for {
			parent := filepath.Dir(top)
			if _, err := os.Stat(parent); err == nil {
				break
			}
			top = parent
		}
		if _, err := os.Stat(top); err == nil {
			continue
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(top) })
	}
}

// syntheticCursorChat adds a Cursor chat whose store.db a writer left in
// WAL mode with its -wal and -shm (no real Cursor store was available):
// Cursor keeps a chat's store open so while the chat is open.
func syntheticCursorChat(t *testing.T, home string) {
	cwd := filepath.Join(home, "proj")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum([]byte(cwd))
	dir := filepath.Join(home, ".cursor", "chats", hex.EncodeToString(sum[:]), "chat-untouched")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{"title": "A Cursor chat", "cwd": cwd, "hasConversation": true})
	if err := os.WriteFile(filepath.Join(dir, "meta.json"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(t.TempDir(), "store.db")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: live}).EscapedPath()+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	metaRow, _ := json.Marshal(map[string]any{"agentId": "chat-untouched", "name": "A Cursor chat"})
	for _, q := range []struct {
		q    string
		args []any
	}{
		{"CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)", nil},
		{"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)", nil},
		{"INSERT INTO meta VALUES ('0', ?)", []any{hex.EncodeToString(metaRow)}},
		{"INSERT INTO blobs VALUES (?, ?)", blob(`{"role":"user","content":"<user_query>\nhello cursor\n</user_query>"}`)},
		{"INSERT INTO blobs VALUES (?, ?)", blob(`{"role":"assistant","content":[{"type":"text","text":"hello from the store"}]}`)},
	} {
		if _, err := db.Exec(q.q, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	// The three files as the open chat holds them.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		copyInto(t, live+suffix, filepath.Join(dir, "store.db"+suffix))
	}
}

func blob(data string) []any {
	id := sha256.Sum256([]byte(data))
	return []any{hex.EncodeToString(id[:]), []byte(data)}
}

// loadDump builds an SQLite database from an SQL dump.
func loadDump(t *testing.T, dump, path string) {
	script, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatalf("loading %s: %v", dump, err)
	}
}

// copyInto copies the file or tree src to dst.
func copyInto(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
