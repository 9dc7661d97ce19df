package kimi

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
	"testing"
	"time"

	"paddock/internal/sharedtest"
)

// treeState records every entry under root: mode, size, mtime and a hash of
// the contents. Directories are included, so a created or removed file
// shows as a changed directory too.
func treeState(t *testing.T, root string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(path)
		if err != nil {
			return err
		}
		sum := ""
		if st.Mode().IsRegular() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			h := sha256.Sum256(b)
			sum = hex.EncodeToString(h[:])
		}
		state[path] = fmt.Sprintf("%v %d %d %s", st.Mode(), st.Size(), st.ModTime().UnixNano(), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// Every public method, over every recording and fixture of both layouts,
// leaves both directories exactly as they were (seed 002 §1, §4: scanning
// is read-only).
func TestReadOnly(t *testing.T) {
	share, home, _ := legacyTree(t)
	copyTree(t, filepath.Join("..", "..", "..", "testdata", "kimi-2.1.0", "kimi"), home)
	shared := sharedtest.Fixtures(t)
	copyTree(t, filepath.Join(shared, "real", "kimi-code-2.1.0", "kimi-code-home"), home)
	copyTree(t, filepath.Join(shared, "public", "kimi", "deja-vu", "fixtures", "registry", "kimi"), home)
	copyTree(t, filepath.Join(shared, "public", "kimi", "kimi-code", "sample-main"), filepath.Join(home, "sessions", bucket, "sample-main"))

	before := map[string]string{}
	maps.Copy(before, treeState(t, home))
	maps.Copy(before, treeState(t, share))

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
	maps.Copy(after, treeState(t, home))
	maps.Copy(after, treeState(t, share))
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
