package catalog_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/agent"
	"paddock/internal/agent/registry"
	"paddock/internal/catalog"
	"paddock/internal/procscan"
	"paddock/internal/session"
	"paddock/internal/testkit/corpus"
)

// faultSteps is how many faults each case of TestFaultHistoryFilesMidScan
// makes: PADDOCK_FAULT_STEPS, 60 by default (CI); the full scale is 1000:
//
//	PADDOCK_FAULT_STEPS=1000 go test -race -count=1 \
//	    -run '^TestFaultHistoryFilesMidScan$' ./internal/catalog
func faultSteps(t *testing.T) int {
	n := 60
	if v := os.Getenv("PADDOCK_FAULT_STEPS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("PADDOCK_FAULT_STEPS=%q: a count of faults", v)
		}
	}
	return n
}

// historyFile is one session's history file, what it held, and what
// replaces it: another session's history rewritten to this one's id.
type historyFile struct {
	path          string
	orig, variant []byte
}

// faultHome writes a small corpus of every agent's history under a new
// HOME, points the agents' variables at it, and returns the history files
// of the agents that keep one file per session (the SQLite ones are
// TestFaultAgentDatabase's).
func faultHome(t *testing.T) (corpus.Paths, *corpus.Corpus, []*historyFile) {
	t.Helper()
	home := t.TempDir()
	corp, _, err := corpus.Generate(home, corpus.Options{Sessions: 24, Big: -1, Marked: 1, Testdata: "../../testdata"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = corp.Close() })
	p := corpus.Paths{Home: home}
	for k, v := range map[string]string{
		"HOME": home, "CODEX_HOME": p.Codex(), "KIMI_CODE_HOME": p.Kimi(), "XDG_DATA_HOME": p.XDGData(),
		"OPENCODE_DATA_DIR": p.OpenCode(), "PI_CODING_AGENT_DIR": p.Pi(), "CURSOR_CONFIG_DIR": p.Cursor(),
		"CLAUDE_CONFIG_DIR": "", "CODEX_SQLITE_HOME": "", "KIMI_SHARE_DIR": "", "OPENCODE_DB": "",
	} {
		t.Setenv(k, v)
		if v == "" {
			os.Unsetenv(k)
		}
	}
	var files []*historyFile
	dirs := map[string]string{"claude": p.Claude(), "codex": p.Codex(), "kimi": p.Kimi(), "pi": p.Pi()}
	for rt, dir := range dirs {
		var paths []string
		ids := corp.Newest[rt]
		for _, id := range ids {
			path := findHistory(t, dir, id)
			paths = append(paths, path)
		}
		for i, path := range paths {
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The neighbour comes from the other recording: other text.
			j := (i + 1) % len(paths)
			other, err := os.ReadFile(paths[j])
			if err != nil {
				t.Fatal(err)
			}
			variant := bytes.ReplaceAll(other, []byte(ids[j]), []byte(ids[i]))
			if bytes.Equal(variant, orig) {
				t.Fatalf("%s: its variant is the same history", path)
			}
			files = append(files, &historyFile{path: path, orig: orig, variant: variant})
		}
	}
	if len(files) < 8 {
		t.Fatalf("%d history files in the corpus", len(files))
	}
	return p, corp, files
}

// findHistory is the one history file (JSONL) under dir whose path
// names id.
func findHistory(t *testing.T, dir, id string) string {
	t.Helper()
	var found []string
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") && strings.Contains(path, id) {
			found = append(found, path)
		}
		return nil
	})
	if len(found) != 1 {
		t.Fatalf("history of %s: %q", id, found)
	}
	return found[0]
}

func noProcesses(context.Context) ([]procscan.AgentProcess, error) { return nil, nil }

// newFaultCatalog is serve's catalog over the agents' files at p, every
// scanner paddock ships, with a sweep fast enough to run into the faults.
func newFaultCatalog(p corpus.Paths, watch bool) *catalog.Catalog {
	scanners := registry.Default().Scanners(agent.Env{Processes: noProcesses}, map[string]string{"claude-dir": p.Claude()})
	return catalog.New(catalog.Options{
		SweepInterval: 15 * time.Millisecond, FullSweepInterval: 30 * time.Millisecond, Debounce: 5 * time.Millisecond,
		DisableWatch: !watch, FirstLook: -1,
	}, scanners...)
}

