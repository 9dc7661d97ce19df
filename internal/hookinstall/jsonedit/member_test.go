package jsonedit

import (
	"strings"
	"testing"
)

// TestMember: paddock's entry is added under its container (created when
// missing), replaced when outdated, left alone when the name is someone
// else's, and taken out again giving back the file's bytes.
func TestMember(t *testing.T) {
	m := &Member{Container: "mcpServers", Name: "paddock",
		Value: Obj("command", "/bin/paddock", "args", []string{"mcp"}),
		Ours: func(n *Node) bool {
			c, _ := n.GetString("command")
			return strings.HasSuffix(c, "/paddock")
		}}
	tests := []struct {
		name, src, want string
		ours, foreign   int
		taken           bool
	}{
		{"an empty config", "{}\n",
			"{\n  \"mcpServers\": {\n    \"paddock\": {\n      \"command\": \"/bin/paddock\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n", 0, 0, false},
		{"a one-line config", "{\"a\": 1}", "{\"a\": 1,\"mcpServers\": {\"paddock\": {\"command\": \"/bin/paddock\", \"args\": [\"mcp\"]}}}", 0, 0, false},
		{"beside other keys", "{\n  \"theme\": \"dark\"\n}\n",
			"{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"paddock\": {\n      \"command\": \"/bin/paddock\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n", 0, 0, false},
		{"beside other servers", "{\n  \"mcpServers\": {\n    \"git\": {\"command\": \"git-mcp\"}\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"git\": {\"command\": \"git-mcp\"},\n    \"paddock\": {\n      \"command\": \"/bin/paddock\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n", 0, 1, false},
		{"an outdated entry of ours", "{\n  \"mcpServers\": {\n    \"paddock\": {\"command\": \"/old/paddock\"}\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"paddock\": {\n      \"command\": \"/bin/paddock\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n", 1, 0, false},
		{"the name taken by another server", "{\"mcpServers\": {\"paddock\": {\"command\": \"npx\"}}}\n", "{\"mcpServers\": {\"paddock\": {\"command\": \"npx\"}}}\n", 0, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := m.Edit([]byte(tc.src), true)
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Out) != tc.want || res.Ours != tc.ours || res.Foreign != tc.foreign || res.Taken != tc.taken {
				t.Fatalf("install: %+v\n%s\nwant\n%s", res, res.Out, tc.want)
			}
			again, err := m.Edit(res.Out, true)
			if err != nil || string(again.Out) != string(res.Out) {
				t.Errorf("a second install changed the file: %v\n%s", err, again.Out)
			}
			back, err := m.Edit(res.Out, false)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.src
			if tc.ours == 1 {
				want = "{}\n" // paddock's was the only entry: the container goes
			}
			if string(back.Out) != want {
				t.Errorf("uninstall gave\n%s\nwant\n%s", back.Out, want)
			}
		})
	}
	for _, bad := range []string{`[]`, `{"mcpServers": []}`, `{"mcpServers": {}, "mcpServers": {}}`, `{"mcpServers": {"paddock": {}, "paddock": {}}}`, `{"mcpServers": `} {
		if _, err := m.Edit([]byte(bad), true); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
