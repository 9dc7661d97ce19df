package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"paddock/internal/catalog"
	"paddock/internal/search"
	"paddock/internal/session"
	"paddock/internal/testkit/corpus"
)

// searchMarker is a word written into a few sessions' later turns (not
// their first prompt), the rare word the search benchmark looks for.
const searchMarker = "quokkamarker"

// addMarker appends a turn naming searchMarker to the Claude session at
// path, on its current branch, keeping its mtime.
func addMarker(path string) error { return appendTurn(path, searchMarker, true) }

// appendTurn appends a user turn naming word to the Claude session at
// path, on its current branch, as the CLI would (keepTime: the file's
// mtime is put back, so the corpus's order stays).
func appendTurn(path, word string, keepTime bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	var last struct {
		UUID, SessionID, Cwd string
		Timestamp            string
	}
	for _, l := range slices.Backward(splitLines(data)) {
		if json.Unmarshal(l, &last) == nil && last.UUID != "" {
			break
		}
	}
	if last.UUID == "" {
		return fmt.Errorf("%s: no record with a uuid", path)
	}
	line, _ := json.Marshal(map[string]any{"type": "user", "uuid": last.UUID[:len(last.UUID)-4] + "beef", "parentUuid": last.UUID,
		"sessionId": last.SessionID, "cwd": last.Cwd, "timestamp": last.Timestamp, "isSidechain": false,
		"message": map[string]any{"role": "user", "content": "and does the " + word + " module still build?"}})
	if err := os.WriteFile(path, append(append(data, line...), '\n'), 0o644); err != nil {
		return err
	}
	if !keepTime {
		return nil
	}
	return os.Chtimes(path, fi.ModTime(), fi.ModTime())
}

func splitLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := slices.Index(data, '\n')
		if i < 0 {
			out = append(out, data)
			break
		}
		out = append(out, data[:i])
		data = data[i+1:]
	}
	return out
}

// searchCorpus writes a corpus of n sessions over every runtime with the
// marker in three Claude sessions, and returns a catalog over it, scanned.
func searchCorpus(tb testing.TB, home string, n int) (*catalog.Catalog, func() error) {
	tb.Helper()
	corp, err := corpus.Write(home, corpus.Split(n))
	if err != nil {
		tb.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(corpus.Paths{Home: home}.Claude(), "projects", "*", "*.jsonl"))
	slices.Sort(files)
	if len(files) < 3 {
		tb.Fatalf("%d Claude sessions in the corpus", len(files))
	}
	for _, f := range files[:3] {
		if err := addMarker(f); err != nil {
			tb.Fatal(err)
		}
	}
	useHome(tb, home)
	c := newCatalog(home, 0)
	c.Rescan(context.Background())
	return c, corp.Close
}

