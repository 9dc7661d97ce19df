package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"paddock/internal/app"
	"paddock/internal/hookchannel"
	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
	"paddock/internal/testkit/servetest"
)

// BenchmarkClaudeHooksHungListener: what paddock's hooks cost the real
// Claude Code when paddock's listener accepts and never answers. One
// one-shot turn (`claude -p`) that runs one Bash command: SessionStart,
// UserPromptSubmit, PreToolUse, PostToolUse, Stop and SessionEnd — six
// hook events — with no hooks installed, with the relay (command hooks),
// and with --claude-http (UserPromptSubmit, PostToolUse and Stop posted
// straight to the listener). Wall time per turn, p50/p99; the difference
// from "none" is what the hooks cost the agent. -benchtime=5x.
func BenchmarkClaudeHooksHungListener(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	mock, err := mockmodel.Start(ctx, mockmodel.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer mock.Close()
	bin := servetest.Binary(b)
	hung := hungPort(b)
	for _, mode := range []string{"none", "relay", "http"} {
		b.Run("hooks="+mode, func(b *testing.B) {
			agent := agenttest.New(b, agenttest.Claude, mock.URL())
			if err := os.MkdirAll(filepath.Join(agent.Home, ".claude"), 0o755); err != nil {
				b.Fatal(err)
			}
			data := b.TempDir()
			if _, _, err := hookchannel.LoadOrCreateSecret(data); err != nil {
				b.Fatal(err)
			}
			addr := fmt.Sprintf("127.0.0.1:%d", hung)
			if err := app.WriteState(data, app.State{PID: os.Getpid(), HookPort: hung, HookAddr: addr}); err != nil {
				b.Fatal(err)
			}
			if mode != "none" {
				args := []string{"hooks", "install", "--runtime", "claude", "--data-dir", data}
				if mode == "http" {
					args = append(args, "--claude-http", "--hook-addr", addr)
				}
				install := exec.Command(bin, args...)
				install.Env = append(slices.Clone(agent.Env), "HOME="+agent.Home)
				if out, err := install.CombinedOutput(); err != nil {
					b.Fatalf("paddock hooks install: %v\n%s", err, out)
				}
			}
			wall := make([]time.Duration, 0, b.N)
			for b.Loop() {
				cmd := exec.CommandContext(ctx, agent.Argv[0], "-p", "please RUN the tests", "--allowedTools", "Bash")
				cmd.Env, cmd.Dir = agent.Env, agent.Cwd
				start := time.Now()
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("claude -p: %v\n%s", err, out)
				}
				wall = append(wall, time.Since(start))
			}
			reportPercentiles(b, "turn", wall)
		})
	}
}
