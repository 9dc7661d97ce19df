package tmux

import (
	"context"
	"strings"
	"testing"
)

// go test -run '^$' -bench . -benchmem ./internal/tmux
//
// Each operation is one tmux client process (fork, exec, connect, one
// command): these figures are the floor for anything paddock does to a
// hosted session.

func BenchmarkCapture(b *testing.B) {
	s := newServer(b, Options{})
	p := start(b, s, Window{Name: "bench",
		Argv: sh(`i=1; while [ $i -le 2000 ]; do echo "line $i: some output an agent might print"; i=$((i+1)); done; echo done; exec sleep 600`)})
	waitScreen(b, s, p, "done")
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		opts CaptureOptions
	}{
		{"screen", CaptureOptions{Join: true}},
		{"scrollback-1000", CaptureOptions{ScrollBack: 1000, Join: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Capture(ctx, p, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSendText(b *testing.B) {
	s := newServer(b, Options{})
	p := start(b, s, Window{Name: "bench", Argv: sh(`stty raw -echo; exec cat > /dev/null`)})
	ctx := context.Background()
	for b.Loop() {
		if err := s.SendText(ctx, p, "please fix the failing test in internal/tmux"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPaste(b *testing.B) {
	s := newServer(b, Options{})
	p := start(b, s, Window{Name: "bench", Argv: sh(`stty raw -echo; exec cat > /dev/null`)})
	ctx := context.Background()
	text := strings.Repeat("a line of a longer message\n", 4<<10/27+1) // 4 KiB
	for b.Loop() {
		if err := s.Paste(ctx, p, text); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStatus(b *testing.B) {
	s := newServer(b, Options{})
	p := start(b, s, Window{Name: "bench", Argv: []string{"sleep", "600"}})
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.Status(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}
