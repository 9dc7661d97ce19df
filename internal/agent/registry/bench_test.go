package registry

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"time"

	"paddock/internal/agent"
	"paddock/internal/catalog"
	"paddock/internal/export"
	"paddock/internal/procscan"
	"paddock/internal/session"
	"paddock/internal/testkit/corpus"
)

const (
	benchSessions = 10_000   // the mixed corpus, over all six runtimes
	benchLimit    = 50       // scan_all(50): sessions per runtime
	previewSize   = 50 << 20 // the grown JSONL sessions
)

// benchRoot holds what the benchmarks build once per test binary (10,000
// sessions and four 50 MB files take seconds to write); TestMain removes
// it.
var benchRoot struct {
	mu  sync.Mutex
	dir string

	corpusBuilt bool
	corpus      *corpus.Corpus
	corpusErr   error

	previewBuilt bool
	big, one     map[string]corpus.Preview
	previewErr   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if c := benchRoot.corpus; c != nil {
		c.Close()
	}
	if benchRoot.dir != "" {
		os.RemoveAll(benchRoot.dir)
	}
	os.Exit(code)
}

// benchDir returns the package's scratch directory, made on first use.
// Callers hold benchRoot.mu.
func benchDir() (string, error) {
	if benchRoot.dir == "" {
		dir, err := os.MkdirTemp("", "paddock-runtimes-bench-")
		if err != nil {
			return "", err
		}
		benchRoot.dir = dir
	}
	return benchRoot.dir, nil
}

// benchCorpus is the 10,000-session HOME, built on first use.
func benchCorpus(b *testing.B) *corpus.Corpus {
	b.Helper()
	benchRoot.mu.Lock()
	defer benchRoot.mu.Unlock()
	if !benchRoot.corpusBuilt {
		benchRoot.corpusBuilt = true
		dir, err := benchDir()
		if err == nil {
			benchRoot.corpus, err = corpus.Write(filepath.Join(dir, "home"), corpus.Split(benchSessions))
		}
		benchRoot.corpusErr = err
	}
	if benchRoot.corpusErr != nil {
		b.Fatal(benchRoot.corpusErr)
	}
	return benchRoot.corpus
}

// benchPreview is the HOME with the grown sessions, built on first use.
func benchPreview(b *testing.B) (home string, big, one map[string]corpus.Preview) {
	b.Helper()
	benchRoot.mu.Lock()
	defer benchRoot.mu.Unlock()
	dir, err := benchDir()
	if err != nil {
		b.Fatal(err)
	}
	home = filepath.Join(dir, "preview")
	if !benchRoot.previewBuilt {
		benchRoot.previewBuilt = true
		benchRoot.big, benchRoot.one, benchRoot.previewErr = corpus.WritePreview(corpus.Paths{Home: home}, previewSize)
	}
	if benchRoot.previewErr != nil {
		b.Fatal(benchRoot.previewErr)
	}
	return home, benchRoot.big, benchRoot.one
}

// useHome points every scanner at home: the agents' own variables are set
// to the directories under it, and the ones that would point elsewhere
// are cleared.
func useHome(tb testing.TB, home string) {
	tb.Helper()
	p := corpus.Paths{Home: home}
	for k, v := range map[string]string{
		"HOME":                home,
		"CODEX_HOME":          p.Codex(),
		"KIMI_CODE_HOME":      p.Kimi(),
		"XDG_DATA_HOME":       p.XDGData(),
		"OPENCODE_DATA_DIR":   p.OpenCode(),
		"PI_CODING_AGENT_DIR": p.Pi(),
		"CURSOR_CONFIG_DIR":   p.Cursor(),
	} {
		tb.Setenv(k, v)
	}
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_SQLITE_HOME", "KIMI_SHARE_DIR", "OPENCODE_DB"} {
		tb.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
}

// noProcesses is a process table with no agent in it: the benchmarks
// measure the history files, not a walk of /proc (which runtimes.New
// would otherwise share among the scanners).
func noProcesses(context.Context) ([]procscan.AgentProcess, error) { return nil, nil }

// scanners are every agent's scanner with Claude's directory at
// claudeDir and the process list procs, as serve builds them.
func scanners(claudeDir string, procs func(context.Context) ([]procscan.AgentProcess, error)) []catalog.Scanner {
	return Default().Scanners(agent.Env{Processes: procs}, map[string]string{"claude-dir": claudeDir})
}

