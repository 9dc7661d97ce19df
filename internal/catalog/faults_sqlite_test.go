package catalog_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the agents' own databases, written as the agents would

	"paddock/internal/catalog"
	"paddock/internal/session"
	"paddock/internal/testkit/corpus"
)

// hangAfter is how long the checks below wait before calling an answer
// that never came a hang: far above any busy timeout a reader takes.
const hangAfter = 20 * time.Second

// agentDBEnv names the database a helper process holds (TestMain): the
// agent's side of these tests runs in a process of its own, as an agent
// does. Within one process SQLite shares a database's -shm mapping between
// connections, so a writer in the test's own process would inherit the
// read-only mapping of the scanner's connection, and fail to write.
const (
	agentDBEnv     = "PADDOCK_CATALOG_TEST_AGENT_DB"
	agentDBPragmas = "PADDOCK_CATALOG_TEST_AGENT_PRAGMAS"
)

// TestMain doubles as that helper.
func TestMain(m *testing.M) {
	if path := os.Getenv(agentDBEnv); path != "" {
		os.Exit(holdAgentDB(path, os.Getenv(agentDBPragmas)))
	}
	os.Exit(m.Run())
}

// holdAgentDB opens path (with the comma-separated pragmas) on one
// connection and runs what standard input says, a line each: "X stmt"
// executes, "Q query" prints each row's first column as "R value"; each
// answers "ok" or "err message". It closes the connection when standard
// input ends.
func holdAgentDB(path, pragmas string) int {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(5000)"
	for p := range strings.SplitSeq(pragmas, ",") {
		if p != "" {
			dsn += "&_pragma=" + p
		}
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		fmt.Println("err", err)
		return 1
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		fmt.Println("err", err)
		return 1
	}
	defer conn.Close()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		verb, stmt, _ := strings.Cut(in.Text(), " ")
		var err error
		if verb == "Q" {
			var rows *sql.Rows
			if rows, err = conn.QueryContext(ctx, stmt); err == nil {
				for rows.Next() {
					var v string
					if err = rows.Scan(&v); err != nil {
						break
					}
					fmt.Println("R", v)
				}
				if cerr := rows.Close(); err == nil {
					err = cerr
				}
			}
		} else {
			_, err = conn.ExecContext(ctx, stmt)
		}
		if err != nil {
			fmt.Println("err", strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Println("ok")
		}
	}
	return 0
}

// agentDB is an agent's connection to its database, in a process of its
// own (holdAgentDB).
type agentDB struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	once sync.Once
}

// openAgentDB starts the helper on path with the given pragmas
// ("locking_mode(EXCLUSIVE)", "wal_autocheckpoint(0)").
func openAgentDB(t *testing.T, path string, pragmas ...string) *agentDB {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a := &agentDB{cmd: exec.Command(exe)}
	a.cmd.Env = append(os.Environ(), agentDBEnv+"="+path, agentDBPragmas+"="+strings.Join(pragmas, ","))
	a.cmd.Stderr = os.Stderr
	if a.in, err = a.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := a.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	a.out = bufio.NewReader(stdout)
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	return a
}

// send runs one line and returns the rows it printed.
func (a *agentDB) send(t *testing.T, verb, stmt string) []string {
	t.Helper()
	if _, err := fmt.Fprintf(a.in, "%s %s\n", verb, stmt); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for {
		line, err := a.out.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: the agent's connection ended: %v", stmt, err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "ok":
			return rows
		case strings.HasPrefix(line, "R "):
			rows = append(rows, line[2:])
		default:
			t.Fatalf("%s: %s", stmt, line)
		}
	}
}

func (a *agentDB) exec(t *testing.T, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		a.send(t, "X", s)
	}
}

func (a *agentDB) query(t *testing.T, q string) []string {
	t.Helper()
	return a.send(t, "Q", q)
}

// close ends the connection (as the agent exiting would) and waits.
func (a *agentDB) close() {
	a.once.Do(func() {
		a.in.Close()
		_ = a.cmd.Wait()
	})
}

