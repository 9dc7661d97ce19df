package codex

import (
	"strings"
	"testing"
)

// TestMCPTable: paddock's [mcp_servers.paddock] table is appended between
// its markers, replaced when outdated, left alone when the name is some
// other server's, and taken out again giving back the file's bytes; a
// registration paddock cannot edit safely is refused with its line.
func TestMCPTable(t *testing.T) {
	m := &mcpTable{argv: []string{"/bin/paddock", "mcp", "--data-dir", "/d"},
		ours: func(argv []string) bool {
			return len(argv) > 1 && strings.HasSuffix(argv[0], "/paddock") && argv[1] == "mcp"
		}}
	region := mcpBegin + "\n[mcp_servers.paddock]\ncommand = \"/bin/paddock\"\nargs = [\"mcp\", \"--data-dir\", \"/d\"]\n" + mcpEnd + "\n"
	tests := []struct {
		name, src, want, back string
		ours                  int
		note                  bool
	}{
		{"an empty config", "", region, "", 0, false},
		{"after the user's settings", "model = \"o3\"\n\n[features]\nhooks = true\n", "model = \"o3\"\n\n[features]\nhooks = true\n\n" + region, "model = \"o3\"\n\n[features]\nhooks = true\n", 0, false},
		{"no newline at the end", "model = \"o3\"", "model = \"o3\"\n\n" + region, "model = \"o3\"\n", 0, false},
		{"as `codex mcp add` wrote it", "model = \"o3\"\n\n[mcp_servers.paddock]\ncommand = \"/old/paddock\"\nargs = [\"mcp\"]\n\n[mcp_servers.paddock.env]\nA = \"B\"\n",
			"model = \"o3\"\n\n" + region, "model = \"o3\"\n", 1, false},
		{"another server of that name", "[mcp_servers.paddock]\ncommand = \"npx\"\n", "[mcp_servers.paddock]\ncommand = \"npx\"\n", "[mcp_servers.paddock]\ncommand = \"npx\"\n", 0, true},
		{"beside other servers", "[mcp_servers.git]\ncommand = \"git-mcp\"\n", "[mcp_servers.git]\ncommand = \"git-mcp\"\n\n" + region, "[mcp_servers.git]\ncommand = \"git-mcp\"\n", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := m.edit([]byte(tc.src), true)
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Out) != tc.want || res.Ours != tc.ours || (len(res.Notes) > 0) != tc.note {
				t.Fatalf("install: ours %d notes %q\n%s\nwant\n%s", res.Ours, res.Notes, res.Out, tc.want)
			}
			again, err := m.edit(res.Out, true)
			if err != nil || string(again.Out) != string(res.Out) {
				t.Errorf("a second install changed the file: %v\n%s", err, again.Out)
			}
			back, err := m.edit(res.Out, false)
			if err != nil || string(back.Out) != tc.back {
				t.Errorf("uninstall: %v\n%q\nwant\n%q", err, back.Out, tc.back)
			}
		})
	}
	for _, bad := range []string{
		"mcp_servers.paddock.command = \"x\"\n",
		"[mcp_servers]\npaddock = { command = \"x\" }\n",
		"[mcp_servers.paddock]\ncommand = \"/bin/paddock\"\n[other]\n[mcp_servers.paddock.env]\nA = \"B\"\n",
		"[mcp_servers.paddock\n",
	} {
		if _, err := m.edit([]byte(bad), true); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