// writeAtomically replaces path with data the way editors and log
// rotators do: a temporary file renamed over it.
func writeAtomically(path string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// TestFaultHistoryFilesMidScan breaks the agents' history files while the
// catalog watches, sweeps and serves them: each case truncates, rotates
// (renamed away, a new file written in its place), replaces (a new file
// renamed over it) or makes unreadable a random file, over and over, with
// readers asking for the list and the conversations all along. Then:
// nothing panicked, the catalog agrees with a cold scan of what is on disk
// now (every session shows its file's new content or is gone: no stale
// phantom), its conversations are the files' current ones, and when it
// stops no goroutine of it is left.
func TestFaultHistoryFilesMidScan(t *testing.T) {
	steps := faultSteps(t)
	// Unreadable three ways: a link to nowhere (listed, never opened), a
	// directory in its place (stat-ed, never read) and, unless the test
	// runs as root (CI does), whom chmod cannot stop, mode 000.
	ways := []func(path string) error{
		func(path string) error { return os.Symlink(path+".gone", path) },
		func(path string) error { return os.Mkdir(path, 0o755) },
	}
	unreadableHow := "a dangling symlink or a directory in its place (chmod 000 does not stop root)"
	if os.Geteuid() != 0 {
		ways = append(ways, func(path string) error { return os.WriteFile(path, nil, 0) })
		unreadableHow = "a dangling symlink, a directory in its place or mode 000"
	}
	unreadable := func(f *historyFile, rng *rand.Rand) error {
		if err := os.RemoveAll(f.path); err != nil {
			return err
		}
		return ways[rng.IntN(len(ways))](f.path)
	}
	cases := []struct {
		name  string
		fault func(f *historyFile, rng *rand.Rand) error
	}{
		{"truncated", func(f *historyFile, rng *rand.Rand) error {
			st, err := os.Stat(f.path)
			if err != nil {
				return err
			}
			return os.Truncate(f.path, rng.Int64N(st.Size()+1))
		}},
		{"rotated", func(f *historyFile, rng *rand.Rand) error {
			if err := os.Rename(f.path, f.path+".1"); err != nil {
				return err
			}
			// Written in place, not renamed: a scan may see it half written.
			return os.WriteFile(f.path, [][]byte{f.orig, f.variant}[rng.IntN(2)], 0o644)
		}},
		{"replaced", func(f *historyFile, rng *rand.Rand) error {
			return writeAtomically(f.path, [][]byte{f.orig, f.variant}[rng.IntN(2)])
		}},
		{"unreadable", unreadable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "unreadable" {
				t.Logf("unreadable: %s", unreadableHow)
			}
			p, _, files := faultHome(t)
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
			before := catalogGoroutines()
			c := newFaultCatalog(p, true)
			ctx, cancel := context.WithCancel(t.Context())
			ran := make(chan error, 1)
			go func() { ran <- c.Run(ctx) }()
			if err := c.WaitComplete(ctx); err != nil {
				t.Fatal(err)
			}
			if len(c.List(catalog.Filter{})) < len(files) {
				t.Fatalf("the catalog lists %d sessions before any fault", len(c.List(catalog.Filter{})))
			}

			readCtx, stopReading := context.WithCancel(ctx)
			var readers sync.WaitGroup
			for range 2 {
				readers.Go(func() { readAll(readCtx, c) })
			}
			faulted := make([]bool, len(files))
			for range steps {
				i := rng.IntN(len(files))
				f := files[i]
				var err error
				if faulted[i] && rng.IntN(2) == 0 {
					// Back to health: whatever the fault left, a whole file.
					_ = os.RemoveAll(f.path)
					err = writeAtomically(f.path, [][]byte{f.orig, f.variant}[rng.IntN(2)])
					faulted[i] = false
				} else if !faulted[i] || tc.name != "unreadable" {
					err = tc.fault(f, rng)
					faulted[i] = true
				}
				if err != nil {
					t.Fatalf("%s %s: %v", tc.name, f.path, err)
				}
				time.Sleep(time.Duration(rng.IntN(12)) * time.Millisecond)
			}
			stopReading()
			readers.Wait()

			settled := agreeWithColdScan(t, c, p)
			t.Logf("%d faults: the catalog agreed with a cold scan within %v of the last", steps, settled.Round(time.Millisecond))

			cancel()
			select {
			case err := <-ran:
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Run did not return within 10 s of its context's end")
			}
			waitNoLeak(t, before)
		})
	}
}

