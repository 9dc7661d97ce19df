package kimi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/session"
)

const bucket = "wd_proj_0123456789ab"

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC).UnixMilli()

// A raw user turn is not necessarily human input. Kimi keeps
// only a missing origin or kind "user"; everything kimi-code itself puts in
// a user turn (reminders, skills, plugins, shell output, summaries, cron,
// tasks, hooks, retries) is left out of prompts and conversation.
func TestOriginRules(t *testing.T) {
	cases := []struct {
		name, origin string
		human        bool
	}{
		{"object user", `{"kind":"user"}`, true},
		{"string user", `"user"`, true},
		{"missing", ``, true},
		{"null", `null`, true},
		{"steer typed mid-turn", `{"kind":"user","inTurn":true}`, true},
		{"injection", `{"kind":"injection","variant":"date_change"}`, false},
		{"skill activation", `{"kind":"skill_activation","trigger":"user-slash"}`, false},
		{"plugin command", `{"kind":"plugin_command"}`, false},
		{"shell command", `{"kind":"shell_command"}`, false},
		{"compaction summary", `{"kind":"compaction_summary"}`, false},
		{"system trigger", `{"kind":"system_trigger","name":"subagent"}`, false},
		{"task", `{"kind":"task"}`, false},
		{"cron", `{"kind":"cron_job"}`, false},
		{"hook result", `{"kind":"hook_result"}`, false},
		{"retry", `{"kind":"retry"}`, false},
		{"string injection", `"injection"`, false},
		{"object without kind", `{}`, false},
		{"number", `7`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			wire := append([]string{recMeta(t0)}, turn("s1", "typed first", "answer one", t0+10)...)
			wire = append(wire, recMessage("user", "CANDIDATE TEXT", c.origin, t0+20))
			wire = append(wire, turn("s2", "typed last", "answer two", t0+30)...)
			fake{bucket: bucket, id: "session_a", state: stateJSON("session_a", "/p", "", t0), wire: wire}.write(t, home)
			s := newTest(home)
			infos := scanAll(t, s)
			if len(infos) != 1 {
				t.Fatalf("listed %d", len(infos))
			}
			wantCount := 2
			if c.human {
				wantCount = 3
			}
			if infos[0].PromptCount != wantCount {
				t.Errorf("PromptCount %d, want %d", infos[0].PromptCount, wantCount)
			}
			msgs := conversation(t, s, "session_a")
			checkMessages(t, "session_a", msgs)
			shown := slices.Contains(texts(msgs), "user: CANDIDATE TEXT")
			if shown != c.human {
				t.Errorf("shown = %v, want %v: %q", shown, c.human, texts(msgs))
			}
		})
	}
}