// newCatalog builds the six scanners over home (as serve does, through
// New) and a catalog over them, without its watcher.
func newCatalog(home string, limit int) *catalog.Catalog {
	return catalog.New(catalog.Options{Limit: limit, DisableWatch: true}, scanners(corpus.Paths{Home: home}.Claude(), noProcesses)...)
}

// checkNewest fails unless every runtime lists exactly its n newest
// sessions of the corpus, and none failed.
func checkNewest(tb testing.TB, c *catalog.Catalog, corp *corpus.Corpus, n int) {
	tb.Helper()
	if errs := c.Errors(); len(errs) > 0 {
		tb.Fatalf("runtimes failed: %+v", errs)
	}
	for _, rt := range corpus.Runtimes() {
		var got []string
		for _, info := range c.List(catalog.Filter{Runtime: rt}) {
			got = append(got, info.ID)
		}
		want := slices.Clone(corp.Newest[rt][:n])
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			tb.Fatalf("%s lists %d sessions, not its %d newest:\n got %v\nwant %v", rt, len(got), n, got, want)
		}
	}
}

// BenchmarkScanAll is scan_all(50) over the mixed corpus: 10,000 sessions
// copied from the real recordings of all six runtimes (Cursor synthetic),
// the newest 50 of each listed. "cold" builds the scanners and catalog
// afresh and rescans once per iteration (paddock's first scan after
// start); "unchanged" is the periodic sweep of a running catalog (its
// watcher up, the process fingerprints of the shared snapshot) whose files
// did not change; "unchanged-rescan" forces every runtime to scan again
// (Rescan: what every sweep did before the catalog trusted its watcher).
// No process table is walked (noProcesses).
func BenchmarkScanAll(b *testing.B) {
	corp := benchCorpus(b)
	useHome(b, corp.Home)
	ctx := context.Background()
	b.Run("cold", func(b *testing.B) {
		var c *catalog.Catalog
		for b.Loop() {
			c = newCatalog(corp.Home, benchLimit)
			c.Rescan(ctx)
		}
		checkNewest(b, c, corp, benchLimit)
	})
	// paddock's default: every session listed, each one's head and tail
	// read once (then cached by signature).
	b.Run("cold-every", func(b *testing.B) {
		var c *catalog.Catalog
		for b.Loop() {
			c = newCatalog(corp.Home, 0)
			c.Rescan(ctx)
		}
		b.ReportMetric(float64(len(c.All())), "sessions")
	})
	b.Run("unchanged-rescan-every", func(b *testing.B) {
		c := newCatalog(corp.Home, 0)
		c.Rescan(ctx)
		for b.Loop() {
			c.Rescan(ctx)
		}
	})
	for _, sweep := range []struct {
		name  string
		procs func(context.Context) ([]procscan.AgentProcess, error)
	}{
		{"unchanged", noProcesses},
		// The same sweep with this machine's real process table walked
		// each time (no snapshot reuse), as a sweep in paddock does.
		{"unchanged-proc", Default().Processes().Agents},
	} {
		b.Run(sweep.name, func(b *testing.B) { benchSweep(b, corp, sweep.procs) })
	}
	b.Run("unchanged-rescan", func(b *testing.B) {
		c := newCatalog(corp.Home, benchLimit)
		c.Rescan(ctx)
		checkNewest(b, c, corp, benchLimit)
		for b.Loop() {
			c.Rescan(ctx)
		}
		checkNewest(b, c, corp, benchLimit)
	})
}

// benchSweep times Sweep on a running catalog whose files do not change.
// Its fingerprint is never reused (ttl 0): periodic sweeps are 5 s apart,
// longer than paddock's one-second reuse, so each walks the process table.
func benchSweep(b *testing.B, corp *corpus.Corpus, procs func(context.Context) ([]procscan.AgentProcess, error)) {
	ctx := context.Background()
	c := catalog.New(catalog.Options{Limit: benchLimit, SweepInterval: time.Hour,
		ProcessFingerprint: procscan.Fingerprints(procs, procscan.OpenFiles, 0, Default().HoldsHistoryOpen)}, scanners(corpus.Paths{Home: corp.Home}.Claude(), procs)...)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Run(runCtx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}()
	if err := c.WaitLoaded(ctx); err != nil {
		b.Fatal(err)
	}
	checkNewest(b, c, corp, benchLimit)
	for b.Loop() {
		c.Sweep(ctx)
	}
	checkNewest(b, c, corp, benchLimit)
}