// cloneOpenCodeSession writes, through a, a copy of OpenCode session
// from (its messages and parts) under the id to, updated now: a new
// session as OpenCode would write it.
func cloneOpenCodeSession(t *testing.T, a *agentDB, from, to string) {
	t.Helper()
	now := time.Now().UnixMilli()
	for _, tbl := range []struct{ name, key string }{{"session", "id"}, {"message", "session_id"}, {"part", "session_id"}} {
		var cols, exprs []string
		for _, c := range a.query(t, "SELECT name FROM pragma_table_info('"+tbl.name+"')") {
			e := "`" + c + "`"
			switch {
			case c == "id" && tbl.name == "session", c == "session_id":
				e = "'" + to + "'"
			case c == "id", c == "message_id":
				e = e + " || '-" + to + "'"
			case c == "data":
				e = "replace(data, '" + from + "', '" + to + "')"
			case c == "time_updated" && tbl.name == "session":
				e = fmt.Sprint(now)
			}
			cols = append(cols, "`"+c+"`")
			exprs = append(exprs, e)
		}
		a.exec(t, fmt.Sprintf("INSERT INTO `%s` (%s) SELECT %s FROM `%s` WHERE `%s` = '%s'",
			tbl.name, strings.Join(cols, ", "), strings.Join(exprs, ", "), tbl.name, tbl.key, from))
	}
}

// newClaudeSession writes a new Claude Code session (a copy of one in the
// corpus under a new id) and returns its key.
func newClaudeSession(t *testing.T, p corpus.Paths, n int) session.Key {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(p.Claude(), "projects", "*", "*.jsonl"))
	if len(matches) == 0 {
		t.Fatal("no Claude session in the corpus")
	}
	src := matches[0]
	from := strings.TrimSuffix(filepath.Base(src), ".jsonl")
	to := fmt.Sprintf("fa017000-0000-4000-8000-%012d", n)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeAtomically(filepath.Join(filepath.Dir(src), to+".jsonl"), bytes.ReplaceAll(data, []byte(from), []byte(to))); err != nil {
		t.Fatal(err)
	}
	return session.Key{Runtime: "claude", ID: to}
}

// listed reports whether c lists k.
func listed(c *catalog.Catalog, k session.Key) bool {
	for _, in := range c.List(catalog.Filter{Runtime: k.Runtime}) {
		if in.ID == k.ID {
			return true
		}
	}
	return false
}