// Without an origin (migrated kimi-cli turns, early kimi-code) the system
// wrappers kimi-cli put into user turns are not prompts.
func TestOriginlessSystemWrappers(t *testing.T) {
	home := t.TempDir()
	wire := []string{
		recMeta(t0),
		recMessage("user", "<system>CHECKPOINT 0</system>", "", t0+1),
		recMessage("user", "<system-reminder>\nPlan mode is on.\n</system-reminder>", "", t0+2),
		recMessage("user", "the real question", "", t0+3),
		recMessage("assistant", "the real answer", "", t0+4),
	}
	fake{bucket: bucket, id: "ses_migrated", wire: wire}.write(t, home)
	s := newTest(home)
	infos := scanAll(t, s)
	if len(infos) != 1 || infos[0].FirstPrompt != "the real question" || infos[0].PromptCount != 1 {
		t.Fatalf("infos %+v", infos)
	}
	got := texts(conversation(t, s, "ses_migrated"))
	want := []string{"user: the real question", "assistant: the real answer"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// No thinking, tool calls, tool results, tool snapshots,
// system prompts or kimi's UI event mirror in the conversation, and each
// answer once.
func TestOnlyConversationText(t *testing.T) {
	home := t.TempDir()
	wire := []string{
		recMeta(t0),
		`{"type":"profile.bind","agentId":"main","modelAlias":"kimi-code/kimi-for-coding","systemPrompt":"SYSTEM-PROMPT-TEXT","time":1}`,
		recUser("run it", t0+1),
		`{"message":{"message":{"role":"user","content":[{"type":"text","text":"run it"}]},"meta":{"source":"input"}},"type":"agent.message.appended","time":` + itoa(t0+1) + `,"kind":"event"}`,
		recMessage("user", "<system-reminder>\nToday is a day.\n</system-reminder>", `{"kind":"injection","variant":"date_change"}`, t0+2),
		recStep("s1", t0+3),
		`{"type":"llm.tools_snapshot","agentId":"main","hash":"x","tools":[{"name":"Bash","description":"TOOL-SNAPSHOT-TEXT","text":"TOOL-SNAPSHOT-TEXT"}],"time":` + itoa(t0+3) + `}`,
		recPart("s1", "think", "THINKING-TEXT", t0+4),
		recPart("s1", "text", "I'll run it.", t0+5),
		recToolCall("s1", "call_1", t0+6),
		recToolResult("call_1", t0+7),
		recStepEnd("s1", "tool_use", t0+8),
		recStep("s2", t0+9),
		recPart("s2", "think", "MORE-THINKING", t0+10),
		recPart("s2", "text", "Done: ", t0+11),
		recPart("s2", "text", "it ran.", t0+12),
		recStepEnd("s2", "end_turn", t0+13),
		`{"message":{"message":{"role":"assistant","content":[{"type":"text","text":"Done: it ran."}],"toolCalls":[]},"meta":{"source":"llm"}},"type":"agent.message.appended","time":` + itoa(t0+13) + `,"kind":"event"}`,
		`{"message":{"message":{"role":"tool","content":[{"type":"text","text":"TOOL-RESULT-TEXT"}],"toolCallId":"call_1"},"meta":{"source":"tool"}},"type":"agent.message.appended","time":` + itoa(t0+13) + `,"kind":"event"}`,
	}
	fake{bucket: bucket, id: "session_a", state: stateJSON("session_a", "/p", "run it", t0), wire: wire}.write(t, home)
	s := newTest(home)
	infos := scanAll(t, s)
	if len(infos) != 1 || infos[0].Model != "kimi-code/kimi-for-coding" {
		t.Fatalf("infos %+v", infos)
	}
	got := texts(conversation(t, s, "session_a"))
	want := []string{"user: run it", "assistant: I'll run it.", "assistant: Done: it ran."}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Kimi ignores every wire but agents/main: a subagent's
// turns (even one that looks human) are never the session's, and a
// session without a main wire is not listed.
func TestSubagentWiresIgnored(t *testing.T) {
	home := t.TempDir()
	wire := append([]string{recMeta(t0)}, turn("s1", "delegate it", "delegated", t0+1)...)
	fake{bucket: bucket, id: "session_a", state: stateJSON("session_a", "/p", "delegate it", t0), wire: wire}.write(t, home)
	sub := append([]string{recMeta(t0)}, turn("x1", "SUBAGENT PROMPT", "SUBAGENT ANSWER", t0+2)...)
	writeFile(t, filepath.Join(home, "sessions", bucket, "session_a", "agents", "agent-0", "wire.jsonl"), strings.Join(sub, "\n"))
	writeFile(t, filepath.Join(home, "sessions", bucket, "session_b", "agents", "agent-0", "wire.jsonl"), strings.Join(sub, "\n"))
	writeFile(t, filepath.Join(home, "sessions", bucket, "session_b", "state.json"), stateJSON("session_b", "/p", "", t0))

	s := newTest(home)
	infos := scanAll(t, s)
	if len(infos) != 1 || infos[0].ID != "session_a" || infos[0].PromptCount != 1 || infos[0].LastPrompt != "delegate it" {
		t.Fatalf("infos %+v", infos)
	}
	got := texts(conversation(t, s, "session_a"))
	if !slices.Equal(got, []string{"user: delegate it", "assistant: delegated"}) {
		t.Errorf("conversation %q", got)
	}
	if _, err := s.Session(context.Background(), "session_b"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Session(session_b) = %v, want ErrNotFound", err)
	}
}

// A key that exists and holds null is read as absent, never
// as "null" or "None", and never crashes.
func TestNullFields(t *testing.T) {
	home := t.TempDir()
	state := `{"id":null,"version":2,"cwd":null,"workDir":null,"title":null,"titleKind":null,"isCustomTitle":null,` +
		`"lastPrompt":null,"createdAt":null,"updatedAt":null,"archived":null,"agents":null,"custom":null}`
	wire := []string{
		`{"type":"metadata","protocol_version":null,"created_at":null}`,
		`{"type":"config.update","cwd":null,"modelAlias":null,"time":null}`,
		`{"type":"context.append_message","message":null,"time":1}`,
		`{"type":"context.append_message","message":{"role":null,"content":null,"origin":null},"time":2}`,
		`{"type":"context.append_message","message":{"role":"user","content":[null,{"type":"text","text":null},{"type":null}],"origin":null},"time":3}`,
		`{"type":"context.append_message","message":{"role":"user","content":[{"type":"text","text":"a real prompt"}],"origin":null},"time":null}`,
		`{"type":"context.append_loop_event","event":null,"time":4}`,
		`{"type":"context.append_loop_event","event":{"type":"step.begin","uuid":null},"time":5}`,
		`{"type":"context.append_loop_event","event":{"type":"content.part","stepUuid":null,"part":null},"time":6}`,
		`{"type":"context.append_loop_event","event":{"type":"content.part","stepUuid":null,"part":{"type":"text","text":"an answer"}},"time":7}`,
		`{"type":"context.append_loop_event","event":{"type":"step.end","uuid":null,"finishReason":null},"time":8}`,
		`{"type":"context.undo","count":null}`,
		`{"type":"usage.record","model":null}`,
	}
	fake{bucket: bucket, id: "session_null", state: state, wire: wire}.write(t, home)
	s := newTest(home)
	infos := scanAll(t, s)
	if len(infos) != 1 {
		t.Fatalf("listed %d", len(infos))
	}
	info := infos[0]
	for _, v := range []string{info.Title, info.Cwd, info.FirstPrompt, info.LastPrompt, info.Model} {
		if v == "null" || v == "None" || v == "<nil>" {
			t.Errorf("field reads %q: %+v", v, info)
		}
	}
	if info.Title != "a real prompt" || info.Cwd != "" || !info.Created.IsZero() {
		t.Errorf("info %+v", info)
	}
	got := texts(conversation(t, s, "session_null"))
	if !slices.Equal(got, []string{"user: a real prompt", "assistant: an answer"}) {
		t.Errorf("conversation %q", got)
	}
}

// /undo removes the turns it undid as kimi shows it; a compaction and a
// /clear are floors it does not cross; history before /clear stays.
func TestUndoClearCompaction(t *testing.T) {
	undo := func(n int) string { return `{"type":"context.undo","count":` + itoa(int64(n)) + `,"time":1}` }
	cases := []struct {
		name string
		wire []string
		want []string
	}{
		{"undo one", slices.Concat(turn("a", "one", "A", t0), turn("b", "two", "B", t0+10), []string{undo(1)}),
			[]string{"user: one", "assistant: A"}},
		{"undo two", slices.Concat(turn("a", "one", "A", t0), turn("b", "two", "B", t0+10), []string{undo(2)}), nil},
		{"undo then new turn", slices.Concat(turn("a", "one", "A", t0), []string{undo(1)}, turn("b", "two", "B", t0+10)),
			[]string{"user: two", "assistant: B"}},
		{"skill command counts as a turn", slices.Concat(turn("a", "one", "A", t0),
			[]string{recMessage("user", "/skill run", `{"kind":"skill_activation","trigger":"user-slash"}`, t0+5)},
			turn("b", "two", "B", t0+10), []string{undo(2)}),
			[]string{"user: one", "assistant: A"}},
		{"compaction is a floor", slices.Concat(turn("a", "one", "A", t0),
			[]string{`{"type":"context.apply_compaction","summary":"SUMMARY-TEXT","compactedCount":2,"time":1}`},
			turn("b", "two", "B", t0+10), []string{undo(5)}),
			[]string{"user: one", "assistant: A"}},
		{"clear keeps history but is a floor", slices.Concat(turn("a", "one", "A", t0),
			[]string{`{"type":"context.clear","time":1}`}, turn("b", "two", "B", t0+10), []string{undo(5)}),
			[]string{"user: one", "assistant: A"}},
		{"interrupted step keeps its partial text", []string{recUser("slow", t0), recStep("a", t0+1),
			recPart("a", "text", "partial…", t0+2), recStepEnd("a", "interrupted", t0+3),
			recMessage("user", "<system-reminder>\ninterrupted\n</system-reminder>", `{"kind":"injection","variant":"interruption"}`, t0+4),
			recUser("go on", t0+5)},
			[]string{"user: slow", "assistant: partial…", "user: go on"}},
		{"steer while a tool runs", []string{recUser("start", t0), recStep("a", t0+1), recPart("a", "text", "running", t0+2),
			recToolCall("a", "c1", t0+3), recMessage("user", "also this", `{"kind":"user","inTurn":true}`, t0+4),
			recToolResult("c1", t0+5), recStepEnd("a", "tool_use", t0+6), recStep("b", t0+7),
			recPart("b", "text", "ok", t0+8), recStepEnd("b", "end_turn", t0+9)},
			[]string{"user: start", "assistant: running", "user: also this", "assistant: ok"}},
		{"part of another step is ignored", []string{recUser("q", t0), recStep("a", t0+1),
			recPart("zzz", "text", "STRAY", t0+2), recPart("a", "text", "mine", t0+3), recStepEnd("a", "end_turn", t0+4),
			recPart("a", "text", "LATE", t0+5)},
			[]string{"user: q", "assistant: mine"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			fake{bucket: bucket, id: "session_u", state: stateJSON("session_u", "/p", "t", t0),
				wire: append([]string{recMeta(t0)}, c.wire...)}.write(t, home)
			got := texts(conversation(t, newTest(home), "session_u"))
			if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// Titles: state.json's title by its kind; a placeholder title gives way to
// the first prompt.
func TestTitles(t *testing.T) {
	cases := []struct {
		name, state, title, source string
	}{
		{"custom", `{"title":"My rename","titleKind":"custom","isCustomTitle":true,"cwd":"/p"}`, "My rename", session.TitleCustom},
		{"legacy isCustomTitle", `{"title":"Old rename","isCustomTitle":true,"cwd":"/p"}`, "Old rename", session.TitleCustom},
		{"generated", `{"title":"Fix the cache","titleKind":"generated","cwd":"/p"}`, "Fix the cache", session.TitleAI},
		{"replaceable", `{"title":"first words","titleKind":"replaceable","cwd":"/p"}`, "first words", session.TitlePrompt},
		{"placeholder", `{"title":"New Session","titleKind":"replaceable","cwd":"/p"}`, "typed prompt", session.TitlePrompt},
		{"none", `{"cwd":"/p"}`, "typed prompt", session.TitlePrompt},
		{"no state", ``, "typed prompt", session.TitlePrompt},
		{"multi-line title", `{"title":"line one\nline  two","titleKind":"custom"}`, "line one line two", session.TitleCustom},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			wire := append([]string{recMeta(t0)}, turn("s", "typed prompt", "answer", t0+1)...)
			fake{bucket: bucket, id: "session_t", state: c.state, wire: wire}.write(t, home)
			infos := scanAll(t, newTest(home))
			if len(infos) != 1 || infos[0].Title != c.title || infos[0].TitleSource != c.source {
				t.Errorf("infos %+v, want title %q (%s)", infos, c.title, c.source)
			}
		})
	}
}

// Sessions not to list: archived ones, ones whose cwd is gone (cannot be
// resumed) or ephemeral (oc-manager-*), ones with nothing
// said, and title-generation sessions.
func TestFilteredSessions(t *testing.T) {
	home := t.TempDir()
	exists := t.TempDir()
	gone := filepath.Join(exists, "deleted")
	wire := func(p string) []string { return append([]string{recMeta(t0)}, turn("s", p, "answer", t0+1)...) }
	sessions := []fake{
		{bucket: bucket, id: "session_ok", state: stateJSON("session_ok", exists, "", t0), wire: wire("keep me")},
		{bucket: bucket, id: "session_archived", state: `{"cwd":"` + exists + `","archived":true}`, wire: wire("archived")},
		{bucket: bucket, id: "session_gone", state: stateJSON("session_gone", gone, "", t0), wire: wire("gone")},
		{bucket: bucket, id: "session_oc", state: stateJSON("session_oc", "/tmp/oc-manager-codex/x", "", t0), wire: wire("noise")},
		{bucket: bucket, id: "session_empty", state: stateJSON("session_empty", exists, "", t0), wire: []string{recMeta(t0)}},
		{bucket: bucket, id: "session_titlegen", state: stateJSON("session_titlegen", exists, "", t0),
			wire: wire("Write a title for this conversation [[paddock-title]]")},
	}
	for _, f := range sessions {
		f.write(t, home)
	}
	s := New(Options{Home: home, TitleMarker: "[[paddock-title]]"}) // the real cwd check
	infos := scanAll(t, s)
	if len(infos) != 1 || infos[0].ID != "session_ok" {
		t.Fatalf("listed %v", ids(infos))
	}
	for _, f := range sessions[1:] {
		if _, err := s.Session(context.Background(), f.id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%s) = %v, want ErrNotFound", f.id, err)
		}
	}
	// The directory coming back brings its session back.
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	if infos := scanAll(t, s); !slices.Equal(ids(infos), []string{"session_ok", "session_gone"}) &&
		!slices.Equal(ids(infos), []string{"session_gone", "session_ok"}) {
		t.Errorf("after mkdir: %v", ids(infos))
	}
}

func ids(infos []session.Info) []string {
	out := make([]string, len(infos))
	for i, info := range infos {
		out[i] = info.ID
	}
	return out
}

// limit newest sessions plus every kept id, newest first; a negative limit
// lists all.
func TestLimitAndKeep(t *testing.T) {
	home := t.TempDir()
	now := time.Now().Truncate(time.Second)
	for i := range 5 {
		id := "session_" + string(rune('a'+i))
		at := now.Add(time.Duration(i-5) * time.Minute) // session_e newest
		ms := at.UnixMilli()
		fake{bucket: bucket, id: id, state: stateJSON(id, "/p", "", ms),
			wire: append([]string{recMeta(ms)}, turn("s", "prompt "+id, "a", ms)...), mtime: at}.write(t, home)
	}
	s := newTest(home)
	ctx := context.Background()
	got, err := s.Scan(ctx, 2, []string{"session_a", "session_missing"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"session_e", "session_d", "session_a"}; !slices.Equal(ids(got), want) {
		t.Errorf("Scan(2, keep a) = %v, want %v", ids(got), want)
	}
	got, _ = s.Scan(ctx, 0, nil)
	if len(got) != 0 {
		t.Errorf("Scan(0) = %v", ids(got))
	}
	got, _ = s.Scan(ctx, -1, nil)
	if want := []string{"session_e", "session_d", "session_c", "session_b", "session_a"}; !slices.Equal(ids(got), want) {
		t.Errorf("Scan(-1) = %v, want %v", ids(got), want)
	}
}

// A wire touched long after its last real event is dated by
// that event.
func TestEffectiveTime(t *testing.T) {
	home := t.TempDir()
	last := time.Now().Add(-5 * time.Hour).Truncate(time.Millisecond)
	ms := last.UnixMilli()
	fake{bucket: bucket, id: "session_stale", state: stateJSON("session_stale", "/p", "", ms-10),
		wire: append([]string{recMeta(ms - 10)}, turn("s", "old", "old answer", ms-4)...), mtime: time.Now()}.write(t, home)
	fake{bucket: bucket, id: "session_fresh", state: stateJSON("session_fresh", "/p", "", ms-10),
		wire: append([]string{recMeta(ms - 10)}, turn("s", "new", "new answer", ms-4)...), mtime: last.Add(30 * time.Minute)}.write(t, home)
	m := byID(scanAll(t, newTest(home)))
	if got := m["session_stale"]; !got.Updated.Equal(last) || got.TimeSource != session.TimeFromEvent {
		t.Errorf("stale: updated %v (%s), want %v", got.Updated, got.TimeSource, last)
	}
	if got := m["session_fresh"]; !got.Updated.Equal(last.Add(30*time.Minute)) || got.TimeSource != session.TimeFromFile {
		t.Errorf("fresh: updated %v (%s)", got.Updated, got.TimeSource)
	}
}

// Results, cache hits included, are copies: a caller changing them changes
// nothing the scanner returns next.
func TestResultsAreCopies(t *testing.T) {
	home := t.TempDir()
	fake{bucket: bucket, id: "session_a", state: stateJSON("session_a", "/p", "", t0),
		wire: append([]string{recMeta(t0)}, turn("s", "p", "a", t0)...)}.write(t, home)
	s := newTest(home)
	for range 3 {
		infos := scanAll(t, s)
		if infos[0].Title != "p" || infos[0].Live {
			t.Fatalf("result was changed by a caller: %+v", infos[0])
		}
		infos[0].Title, infos[0].Live = "changed by the UI", true
		info, err := s.Session(context.Background(), "session_a")
		if err != nil || info.Title != "p" {
			t.Fatalf("Session = %+v, %v", info, err)
		}
	}
}

// Ids come from URLs: anything that could name a path outside the sessions
// tree is no session.
func TestHostileIDs(t *testing.T) {
	home := t.TempDir()
	fake{bucket: bucket, id: "session_a", state: stateJSON("session_a", "/p", "", t0),
		wire: append([]string{recMeta(t0)}, turn("s", "p", "a", t0)...)}.write(t, home)
	s := newTest(home)
	for _, id := range []string{"", "..", "../session_a", "*", "session_*", "session_a/..", "a b", strings.Repeat("x", 500)} {
		if _, err := s.Session(context.Background(), id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%q) = %v", id, err)
		}
		if _, err := s.Conversation(context.Background(), id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Conversation(%q) = %v", id, err)
		}
	}
}

// A conversation's times never go backwards, even when the records' clocks
// do.
func TestTimesAscend(t *testing.T) {
	home := t.TempDir()
	wire := slices.Concat([]string{recMeta(t0)}, turn("a", "one", "A", t0+5000), turn("b", "two", "B", t0+1000))
	fake{bucket: bucket, id: "session_clock", state: stateJSON("session_clock", "/p", "", t0), wire: wire}.write(t, home)
	msgs := conversation(t, newTest(home), "session_clock")
	checkMessages(t, "session_clock", msgs)
	if len(msgs) != 4 || !msgs[3].Time.Equal(time.UnixMilli(t0+5001)) {
		t.Errorf("messages %+v", msgs)
	}
}