// TestSearchIndexesEverySession: over a corpus of every runtime's real
// recordings, the index holds every message of every session the catalog
// knows, and finds a word written into later turns of three sessions.
func TestSearchIndexesEverySession(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	c, closeCorpus := searchCorpus(t, home, 120)
	defer closeCorpus()
	ix, err := search.Open(ctx, search.Options{Path: filepath.Join(t.TempDir(), "search.db"), Source: c})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	want := 0
	byRuntime := map[string]int{}
	for _, i := range c.All() {
		msgs, err := c.ReadConversation(ctx, i.Key())
		if err != nil {
			t.Fatalf("%s: %v", i.Key(), err)
		}
		want += len(msgs)
		byRuntime[i.Runtime]++
	}
	sessions, messages, err := ix.Count(ctx)
	if err != nil || sessions != len(c.All()) || messages != want {
		t.Errorf("index holds %d sessions, %d messages (%v); the catalog has %d, %d", sessions, messages, err, len(c.All()), want)
	}
	if len(byRuntime) != len(corpus.Runtimes()) {
		t.Errorf("sessions of %d runtimes indexed, want %d: %v", len(byRuntime), len(corpus.Runtimes()), byRuntime)
	}
	hits, err := ix.Search(ctx, search.Query{Text: searchMarker})
	if err != nil || len(hits) != 3 {
		t.Fatalf("%d hits for the marker (%v), want 3", len(hits), err)
	}
	for _, h := range hits {
		if h.Key.Runtime != "claude" || h.Role != session.RoleUser || h.Seq == 0 {
			t.Errorf("marker hit %+v: want a later user turn of a Claude session", h)
		}
	}
	if read, err := ix.Build(ctx); err != nil || read != 0 {
		t.Errorf("an unchanged rebuild read %d conversations (%v), want 0", read, err)
	}

	// A copy of a recording grows: the next build reads that session
	// alone and writes only its new message.
	files, _ := filepath.Glob(filepath.Join(corpus.Paths{Home: home}.Claude(), "projects", "*", "*.jsonl"))
	slices.Sort(files)
	if err := appendTurn(files[len(files)-1], "wombatgrowth", false); err != nil {
		t.Fatal(err)
	}
	c.Rescan(ctx)
	if read, err := ix.Build(ctx); err != nil || read != 1 {
		t.Errorf("after one session grew, the build read %d conversations (%v), want 1", read, err)
	}
	if _, n, err := ix.Count(ctx); err != nil || n != want+1 {
		t.Errorf("after the append the index holds %d messages (%v), want %d", n, err, want+1)
	}
	if hits, err := ix.Search(ctx, search.Query{Text: "wombatgrowth"}); err != nil || len(hits) != 1 {
		t.Errorf("the appended turn: %d hits (%v)", len(hits), err)
	}

	// The recorded tools' commands are not in the conversations; with
	// Tools they are found, as tool rows of every agent that ran them.
	const command = `"mock_out.txt"`
	if hits, err := ix.Search(ctx, search.Query{Text: command}); err != nil || len(hits) != 0 {
		t.Errorf("a tool's command found without Tools: %d hits (%v)", len(hits), err)
	}
	tix, err := search.Open(ctx, search.Options{Path: filepath.Join(t.TempDir(), "tools.db"), Source: c, Tools: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tix.Close()
	if _, err := tix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	hits, err = tix.Search(ctx, search.Query{Text: command, Limit: 200})
	runtimes := map[string]bool{}
	for _, h := range hits {
		if h.Role != search.RoleTool {
			t.Errorf("hit %+v: want a tool row", h)
		}
		runtimes[h.Key.Runtime] = true
	}
	if err != nil || len(runtimes) < 3 {
		t.Errorf("the tools' command found in the sessions of %v (%v), want at least three agents'", runtimes, err)
	}
}

var searchBench struct {
	once   sync.Once
	c      *catalog.Catalog
	dir    string
	marked int // sessions carrying corpus.Marker
	err    error
}

// BenchmarkSearch: the index over the generated machine (corpus.Generate:
// 10,000 sessions, about 1.2 GB, four of them 50 MB) — a full build, a
// build with nothing changed, and queries (30 results) for a rare word
// and a phrase written into later turns, and for the most common word.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	searchBench.once.Do(func() {
		benchRoot.mu.Lock()
		dir, err := benchDir()
		benchRoot.mu.Unlock()
		searchBench.dir, searchBench.err = filepath.Join(dir, "search"), err
		if err != nil {
			return
		}
		home := filepath.Join(searchBench.dir, "home")
		corp, rep, err := corpus.Generate(home, corpus.Options{})
		if err != nil {
			searchBench.err = err
			return
		}
		corp.Close()
		searchBench.marked = len(rep.Marked)
		useHome(b, home)
		searchBench.c = newCatalog(home, 0)
		searchBench.c.Rescan(ctx)
	})
	c := searchBench.c
	useHome(b, filepath.Join(searchBench.dir, "home"))
	path := filepath.Join(searchBench.dir, "search.db")
	open := func(b *testing.B) *search.Index {
		ix, err := search.Open(ctx, search.Options{Path: path, Source: c})
		if err != nil {
			b.Fatal(err)
		}
		return ix
	}
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			for _, p := range []string{path, path + "-wal", path + "-shm"} {
				os.Remove(p)
			}
			ix := open(b)
			start := time.Now()
			if _, err := ix.Build(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(time.Since(start).Seconds(), "s/build")
			ix.Close()
		}
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
			b.ReportMetric(float64(ru.Maxrss)/1024, "maxrss-MB")
		}
		b.ReportMetric(float64(len(c.All())), "sessions")
	})
	ix := open(b)
	defer ix.Close()
	if _, err := ix.Build(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if read, err := ix.Build(ctx); err != nil || read != 0 {
				b.Fatalf("read %d (%v)", read, err)
			}
		}
	})
	// The same rare word found by ripgrep over the same files, for scale.
	b.Run("rg-rare", func(b *testing.B) {
		rg, err := exec.LookPath("rg")
		if err != nil {
			b.Skip("ripgrep (rg) is not installed: nothing to compare with")
		}
		for b.Loop() {
			out, err := exec.Command(rg, "--hidden", "-l", "-F", corpus.Marker, filepath.Join(searchBench.dir, "home")).Output()
			if err != nil || len(splitLines(out)) != searchBench.marked {
				b.Fatalf("rg: %v, %q", err, out)
			}
		}
	})
	for _, q := range []struct{ name, text string }{
		{"rare", corpus.Marker},
		{"phrase", `"` + corpus.Phrase + `"`},
		{"common-phrase", `"second turn please"`},
		{"common", "mock"},
	} {
		b.Run(q.name, func(b *testing.B) {
			var n int
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				hits, err := ix.Search(ctx, search.Query{Text: q.text, Limit: 30})
				took = append(took, time.Since(start))
				if err != nil || len(hits) == 0 {
					b.Fatalf("%d hits (%v)", len(hits), err)
				}
				n = len(hits)
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(n), "hits")
		})
	}
}

