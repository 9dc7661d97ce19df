package kimi

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"paddock/internal/history/historytest"
	"paddock/internal/testkit/sharedtest"
)

// Every public method, over every recording and fixture of both layouts,
// leaves both directories exactly as they were (scanning
// is read-only).
func TestReadOnly(t *testing.T) {
	share, home, _ := legacyTree(t)
	copyTree(t, filepath.Join("..", "..", "..", "testdata", "kimi-2.1.0", "kimi"), home)
	shared := sharedtest.Fixtures(t)
	copyTree(t, filepath.Join(shared, "real", "kimi-code-2.1.0", "kimi-code-home"), home)
	copyTree(t, filepath.Join(shared, "public", "kimi", "deja-vu", "fixtures", "registry", "kimi"), home)
	copyTree(t, filepath.Join(shared, "public", "kimi", "kimi-code", "sample-main"), filepath.Join(home, "sessions", bucket, "sample-main"))

	before := map[string]string{}
	maps.Copy(before, historytest.TreeState(t, home))
	maps.Copy(before, historytest.TreeState(t, share))

	tui := kimiTUI(os.Getpid(), "/tmp/fakehome-kimi/proj", time.Date(2026, 11, 29, 18, 38, 41, 0, time.UTC))
	s := newTest(home, func(o *Options) {
		o.LegacyHome = share
		o.Processes = procsOf(tui)
	})
	ctx := context.Background()
	for range 2 { // the second pass runs on warm caches
		infos, err := s.Scan(ctx, -1, []string{"session_fixture01"})
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) < 10 {
			t.Fatalf("listed only %d sessions", len(infos))
		}
		for _, info := range infos {
			if _, err := s.Session(ctx, info.ID); err != nil {
				t.Errorf("Session(%s): %v", info.ID, err)
			}
			if _, err := s.Conversation(ctx, info.ID); err != nil {
				t.Errorf("Conversation(%s): %v", info.ID, err)
			}
		}
		s.WatchDirs()
		_, _ = s.Conversation(ctx, uuidArchived)
		_, _ = s.Session(ctx, uuidMigrated)
	}

	after := map[string]string{}
	maps.Copy(after, historytest.TreeState(t, home))
	maps.Copy(after, historytest.TreeState(t, share))
	historytest.SameTree(t, before, after)
}
