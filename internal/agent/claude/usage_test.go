package claude

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
	"paddock/internal/usage"
	"paddock/internal/usage/usagetest"
)

// The totals below were added up by hand from the files (each assistant
// message.id once, the running costs' increases) and checked with a
// separate script.

const recorded = "../../../testdata/claude-2.1.328/claude/projects/-tmp-paddock-fixtures-home-proj/"

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestUsageRecordings(t *testing.T) {
	for _, tt := range []struct {
		file                string
		calls               int
		input, output       int64
		cost                float64
		context             int64
		cacheRead, cacheW   int64
		model               string
		covered             int
		sharedDir, sharedEl string
	}{
		// The chat: two calls of 12 in and 6 out; the running cost
		// written twice at 0.000336 counts once.
		{file: recorded + "32b519c0-72ef-4244-9c84-2e50b8cc5232.jsonl", calls: 2, input: 24, output: 12, cost: 0.000336, context: 18,
			model: "claude-opus-5-5", covered: 2},
		// The tools session, resumed: msg_mock_3, _5 and _6 are each
		// written twice (a text block, then a tool call): six calls, not
		// nine, which is what Claude Code's own running cost counted
		// (72 in, 32 out); its cost went 0.00076, then 0.000928.
		{file: recorded + "6acb7d34-3e5a-475b-9a8a-018a75387ffa.jsonl", calls: 6, input: 72, output: 32, cost: 0.000928, context: 18,
			model: "claude-opus-5-5", covered: 6},
	} {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			got, _ := usagetest.ReadAll(t, usageReader{}, session.Info{Runtime: "claude", ID: "x", Path: tt.file})
			if got.Calls != tt.calls || got.Input != tt.input || got.Output != tt.output || !near(got.Cost, tt.cost) ||
				got.Covered != tt.covered || got.Context != tt.context || got.Models[tt.model] != tt.calls {
				t.Errorf("got %+v\nwant %d calls, %d in, %d out, cost %v, %d covered, context %d, model %s", got,
					tt.calls, tt.input, tt.output, tt.cost, tt.covered, tt.context, tt.model)
			}
		})
	}
}

// TestUsageSharedFixtures: real transcripts of other versions, with
// prompt caching, subagents and two models, and no running cost.
func TestUsageSharedFixtures(t *testing.T) {
	for _, tt := range []struct {
		path                                   []string
		calls                                  int
		input, output, cacheRead, cacheW, cw1h int64
		models                                 map[string]int
	}{
		{path: []string{"public", "claude", "claude-code-log", "real_projects", "-Users-dain-workspace-claude-code-log-sample", "fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl"},
			calls: 34, input: 279, output: 2201, cacheRead: 1164952, cacheW: 83966, models: map[string]int{"claude-sonnet-4-20250514": 34}},
		// Its six subagents' transcripts are the session's calls too.
		{path: []string{"public", "claude", "claude-code-log", "real_projects", "-experiments-worktrees", "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"},
			calls: 83, input: 2546, output: 53458, cacheRead: 2455695, cacheW: 398573, cw1h: 102189, models: map[string]int{"claude-opus-4-7": 83}},
		{path: []string{"public", "claude", "claude-code-log", "real_projects", "-src-experiments-claude_p", "29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl"},
			calls: 12, input: 4468, output: 20, cacheRead: 272977, cacheW: 50764,
			models: map[string]int{"claude-opus-4-5-20251101": 2, "claude-haiku-4-5-20251001": 10}},
		// Claude Code 2.1.328 without a running cost (the session ended
		// before one was written): priced from the table.
		{path: []string{"real", "claude-2.1.328", "projects", "-tmp-fakehome1-proj", "b26ff492-9392-442d-b40c-d82e68fb2082.jsonl"},
			calls: 7, input: 84, output: 49, models: map[string]int{"claude-opus-5-5": 7}},
	} {
		t.Run(tt.path[len(tt.path)-1], func(t *testing.T) {
			file := sharedtest.Fixtures(t, tt.path...)
			got, _ := usagetest.ReadAll(t, usageReader{}, session.Info{Runtime: "claude", ID: "x", Path: file})
			if got.Calls != tt.calls || got.Input != tt.input || got.Output != tt.output || got.CacheRead != tt.cacheRead ||
				got.CacheWrite != tt.cacheW || got.CW1h != tt.cw1h || got.Cost != 0 || got.Covered != 0 || len(got.Models) != len(tt.models) {
				t.Errorf("got %+v\nwant %+v", got, tt)
			}
			for m, n := range tt.models {
				if got.Models[m] != n {
					t.Errorf("model %s: %d calls, want %d", m, got.Models[m], n)
				}
			}
		})
	}
}

// TestUsageAppended: a transcript read as it grows gives what it gives
// read whole: a message streamed across two reads counts once, and the
// first running cost makes the reader start again so the calls before it
// are covered by it.
func TestUsageAppended(t *testing.T) {
	src := recorded + "6acb7d34-3e5a-475b-9a8a-018a75387ffa.jsonl"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// After line 20 (msg_mock_3's text block; its tool call is line 21)
	// and after line 56 (the first cost-state, line 56).
	cuts := []int{lineEnd(data, 20), lineEnd(data, 56)}
	info := session.Info{Runtime: "claude", ID: "x", Path: filepath.Join(t.TempDir(), "s.jsonl")}
	got, batches := usagetest.Grow(t, usageReader{}, info, src, cuts...)
	whole, _ := usagetest.ReadAll(t, usageReader{}, session.Info{Path: src})
	if got.Calls != whole.Calls || got.Input != whole.Input || got.Output != whole.Output || !near(got.Cost, whole.Cost) || got.Covered != whole.Covered {
		t.Errorf("read in three parts: %+v\nread whole: %+v", got, whole)
	}
	if got.Calls != 6 || got.Input != 72 {
		t.Errorf("%d calls, %d in; want 6, 72", got.Calls, got.Input)
	}
	if !batches[0].Fresh || !batches[1].Fresh || batches[2].Fresh {
		t.Errorf("fresh reads: %v %v %v; want the first, the one meeting the first cost-state, not the last",
			batches[0].Fresh, batches[1].Fresh, batches[2].Fresh)
	}
	if n := len(batches[2].Records); n == 0 || n > 4 {
		t.Errorf("the last read gave %d records; it reads only what was appended (msg_mock_8 and two cost-states)", n)
	}
}

// TestUsageRewritten: a transcript replaced by another of the same inode
// is read again from its start.
func TestUsageRewritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	info := session.Info{Runtime: "claude", ID: "x", Path: path}
	one, err := os.ReadFile(recorded + "6acb7d34-3e5a-475b-9a8a-018a75387ffa.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	two, err := os.ReadFile(recorded + "32b519c0-72ef-4244-9c84-2e50b8cc5232.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, two, 0o600)
	b1, err := usageReader{}.Read(t.Context(), info, usage.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, one, 0o600) // longer, but another file's bytes
	b2, err := usageReader{}.Read(t.Context(), info, b1.Cursor)
	if err != nil || !b2.Fresh {
		t.Fatalf("rewritten transcript: fresh %v, %v", b2.Fresh, err)
	}
	var h usagetest.Held
	h.Apply(b1)
	h.Apply(b2)
	if s := h.Sums(); s.Calls != 6 || s.Input != 72 {
		t.Errorf("after the rewrite: %+v", s)
	}
}

// lineEnd is the offset just after line n (1-based) of data.
func lineEnd(data []byte, n int) int {
	for i, b := range data {
		if b == '\n' {
			if n--; n == 0 {
				return i + 1
			}
		}
	}
	return len(data)
}