// BenchmarkSearchAppend: how long after a 1 MB append to a 50 MB session
// its new words are found, through what serve runs — the catalog's file
// watch (with its 100 ms debounce) and the index following the catalog;
// and, apart, the index's own share (from the catalog's change to the
// words being searchable). The appended turns are the session's own,
// continued, one prompt carrying a word new to the index.
func BenchmarkSearchAppend(b *testing.B) {
	for _, rt := range []string{"claude", "codex"} {
		b.Run(rt, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			home := b.TempDir()
			p := corpus.Paths{Home: home}
			big, _, err := corpus.WritePreview(p, previewSize)
			if err != nil {
				b.Fatal(err)
			}
			path := big[rt].Path
			useHome(b, home)
			c := catalog.New(catalog.Options{}, scanners(p.Claude(), noProcesses)...)
			go c.Run(ctx)
			ix, err := search.Open(ctx, search.Options{Path: filepath.Join(b.TempDir(), "search.db"), Source: c})
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			applied := make(chan time.Time, 1)
			go ix.Run(ctx)
			for !ix.Progress().Ready {
				time.Sleep(10 * time.Millisecond)
			}
			changes, stop := c.Subscribe()
			defer stop()
			go func() {
				for range changes {
					select {
					case applied <- time.Now():
					default:
					}
				}
			}()
			size := previewSize
			var total, own []time.Duration
			for b.Loop() {
				word := fmt.Sprintf("appendword%d", len(total))
				size += 1 << 20
				full, err := corpus.Grown(p, rt, size)
				if err != nil {
					b.Fatal(err)
				}
				cur, _ := os.Stat(path)
				tail := bytes.ReplaceAll(full[cur.Size():], []byte("one more turn after resume"), []byte("one more turn after resume "+word))
				select {
				case <-applied:
				default:
				}
				f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				if _, err := f.Write(tail); err != nil {
					b.Fatal(err)
				}
				f.Close()
				for {
					hits, err := ix.Search(ctx, search.Query{Text: word, Limit: 1})
					if err == nil && len(hits) > 0 {
						break
					}
					if time.Since(start) > 10*time.Second {
						b.Fatalf("%s not found 10 s after the append", word)
					}
					time.Sleep(time.Millisecond)
				}
				done := time.Now()
				total = append(total, done.Sub(start))
				select {
				case at := <-applied:
					own = append(own, done.Sub(at))
				default:
				}
			}
			for _, m := range []struct {
				name string
				d    []time.Duration
			}{{"total", total}, {"index", own}} {
				if len(m.d) == 0 {
					continue
				}
				slices.Sort(m.d)
				b.ReportMetric(float64(m.d[len(m.d)/2].Microseconds())/1000, m.name+"-p50-ms")
				b.ReportMetric(float64(m.d[len(m.d)-1].Microseconds())/1000, m.name+"-max-ms")
			}
		})
	}
}
