package codex

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The scan signature: an unchanged tree is answered from
// the last result without parsing; a changed rollout is re-parsed alone; a
// new rollout deep in the tree, a process change and a title change are
// each noticed, though no directory mtime is consulted.
func TestScanSignature(t *testing.T) {
	h := newHome(t)
	old := time.Now().Add(-time.Hour)
	for n := 1; n <= 3; n++ {
		h.rollout(id(n), old.Add(time.Duration(n)*time.Minute), lines(meta(0, id(n), "/p"), turn(1, "prompt", "answer"))...)
	}
	f := &fakeProcs{}
	s := f.scanner(h.dir)
	ctx := context.Background()
	first := scanAll(t, s)
	if n := s.parsed.Load(); n != 3 {
		t.Fatalf("first scan parsed %d", n)
	}

	// Nothing changed: no parse, the same answer.
	again := scanAll(t, s)
	if n := s.parsed.Load(); n != 3 || !slices.Equal(again, first) {
		t.Fatalf("unchanged: parsed %d, %v", n, ids(again))
	}

	// Callers may change what they got: the next answer is unaffected.
	again[0].Title = "changed by a caller"
	if got := scanAll(t, s); got[0].Title == "changed by a caller" {
		t.Fatal("a caller's change reached the cached result")
	}

	// One rollout grows (same second, so only size tells): it alone is
	// re-parsed.
	path := filepath.Join(h.dir, "sessions/2026/01/02/rollout-2026-01-02T10-00-00-"+id(2)+".jsonl")
	st, _ := os.Stat(path)
	appendLines(t, path, lines(turn(5, "a later prompt", "later answer"))...)
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	got := byID(scanAll(t, s))
	if n := s.parsed.Load(); n != 4 {
		t.Errorf("after one append: parsed %d, want 4", n)
	}
	if got[id(2)].LastPrompt != "a later prompt" || got[id(2)].PromptCount != 2 {
		t.Errorf("append not seen: %+v", got[id(2)])
	}

	// A new rollout in a new day directory.
	h.file("sessions/2026/02/03/rollout-2026-02-03T10-00-00-"+id(4)+".jsonl", time.Time{}, lines(meta(0, id(4), "/p"), turn(1, "new", "a"))...)
	if got := scanAll(t, s); len(got) != 4 || !slices.Contains(ids(got), id(4)) || s.parsed.Load() != 5 {
		t.Errorf("new rollout: %v, parsed %d", ids(got), s.parsed.Load())
	}

	// A process starts holding a rollout: live, without any parse.
	f.add(321, true, path)
	if got := byID(scanAll(t, s)); !got[id(2)].Live || s.parsed.Load() != 5 {
		t.Errorf("process start: %+v, parsed %d", got[id(2)], s.parsed.Load())
	}
	f.procs = nil
	if got := byID(scanAll(t, s)); got[id(2)].Live {
		t.Error("process exit not seen")
	}

	// A thread name appears in session_index.jsonl.
	h.file(indexFile, time.Time{}, map[string]any{"id": id(1), "thread_name": "named now"})
	if got := byID(scanAll(t, s)); got[id(1)].Title != "named now" || s.parsed.Load() != 5 {
		t.Errorf("index change: %q, parsed %d", got[id(1)].Title, s.parsed.Load())
	}

	// A rollout removed; its summary is forgotten.
	if err := os.Remove(filepath.Join(h.dir, "sessions/2026/01/02/rollout-2026-01-02T10-00-00-"+id(3)+".jsonl")); err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, s); len(got) != 3 {
		t.Errorf("after removal: %v", ids(got))
	}
	cached := s.cache.Len()
	if cached != 3 {
		t.Errorf("%d summaries cached, want 3", cached)
	}

	// Different arguments are a different answer.
	if got, _ := s.Scan(ctx, 1, nil); len(got) != 1 {
		t.Errorf("limit 1 after a full scan: %d", len(got))
	}
	if got, _ := s.Scan(ctx, 1, []string{id(1)}); len(got) != 2 {
		t.Errorf("limit 1 keep 1: %d", len(got))
	}
}

// A rollout replaced by another file of the same size and mtime (a
// restore, a sync tool) is told apart by its inode.
func TestScanSignatureInode(t *testing.T) {
	h := newHome(t)
	mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
	path := h.rollout(id(1), mtime, lines(meta(0, id(1), "/p"), turn(1, "prompt AAAA", "a"))...)
	s := newTestScanner(h.dir)
	if got := scanAll(t, s); got[0].FirstPrompt != "prompt AAAA" {
		t.Fatal(got)
	}
	tmp := path + ".tmp"
	writeFile(t, tmp, "")
	h.file(filepath.Join("sessions/2026/01/02", filepath.Base(tmp)), mtime, lines(meta(0, id(1), "/p"), turn(1, "prompt BBBB", "a"))...)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, s); got[0].FirstPrompt != "prompt BBBB" {
		t.Errorf("replaced file not seen: %+v", got[0])
	}
}

func appendLines(t *testing.T, path string, ls ...any) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range ls {
		data, err := jsonLine(l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(data); err != nil {
			t.Fatal(err)
		}
	}
}

// Scan, Session and Conversation may run at once (the catalog serves pages
// while it rescans); run under -race.
func TestConcurrentUse(t *testing.T) {
	dir := copyTree(t, filepath.Join(repoRecording, "codex"))
	h := &home{t: t, dir: dir}
	s := newTestScanner(dir)
	ctx := context.Background()
	infos := scanAll(t, s)
	done := make(chan struct{})
	for w := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 20 {
				switch (w + i) % 3 {
				case 0:
					if _, err := s.Scan(ctx, 10, []string{infos[0].ID}); err != nil {
						t.Error(err)
					}
				case 1:
					if _, err := s.Session(ctx, infos[i%len(infos)].ID); err != nil {
						t.Error(err)
					}
				default:
					if _, err := s.Conversation(ctx, infos[i%len(infos)].ID); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	for i := range 10 {
		h.rollout(id(i), time.Now(), lines(meta(0, id(i), "/p"), turn(1, "concurrent", "a"))...)
	}
	for range 4 {
		<-done
	}
}