// BenchmarkPreview50MB is the session page's read of a 50 MB JSONL
// session, per JSONL runtime: a recorded session grown by repeating its
// real turns (grow_test.go). Each iteration is a new catalog and new
// scanners, so no cache answers: catalog.Messages finds the session
// (Scanner.Session) and reads its whole conversation.
func BenchmarkPreview50MB(b *testing.B) {
	home, big, one := benchPreview(b)
	useHome(b, home)
	ctx := context.Background()
	for _, rt := range []string{"claude", "codex", "pi", "kimi"} {
		s, single := big[rt], one[rt]
		st, err := os.Stat(s.Path)
		if err != nil {
			b.Fatal(err)
		}
		perCopy, err := newCatalog(home, benchLimit).Messages(ctx, session.Key{Runtime: rt, ID: single.ID})
		if err != nil || len(perCopy) == 0 {
			b.Fatalf("%s: one copy has %d messages, %v", rt, len(perCopy), err)
		}
		b.Run(rt, func(b *testing.B) {
			var msgs []session.Message
			for b.Loop() {
				msgs, err = newCatalog(home, benchLimit).Messages(ctx, session.Key{Runtime: rt, ID: s.ID})
				if err != nil {
					b.Fatal(err)
				}
			}
			if want := s.Copies * len(perCopy); len(msgs) != want {
				b.Fatalf("%d messages, want %d (%d copies of %d)", len(msgs), want, s.Copies, len(perCopy))
			}
			b.ReportMetric(float64(st.Size())/(1<<20), "MB")
			b.ReportMetric(float64(len(msgs)), "msgs")
		})
	}
}

// firstPageSize is the session page's page (web's pageSize): what it
// asks RecentMessages for on its first render.
const firstPageSize = 50

// BenchmarkFirstPage50MB is what the session page does first for the same
// 50 MB sessions as BenchmarkPreview50MB: catalog.RecentMessages for its
// first page, on a new catalog and new scanners each iteration, so no
// conversation cache answers. A runtime whose scanner is a
// catalog.TailReader reads the end of the file; the others parse it whole.
// The page must be the last page of the full parse.
//
//   - unlisted: as BenchmarkPreview50MB, the catalog has not scanned, so
//     its Get goes through Scanner.Session (a bookmarked session too old
//     for the list).
//   - listed: the catalog has scanned (outside the timer), as when the
//     page is opened from the board. Its scanners are made once and kept
//     across iterations, as in a running paddock, so that scan is cheap;
//     none of them keeps conversations or tails.
func BenchmarkFirstPage50MB(b *testing.B) {
	home, big, _ := benchPreview(b)
	useHome(b, home)
	ctx := context.Background()
	for _, rt := range []string{"claude", "codex", "pi", "kimi"} {
		s := big[rt]
		k := session.Key{Runtime: rt, ID: s.ID}
		st, err := os.Stat(s.Path)
		if err != nil {
			b.Fatal(err)
		}
		full, err := newCatalog(home, benchLimit).Messages(ctx, k)
		if err != nil || len(full) < firstPageSize {
			b.Fatalf("%s: the full parse has %d messages, %v", rt, len(full), err)
		}
		want := full[len(full)-firstPageSize:]
		b.Run(rt, func(b *testing.B) {
			for _, listed := range []bool{false, true} {
				name := "unlisted"
				if listed {
					name = "listed"
				}
				b.Run(name, func(b *testing.B) {
					var msgs []session.Message
					var total int
					var all []catalog.Scanner // listed: kept across iterations
					if listed {
						all = scanners(corpus.Paths{Home: home}.Claude(), noProcesses)
					}
					for b.Loop() {
						var c *catalog.Catalog
						if listed {
							b.StopTimer()
							c = catalog.New(catalog.Options{Limit: benchLimit, DisableWatch: true}, all...)
							c.Rescan(ctx)
							b.StartTimer()
						} else {
							c = newCatalog(home, benchLimit)
						}
						msgs, total, err = c.RecentMessages(ctx, k, firstPageSize)
						if err != nil {
							b.Fatal(err)
						}
					}
					if !sameMessages(msgs, want) {
						b.Fatalf("the first page is not the full parse's last %d messages", firstPageSize)
					}
					if total >= 0 && total != len(full) {
						b.Fatalf("total %d, want %d (or -1: not counted)", total, len(full))
					}
					tail := 0.0
					if total < 0 {
						tail = 1 // read from the tail: the whole was not counted
					}
					b.ReportMetric(float64(st.Size())/(1<<20), "MB")
					b.ReportMetric(tail, "tail")
				})
			}
		})
	}
}