// readAll asks for what a board and a session page ask for, over and
// over, until ctx ends; errors are answers (a file may be gone), a panic
// is not.
func readAll(ctx context.Context, c *catalog.Catalog) {
	for ctx.Err() == nil {
		for _, info := range c.List(catalog.Filter{}) {
			k := info.Key()
			_, _ = c.Get(ctx, k)
			_, _ = c.Messages(ctx, k)
			_, _, _ = c.RecentMessages(ctx, k, 3)
			if ctx.Err() != nil {
				return
			}
		}
	}
}

// agreeWithColdScan waits until c lists what a new catalog's first scan
// of the same files lists, with the same conversations, and fails if that
// does not happen within a few sweeps; it returns how long it took.
func agreeWithColdScan(t *testing.T, c *catalog.Catalog, p corpus.Paths) time.Duration {
	t.Helper()
	start := time.Now()
	var last string
	for time.Since(start) < 15*time.Second {
		cold := newFaultCatalog(p, false)
		cold.Rescan(t.Context())
		diff := catalogDiff(t, c, cold)
		if diff == "" {
			return time.Since(start)
		}

		last = diff
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the catalog never agreed with a cold scan of the files; last difference:\n%s", last)
	return 0
}

// catalogDiff says how live and cold differ: their lists, their failing
// runtimes, each session's conversation and its newest messages.
func catalogDiff(t *testing.T, live, cold *catalog.Catalog) string {
	t.Helper()
	var out strings.Builder
	if a, b := live.Errors(), cold.Errors(); !slices.Equal(a, b) {
		fmt.Fprintf(&out, "failing runtimes: live %+v, cold %+v\n", a, b)
	}
	byKey := func(l []session.Info) map[session.Key]session.Info {
		m := map[session.Key]session.Info{}
		for _, in := range l {
			m[in.Key()] = in
		}
		return m
	}
	lv, cv := byKey(live.List(catalog.Filter{})), byKey(cold.List(catalog.Filter{}))
	for k, in := range lv {
		c, ok := cv[k]
		switch {
		case !ok:
			fmt.Fprintf(&out, "%s: listed, but no file holds it (a phantom): %+v\n", k, in)
		case !sameInfo(in, c):
			fmt.Fprintf(&out, "%s: stale\n  live %+v\n  cold %+v\n", k, in, c)
		}
	}
	for k := range cv {
		if _, ok := lv[k]; !ok {
			fmt.Fprintf(&out, "%s: on disk, not listed\n", k)
		}
	}
	if out.Len() > 0 {
		return out.String()
	}
	for k := range cv {
		want, werr := cold.ReadConversation(t.Context(), k)
		got, gerr := live.Messages(t.Context(), k)
		if (werr == nil) != (gerr == nil) || !slices.Equal(got, want) {
			fmt.Fprintf(&out, "%s: conversation of %d messages (%v), the file's has %d (%v)\n", k, len(got), gerr, len(want), werr)
			continue
		}
		recent, _, err := live.RecentMessages(t.Context(), k, 3)
		if err != nil || !slices.Equal(recent, want[max(len(want)-3, 0):]) {
			fmt.Fprintf(&out, "%s: newest messages %d (%v), not the file's last 3\n", k, len(recent), err)
		}
	}
	return out.String()
}

// sameInfo compares two listings of a session, times as instants.
func sameInfo(a, b session.Info) bool {
	if !a.Created.Equal(b.Created) || !a.Updated.Equal(b.Updated) {
		return false
	}
	a.Created, a.Updated = b.Created, b.Updated
	return a == b
}

// catalogGoroutines counts the goroutines running paddock's code (the
// catalog's and its scanners'), this test's own aside.
func catalogGoroutines() int {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 2)
	n := 0
	for g := range strings.SplitSeq(buf.String(), "\n\n") {
		if strings.Contains(g, "paddock/internal/") && !strings.Contains(g, "catalog_test.") {
			n++
		}
	}
	return n
}

// waitNoLeak waits until no more goroutines run paddock's code than
// before, and fails with their stacks if some stay.
func waitNoLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for catalogGoroutines() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines of the catalog left after Run returned:\n%s", buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
