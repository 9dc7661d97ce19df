package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/testkit/servetest"
)

// longLineMB is the size of the last line of each hostile session:
// PADDOCK_LONGLINE_MB, 600 by default.
func longLineMB(b *testing.B) int {
	n := 600
	if v := os.Getenv("PADDOCK_LONGLINE_MB"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("PADDOCK_LONGLINE_MB=%q: a size in MB", v)
		}
	}
	return n
}

// rssMB is a process's resident set now (VmRSS) or at its peak (VmHWM),
// from /proc.
func rssMB(pid int, field string) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

// writeLongSession writes a Claude transcript of two short turns and a
// last prompt of mb megabytes on one line, streamed to disk (never held).
func writeLongSession(b *testing.B, path, cwd string, mb int) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rec := func(typ, uuid, parent, content string, minute int) string {
		m := map[string]any{"type": typ, "uuid": uuid, "parentUuid": parent, "cwd": cwd, "isSidechain": false,
			"timestamp": time.Date(2026, 12, 1, 10, minute, 0, 0, time.UTC).Format(time.RFC3339),
			"message":   map[string]any{"role": typ, "content": content}}
		if parent == "" {
			m["parentUuid"] = nil
		}
		out, _ := json.Marshal(m)
		return string(out) + "\n"
	}
	w.WriteString(rec("user", "u1", "", "a hostile session", 0))
	w.WriteString(rec("assistant", "a1", "u1", "an answer", 1))
	// The last prompt: its record up to the content, mb MB of text, the end.
	head := strings.TrimSuffix(rec("user", "u2", "a1", "CONTENT", 2), "\n")
	before, after, _ := strings.Cut(head, `"CONTENT"`)
	w.WriteString(before + `"the start of a long paste `)
	chunk := strings.Repeat("y", 1<<20)
	for range mb {
		w.WriteString(chunk)
	}
	w.WriteString(`"` + after + "\n")
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLongLineRSS is memory on hostile histories, through the real
// binary: four Claude sessions whose last line is 600 MB
// (PADDOCK_LONGLINE_MB), generated here, and four concurrent reads of
// their newest page (GET /api/v1/sessions/claude/{id}/messages, what the
// session page shows first). It reports serve's resident set when idle
// after listing them, its peak during the reads (VmHWM, reset before
// them), and 30 s after; each page must show the long prompt clipped.
// Target: peak ≤ 150 MB, and back near idle after. Run with -benchtime=1x.
func BenchmarkLongLineRSS(b *testing.B) {
	mb := longLineMB(b)
	home := b.TempDir()
	cwd := filepath.Join(home, "proj")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		b.Fatal(err)
	}
	enc := strings.ReplaceAll(cwd, "/", "-")
	var ids []string
	for i := range 4 {
		id := fmt.Sprintf("0000000%d-1111-4222-8333-444455556666", i)
		ids = append(ids, id)
		writeLongSession(b, filepath.Join(home, ".claude", "projects", enc, id+".jsonl"), cwd, mb)
	}
	srv := servetest.Start(b, home)
	api := newAPIClient(b, srv)
	pid := srv.Cmd.Process.Pid
	slow := *api.http
	slow.Timeout = 10 * time.Minute
	get := func(path string, v any) error {
		req, err := http.NewRequest(http.MethodGet, api.base+path, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+api.token)
		resp, err := slow.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", path, resp.Status)
		}
		return json.NewDecoder(resp.Body).Decode(v)
	}
	listed := time.Now()
	for {
		var out struct{ Sessions []apiSession }
		if err := get("/api/v1/sessions?runtime=claude", &out); err == nil && len(out.Sessions) == 4 {
			break
		}
		if time.Since(listed) > 5*time.Minute {
			b.Fatal("the four sessions were not listed within 5 minutes")
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.Logf("listed in %v", time.Since(listed).Round(time.Millisecond))
	time.Sleep(5 * time.Second) // the first scan's garbage collected
	idle := rssMB(pid, "VmRSS")
	// Reset the peak: what follows is the reads' alone.
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		b.Fatalf("cannot reset VmHWM: %v", err)
	}
	b.ResetTimer()
	for b.Loop() {
		var wg sync.WaitGroup
		errs := make([]error, len(ids))
		for i, id := range ids {
			wg.Go(func() {
				var page struct{ Messages []struct{ Role, Text string } }
				if errs[i] = get("/api/v1/sessions/claude/"+id+"/messages?limit=50", &page); errs[i] != nil {
					return
				}
				n := len(page.Messages)
				if n == 0 || !strings.HasPrefix(page.Messages[n-1].Text, "the start of a long paste") ||
					!strings.Contains(page.Messages[n-1].Text, "[paddock clipped this text: it is") {
					errs[i] = fmt.Errorf("%s: newest page %d messages, the last not the clipped prompt", id, n)
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	peak := rssMB(pid, "VmHWM")
	time.Sleep(30 * time.Second)
	after := rssMB(pid, "VmRSS")
	b.ReportMetric(idle, "idle-RSS-MB")
	b.ReportMetric(peak, "peak-RSS-MB")
	b.ReportMetric(after, "after-30s-RSS-MB")
	if peak > 150 {
		b.Errorf("peak RSS %.0f MB during four reads of %d MB lines, over 150 MB", peak, mb)
	}
}
