package pi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"paddock/internal/session"
)

func TestDefaultDir(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ env, want string }{
		{"", filepath.Join(home, ".pi", "agent")},
		{"/srv/pi-agent", "/srv/pi-agent"},
		{"~", home},
		{"~/custom/agent", filepath.Join(home, "custom", "agent")},
	}
	for _, tt := range tests {
		t.Setenv("PI_CODING_AGENT_DIR", tt.env)
		if got := DefaultDir(); got != tt.want {
			t.Errorf("PI_CODING_AGENT_DIR=%q: DefaultDir() = %q, want %q", tt.env, got, tt.want)
		}
	}
	if got := New(Options{Dir: "relative/agent"}).dir; !filepath.IsAbs(got) {
		t.Errorf("a relative Dir stays relative: %q", got)
	}
}

func TestNotFound(t *testing.T) {
	agent := t.TempDir()
	p := writeChat(t, agent, "gone-soon", proj, 0, "x")
	writeFile(t, filepath.Join(agent, "sessions", "x", "empty_empty.jsonl"), headerLine("empty", proj, 0))
	s := newTestScanner(agent)
	ctx := context.Background()
	if _, err := s.Session(ctx, "gone-soon"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"gone-soon", "", "a/b", "..", "x y"} {
		if _, err := s.Session(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%q) = %v", id, err)
		}
		if _, err := s.Conversation(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Conversation(%q) = %v", id, err)
		}
	}
	// A header with nothing after it: found, but nothing to list.
	if _, err := s.Session(ctx, "empty"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Session(empty) = %v", err)
	}
	if msgs, err := s.Conversation(ctx, "empty"); err != nil || len(msgs) != 0 {
		t.Errorf("Conversation(empty) = %v, %v", msgs, err)
	}
	if got, err := New(Options{}).Scan(ctx, 10, nil); got != nil || err != nil {
		t.Errorf("Scan with no Dir = %v, %v", got, err)
	}
}

// Scan, Session and Conversation run concurrently in paddock (a rescan
// while a page loads); go test -race checks the shared caches.
func TestConcurrentUse(t *testing.T) {
	agent := t.TempDir()
	for i, id := range []string{"c1", "c2", "c3", "c4"} {
		writeChat(t, agent, id, proj, i*10, "prompt "+id)
	}
	s := newTestScanner(agent)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 20 {
				switch i % 3 {
				case 0:
					if got, err := s.Scan(ctx, 2+i%3, []string{"c1"}); err != nil || len(got) < 2 {
						t.Errorf("Scan = %v, %v", ids(got), err)
					}
				case 1:
					if _, err := s.Session(ctx, "c2"); err != nil {
						t.Error(err)
					}
				default:
					if msgs, err := s.Conversation(ctx, "c3"); err != nil || len(msgs) != 2 {
						t.Errorf("Conversation = %v, %v", msgs, err)
					}
					s.WatchDirs()
				}
			}
		})
	}
	wg.Wait()
}
