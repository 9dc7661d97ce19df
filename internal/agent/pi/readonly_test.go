package pi

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"paddock/internal/history/historytest"
	"paddock/internal/procscan"
	"paddock/internal/testkit/sharedtest"
)

// Every public method but Delete, on every recording and fixture — including the v1
// files Pi itself would migrate in place — leaves the agent dir exactly as
// it was (scanning and previews are read-only).
func TestReadOnly(t *testing.T) {
	agent := t.TempDir()
	for _, dir := range piRecordings(t) {
		copyTree(t, filepath.Join(dir, "pi"), agent)
	}
	copyTree(t, sharedtest.Fixtures(t, "real", "pi-0.73.1", "pi-agent-dir"), agent)
	pub := sharedtest.Fixtures(t, "public", "pi")
	for i, src := range []string{
		"pi-mono/packages/coding-agent/test/fixtures/large-session.jsonl",
		"pi-mono/packages/coding-agent/test/fixtures/before-compaction.jsonl",
		"agentsview/internal/parser/testdata/pi/session.jsonl",
		"deja-vu/fixtures/registry/pi/session.jsonl",
	} {
		if err := copyFile(filepath.Join(pub, src), filepath.Join(agent, "sessions", "corral-public", fmt.Sprintf("p%d.jsonl", i))); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(agent, "sessions", "--x--", "not-a-session.jsonl"), `{"type":"agent_start"}`+"\n")
	before := historytest.TreeState(t, agent)

	s := newTestScanner(agent, func(o *Options) {
		o.Processes = func(context.Context) ([]procscan.AgentProcess, error) {
			return []procscan.AgentProcess{{PID: 1, Runtime: "pi", Interactive: true, ArgsHidden: true,
				SessionID: "01a22861-ac0c-7370-9d5e-0f884cfc9b82"}}, nil
		}
	})
	ctx := context.Background()
	for range 2 { // the second pass runs on warm caches
		infos, err := s.Scan(ctx, -1, []string{"pi-test-session-uuid", "missing"})
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) < 13 {
			t.Errorf("listed %d sessions", len(infos))
		}
		for _, info := range infos {
			if _, err := s.Session(ctx, info.ID); err != nil {
				t.Errorf("Session(%s): %v", info.ID, err)
			}
			if _, err := s.Conversation(ctx, info.ID); err != nil {
				t.Errorf("Conversation(%s): %v", info.ID, err)
			}
			if _, err := s.Events(ctx, info.ID); err != nil {
				t.Errorf("Events(%s): %v", info.ID, err)
			}
			if f, err := s.FileOf(ctx, info.ID); err != nil || f != info.Path {
				t.Errorf("FileOf(%s) = %s, %v", info.ID, f, err)
			}
			if id, err := IDOf(info.Path); err != nil || id != info.ID {
				t.Errorf("IDOf(%s) = %s, %v", info.Path, id, err)
			}
		}
		_, _ = s.Session(ctx, "missing")
		_, _ = s.Scan(ctx, 1, nil)
		s.WatchDirs()
	}

	after := historytest.TreeState(t, agent)
	historytest.SameTree(t, before, after)
}
