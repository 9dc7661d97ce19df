package pi

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
	"paddock/internal/usage/usagetest"
)

// The totals below were added up by hand from the files (each assistant
// entry's usage once; Pi's cost where it is not 0) and checked with a
// separate script.

const recordedSessions = "../../../testdata/pi-0.73.1/pi/sessions/--tmp-paddock-fixtures-home-proj--/"

func TestUsage(t *testing.T) {
	for _, tt := range []struct {
		path                             []string // under ../shared/fixtures when shared
		shared                           bool
		calls                            int
		input, output, cacheRead, cacheW int64
		cost                             float64
		model                            string
		context                          int64
	}{
		// The mock's calls: 100 in, 6 out each, Pi's cost 0 (no price).
		{path: []string{recordedSessions + "2026-11-29T21-27-44-665Z_01a22934-ef19-72f8-b96e-4320731443a9.jsonl"},
			calls: 2, input: 200, output: 12, model: "mock-model", context: 106},
		{path: []string{recordedSessions + "2026-11-29T21-27-52-300Z_01a22935-0ceb-723a-b9ca-e3a9d1b0b0d3.jsonl"},
			calls: 5, input: 500, output: 26, model: "mock-model", context: 106},
		// Costs of 0.01 and 0.005.
		{path: []string{"public", "pi", "agentsview", "internal", "parser", "testdata", "pi", "session.jsonl"}, shared: true,
			calls: 2, input: 300, output: 60, cost: 0.015, model: "claude-opus-4-5", context: 210},
		// A real long session of an older Pi, whose entries have no ids.
		{path: []string{"public", "pi", "pi-mono", "packages", "coding-agent", "test", "fixtures", "before-compaction.jsonl"}, shared: true,
			calls: 471, input: 3689, output: 187895, cacheRead: 54693675, cacheW: 1685320, cost: 42.5959075, model: "claude-opus-4-5", context: 168018},
	} {
		path := filepath.Join(tt.path...)
		t.Run(filepath.Base(path), func(t *testing.T) {
			if tt.shared {
				path = sharedtest.Fixtures(t, tt.path...)
			}
			got, _ := usagetest.ReadAll(t, usageReader{}, session.Info{Path: path})
			if got.Calls != tt.calls || got.Input != tt.input || got.Output != tt.output || got.CacheRead != tt.cacheRead ||
				got.CacheWrite != tt.cacheW || math.Abs(got.Cost-tt.cost) > 1e-9 || got.Models[tt.model] != tt.calls || got.Context != tt.context {
				t.Errorf("got %+v\nwant %+v", got, tt)
			}
		})
	}
}

// TestUsageAppended: read as it grows, a session gives what it gives
// read whole, each read after the first reading only what was appended.
func TestUsageAppended(t *testing.T) {
	src := recordedSessions + "2026-11-29T21-27-52-300Z_01a22935-0ceb-723a-b9ca-e3a9d1b0b0d3.jsonl"
	data, _ := os.ReadFile(src)
	info := session.Info{Path: filepath.Join(t.TempDir(), "s.jsonl")}
	got, batches := usagetest.Grow(t, usageReader{}, info, src, len(data)/3, len(data)/2)
	if got.Calls != 5 || got.Input != 500 || got.Output != 26 {
		t.Errorf("read in three parts: %+v", got)
	}
	if batches[1].Fresh || batches[2].Fresh {
		t.Error("a grown session was read again from its start")
	}
}
