package registry

import (
	"reflect"
	"testing"

	"paddock/internal/agent"
)

// Each agent's file-changing tools read as a diff, from the inputs their
// own tool schemas define (Claude Code's Edit/MultiEdit/Write, Codex's
// apply_patch, OpenCode's edit/write, Pi's edit/write, Kimi Code 2.1's
// Edit/Write); any other call is not an edit.
func TestEveryAgentsEditsReadAsDiffs(t *testing.T) {
	reg := Default()
	for _, tc := range []struct {
		agent, tool, input string
		want               agent.FileEdit
	}{
		{"claude", "Edit", `{"file_path":"/p/a.go","old_string":"x := 1","new_string":"x := 2"}`,
			agent.FileEdit{File: "/p/a.go", Old: []string{"x := 1"}, New: []string{"x := 2"}}},
		{"claude", "Write", `{"file_path":"/p/new.md","content":"# hi\n"}`,
			agent.FileEdit{File: "/p/new.md", Old: []string{""}, New: []string{"# hi\n"}}},
		{"codex", "apply_patch", `{"input":"*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch"}`,
			agent.FileEdit{File: "a.go", Patch: "*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch"}},
		{"opencode", "edit", `{"filePath":"/p/a.go","oldString":"x := 1","newString":"x := 2","replaceAll":false}`,
			agent.FileEdit{File: "/p/a.go", Old: []string{"x := 1"}, New: []string{"x := 2"}}},
		{"opencode", "write", `{"filePath":"/p/new.md","content":"# hi\n"}`,
			agent.FileEdit{File: "/p/new.md", Old: []string{""}, New: []string{"# hi\n"}}},
		{"pi", "edit", `{"path":"a.go","edits":[{"oldText":"a","newText":"b"},{"oldText":"c","newText":"d"}]}`,
			agent.FileEdit{File: "a.go", Old: []string{"a", "c"}, New: []string{"b", "d"}}},
		{"pi", "edit", `{"path":"a.go","oldText":"a","newText":"b"}`,
			agent.FileEdit{File: "a.go", Old: []string{"a"}, New: []string{"b"}}},
		{"pi", "write", `{"path":"n.txt","content":"hello"}`,
			agent.FileEdit{File: "n.txt", Old: []string{""}, New: []string{"hello"}}},
		{"kimi", "Edit", `{"path":"/p/a.go","old_string":"x := 1","new_string":"x := 2","replace_all":true}`,
			agent.FileEdit{File: "/p/a.go", Old: []string{"x := 1"}, New: []string{"x := 2"}}},
		{"kimi", "Write", `{"path":"/p/log.txt","content":"more\n","mode":"append"}`,
			agent.FileEdit{File: "/p/log.txt", Old: []string{""}, New: []string{"more\n"}}},
	} {
		got, ok := reg.UIOf(tc.agent).Edit(tc.tool, tc.input)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s: %+v %v, want %+v", tc.agent, tc.tool, got, ok, tc.want)
		}
	}
	for _, tc := range []struct{ agent, tool, input string }{
		{"opencode", "bash", `{"command":"ls"}`},
		{"opencode", "edit", `not json`},
		{"pi", "edit", `{"path":"a.go","edits":[]}`},
		{"pi", "read", `{"path":"a.go"}`},
		{"kimi", "Edit", `{"old_string":"a","new_string":"b"}`},
		{"kimi", "Bash", `{"command":"ls"}`},
	} {
		if e, ok := reg.UIOf(tc.agent).Edit(tc.tool, tc.input); ok {
			t.Errorf("%s %s %s read as an edit: %+v", tc.agent, tc.tool, tc.input, e)
		}
	}
	for _, name := range reg.Names() {
		if reg.UIOf(name).Edit == nil && name != "cursor" {
			t.Errorf("%s has no edit reader", name)
		}
	}
}
