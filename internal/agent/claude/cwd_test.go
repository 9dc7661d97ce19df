package claude

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"paddock/internal/procscan"
	"paddock/internal/session"
)

// Sessions run in an ephemeral directory (a path segment "oc-manager-…")
// are never listed; those whose directory is gone are listed only when
// KeepMissingCwd is set or Claude still runs them.
func TestCwdFilters(t *testing.T) {
	if !procscan.Alive(os.Getpid()) {
		t.Skip("this OS cannot tell that a process runs")
	}
	dir := t.TempDir()
	here := t.TempDir()
	gone := filepath.Join(t.TempDir(), "removed")
	for id, cwd := range map[string]string{
		"here":         here,
		"gone":         gone,
		"gone-live":    gone,
		"ephemeral":    "/tmp/oc-manager-claude/work",
		"ephemeral-w":  `C:\Users\x\oc-manager-1\w`,
		"ephemeral-lv": "/tmp/oc-manager-claude/live",
		"no-cwd":       "",
	} {
		writeSession(t, dir, "p", id, user("u1", "", "task "+id, 0, "cwd", cwd))
	}
	// This test process plays the Claude that still runs two of them.
	self := os.Getpid()
	for n, id := range []string{"gone-live", "ephemeral-lv"} {
		writePidFile(t, dir, strconv.Itoa(n+1), nil, map[string]any{"pid": self, "sessionId": id})
	}

	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{"default", Options{Dir: dir}, []string{"gone-live", "here", "no-cwd"}},
		{"KeepMissingCwd", Options{Dir: dir, KeepMissingCwd: true}, []string{"gone", "gone-live", "here", "no-cwd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.opts)
			if got := listedIDs(t, s, -1, nil); !slices.Equal(got, tt.want) {
				t.Errorf("listed %q, want %q", got, tt.want)
			}
			// A bookmarked session opens though its directory is gone; an
			// ephemeral one does not, as Scan never lists it.
			for id, want := range map[string]error{"gone": nil, "here": nil, "gone-live": nil, "ephemeral": session.ErrNotFound, "ephemeral-lv": session.ErrNotFound} {
				if info, err := s.Session(t.Context(), id); !errors.Is(err, want) || err == nil && info.ID != id {
					t.Errorf("Session(%s) = %+v, %v; want %v", id, info, err, want)
				}
			}
		})
	}

	// The directory comes back: the next scan of the same Scanner lists
	// its session again, though no transcript changed.
	s := New(Options{Dir: dir})
	if got := listedIDs(t, s, -1, nil); slices.Contains(got, "gone") {
		t.Fatalf("listed %q before the directory exists", got)
	}
	if err := os.MkdirAll(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := listedIDs(t, s, -1, nil); !slices.Equal(got, []string{"gone", "gone-live", "here", "no-cwd"}) {
		t.Errorf("after the directory reappeared: %q", got)
	}
}

// A session that is not listed must not take a slot of the limit: the
// newest sessions ran in a directory since removed, and the limit is
// filled from the older ones, reading only as many of those as it lists.
func TestCwdGoneTakesNoSlot(t *testing.T) {
	dir := t.TempDir()
	here := t.TempDir()
	gone := filepath.Join(t.TempDir(), "removed")
	now := time.Now()
	var older []string
	for n := range 10 {
		id, cwd := fmt.Sprintf("gone%d", n), gone
		if n >= 5 {
			id, cwd = fmt.Sprintf("here%d", n), here
			older = append(older, id)
		}
		p := writeSession(t, dir, "p", id, user("u1", "", "task "+id, 0, "cwd", cwd))
		setMtime(t, p, now.Add(-time.Duration(n)*time.Minute))
	}
	tests := []struct {
		limit     int
		keep      []string
		want      []string
		wantReads int
	}{
		{limit: 1, want: older[:1], wantReads: 6},
		{limit: 3, want: older[:3], wantReads: 8},
		{limit: 50, want: older, wantReads: 10},
		// A kept id follows the same rule: it is not listed while its
		// directory is gone.
		{limit: 1, keep: []string{"gone4", "here9"}, want: []string{"here5", "here9"}, wantReads: 7},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.limit, tt.keep), func(t *testing.T) {
			s := New(Options{Dir: dir})
			got := listedIDs(t, s, tt.limit, tt.keep)
			if want := slices.Sorted(slices.Values(tt.want)); !slices.Equal(got, want) {
				t.Errorf("listed %q, want %q", got, want)
			}
			reads := s.cache.Len()
			if reads != tt.wantReads {
				t.Errorf("read %d transcripts, want %d", reads, tt.wantReads)
			}
		})
	}
}

// A working directory's existence is checked once per scan,
// however many sessions share it, and again by the next scan (it may have
// been removed in between).
func TestCwdCheckedOncePerScan(t *testing.T) {
	dir := t.TempDir()
	shared, other := t.TempDir(), t.TempDir()
	gone := filepath.Join(t.TempDir(), "removed")
	now := time.Now()
	for n := range 200 {
		cwd := shared
		switch n % 50 {
		case 0:
			cwd = other
		case 1:
			cwd = gone
		}
		id := fmt.Sprintf("s%03d", n)
		p := writeSession(t, dir, fmt.Sprintf("p%d", n%7), id, user("u1", "", "task "+id, 0, "cwd", cwd))
		setMtime(t, p, now.Add(-time.Duration(n)*time.Second))
	}
	s := New(Options{Dir: dir})
	for scan := 1; scan <= 2; scan++ {
		if got := listedIDs(t, s, -1, nil); len(got) != 196 {
			t.Fatalf("scan %d: %d listed, want the 196 whose directory exists", scan, len(got))
		}
		if n := s.cwdChecks.Load(); n != int64(3*scan) {
			t.Errorf("scan %d: %d directory checks in all, want 3 per scan", scan, n)
		}
	}
	// With KeepMissingCwd nothing needs to be checked.
	s = New(Options{Dir: dir, KeepMissingCwd: true})
	if got := listedIDs(t, s, -1, nil); len(got) != 200 {
		t.Fatalf("KeepMissingCwd: %d listed", len(got))
	}
	if n := s.cwdChecks.Load(); n != 0 {
		t.Errorf("KeepMissingCwd: %d directory checks", n)
	}
}

// listedIDs scans and returns the listed ids, sorted.
func listedIDs(t *testing.T, s *Scanner, limit int, keep []string) []string {
	t.Helper()
	infos, err := s.Scan(context.Background(), limit, keep)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, info := range infos {
		ids = append(ids, info.ID)
	}
	slices.Sort(ids)
	return ids
}
