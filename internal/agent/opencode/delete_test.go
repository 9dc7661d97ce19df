package opencode

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/history/historytest"
	"paddock/internal/procscan"
	"paddock/internal/session"
	"paddock/internal/testkit/agentenv"
	"paddock/internal/testkit/agenttest"
)

// TestDeleteRefuses: a session a process holds (a TUI on it with -s, a
// `run -s`, PADDOCK_SESSION_ID), an unknown id, no process list and no
// opencode command all leave the database exactly as it was.
func TestDeleteRefuses(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	w := newDB(t, dbDir)
	w.chat(sess{id: "ses_a", dir: cwd, created: t0}, "hello", "hi")
	w.Close()
	before := historytest.TreeState(t, dbDir)

	procs := func(list ...procscan.AgentProcess) func(context.Context) ([]procscan.AgentProcess, error) {
		return func(context.Context) ([]procscan.AgentProcess, error) { return list, nil }
	}
	started := time.Now().Add(-time.Hour)
	cases := []struct {
		name  string
		procs func(context.Context) ([]procscan.AgentProcess, error)
		bin   string
		id    string
		want  error  // errors.Is
		msg   string // in the error
	}{
		{name: "tui -s", procs: procs(tui(100, cwd, started, "opencode", "-s", "ses_a")), id: "ses_a", want: session.ErrLive},
		{name: "run -s", procs: procs(noTTY(tui(101, cwd, started, "opencode", "run", "-s", "ses_a", "go on"))), id: "ses_a", want: session.ErrLive},
		{name: "env", procs: procs(noTTY(withEnv(tui(102, t.TempDir(), started, "opencode", "run", "x"), "ses_a"))), id: "ses_a", want: session.ErrLive},
		{name: "unknown", id: "ses_b", want: session.ErrNotFound},
		{name: "bad id", id: "../ses_a", want: session.ErrNotFound},
		{name: "no process list", id: "ses_a", msg: "cannot list processes",
			procs: func(context.Context) ([]procscan.AgentProcess, error) { return nil, errors.New("no /proc") }},
		{name: "no opencode", id: "ses_a", bin: filepath.Join(t.TempDir(), "opencode"), msg: "only through `opencode session delete`"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{DataDir: dbDir, Processes: tc.procs, Bin: tc.bin})
			err := s.Delete(context.Background(), tc.id)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Delete(%s) = %v, want %v %q", tc.id, err, tc.want, tc.msg)
			}
			historytest.SameTree(t, before, historytest.TreeState(t, dbDir))
		})
	}
}

