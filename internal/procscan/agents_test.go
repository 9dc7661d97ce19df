package procscan_test

import (
	"context"
	"errors"
	"testing"

	. "paddock/internal/procscan"
)

func BenchmarkAgents(b *testing.B) {
	ctx := context.Background()
	if _, err := shipped.Agents(ctx); errors.Is(err, ErrUnsupported) {
		b.Skip("agent discovery needs /proc (Linux)")
	}
	Helper{Argv: []string{"node", "/opt/node_modules/@openai/codex/bin/codex.js", "resume", "x"}, Children: 1,
		ChildArgv: []string{"/opt/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex/codex", "resume", "x"}}.Start(b)
	for b.Loop() {
		if _, err := shipped.Agents(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
