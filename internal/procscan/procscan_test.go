package procscan

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
)

func TestMachine(t *testing.T) {
	m, err := Machine(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m.Total == 0 || m.Available > m.Total || m.Used > m.Total {
		t.Fatalf("Machine = %+v", m)
	}
}

// A table as one walk might find it: 10 is an agent with a CLI child (11)
// that runs an MCP server (12) and a zombie (13); 20 is unrelated; 30 and
// 31 claim each other as parent, which a torn read of reused pids could
// produce.
func syntheticSnapshot() *Snapshot {
	return newSnapshot(map[int]proc{
		1:  {ppid: 0, rss: 1},
		10: {ppid: 1, rss: 100},
		11: {ppid: 10, rss: 20},
		12: {ppid: 11, rss: 3},
		13: {ppid: 11, rss: 0, zombie: true},
		20: {ppid: 1, rss: 7},
		30: {ppid: 31, rss: 5},
		31: {ppid: 30, rss: 6},
		40: {ppid: 1, zombie: true},
	})
}

func TestSnapshotTrees(t *testing.T) {
	s := syntheticSnapshot()
	got := s.Trees([]int{10, 11, 12, 20, 30, 40, 99})
	want := map[int]TreeMemory{
		10: {PID: 10, RSS: 123, Processes: 3},
		11: {PID: 11, RSS: 23, Processes: 2},
		12: {PID: 12, RSS: 3, Processes: 1},
		20: {PID: 20, RSS: 7, Processes: 1},
		30: {PID: 30, RSS: 11, Processes: 2},
		// 40 is a zombie and 99 does not exist: both left out.
	}
	if !maps.Equal(got, want) {
		t.Fatalf("Trees = %v\nwant    %v", got, want)
	}
}

func TestOutermost(t *testing.T) {
	s := newSnapshot(map[int]proc{
		1:  {},
		10: {ppid: 1},  // node …/bin/codex (launcher)
		11: {ppid: 10}, // native codex
		12: {ppid: 11}, // codex app-server, still attached
		13: {ppid: 11}, // bash, a tool call
		14: {ppid: 13}, // claude -p run by the tool: another runtime
		15: {ppid: 14}, // codex mcp-server under that claude
		20: {ppid: 1},  // a separate claude
		// A torn walk: 30 names 31 as parent, but 31 started later (a
		// reused pid), so only 31 → 30 is a real link.
		30: {ppid: 31, startTicks: 100},
		31: {ppid: 30, startTicks: 200},
	})
	found := map[int]string{10: "codex", 11: "codex", 12: "codex", 14: "claude", 15: "codex", 20: "claude", 30: "pi", 31: "pi"}
	tops, inner := s.outermost(found)
	if want := []int{10, 14, 20, 30}; !slices.Equal(tops, want) {
		t.Fatalf("tops = %v; want %v", tops, want)
	}
	want := map[int][]int{10: {11, 12, 15}, 30: {31}}
	if !maps.EqualFunc(inner, want, slices.Equal) {
		t.Fatalf("inner = %v; want %v", inner, want)
	}
}

func TestTreeRSSSumsChildren(t *testing.T) {
	t.Parallel()
	const alloc = 24 << 20
	root := helper{argv: []string{"procscan-tree-root"}, alloc: alloc, children: 2}.start(t)
	pid := root.Process.Pid
	ctx := context.Background()

	tree, err := TreeRSS(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	if tree.PID != pid || tree.Processes != 3 {
		t.Fatalf("TreeRSS = %+v; want pid %d with 3 processes", tree, pid)
	}
	if tree.RSS < 3*alloc {
		t.Fatalf("TreeRSS = %d bytes; want at least 3 × %d (each process touched its allocation)", tree.RSS, alloc)
	}

	s, err := Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kids := s.children[pid]
	if len(kids) != 2 {
		t.Fatalf("children of %d = %v; want 2", pid, kids)
	}
	trees := s.Trees(append([]int{pid}, kids...))
	var sum uint64
	for _, k := range kids {
		if trees[k].Processes != 1 || trees[k].RSS < alloc {
			t.Fatalf("child tree %+v", trees[k])
		}
		sum += trees[k].RSS
	}
	if own := trees[pid].RSS - sum; own < alloc || trees[pid].Processes != 3 {
		t.Fatalf("root tree %+v minus its children's %d leaves %d; want the root's own allocation", trees[pid], sum, own)
	}
}

// The /proc walk and gopsutil must see the same tree: same members, and a
// resident size of the same order (pages may come and go between reads).
func TestScanAgreesWithGopsutil(t *testing.T) {
	t.Parallel()
	const alloc = 16 << 20
	root := helper{argv: []string{"procscan-tree-root"}, alloc: alloc, children: 2}.start(t)
	pid := root.Process.Pid
	ctx := context.Background()
	mine, err := Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	procs, err := scanGopsutil(ctx)
	if err != nil {
		t.Fatal(err)
	}
	theirs := newSnapshot(procs)
	ta, oka := mine.tree(pid)
	tb, okb := theirs.tree(pid)
	if !oka || !okb || ta.Processes != tb.Processes {
		t.Fatalf("/proc walk %+v (%v), gopsutil %+v (%v)", ta, oka, tb, okb)
	}
	kidsA, kidsB := slices.Sorted(slices.Values(mine.children[pid])), slices.Sorted(slices.Values(theirs.children[pid]))
	if !slices.Equal(kidsA, kidsB) {
		t.Fatalf("children: /proc walk %v, gopsutil %v", kidsA, kidsB)
	}
	if lo, hi := min(ta.RSS, tb.RSS), max(ta.RSS, tb.RSS); hi-lo > hi/4 {
		t.Fatalf("RSS: /proc walk %d, gopsutil %d", ta.RSS, tb.RSS)
	}
}

func TestTreeRSSNotRunning(t *testing.T) {
	_, err := TreeRSS(context.Background(), 1<<30)
	if !errors.Is(err, ErrNotRunning) {
		t.Fatalf("TreeRSS(no such pid) error = %v; want ErrNotRunning", err)
	}
}

func TestScanCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Scan(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Scan(cancelled) error = %v", err)
	}
}

// BenchmarkTrees is one memory refresh of the LIVE board: one walk, then
// the trees of five agents (three-process helper trees here).
func BenchmarkTrees(b *testing.B) {
	var pids []int
	for range 5 {
		pids = append(pids, helper{argv: []string{"procscan-bench"}, children: 2}.start(b).Process.Pid)
	}
	ctx := context.Background()
	for b.Loop() {
		trees, err := Trees(ctx, pids)
		if err != nil || len(trees) != len(pids) {
			b.Fatal(len(trees), err)
		}
	}
}

// BenchmarkTreesGopsutil is the same refresh with the table built through
// gopsutil, for comparison: why Linux walks /proc itself.
func BenchmarkTreesGopsutil(b *testing.B) {
	var pids []int
	for range 5 {
		pids = append(pids, helper{argv: []string{"procscan-bench"}, children: 2}.start(b).Process.Pid)
	}
	ctx := context.Background()
	for b.Loop() {
		procs, err := scanGopsutil(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if trees := newSnapshot(procs).Trees(pids); len(trees) != len(pids) {
			b.Fatal(len(trees))
		}
	}
}
