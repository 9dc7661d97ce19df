package registry

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"paddock/internal/agent"
	"paddock/internal/catalog"
	"paddock/internal/history"
	"paddock/internal/testkit/corpus"
	"paddock/internal/usage"
)

var usageBench struct {
	once sync.Once
	dir  string
	home string
	c    *catalog.Catalog
	err  error
}

// BenchmarkUsage reads every session's usage of the 10,000-session
// corpus (make corpus) into an empty usage file (build), again with
// nothing changed (unchanged), and sums 90 days of it the way the usage
// page does (page-90d: per day, agent, project and model). PADDOCK_CORPUS
// names a corpus already written (`make corpus`) to use instead of
// writing one.
func BenchmarkUsage(b *testing.B) {
	ctx := context.Background()
	usageBench.once.Do(func() {
		benchRoot.mu.Lock()
		dir, err := benchDir()
		benchRoot.mu.Unlock()
		usageBench.dir, usageBench.err = filepath.Join(dir, "usage"), err
		if err != nil {
			return
		}
		usageBench.home = os.Getenv("PADDOCK_CORPUS")
		if usageBench.home == "" {
			usageBench.home = filepath.Join(usageBench.dir, "home")
			corp, _, err := corpus.Generate(usageBench.home, corpus.Options{})
			if err != nil {
				usageBench.err = err
				return
			}
			corp.Close()
		}
		useHome(b, usageBench.home)
		usageBench.c = newCatalog(usageBench.home, 0)
		usageBench.c.Rescan(ctx)
	})
	if usageBench.err != nil {
		b.Fatal(usageBench.err)
	}
	useHome(b, usageBench.home)
	c := usageBench.c
	path := filepath.Join(usageBench.dir, "usage.db")
	snaps := history.NewSnapshots(history.SnapshotOptions{Dir: usageBench.dir, KeepBytes: 1 << 30})
	defer snaps.Close()
	readers := Default().UsageReaders(agent.Env{Snapshots: snaps}, nil)
	open := func(b *testing.B) (*usage.Store, *usage.Index) {
		st, err := usage.OpenStore(ctx, usage.StoreOptions{Path: path, Loc: time.UTC})
		if err != nil {
			b.Fatal(err)
		}
		return st, usage.NewIndex(usage.Options{Store: st, Source: c, Readers: readers})
	}
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			for _, p := range []string{path, path + "-wal", path + "-shm"} {
				os.Remove(p)
			}
			st, ix := open(b)
			start := time.Now()
			n, err := ix.Build(ctx)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(time.Since(start).Seconds(), "s/build")
			b.ReportMetric(float64(n), "sessions-read")
			st.Close()
		}
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
			b.ReportMetric(float64(ru.Maxrss)/1024, "maxrss-MB")
		}
	})
	st, ix := open(b)
	defer st.Close()
	if _, err := ix.Build(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if n, err := ix.Build(ctx); err != nil || n != 0 {
				b.Fatalf("read %d (%v)", n, err)
			}
		}
	})
	b.Run("page-90d", func(b *testing.B) {
		to := usage.DayOf(time.Now(), time.UTC)
		from := to.AddDays(-89)
		var calls int64
		for b.Loop() {
			for _, g := range []string{usage.ByDay, usage.ByAgent, usage.ByProject, usage.ByModel} {
				r, err := st.Report(ctx, g, from, to)
				if err != nil {
					b.Fatal(err)
				}
				calls = r.Total.Calls
			}
		}
		b.ReportMetric(float64(calls), "calls")
	})
}