// waitListed waits until c lists (or, with want false, no longer lists) k.
func waitListed(t *testing.T, c *catalog.Catalog, k session.Key, want bool, what string) {
	t.Helper()
	deadline := time.Now().Add(hangAfter)
	for listed(c, k) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s listed %v, not %v, after %v", what, k, !want, want, hangAfter)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// answerAll fails unless every call returns within hangAfter; they run
// at once, as the requests of several phones would.
func answerAll(t *testing.T, calls map[string]func()) {
	t.Helper()
	done := make(chan string, len(calls))
	for what, fn := range calls {
		go func() { fn(); done <- what }()
	}
	deadline := time.After(hangAfter)
	for range calls {
		select {
		case what := <-done:
			delete(calls, what)
		case <-deadline:
			var left []string
			for what := range calls {
				left = append(left, what)
			}
			t.Fatalf("no answer within %v: %q", hangAfter, left)
		}
	}
}

// TestFaultAgentDatabase: the agents that keep their history in SQLite
// (OpenCode's opencode.db, Cursor's store.db per chat, Codex's
// state_5.sqlite of thread names) have it locked by another connection,
// or left mid-WAL by a crash, while serve's catalog runs over them.
//
// Locked (exclusive locking mode, or BEGIN EXCLUSIVE with a write
// pending): the board's list keeps every session it had, another agent's
// new session still appears, every conversation of the locked agent is
// answered (read or refused, never waited on for ever), and when the lock
// goes the catalog agrees with a cold scan with no runtime failing — and
// what was written under the lock is listed.
//
// Mid-WAL: rows committed to the -wal and never checkpointed are listed;
// after a crash that left no -shm and a torn frame at the WAL's end, every
// transaction before the tear is listed and the torn one is not.
func TestFaultAgentDatabase(t *testing.T) {
	p, corp, _ := faultHome(t)
	opencodeDB := filepath.Join(p.OpenCode(), "opencode.db")
	codexDB := filepath.Join(p.Codex(), "state_5.sqlite")
	cursorDBs, _ := filepath.Glob(filepath.Join(p.Cursor(), "chats", "*", "*", "store.db"))
	if len(cursorDBs) == 0 {
		t.Fatal("no Cursor store.db in the corpus")
	}
	c := newFaultCatalog(p, true)
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- c.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-ran; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	if err := c.WaitComplete(ctx); err != nil {
		t.Fatal(err)
	}
	opencodeSessions := c.List(catalog.Filter{Runtime: "opencode"})
	if len(opencodeSessions) == 0 {
		t.Fatal("the catalog lists no OpenCode session")
	}
	template := opencodeSessions[0].ID

	// The corpus's OpenCode writer stays open with its rows in the -wal,
	// never checkpointed: the state of a running OpenCode.
	t.Run("uncheckpointed", func(t *testing.T) {
		w := openAgentDB(t, opencodeDB, "wal_autocheckpoint(0)")
		cloneOpenCodeSession(t, w, template, "ses_faultwal1")
		if st, err := os.Stat(opencodeDB + "-wal"); err != nil || st.Size() == 0 {
			t.Fatalf("no frames in the -wal: %v", err)
		}
		waitListed(t, c, session.Key{Runtime: "opencode", ID: "ses_faultwal1"}, true, "a session only in the -wal")
		agreeWithColdScan(t, c, p)
		w.close()
	})

	// Exclusive locking mode set at the open keeps no -shm (the WAL index
	// lives in the locker's memory); set after a first read it keeps the
	// -shm the others read through, and holds the file lock all the same.
	fromOpen := []string{"PRAGMA locking_mode=EXCLUSIVE"}
	besideSidecars := []string{"SELECT count(*) FROM sqlite_master", "PRAGMA locking_mode=EXCLUSIVE"}
	locks := []struct {
		name, path string
		runtime    string
		prelude    []string // run before BEGIN EXCLUSIVE
		// write is what the lock's transaction writes; listedAfter is a
		// session it adds, "" when none.
		write       func(t *testing.T, a *agentDB)
		listedAfter string
	}{
		{"opencode exclusive", opencodeDB, "opencode", fromOpen,
			func(t *testing.T, a *agentDB) { cloneOpenCodeSession(t, a, template, "ses_faultlock1") }, "ses_faultlock1"},
		{"opencode exclusive beside its sidecars", opencodeDB, "opencode", besideSidecars,
			func(t *testing.T, a *agentDB) { cloneOpenCodeSession(t, a, template, "ses_faultlock2") }, "ses_faultlock2"},
		{"codex exclusive", codexDB, "codex", fromOpen,
			func(t *testing.T, a *agentDB) { a.exec(t, "UPDATE threads SET name = name || ' (renamed)'") }, ""},
		{"codex exclusive beside its sidecars", codexDB, "codex", besideSidecars,
			func(t *testing.T, a *agentDB) { a.exec(t, "UPDATE threads SET name = name || ' (again)'") }, ""},
		{"cursor begin exclusive", cursorDBs[0], "cursor", nil,
			func(t *testing.T, a *agentDB) { a.exec(t, "INSERT INTO blobs (id, data) VALUES ('fault', x'00')") }, ""},
	}
	// A second writer of OpenCode's database: the corpus's own lets go
	// first (its -wal and -shm go with it), as one OpenCode ends and
	// another starts.
	if err := corp.Close(); err != nil {
		t.Fatal(err)
	}
	for n, lk := range locks {
		t.Run(lk.name, func(t *testing.T) {
			before := c.List(catalog.Filter{})
			a := openAgentDB(t, lk.path)
			a.exec(t, lk.prelude...)
			a.exec(t, "BEGIN EXCLUSIVE")
			lk.write(t, a)

			other := newClaudeSession(t, p, n)
			waitListed(t, c, other, true, "another agent's new session while "+lk.runtime+"'s database is locked")
			for _, in := range before {
				if !listed(c, in.Key()) {
					t.Errorf("%s dropped from the list while %s's database is locked", in.Key(), lk.runtime)
				}
			}
			// Read or refused, each page's question is answered: the
			// whole conversation, past the caches too, and the newest.
			calls := map[string]func(){}
			for _, in := range c.List(catalog.Filter{Runtime: lk.runtime}) {
				k := in.Key()
				calls["conversation of "+k.String()] = func() { _, _ = c.Messages(t.Context(), k) }
				calls["conversation of "+k.String()+", read anew"] = func() { _, _ = c.ReadConversation(t.Context(), k) }
				calls["newest messages of "+k.String()] = func() { _, _, _ = c.RecentMessages(t.Context(), k, 3) }
			}
			answerAll(t, calls)

			a.exec(t, "COMMIT")
			a.close()
			if lk.listedAfter != "" {
				waitListed(t, c, session.Key{Runtime: lk.runtime, ID: lk.listedAfter}, true, "the session written under the lock")
			}
			agreeWithColdScan(t, c, p)
			if errs := c.Errors(); len(errs) > 0 {
				t.Fatalf("runtimes still failing after the lock went: %+v", errs)
			}
		})
	}

	// A crash mid-WAL: OpenCode died with two transactions in its -wal,
	// no -shm, and the last frame torn (cut short, or followed by half a
	// frame of garbage that was being written).
	tears := []struct {
		name     string
		tear     func(wal []byte, frame int) []byte
		lastKept bool
	}{
		{"torn after the last commit", func(wal []byte, frame int) []byte {
			return append(wal, bytes.Repeat([]byte{0xa5}, frame/2)...)
		}, true},
		{"torn inside the last commit", func(wal []byte, frame int) []byte { return wal[:len(wal)-frame/2] }, false},
	}
	for n, tr := range tears {
		t.Run(tr.name, func(t *testing.T) {
			first, last := fmt.Sprintf("ses_faulttorn%da", n), fmt.Sprintf("ses_faulttorn%db", n)
			db, wal, frame := crashedWAL(t, opencodeDB, template, first, last)
			wal = tr.tear(wal, frame)
			for _, f := range []string{opencodeDB + "-shm", opencodeDB + "-wal"} {
				if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
			if err := writeAtomically(opencodeDB+"-wal", wal); err != nil {
				t.Fatal(err)
			}
			if err := writeAtomically(opencodeDB, db); err != nil {
				t.Fatal(err)
			}
			waitListed(t, c, session.Key{Runtime: "opencode", ID: first}, true, "a transaction before the tear")
			agreeWithColdScan(t, c, p)
			if got := listed(c, session.Key{Runtime: "opencode", ID: last}); got != tr.lastKept {
				t.Fatalf("the last transaction listed %v, want %v", got, tr.lastKept)
			}
			if errs := c.Errors(); len(errs) > 0 {
				t.Fatalf("runtimes failing: %+v", errs)
			}
		})
	}
}

// crashedWAL builds, beside the agent's database (in a directory of the
// test's own), the files an OpenCode killed with two transactions in its
// -wal leaves: the database, and the -wal holding a session first, then a
// session last. It returns their bytes and the WAL's frame size.
func crashedWAL(t *testing.T, path, template, first, last string) (db, wal []byte, frame int) {
	t.Helper()
	stage := filepath.Join(t.TempDir(), "opencode.db")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stage, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	w := openAgentDB(t, stage, "journal_mode(WAL)", "wal_autocheckpoint(0)")
	// The copy's -wal starts empty: the crash leaves only the two new
	// transactions in it.
	w.exec(t, "PRAGMA wal_checkpoint(TRUNCATE)")
	if db, err = os.ReadFile(stage); err != nil {
		t.Fatal(err)
	}
	page, err := strconv.Atoi(w.query(t, "PRAGMA page_size")[0])
	if err != nil {
		t.Fatal(err)
	}
	cloneOpenCodeSession(t, w, template, first)
	cloneOpenCodeSession(t, w, template, last)
	// Read while the writer is still open: closing it would checkpoint.
	if wal, err = os.ReadFile(stage + "-wal"); err != nil {
		t.Fatal(err)
	}
	w.close()
	return db, wal, page + 24
}
