package kimi

import (
	"os"
	"path/filepath"
	"testing"

	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
	"paddock/internal/usage/usagetest"
)

// The totals below were added up by hand from the wire logs (each turn's
// usage.record once, subagents' included) and checked with a separate
// script.

const recordedKimi = "../../../testdata/kimi-2.1.0/kimi/sessions/wd_proj_7bee20991442/"

func TestUsage(t *testing.T) {
	for _, tt := range []struct {
		session       []string
		shared        bool
		calls         int
		input, output int64
		context       int64
		model         string
	}{
		{session: []string{recordedKimi + "session_6852ccb6-aa3e-4229-9a61-ad7f2efa8fd5"}, calls: 5, input: 500, output: 26, context: 106, model: "mock-model"},
		{session: []string{recordedKimi + "session_c1d6f641-3784-40f3-9cda-1aad0a494b5c"}, calls: 2, input: 200, output: 12, context: 106, model: "mock-model"},
		// Nine calls of main's and two of its subagent agent-0's; the
		// context is main's.
		{session: []string{"real", "kimi-code-2.1.0", "kimi-code-home", "sessions", "wd_proj_aa77772e96cd", "session_07c807cc-e0ff-4a59-bb50-d3fa8f5e5fee"},
			shared: true, calls: 11, input: 1320, output: 132, context: 132, model: "mock-model"},
		{session: []string{"public", "kimi", "kimi-code", "sample-main"}, shared: true, calls: 1, input: 10, output: 5, context: 15, model: "kimi-k2"},
	} {
		dir := filepath.Join(tt.session...)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if tt.shared {
				dir = sharedtest.Fixtures(t, tt.session...)
			}
			info := session.Info{Path: filepath.Join(dir, "agents", "main", "wire.jsonl")}
			got, _ := usagetest.ReadAll(t, usageReader{}, info)
			if got.Calls != tt.calls || got.Input != tt.input || got.Output != tt.output || got.Context != tt.context || got.Models[tt.model] != tt.calls {
				t.Errorf("got %+v\nwant %+v", got, tt)
			}
		})
	}
}

// TestUsageAppended: read as it grows, a wire log gives what it gives
// read whole, each read after the first reading only what was appended.
func TestUsageAppended(t *testing.T) {
	src := recordedKimi + "session_6852ccb6-aa3e-4229-9a61-ad7f2efa8fd5/agents/main/wire.jsonl"
	data, _ := os.ReadFile(src)
	dir := filepath.Join(t.TempDir(), "agents", "main")
	os.MkdirAll(dir, 0o700)
	info := session.Info{Path: filepath.Join(dir, "wire.jsonl")}
	got, batches := usagetest.Grow(t, usageReader{}, info, src, len(data)/4, len(data)/2, len(data)/2+1)
	if got.Calls != 5 || got.Input != 500 || got.Output != 26 {
		t.Errorf("read in four parts: %+v", got)
	}
	for _, b := range batches[1:] {
		if b.Fresh {
			t.Error("a grown wire log was read again from its start")
		}
	}
}