// sameMessages compares by role, text and instant (a time's location may
// differ between two parses).
func sameMessages(a, b []session.Message) bool {
	return slices.EqualFunc(a, b, func(x, y session.Message) bool {
		return x.Role == y.Role && x.Text == y.Text && x.Time.Equal(y.Time)
	})
}

// The corpus builder and the grown sessions are what the benchmarks
// measure: a small corpus must list each runtime's newest sessions, and a
// few copies of each recording must read as that many conversations, in
// order, with the preview roles only.
func TestBenchCorpus(t *testing.T) {
	home := t.TempDir()
	const perRuntime, limit = 60, 20
	counts := map[string]int{}
	for _, rt := range corpus.Runtimes() {
		counts[rt] = perRuntime
	}
	corp, err := corpus.Write(home, counts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { corp.Close() })
	useHome(t, home)
	c := newCatalog(home, limit)
	c.Rescan(context.Background())
	checkNewest(t, c, corp, limit)

	preview := filepath.Join(home, "preview")
	big, one, err := corpus.WritePreview(corpus.Paths{Home: preview}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	useHome(t, preview)
	for rt, s := range big {
		c := newCatalog(preview, limit)
		single, err := c.Messages(context.Background(), session.Key{Runtime: rt, ID: one[rt].ID})
		if err != nil || len(single) == 0 {
			t.Fatalf("%s: %d messages, %v", rt, len(single), err)
		}
		msgs, err := c.Messages(context.Background(), session.Key{Runtime: rt, ID: s.ID})
		if err != nil {
			t.Fatal(err)
		}
		if s.Copies < 2 || len(msgs) != s.Copies*len(single) {
			t.Errorf("%s: %d messages from %d copies of %d", rt, len(msgs), s.Copies, len(single))
		}
		for i, m := range msgs {
			if m.Role != session.RoleUser && m.Role != session.RoleAssistant || m.Text == "" {
				t.Fatalf("%s: message %d: %+v", rt, i, m)
			}
			if i > 0 && m.Time.Before(msgs[i-1].Time) {
				t.Fatalf("%s: message %d at %v, before %v", rt, i, m.Time, msgs[i-1].Time)
			}
			if want := single[i%len(single)].Text; m.Text != want {
				t.Fatalf("%s: message %d is %q, want %q", rt, i, m.Text, want)
			}
		}
	}
}

// BenchmarkExport50MB: exporting the 50 MB sessions in every format, with
// the tools: the record read from the history (EachEvent, as it is read)
// and written as it goes to a file; B/op is what the whole export
// allocates, peak-heap-MB the most the heap held while it ran (heap
// objects, live or not yet swept, sampled every millisecond from a
// collected start), heap-MB the live heap at its end.
func BenchmarkExport50MB(b *testing.B) {
	home, big, _ := benchPreview(b)
	useHome(b, home)
	ctx := context.Background()
	for _, rt := range []string{"claude", "codex", "pi", "kimi"} {
		for _, f := range export.Formats() {
			b.Run(rt+"/"+string(f), func(b *testing.B) {
				k := session.Key{Runtime: rt, ID: big[rt].ID}
				out := filepath.Join(b.TempDir(), "export"+f.Ext())
				var heap, peak uint64
				var written int64
				for b.Loop() {
					runtime.GC()
					stop := samplePeakHeap(&peak)
					c := newCatalog(home, benchLimit)
					info, err := c.Get(ctx, k)
					if err != nil {
						b.Fatal(err)
					}
					record := func(fn func(session.Event) error) error { return c.EachEvent(ctx, k, fn) }
					n, err := export.WriteFile(out, f, export.Session{Runtime: rt, ID: k.ID, Title: info.Title}, record, true)
					if err != nil || n == 0 {
						b.Fatalf("%d messages, %v", n, err)
					}
					stop()
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					heap = ms.HeapAlloc
					st, _ := os.Stat(out)
					written = st.Size()
				}
				b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(written)/(1<<20), "out-MB")
			})
		}
	}
}

// samplePeakHeap raises *peak to the most bytes of heap objects seen,
// every millisecond, until the returned stop is called.
func samplePeakHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
