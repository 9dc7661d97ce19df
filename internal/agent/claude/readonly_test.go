package claude

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"paddock/internal/history/historytest"
)

// Every public method but Delete, on every fixture, leaves the Claude dir exactly as
// it was (scanning is read-only).
func TestReadOnly(t *testing.T) {
	dir, files := claudeDirFromFixtures(t)
	self := strconv.Itoa(os.Getpid())
	writeFile(t, filepath.Join(dir, "sessions", self+".json"),
		[]byte(`{"pid":`+self+`,"sessionId":"14d07547-4535-40bc-9800-7f7c499cfab7","status":"busy"}`))
	writeFile(t, filepath.Join(dir, "sessions", "1.json"), []byte(`{corrupt`))
	before := historytest.TreeState(t, dir)

	s := newTestScanner(dir)
	ctx := context.Background()
	for range 2 { // the second pass runs on a warm cache
		infos, err := s.Scan(ctx, -1, []string{"dag_fork"})
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range infos {
			if _, err := s.Session(ctx, info.ID); err != nil {
				t.Errorf("Session(%s): %v", info.ID, err)
			}
		}
		for _, f := range files {
			_, _ = s.Conversation(ctx, f.id)
			_, _ = s.Events(ctx, f.id)
			_, _ = s.Session(ctx, f.id)
		}
		s.WatchDirs()
	}

	after := historytest.TreeState(t, dir)
	historytest.SameTree(t, before, after)
}
