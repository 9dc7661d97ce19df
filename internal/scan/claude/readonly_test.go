package claude

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// treeState records every entry under root: type and mode, size, mtime, and
// a sha256 of file contents. Directories are included, so a created or
// removed file shows up as a changed directory mtime too.
func treeState(t *testing.T, root string) map[string]string {
	t.Helper()
	state := make(map[string]string)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		sum := ""
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			h := sha256.Sum256(data)
			sum = hex.EncodeToString(h[:])
		}
		state[path] = fmt.Sprintf("%v %d %d %s", info.Mode(), info.Size(), info.ModTime().UnixNano(), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// Every public method, on every fixture, leaves the Claude dir exactly as
// it was (seed 002 §1: scanning is read-only).
func TestReadOnly(t *testing.T) {
	dir, files := claudeDirFromFixtures(t)
	self := strconv.Itoa(os.Getpid())
	writeFile(t, filepath.Join(dir, "sessions", self+".json"),
		[]byte(`{"pid":`+self+`,"sessionId":"14d07547-4535-40bc-9800-7f7c499cfab7","status":"busy"}`))
	writeFile(t, filepath.Join(dir, "sessions", "1.json"), []byte(`{corrupt`))
	before := treeState(t, dir)

	s := New(Options{Dir: dir})
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
			_, _ = s.Session(ctx, f.id)
		}
		s.WatchDirs()
	}

	after := treeState(t, dir)
	for _, p := range slices.Sorted(maps.Keys(before)) {
		if after[p] != before[p] {
			t.Errorf("%s changed:\n  before %s\n  after  %s", p, before[p], after[p])
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s created", p)
		}
	}
}
