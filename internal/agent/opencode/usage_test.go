package opencode

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
	"paddock/internal/usage"
	"paddock/internal/usage/usagetest"
)

// The totals below were added up by hand from the databases (each
// assistant message's tokens once, reasoning as output, its subagents'
// messages too) and checked with a separate script.

func TestUsageRecording(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Dir(recordedDB(t)), dir)
	rd := usageReader{s: New(Options{DataDir: dir})}
	for _, tt := range []struct {
		id            string
		calls         int
		input, output int64
	}{
		{"ses_dd6cbb946ffeC3bwYJvrucpy0l", 2, 200, 12}, // the chat: 100 in, 6 out twice
		// The tools session, resumed: six answers, a step each.
		{"ses_dd6cb7d49ffezsXNsF7H6ZJYTF", 6, 600, 32},
	} {
		got, _ := usagetest.ReadAll(t, rd, session.Info{ID: tt.id, Path: filepath.Join(dir, "opencode.db")})
		if got.Calls != tt.calls || got.Input != tt.input || got.Output != tt.output || got.Context != 106 || got.Models["mock-model"] != tt.calls || got.Cost != 0 {
			t.Errorf("%s: got %+v, want %d calls, %d in, %d out, context 106", tt.id, got, tt.calls, tt.input, tt.output)
		}
	}
}

func TestUsageSharedDatabase(t *testing.T) {
	src := sharedtest.Fixtures(t, "real", "opencode-1.18.33", "data")
	dir := t.TempDir()
	copyTree(t, src, dir)
	rd := usageReader{s: New(Options{DataDir: dir})}
	// Eleven answers of 120 in and 12 out.
	got, _ := usagetest.ReadAll(t, rd, session.Info{ID: "ses_dd79b2973ffeMQC4aZaNr2omfm", Path: filepath.Join(dir, "opencode.db")})
	if got.Calls != 11 || got.Input != 1320 || got.Output != 132 || got.Context != 132 {
		t.Errorf("got %+v", got)
	}
}

// step is a step-finish part's JSON.
func step(in, out, reasoning, read, write int64, cost float64) string {
	return fmt.Sprintf(`{"type":"step-finish","reason":"stop","tokens":{"total":%d,"input":%d,"output":%d,"reasoning":%d,"cache":{"read":%d,"write":%d}},"cost":%v}`,
		in+out+reasoning+read+write, in, out, reasoning, read, write, cost)
}

// answer is an assistant message's JSON with its steps' sums.
func answer(model string, at time.Time, in, out, reasoning, read, write int64, cost float64) string {
	return fmt.Sprintf(`{"role":"assistant","modelID":%q,"providerID":"p","time":{"created":%d},"tokens":{"total":%d,"input":%d,"output":%d,"reasoning":%d,"cache":{"read":%d,"write":%d}},"cost":%v}`,
		model, at.UnixMilli(), in+out+reasoning+read+write, in, out, reasoning, read, write, cost)
}

// TestUsageCostsStepsAndSubagents: a message of two steps counts once (its
// sums), with its cost, reasoning as output, and the context of its last
// step; a subagent's messages are the session's; a message updated later
// is read again, replacing what was read.
func TestUsageCostsStepsAndSubagents(t *testing.T) {
	dir := t.TempDir()
	w := newDB(t, dir)
	w.session(sess{id: "ses_main", dir: dir, created: t0})
	w.session(sess{id: "ses_child", dir: dir, created: t0, parent: "ses_main"})
	w.message("ses_main", 1, "user", t0, text("go"))
	// Two steps: 1000 in, 50 out, 20 reasoning, 3000 read, 400 written
	// in all; the last step alone held 500+30+10+2000+0.
	w.messageData("ses_main", 2, t0.Add(time.Second), answer("claude-sonnet-5", t0, 1000, 50, 20, 3000, 400, 0.0123),
		`{"type":"step-start"}`, step(500, 20, 10, 1000, 400, 0.007), step(500, 30, 10, 2000, 0, 0.0053))
	w.messageData("ses_child", 1, t0.Add(500*time.Millisecond), answer("claude-haiku-4-5", t0.Add(500*time.Millisecond), 10, 5, 0, 0, 0, 0.00002),
		step(10, 5, 0, 0, 0, 0.00002))
	rd := usageReader{s: New(Options{DataDir: dir})}
	info := session.Info{ID: "ses_main", Path: filepath.Join(dir, "opencode.db")}
	var h usagetest.Held
	b, err := rd.Read(t.Context(), info, usage.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	h.Apply(b)
	got := h.Sums()
	if got.Calls != 2 || got.Input != 1010 || got.Output != 75 || got.CacheRead != 3000 || got.CacheWrite != 400 ||
		math.Abs(got.Cost-0.01232) > 1e-12 || got.Models["claude-sonnet-5"] != 1 || got.Models["claude-haiku-4-5"] != 1 {
		t.Errorf("got %+v", got)
	}
	var mainCtx int64
	for _, r := range b.Records {
		if r.Model == "claude-sonnet-5" {
			mainCtx = r.Context
		}
	}
	if mainCtx != 2540 {
		t.Errorf("the two-step message's context is %d, want its last step's 2540", mainCtx)
	}

	// The answer grows a third step; a new answer follows.
	later := t0.Add(time.Minute)
	w.exec(`UPDATE message SET data = ?, time_updated = ? WHERE id = 'msg_ses_main_0002'`,
		answer("claude-sonnet-5", t0, 1100, 60, 20, 3000, 400, 0.0150), later.UnixMilli())
	w.messageData("ses_main", 3, later, answer("claude-sonnet-5", later, 7, 3, 0, 0, 0, 0))
	b2, err := rd.Read(t.Context(), info, b.Cursor)
	if err != nil {
		t.Fatal(err)
	}
	if b2.Fresh || len(b2.Records) != 2 {
		t.Errorf("second read: fresh %v, %d records; want the updated and the new message only", b2.Fresh, len(b2.Records))
	}
	h.Apply(b2)
	got = h.Sums()
	if got.Calls != 3 || got.Input != 1117 || got.Output != 88 || math.Abs(got.Cost-0.01502) > 1e-12 {
		t.Errorf("after the update: %+v", got)
	}
}
