// Command record runs one real agent CLI (agentenv's recipe) in a private
// tmux against the mock model and keeps it there until interrupted, so its
// dialogs can be driven and captured by hand with
// `tmux -S SOCKET send-keys -t TARGET …` / `capture-pane -p -J -t TARGET`.
// It prints SOCKET and TARGET on its first line.
//
//	go run ./internal/screendialog/testdata/record -cli claude
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"paddock/internal/testkit/agentenv"
	"paddock/internal/testkit/mockmodel"
)

func main() {
	cli := flag.String("cli", "claude", "claude, codex, opencode or kimi")
	home := flag.String("home", "/tmp/paddock-screendialog-home", "fake HOME (fixed, so paths on screen are stable)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, agentenv.CLI(*cli), *home); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, cli agentenv.CLI, home string) error {
	model, err := mockmodel.Start(ctx, mockmodel.Options{SlowDelay: 20 * time.Second})
	if err != nil {
		return err
	}
	defer model.Close()
	if err := os.RemoveAll(home); err != nil {
		return err
	}
	s, err := agentenv.New(cli, agentenv.Config{Home: home, ModelURL: model.URL()})
	if err != nil {
		return err
	}
	x, err := agentenv.NewTmux(agentenv.TmuxOptions{})
	if err != nil {
		return err
	}
	defer x.Close()
	p, err := x.Start(s.Spec(string(cli)))
	if err != nil {
		return err
	}
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := p.WaitScreen(wait, s.Ready); err != nil {
		return err
	}
	fmt.Printf("%s %s\n", p.Socket(), p.Target())
	<-ctx.Done()
	return nil
}
