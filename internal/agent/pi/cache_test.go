package pi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"paddock/internal/history"
)

// Session reads the summary only; Conversation, asked next, reads the file
// as it is then, appends included.
func TestSessionThenConversation(t *testing.T) {
	ctx := context.Background()
	agent := t.TempDir()
	path := writeChat(t, agent, "s1", proj, 0, "one", "two")

	s := newTestScanner(agent)
	if _, err := s.Session(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Conversation(ctx, "s1")
	if want, _, _ := conversation(ctx, path); err != nil || len(got) != 4 || !reflect.DeepEqual(got, want) {
		t.Errorf("Conversation = %q, %v; want %q", got, err, want)
	}

	s = newTestScanner(agent)
	if _, err := s.Session(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, msgLine("u2", "a1", "user", "three", 10))
	got, err = s.Conversation(ctx, "s1")
	if texts := userTexts(got); err != nil || strings.Join(texts, ",") != "one,two,three" {
		t.Errorf("after an append: %q, %v", texts, err)
	}
}

// A file that only grew since it was summarised is read on from where the
// last read ended: the bytes read are the appended ones (and three checks
// of resumeCheckBytes), and the summary is the one a whole read gives. A file
// with a line still being written, a short file, one rewritten in place
// and one replaced by rename are read whole. The changes are applied in
// order to one long session; bytes are counted, not timed.
func TestSummaryReadsOnAppends(t *testing.T) {
	ctx := context.Background()
	agent := t.TempDir()
	const id = "grown"
	path := sessionFile(agent, proj, id, 0)
	writeFile(t, path, grownSession(id, 0, 3*tailBytes))
	short := writeChat(t, agent, "short", proj, 0, "hi")

	turn := func(i int) string {
		return msgLine(fmt.Sprintf("gu%d", i), "", "user", fmt.Sprintf("appended prompt %d", i), 500+i) +
			msgLine(fmt.Sprintf("ga%d", i), fmt.Sprintf("gu%d", i), "assistant", "ok", 500+i)
	}
	torn := turn(3)
	cases := []struct {
		name   string
		file   string
		change func(t *testing.T, path string)
		readOn bool // read on from the last read's end, not whole
		// want checks the new summary against what was appended, so that
		// a summary left as it was cannot pass.
		want func(sum *summary) bool
	}{
		{"first read", path, func(*testing.T, string) {}, false,
			func(sum *summary) bool { return sum.title == "rename 1" && sum.prompts > 100 }},
		{"a turn appended", path, func(t *testing.T, p string) { appendTo(t, p, turn(1)) }, true,
			func(sum *summary) bool { return sum.lastPrompt == "appended prompt 1" }},
		{"a rename appended", path, func(t *testing.T, p string) { appendTo(t, p, nameLine("gn", "ga1", "renamed late", 502)) }, true,
			func(sum *summary) bool { return sum.title == "renamed late" }},
		{"a tool result longer than the tail, then a turn", path, func(t *testing.T, p string) {
			appendTo(t, p, toolResultLine("gr", "gn", strings.Repeat("output line\n", tailBytes/8), 503)+turn(2))
		}, true, func(sum *summary) bool { return sum.lastPrompt == "appended prompt 2" }},
		// A last line without a newline is one Pi may still be writing:
		// no broken line, no problem.
		{"a line half written", path, func(t *testing.T, p string) { appendTo(t, p, torn[:len(torn)/3]) }, true,
			func(sum *summary) bool { return sum.badLines == 0 && sum.problem == "" }},
		{"the line finished", path, func(t *testing.T, p string) { appendTo(t, p, torn[len(torn)/3:]) }, false,
			func(sum *summary) bool { return sum.lastPrompt == "appended prompt 3" && sum.badLines == 0 }},
		{"a turn after a whole read", path, func(t *testing.T, p string) { appendTo(t, p, turn(4)) }, true,
			func(sum *summary) bool { return sum.lastPrompt == "appended prompt 4" }},
		{"rewritten in place near the old end, and longer", path, func(t *testing.T, p string) {
			rewrite(t, p, func(data string) string {
				i := strings.LastIndex(data, `"text":"ok"`)
				return data[:i] + `"text":"OK"` + data[i+len(`"text":"ok"`):] + nameLine("gm", "ga4", "after rewrite", 505)
			})
		}, false, func(sum *summary) bool { return sum.title == "after rewrite" }},
		{"header rewritten in place, and longer", path, func(t *testing.T, p string) {
			rewrite(t, p, func(data string) string {
				return strings.Replace(data, proj, proj+"/moved", 1) + turn(6)
			})
		}, false, func(sum *summary) bool { return sum.cwd == proj+"/moved" && sum.lastPrompt == "appended prompt 6" }},
		{"replaced by rename, longer", path, func(t *testing.T, p string) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			tmp := filepath.Join(t.TempDir(), "new.jsonl")
			writeFile(t, tmp, string(data)+turn(7))
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		}, false, func(sum *summary) bool { return sum.lastPrompt == "appended prompt 7" }},
		{"a turn after the rename", path, func(t *testing.T, p string) { appendTo(t, p, turn(8)) }, true,
			func(sum *summary) bool { return sum.lastPrompt == "appended prompt 8" }},
		{"a short file", short, func(*testing.T, string) {}, false,
			func(sum *summary) bool { return sum.lastPrompt == "hi" }},
		{"a short file grown", short, func(t *testing.T, p string) { appendTo(t, p, turn(9)) }, false,
			func(sum *summary) bool { return sum.lastPrompt == "appended prompt 9" && sum.prompts == 2 }},
	}

	s := newTestScanner(agent)
	sizes := map[string]int64{}
	for _, tc := range cases {
		tc.change(t, tc.file)
		st, err := os.Stat(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		size := st.Size()
		header, err := IDOf(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		before := s.readBytes.Load()
		if _, err := s.Session(ctx, header); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		read := s.readBytes.Load() - before
		appended := size - sizes[tc.file]
		sizes[tc.file] = size

		e, sig, _ := s.sums.Last(tc.file)
		if sig != history.SigOf(st) {
			t.Fatalf("%s: the summary is of %+v, the file is %+v", tc.name, sig, history.SigOf(st))
		}
		switch {
		case tc.readOn && read > appended+3*resumeCheckBytes:
			t.Errorf("%s: read %d bytes, want the %d appended and three checks of %d", tc.name, read, appended, resumeCheckBytes)
		case !tc.readOn && read < size:
			t.Errorf("%s: read %d bytes, want the whole file (%d)", tc.name, read, size)
		}
		want, err := readSummary(tc.file, size)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(e.sum, want) {
			t.Errorf("%s: summary\n%+v\nwant what a whole read gives\n%+v", tc.name, e.sum, want)
		}
		if !tc.want(e.sum) {
			t.Errorf("%s: summary %+v does not show the change", tc.name, e.sum)
		}
	}
}

// grownSession is a v3 session of about size bytes: turns of a prompt, a
// tool result and an answer, a rename in the head and a model change in
// the middle, all whole lines.
func grownSession(id string, start, size int) string {
	var b strings.Builder
	b.WriteString(headerLine(id, proj, start))
	b.WriteString(nameLine("n0", "", "rename 1", start))
	parent := "n0"
	for i := 0; b.Len() < size; i++ {
		u, r, a := fmt.Sprintf("u%d", i), fmt.Sprintf("r%d", i), fmt.Sprintf("a%d", i)
		b.WriteString(msgLine(u, parent, "user", fmt.Sprintf("prompt %d", i), start+i))
		b.WriteString(toolResultLine(r, u, strings.Repeat("x", 1000), start+i))
		b.WriteString(msgLine(a, r, "assistant", fmt.Sprintf("answer %d", i), start+i))
		if i == 100 {
			b.WriteString(jsonLine(map[string]any{"type": "model_change", "id": "m", "parentId": a,
				"timestamp": ts(start + i), "provider": "mock", "modelId": "middle-model"}))
			a = "m"
		}
		parent = a
	}
	return b.String()
}

func toolResultLine(id, parent, output string, min int) string {
	return jsonLine(map[string]any{"type": "message", "id": id, "parentId": parent, "timestamp": ts(min),
		"message": map[string]any{"role": "toolResult", "toolCallId": "c", "toolName": "bash",
			"content": []any{map[string]any{"type": "text", "text": output}}}})
}

// appendTo appends data to the file at path, as Pi appends an entry.
func appendTo(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// rewrite writes edit(content) over the file at path in place (same
// inode), as Pi does when it migrates an old file.
func rewrite(t *testing.T, path string, edit func(string) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
}
