package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
)

// Gather stats the files of many directories and returns them in the
// directories' order, whatever the number of workers; at most that many
// calls run at once.
func TestGather(t *testing.T) {
	root := t.TempDir()
	var dirs, want []string
	for i := range 12 {
		d := filepath.Join(root, fmt.Sprint(i))
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		for j := range i % 3 {
			p := filepath.Join(d, fmt.Sprintf("%d.jsonl", j))
			if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			want = append(want, p)
		}
		dirs = append(dirs, d)
	}
	for _, workers := range []int{1, 2, StatWorkers, 100} {
		var running, most atomic.Int64
		got, err := Gather(context.Background(), workers, dirs, func(d string) []string {
			n := running.Add(1)
			defer running.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			names, err := os.ReadDir(d)
			if err != nil {
				t.Error(err)
			}
			var out []string
			for _, e := range names {
				p := filepath.Join(d, e.Name())
				if _, err := os.Stat(p); err == nil {
					out = append(out, p)
				}
			}
			return out
		})
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%d workers: %q, %v; want %q", workers, got, err, want)
		}
		if m := most.Load(); m > int64(workers) {
			t.Errorf("%d workers: %d calls ran at once", workers, m)
		}
	}
}

func TestEach(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		cancelAt  int // cancel during this call; -1: never
		wantErr   bool
		wantCalls func(int) bool
	}{
		{"none", 0, -1, false, func(c int) bool { return c == 0 }},
		{"all", 50, -1, false, func(c int) bool { return c == 50 }},
		{"cancelled", 50, 3, true, func(c int) bool { return c < 50 }},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithCancel(context.Background())
		var calls atomic.Int64
		seen := make([]atomic.Bool, tt.n)
		err := Each(ctx, 2, tt.n, func(i int) {
			calls.Add(1)
			if seen[i].Swap(true) {
				t.Errorf("%s: index %d called twice", tt.name, i)
			}
			if i == tt.cancelAt {
				cancel()
			}
		})
		cancel()
		if (err != nil) != tt.wantErr || !tt.wantCalls(int(calls.Load())) {
			t.Errorf("%s: %d calls, %v", tt.name, calls.Load(), err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Gather(ctx, 2, []int{1, 2}, func(int) []int { return []int{1} }); err == nil {
		t.Error("Gather on a done context returned no error")
	}
}
