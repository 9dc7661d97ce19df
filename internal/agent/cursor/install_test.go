package cursor

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"paddock/internal/hookinstall"
)

// TestInstallRegistersMCP: with MCP asked for, paddock's MCP server goes
// into ~/.cursor/mcp.json beside the user's servers, in the shape Cursor
// documents (command and args); without it an install leaves mcp.json
// alone; an uninstall takes paddock's entry out and keeps the others.
// (No Cursor Agent CLI can run here: the file is checked, not Cursor.)
func TestInstallRegistersMCP(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".cursor")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mcpJSON := filepath.Join(dir, "mcp.json")
	user := "{\n  \"mcpServers\": {\n    \"git\": {\"command\": \"git-mcp\"}\n  }\n}\n"
	if err := os.WriteFile(mcpJSON, []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := hookinstall.Options{Specs: []hookinstall.Spec{install()}, Binary: "/opt/paddock/bin/paddock", DataDir: "/d", Home: home,
		Env: func(string) string { return "" }}
	if _, err := hookinstall.Install(opts, nil, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(mcpJSON); string(b) != user {
		t.Fatalf("an install without MCP changed mcp.json:\n%s", b)
	}
	opts.MCP = true
	if _, err := hookinstall.Install(opts, nil, false); err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		}
	}
	b, _ := os.ReadFile(mcpJSON)
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	p := cfg.MCPServers["paddock"]
	if p.Command != "/opt/paddock/bin/paddock" || !slices.Equal(p.Args, []string{"mcp", "--data-dir", "/d"}) || cfg.MCPServers["git"].Command != "git-mcp" {
		t.Fatalf("mcp.json: %s", b)
	}
	opts.MCP = false
	if _, err := hookinstall.Uninstall(opts, nil, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(mcpJSON); string(b) != user {
		t.Errorf("uninstall left:\n%s\nwant\n%s", b, user)
	}
	if _, err := os.Stat(filepath.Join(dir, "hooks.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("hooks.json after uninstall: %v", err)
	}
}
