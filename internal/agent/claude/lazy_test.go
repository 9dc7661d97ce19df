package claude

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Listing must cost a stat per file plus a head/tail read of only the files
// it lists: with 2,000 transcripts and limit 50, a fresh scanner reads 50.
// (Counted through the per-file cache, which holds exactly the files read.)
func TestScanReadsOnlyWhatItLists(t *testing.T) {
	dir := t.TempDir()
	cwd := t.TempDir() // exists: the default scanner lists its sessions
	now := time.Now()
	for i := range 2000 {
		id := fmt.Sprintf("1a2b3c4d-0000-4000-8000-%012d", i)
		p := writeSession(t, dir, fmt.Sprintf("-home-u-p%d", i%20), id,
			`{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"prompt `+id+`"},"cwd":"`+cwd+`","timestamp":"2026-01-01T10:00:00Z"}`,
			`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]},"timestamp":"2026-01-01T10:00:01Z"}`)
		setMtime(t, p, now.Add(-time.Duration(i)*time.Second))
	}
	for _, limit := range []int{1, 50, 200} {
		s := New(Options{Dir: dir})
		infos, err := s.Scan(context.Background(), limit, nil)
		if err != nil || len(infos) != limit {
			t.Fatalf("limit %d: %d sessions, %v", limit, len(infos), err)
		}
		read := s.cache.Len()
		if read != limit {
			t.Errorf("limit %d: read %d transcripts, want exactly %d", limit, read, limit)
		}
		if n := s.cwdChecks.Load(); n != 1 {
			t.Errorf("limit %d: %d directory checks, want 1 for the one cwd", limit, n)
		}
	}
}
