package claude

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"paddock/internal/history/historytest"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

// recordedDir copies a recording's Claude dir into a temp dir and gives
// each recorded session the directory Claude keeps beside its transcript
// (subagents/, tool-results/), so a delete has all of a session's files to
// remove. It returns the dir and the recorded session ids by name.
func recordedDir(t *testing.T, rec string) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(rec, "claude")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		copyFile(t, path, filepath.Join(dir, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, s := range readRecording(t, rec).Sessions {
		id := strings.TrimSuffix(filepath.Base(s.Files[0]), ".jsonl")
		ids[s.Name] = id
		own := filepath.Join(dir, "projects", "-tmp-paddock-fixtures-home-proj", id)
		writeFile(t, filepath.Join(own, "subagents", "agent-a1b2c3.jsonl"), []byte(`{"type":"user","isSidechain":true}`+"\n"))
		writeFile(t, filepath.Join(own, "tool-results", "toolu_1.txt"), []byte("output"))
	}
	return dir, ids
}

// TestDelete deletes the recorded `tools` session from a copy: its
// transcript and its own directory are gone, every other file (the other
// session's, the pid registry, a directory a link in the session's
// directory points to) is byte for byte as it was, Scan no longer lists
// it, and deleting it again is session.ErrNotFound.
func TestDelete(t *testing.T) {
	for _, rec := range claudeRecordings(t) {
		t.Run(filepath.Base(rec), func(t *testing.T) {
			dir, ids := recordedDir(t, rec)
			id := ids["tools"]
			proj := filepath.Join(dir, "projects", "-tmp-paddock-fixtures-home-proj")
			// A link inside the session's directory: removing the
			// directory must remove the link, never what it points to.
			outside := t.TempDir()
			writeFile(t, filepath.Join(outside, "keep.txt"), []byte("not Claude's"))
			if err := os.Symlink(outside, filepath.Join(proj, id, "link")); err != nil {
				t.Fatal(err)
			}
			outsideBefore := historytest.TreeState(t, outside)

			s := newTestScanner(dir)
			if _, err := s.Scan(t.Context(), -1, nil); err != nil { // warm the cache
				t.Fatal(err)
			}
			before := historytest.TreeState(t, dir)
			if err := s.Delete(t.Context(), id); err != nil {
				t.Fatal(err)
			}
			after := historytest.TreeState(t, dir)

			gone := func(p string) bool {
				return p == filepath.Join(proj, id+".jsonl") || p == filepath.Join(proj, id) ||
					strings.HasPrefix(p, filepath.Join(proj, id)+string(filepath.Separator))
			}
			for _, p := range slices.Sorted(maps.Keys(before)) {
				if gone(p) {
					if _, ok := after[p]; ok {
						t.Errorf("%s is still there", p)
					}
					delete(before, p)
				}
			}
			delete(before, proj) // its mtime changes with the removals
			delete(after, proj)
			if !slices.ContainsFunc(slices.Collect(maps.Keys(before)), func(p string) bool {
				return strings.HasPrefix(p, filepath.Join(proj, ids["chat"]))
			}) {
				t.Fatal("the other session's files are not in the tree")
			}
			historytest.SameTree(t, before, after)
			historytest.SameTree(t, outsideBefore, historytest.TreeState(t, outside))

			list, err := s.Scan(t.Context(), -1, []string{id})
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(list, func(i session.Info) bool { return i.ID == id }) {
				t.Errorf("Scan still lists %s", id)
			}
			if !slices.ContainsFunc(list, func(i session.Info) bool { return i.ID == ids["chat"] }) {
				t.Errorf("Scan lost the other session: %+v", list)
			}
			if _, err := s.Session(t.Context(), id); !errors.Is(err, session.ErrNotFound) {
				t.Errorf("Session after Delete: %v", err)
			}
			if err := s.Delete(t.Context(), id); !errors.Is(err, session.ErrNotFound) {
				t.Errorf("second Delete: %v, want ErrNotFound", err)
			}
		})
	}
}

// TestDeleteEveryCopy: the same id under two project directories is one
// session (Scan lists the newer); Delete removes both, or the older would
// be listed in its place.
func TestDeleteEveryCopy(t *testing.T) {
	dir := t.TempDir()
	writeSession(t, dir, "-a", "s1", user("u1", "", "in a", 0))
	writeSession(t, dir, "-b", "s1", user("u1", "", "in b", 0))
	writeSession(t, dir, "-b", "s2", user("u1", "", "other", 0))
	s := newTestScanner(dir)
	if err := s.Delete(t.Context(), "s1"); err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, s); len(got) != 1 || got["s2"].ID != "s2" {
		t.Errorf("after Delete(s1), Scan lists %v", slices.Collect(maps.Keys(got)))
	}
}

// TestDeleteLive refuses a session whose Claude process is running (this
// test process, registered as Claude registers itself) and touches
// nothing.
func TestDeleteLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process start times come from /proc")
	}
	dir, ids := recordedDir(t, claudeRecordings(t)[0])
	self := os.Getpid()
	start, err := procscan.StartTicks(self)
	if err != nil {
		t.Fatal(err)
	}
	writePidFile(t, dir, strconv.Itoa(self), nil, map[string]any{"pid": self, "procStart": start, "sessionId": ids["tools"], "status": "busy"})
	before := historytest.TreeState(t, dir)
	s := New(Options{Dir: dir})
	err = s.Delete(t.Context(), ids["tools"])
	if !errors.Is(err, session.ErrLive) {
		t.Fatalf("Delete of a live session: %v, want ErrLive", err)
	}
	if !strings.Contains(err.Error(), strconv.Itoa(self)) {
		t.Errorf("the error does not name the process: %v", err)
	}
	historytest.SameTree(t, before, historytest.TreeState(t, dir))
}

// TestDeleteUnknown: an id no transcript has, or one that cannot name a
// session file, is session.ErrNotFound and nothing is touched.
func TestDeleteUnknown(t *testing.T) {
	dir, _ := recordedDir(t, claudeRecordings(t)[0])
	// A subagent transcript and a session directory are not sessions.
	before := historytest.TreeState(t, dir)
	s := New(Options{Dir: dir})
	for _, id := range []string{"nope", "", "..", "../projects", "*", "agent-a1b2c3", "a/b"} {
		if err := s.Delete(context.Background(), id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Delete(%q) = %v, want ErrNotFound", id, err)
		}
	}
	if err := New(Options{}).Delete(context.Background(), "x"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Delete without a dir: %v", err)
	}
	historytest.SameTree(t, before, historytest.TreeState(t, dir))
}
