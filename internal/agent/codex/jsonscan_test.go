package codex

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"paddock/internal/testkit/fuzzseed"
)

func TestMembers(t *testing.T) {
	cases := []struct {
		in   string
		want []string // key=value pairs
		bad  bool
	}{
		{in: `{}`},
		{in: ` { "a" : 1 , "b":"x\"}y" ,"c":{"d":[1,{"e":"]}"}]},"f":null,"g":true}`,
			want: []string{`a=1`, `b="x\"}y"`, `c={"d":[1,{"e":"]}"}]}`, `f=null`, `g=true`}},
		{in: `{"a":"ends in a backslash\\"}`, want: []string{`a="ends in a backslash\\"`}},
		{in: `{"k\"ey":-1.5e3}`, want: []string{`k\"ey=-1.5e3`}},
		{in: `{"a":1`, bad: true},
		{in: `{"a":"unterminated}`, bad: true},
		{in: `{"a":{"b":1}`, bad: true},
		{in: `{"a" 1}`, bad: true},
		{in: `{a:1}`, bad: true},
		{in: `{"a":}`, bad: true},
		{in: `{"a":1 "b":2}`, bad: true},
		{in: `[1]`, bad: true},
		{in: ``, bad: true},
	}
	for _, c := range cases {
		var got []string
		err := members([]byte(c.in), func(k, v []byte) bool {
			got = append(got, string(k)+"="+string(v))
			return true
		})
		if (err != nil) != c.bad || !c.bad && !slices.Equal(got, c.want) {
			t.Errorf("members(%s) = %q, %v", c.in, got, err)
		}
	}
}

func TestStr(t *testing.T) {
	for in, want := range map[string]string{
		`"plain"`:             "plain",
		`"esc\"aped\n\u00e9"`: "esc\"aped\né",
		"\"bad \xff utf8\"":   "bad \ufffd utf8",
		`null`:                "",
		`12`:                  "",
		`{"a":"b"}`:           "",
		`"`:                   "",
		`"\q invalid"`:        "",
	} {
		if got := str([]byte(in)); got != want {
			t.Errorf("str(%s) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseRecord: no line, however broken, makes parsing panic, and what
// it yields is a message of a known role with non-empty valid text.
func FuzzParseRecord(f *testing.F) {
	for _, seed := range []string{
		`{"timestamp":"2026-01-02T10:00:00Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"x"}]}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","content":[{"type":"Text","text":"y"}]}}}`,
		`{"type":"session_meta","payload":{"id":"a","source":{"subagent":{"thread_spawn":{"parent_thread_id":"p"}}}}}`,
		`{"id":"legacy","timestamp":"2025-01-01T00:00:00Z"}`,
		`{"type":"message","role":"assistant","content":"plain"}`,
		`{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":3}}`,
		`{"payload":{"item":null,"content":[null,1,"s"]}}`, `{`, `"`, `{"a":"\`, `{"type":"x","payload":{]}`,
	} {
		f.Add([]byte(seed), true)
	}
	matches, _ := filepath.Glob(filepath.Join(repoRecording, "codex", "sessions", "*", "*", "*", "*.jsonl"))
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			f.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if len(line) < 4096 {
				f.Add([]byte(line), i == 0)
			}
		}
	}
	for _, l := range fuzzseed.Lines(fuzzseed.Files(f, fuzzseed.Of("codex", ".jsonl")), 12, 4<<10) {
		f.Add(l, false)
	}
	f.Fuzz(func(t *testing.T, line []byte, first bool) {
		r, err := parseRecord(line, first)
		if err != nil {
			return
		}
		if m := r.msg; m != nil {
			if m.role != "user" && m.role != "assistant" || strings.TrimSpace(m.text) == "" || !utf8.ValidString(m.text) {
				t.Fatalf("bad message %+v from %q", m, line)
			}
		}
		if trimmed := strings.TrimSpace(string(line)); trimmed == "" || trimmed[0] != '{' {
			t.Fatalf("accepted a non-object %q", line)
		}
	})
}
