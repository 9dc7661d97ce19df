package mockmodel

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestDecide(t *testing.T) {
	user := func(texts ...string) item { return item{role: "user", texts: texts} }
	tools := func(names ...string) []tool {
		var out []tool
		for _, n := range names {
			out = append(out, tool{name: n})
		}
		return out
	}
	tests := []struct {
		name      string
		conv      conversation
		wantKind  ReplyKind
		wantText  string
		wantTool  string
		wantInput string
		wantTurn  int
	}{
		{"empty conversation", conversation{}, KindText, PlainReply(0), "", "", 0},
		{"reminders only are not prompts", conversation{items: []item{user("<system-reminder>x</system-reminder>"), user("hi")}},
			KindText, PlainReply(1), "", "", 1},
		{"Bash preferred over bash", conversation{items: []item{user("RUN")}, tools: tools("bash", "Bash")},
			KindTool, RunPreamble, "Bash", `{"command":"echo hello-from-mock-1 >> mock_out.txt && cat mock_out.txt","description":"Append a line to mock_out.txt"}`, 1},
		{"legacy shell takes an argv", conversation{items: []item{user("a"), {role: "assistant"}, user("RUN")}, tools: tools("shell")},
			KindTool, RunPreamble, "shell", `{"command":["bash","-lc","echo hello-from-mock-2 >> mock_out.txt && cat mock_out.txt"],"justification":"Mock wants to append to mock_out.txt","sandbox_permissions":"require_escalated"}`, 2},
		{"Qwen's run_shell_command", conversation{items: []item{user("RUN")}, tools: tools("read_file", "run_shell_command")},
			KindTool, RunPreamble, "run_shell_command", `{"command":"echo hello-from-mock-1 >> mock_out.txt && cat mock_out.txt","description":"Append a line to mock_out.txt"}`, 1},
		{"RUN without a shell tool", conversation{items: []item{user("RUN")}, tools: tools("read")}, KindText, PlainReply(1), "", "", 1},
		{"ASK without a question tool", conversation{items: []item{user("ASK")}, tools: tools("bash")}, KindText, PlainReply(1), "", "", 1},
		{"EDIT writes the prompt's path", conversation{items: []item{user("please EDIT /tmp/p/notes.md for me")}, tools: tools("Bash", "Write")},
			KindTool, EditPreamble, "Write", `{"content":"edited-by-mock-1\nsecond line of the mock's file\n","file_path":"/tmp/p/notes.md","path":"/tmp/p/notes.md"}`, 1},
		{"EDIT without a path", conversation{items: []item{user("EDIT")}, tools: tools("write")},
			KindTool, EditPreamble, "write", `{"content":"edited-by-mock-1\nsecond line of the mock's file\n","filePath":"mock_edit.txt","path":"mock_edit.txt"}`, 1},
		{"pasted text is a prompt", conversation{items: []item{user("hi"), {role: "assistant"}, user("\n\n<pasted_content id=\"42e2\">\nplease\nRUN\n</pasted_content id=\"42e2\">\n")}, tools: tools("Bash")},
			KindTool, RunPreamble, "Bash", `{"command":"echo hello-from-mock-2 >> mock_out.txt && cat mock_out.txt","description":"Append a line to mock_out.txt"}`, 2},
		{"EDIT without a write tool", conversation{items: []item{user("EDIT")}, tools: tools("apply_patch")}, KindText, PlainReply(1), "", "", 1},
		{"VIEW prefers Kimi's media tool", conversation{items: []item{user("VIEW /p/red.png")}, tools: tools("Read", "ReadMediaFile")},
			KindTool, ViewPreamble, "ReadMediaFile", `{"path":"/p/red.png"}`, 1},
		{"VIEW reads with Codex's view_image", conversation{items: []item{user(`"VIEW /p/red.png"`)}, tools: tools("exec_command", "view_image")},
			KindTool, ViewPreamble, "view_image", `{"path":"/p/red.png"}`, 1},
		{"VIEW without a path", conversation{items: []item{user("VIEW")}, tools: tools("Read")}, KindText, PlainReply(1), "", "", 1},
		{"ERROR wins over RUN", conversation{items: []item{user("RUN into an ERROR")}, tools: tools("bash")}, KindError, ScriptedErrorMessage, "", "", 1},
		{"an assistant turn last gets plain text", conversation{items: []item{user("hi"), {role: "assistant"}}}, KindText, PlainReply(1), "", "", 1},
		{"title", conversation{items: []item{user("Generate a concise task title.\n\nUser prompt:\nfix the login bug")}, title: true},
			KindTitle, "Mock title: fix the login bug", "", "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := decide(tc.conv, 7)
			if r.Kind != tc.wantKind || r.Text != tc.wantText || r.Tool != tc.wantTool || r.Turn != tc.wantTurn {
				t.Errorf("decide = %+v, want kind %s text %q tool %q turn %d", r, tc.wantKind, tc.wantText, tc.wantTool, tc.wantTurn)
			}
			if string(r.Input) != tc.wantInput {
				t.Errorf("input %s, want %s", r.Input, tc.wantInput)
			}
			if (r.ToolID != "") != (tc.wantTool != "") {
				t.Errorf("tool id %q", r.ToolID)
			}
		})
	}
}

func TestTitleReply(t *testing.T) {
	for _, prompt := range []string{"hi", "  a first line\nand a second  ", "a very long prompt that goes on and on well past the limit", "ünïcödé ünïcödé ünïcödé ünïcödé ünïcödé"} {
		got := TitleReply(prompt)
		if n := utf8.RuneCountInString(got); n > maxTitleRunes || !utf8.ValidString(got) {
			t.Errorf("TitleReply(%q) = %q (%d runes)", prompt, got, n)
		}
	}
	if got := TitleReply("  a first line\nand a second"); got != "Mock title: a first line" {
		t.Errorf("got %q", got)
	}
}

func TestQuestionShapes(t *testing.T) {
	for _, tc := range []struct{ tool, extraKey string }{
		{"AskUserQuestion", "multiSelect"}, {"request_user_input", "id"}, {"question", "multiple"},
	} {
		name, in, ok := questionCall([]tool{{name: tc.tool}})
		var args struct{ Questions []map[string]any }
		if !ok || name != tc.tool || json.Unmarshal(in, &args) != nil || len(args.Questions) != 1 {
			t.Fatalf("%s: %s %s %v", tc.tool, name, in, ok)
		}
		q := args.Questions[0]
		if q["question"] != AskQuestion || q["header"] != AskHeader || q[tc.extraKey] == nil || len(q["options"].([]any)) != 2 {
			t.Errorf("%s: question %v", tc.tool, q)
		}
	}
}