// TestDeleteWithOpenCode deletes through the real `opencode session
// delete` (pinned 1.18.33) on copies: a session of the recorded database
// in the data directory, then one of a second database ($OPENCODE_DB's,
// in ExtraDBs). Each time the session is gone (Scan, Session, Events),
// the other sessions read exactly as before, and nothing but the one
// database (and OpenCode's own log, config and state) changed. A missing
// CLI skips (fails under E2E_REQUIRED=1).
func TestDeleteWithOpenCode(t *testing.T) {
	bin := agenttest.Bin(t, agentenv.OpenCode)
	root := t.TempDir()
	// OpenCode's own config, state, cache and log go to the test's HOME.
	home := filepath.Join(root, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	for k, v := range map[string]string{"XDG_CONFIG_HOME": ".config", "XDG_STATE_HOME": ".local/state", "XDG_CACHE_HOME": ".cache"} {
		t.Setenv(k, filepath.Join(home, v))
	}
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local/share"))
	t.Setenv("OPENCODE_DISABLE_MODELS_FETCH", "1")

	data := filepath.Join(root, "data", "opencode")
	copyTree(t, filepath.Join(repoRoot(t), "testdata", "opencode-1.18.33", "opencode"), data)
	hooks := recordedHooks(t, filepath.Join(repoRoot(t), "testdata", "opencode-1.18.33", "hooks.jsonl"))
	chat, tools := hooks[0].id, hooks[1].id
	cwd := t.TempDir()
	extraDir := filepath.Join(root, "extra")
	w := newDB(t, extraDir)
	markMigrated(t, w)
	w.chat(sess{id: "ses_x", dir: cwd, created: t0}, "in the other database", "ok")
	w.chat(sess{id: "ses_y", dir: cwd, created: t0.Add(time.Minute)}, "stays", "ok")
	w.Close()
	extra := filepath.Join(extraDir, "opencode.db")

	s := New(Options{DataDir: data, ExtraDBs: []string{extra}, Bin: bin, KeepMissingCwd: true,
		Processes: func(context.Context) ([]procscan.AgentProcess, error) { return nil, nil }})
	s.settle = 0 // cache every Scan: Delete must drop it
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()

	// OpenCode's own files: the database it deletes from (and so its
	// directory's mtime, as SQLite adds -wal and -shm), and what it writes
	// of itself (config, state, its data directory's log/ and repos/).
	// Every -shm is a shared-memory index readers write too.
	own := func(db string) historytest.Tree {
		return historytest.Tree{
			Omit: func(p string) bool {
				return p == data || p == filepath.Dir(db) || strings.HasPrefix(p, db) || strings.HasPrefix(p, home) ||
					strings.HasPrefix(p, filepath.Join(data, "log")) || strings.HasPrefix(p, filepath.Join(data, "repos"))
			},
			PresenceOnly: func(p string) bool { return strings.HasSuffix(p, "-shm") },
		}
	}
	events := func(ids ...string) map[string][]session.Event {
		out := map[string][]session.Event{}
		for _, id := range ids {
			evs, err := s.Events(ctx, id)
			if err != nil {
				t.Fatalf("Events(%s): %v", id, err)
			}
			out[id] = evs
		}
		return out
	}
	listed := func() []string {
		infos, err := s.Scan(ctx, 50, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := ids(infos)
		slices.Sort(got)
		return got
	}
	gone := func(id string) {
		t.Helper()
		if _, err := s.Session(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%s) after Delete = %v", id, err)
		}
		if _, err := s.Events(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Events(%s) after Delete = %v", id, err)
		}
		if err := s.Delete(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Delete(%s) again = %v", id, err)
		}
	}

	for _, step := range []struct {
		id, db string
		keep   []string
	}{
		{chat, filepath.Join(data, "opencode.db"), []string{"ses_x", "ses_y", tools}},
		{"ses_x", extra, []string{"ses_y", tools}},
	} {
		all := append([]string{step.id}, step.keep...)
		slices.Sort(all)
		if got := listed(); !slices.Equal(got, all) {
			t.Fatalf("before deleting %s: Scan = %v, want %v", step.id, got, all)
		}
		kept := events(step.keep...)
		tree := own(step.db)
		before := tree.State(t, root)

		start := time.Now()
		if err := s.Delete(ctx, step.id); err != nil {
			t.Fatalf("Delete(%s): %v", step.id, err)
		}
		t.Logf("deleted %s in %s", step.id, time.Since(start).Round(time.Millisecond))

		if got, want := listed(), slices.Sorted(slices.Values(step.keep)); !slices.Equal(got, want) {
			t.Errorf("after deleting %s: Scan = %v, want %v", step.id, got, want)
		}
		gone(step.id)
		for id, evs := range events(step.keep...) {
			if !slices.Equal(evs, kept[id]) {
				t.Errorf("after deleting %s: %s's events changed:\n%q\nwas\n%q", step.id, id, eventLines(evs), eventLines(kept[id]))
			}
		}
		historytest.SameTree(t, before, tree.State(t, root))
		if _, err := os.Stat(step.db); err != nil {
			t.Errorf("the database itself must stay: %v", err)
		}
	}
}

// markMigrated records OpenCode's migrations as done in a database made
// with realSchema (the recording's own rows), so OpenCode opens it as its
// own instead of creating the tables again.
func markMigrated(tb testing.TB, w *writer) {
	tb.Helper()
	db, err := sql.Open("sqlite", recordingDSN(recordedDB(tb)))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT id, time_completed FROM migration")
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var done int64
		if err := rows.Scan(&id, &done); err != nil {
			tb.Fatal(err)
		}
		w.exec("INSERT INTO migration (id, time_completed) VALUES (?, ?)", id, done)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
}
