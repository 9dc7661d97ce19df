package e2e

import (
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
	"paddock/internal/testkit/servetest"
)

// TestHooksInstallRegistersMCP: `paddock hooks install --mcp` registers
// paddock's MCP server with each real agent that takes MCP servers, in
// that agent's own config, and the agent then offers the model paddock's
// tools (the mock sees session_keyword_search among them in its
// request); `--dry-run` shows the change first and writes nothing;
// `paddock hooks uninstall` takes the registration out again, and the
// next run offers them no more.
func TestHooksInstallRegistersMCP(t *testing.T) {
	for _, cli := range []agenttest.CLI{agenttest.Claude, agenttest.Codex, agenttest.OpenCode, agenttest.Kimi} {
		t.Run(string(cli), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			mock, err := mockmodel.Start(ctx, mockmodel.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { mock.Close() })
			agent := agenttest.New(t, cli, mock.URL())
			if cli == agenttest.Claude {
				_ = os.MkdirAll(filepath.Join(agent.Home, ".claude"), 0o755)
			}
			srv := servetest.Start(t, agent.Home)
			paddock := func(args ...string) string {
				cmd := exec.Command(servetest.Binary(t), append(args, "--runtime", string(cli), "--data-dir", srv.DataDir)...)
				cmd.Env = append(slices.Clone(agent.Env), "HOME="+agent.Home)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("paddock %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			before := snapshotFiles(t, agent.Home)
			if out := paddock("hooks", "install", "--mcp", "--dry-run"); !strings.Contains(out, `"mcp"`) || !strings.Contains(out, "Dry run: nothing was written.") {
				t.Errorf("the dry run does not show the MCP server:\n%s", out)
			}
			if after := snapshotFiles(t, agent.Home); !maps.Equal(before, after) {
				t.Fatal("the dry run wrote")
			}
			paddock("hooks", "install", "--mcp")
			offered := func() bool {
				n := len(mock.Requests())
				var args []string
				switch cli {
				case agenttest.Claude:
					args = []string{"-p", "hello paddock one"}
				case agenttest.Codex:
					args = []string{"exec", "--skip-git-repo-check", "hello paddock one"}
				case agenttest.OpenCode:
					args = []string{"run", "hello paddock one"}
				case agenttest.Kimi:
					args = []string{"-p", "hello paddock one"}
				}
				cmd := exec.CommandContext(ctx, agent.Argv[0], args...)
				cmd.Env, cmd.Dir = agent.Env, agent.Cwd
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s %q: %v\n%s", cli, args, err, out)
				}
				for _, r := range mock.Requests()[n:] {
					if bytes.Contains(r.Body, []byte("session_keyword_search")) {
						return true
					}
				}
				return false
			}
			if !offered() {
				t.Fatalf("%s does not offer paddock's tools after hooks install --mcp", cli)
			}
			paddock("hooks", "uninstall")
			if offered() {
				t.Errorf("%s still offers paddock's tools after hooks uninstall", cli)
			}
		})
	}
}

// snapshotFiles is every file under root with its bytes.
func snapshotFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}
