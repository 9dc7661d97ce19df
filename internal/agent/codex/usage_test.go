package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
	"paddock/internal/usage/usagetest"
)

// The totals below were added up by hand from the files (each
// token_count's increase of the running total; input without its cached
// part) and checked with a separate script.

const recordedRollouts = "../../../testdata/codex-0.169.0/codex/sessions/2026/11/29/"

func TestUsageRecordings(t *testing.T) {
	for _, tt := range []struct {
		path          string
		calls         int
		input, output int64
		context       int64
	}{
		// Two turns of one call, 100 in and 6 out each.
		{recordedRollouts + "rollout-2026-11-29T21-26-18-01a22933-9fa0-7061-a419-c6368c8164b9.jsonl", 2, 200, 12, 106},
		// Six calls over three starts (resumed once): the total runs on
		// from 421 to 632 across the resume, and counts once.
		{recordedRollouts + "rollout-2026-11-29T21-26-26-01a22933-bf50-7ea3-bf85-2f0c612735bb.jsonl", 6, 600, 32, 106},
	} {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			got, _ := usagetest.ReadAll(t, usageReader{}, session.Info{Path: tt.path})
			if got.Calls != tt.calls || got.Input != tt.input || got.Output != tt.output || got.Context != tt.context ||
				got.Window != 258400 || got.Models["mock-model"] != tt.calls || got.Cost != 0 {
				t.Errorf("got %+v, want %d calls, %d in, %d out, context %d of 258400, mock-model", got, tt.calls, tt.input, tt.output, tt.context)
			}
		})
	}
}

// TestUsageRepeatedEvent: a token_count written twice with the same total
// (Codex repeats one when only its rate limits change) adds nothing.
func TestUsageRepeatedEvent(t *testing.T) {
	data, err := os.ReadFile(recordedRollouts + "rollout-2026-11-29T21-26-18-01a22933-9fa0-7061-a419-c6368c8164b9.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var out []byte
	repeated := 0
	for _, l := range lines {
		out = append(out, l...)
		if bytes.Contains(l, []byte(`"type":"token_count"`)) {
			out = append(out, l...)
			repeated++
		}
	}
	if repeated != 2 {
		t.Fatalf("%d token_count lines in the recording, want 2", repeated)
	}
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	os.WriteFile(path, out, 0o600)
	got, _ := usagetest.ReadAll(t, usageReader{}, session.Info{Path: path})
	if got.Calls != 2 || got.Input != 200 || got.Output != 12 {
		t.Errorf("each token_count written twice: %+v; want 2 calls, 200 in, 12 out", got)
	}
}

// TestUsageAppended: read as it grows (cut inside the second turn, and
// just after the first token_count), the rollout gives what it gives read
// whole, and each read after the first reads only what was appended.
func TestUsageAppended(t *testing.T) {
	src := recordedRollouts + "rollout-2026-11-29T21-26-26-01a22933-bf50-7ea3-bf85-2f0c612735bb.jsonl"
	data, _ := os.ReadFile(src)
	info := session.Info{Path: filepath.Join(t.TempDir(), "rollout.jsonl")}
	cut1 := bytes.Index(data, []byte(`"type":"token_count"`))
	cut1 += bytes.IndexByte(data[cut1:], '\n') + 1
	got, batches := usagetest.Grow(t, usageReader{}, info, src, cut1, len(data)/2, len(data)/2+7)
	if got.Calls != 6 || got.Input != 600 || got.Output != 32 {
		t.Errorf("read in four parts: %+v; want 6 calls, 600 in, 32 out", got)
	}
	if len(batches[0].Records) != 1 {
		t.Errorf("first part: %d records, want the first call", len(batches[0].Records))
	}
	for i, b := range batches[1:] {
		if b.Fresh {
			t.Errorf("read %d started again", i+2)
		}
	}
}

// TestUsageSharedFixtures: ccusage's usage-only rollout, whose events
// name their own models and count cached input.
func TestUsageSharedFixtures(t *testing.T) {
	path := sharedtest.Fixtures(t, "public", "codex", "ccusage", "apps", "ccusage", "test", "fixtures", "codex", "sessions", "project-alpha", "session-alpha.jsonl")
	got, b := usagetest.ReadAll(t, usageReader{}, session.Info{Path: path})
	// 1000 in (250 cached), 125 out; then the total's increase: 2500 in
	// (500 cached), 300 out.
	if got.Calls != 2 || got.Input != 750+2000 || got.CacheRead != 750 || got.Output != 425 || got.Context != 2800 {
		t.Errorf("got %+v", got)
	}
	if len(b.Records) != 2 || b.Records[0].Model != "gpt-5.2-codex" || b.Records[1].Model != "gpt-5.3-codex" {
		t.Errorf("records %+v; want one call of gpt-5.2-codex, then one of gpt-5.3-codex", b.Records)
	}
}
