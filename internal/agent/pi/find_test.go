package pi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"paddock/internal/session"
)

// TestFindKnown: a lookup of an id whose file a scan or an earlier lookup
// read stats that file and does not walk the tree; a file renamed,
// replaced or removed since falls back to the walk, which finds where the
// session is now (or that it is gone).
func TestFindKnown(t *testing.T) {
	const idA, idB, idOld = "sess-a", "sess-b", "sess-old"
	type tree struct{ agent, a, b, old string }
	tests := []struct {
		name   string
		limit  int                         // of the Scan that fills the caches
		change func(t *testing.T, tr tree) // after the Scan
		id     string                      // looked up
		want   func(tr tree) string        // its path; "" = ErrNotFound
		walks  int64                       // by the lookup
	}{
		{"listed, unchanged", -1, nil, idA, func(tr tree) string { return tr.a }, 0},
		{"listed, appended to since", -1, func(t *testing.T, tr tree) {
			appendFile(t, tr.a, msgLine("u9", "a0", "user", "more", 30))
		}, idA, func(tr tree) string { return tr.a }, 0},
		{"renamed", -1, func(t *testing.T, tr tree) {
			rename(t, tr.a, tr.a+".moved.jsonl")
		}, idA, func(tr tree) string { return tr.a + ".moved.jsonl" }, 1},
		{"its path now holds another session", -1, func(t *testing.T, tr tree) {
			moved := filepath.Join(filepath.Dir(tr.a), "elsewhere.jsonl")
			rename(t, tr.a, moved)
			writeFile(t, tr.a, chat("sess-c", proj, 40, "c"))
		}, idA, func(tr tree) string { return filepath.Join(filepath.Dir(tr.a), "elsewhere.jsonl") }, 1},
		{"removed", -1, func(t *testing.T, tr tree) {
			if err := os.Remove(tr.a); err != nil {
				t.Fatal(err)
			}
		}, idA, func(tree) string { return "" }, 1},
		// Beyond the limit, no scan read it: the first lookup walks (the
		// second, in the test's last step, must not).
		{"not read yet", 1, nil, idOld, func(tr tree) string { return tr.old }, 1},
		// A copy of B newer than B, both read by the scan: the newest file
		// is the session, as a walk would say.
		{"copied, both known", -1, nil, idB, func(tr tree) string { return tr.agent + "/sessions/copy_" + idB + ".jsonl" }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			agent := t.TempDir()
			tr := tree{
				agent: agent,
				old:   writeChat(t, agent, idOld, proj, 0, "old"),
				a:     writeChat(t, agent, idA, proj, 10, "a"),
				b:     writeChat(t, agent, idB, proj, 20, "b"),
			}
			copyB := filepath.Join(agent, "sessions", "copy_"+idB+".jsonl")
			if err := copyFile(tr.b, copyB); err != nil {
				t.Fatal(err)
			}
			setMtime(t, copyB, t0.Add(time.Hour))
			s := newTestScanner(agent)
			if _, err := s.Scan(ctx, tt.limit, nil); err != nil {
				t.Fatal(err)
			}
			if tt.change != nil {
				tt.change(t, tr)
			}
			before := s.walks.Load()
			c, err := s.find(ctx, tt.id)
			want := tt.want(tr)
			switch {
			case want == "" && !errors.Is(err, session.ErrNotFound):
				t.Errorf("find(%s) = %s, %v; want ErrNotFound", tt.id, c.path, err)
			case want != "" && (err != nil || c.path != want):
				t.Errorf("find(%s) = %s, %v; want %s", tt.id, c.path, err, want)
			}
			if got := s.walks.Load() - before; got != tt.walks {
				t.Errorf("find(%s) walked %d times, want %d", tt.id, got, tt.walks)
			}
			if want == "" {
				return
			}
			// Whatever the first lookup did, the file is known now.
			before = s.walks.Load()
			if c, err := s.find(ctx, tt.id); err != nil || c.path != want {
				t.Errorf("second find(%s) = %s, %v; want %s", tt.id, c.path, err, want)
			}
			if got := s.walks.Load() - before; got != 0 {
				t.Errorf("second find(%s) walked %d times, want 0", tt.id, got)
			}
		})
	}
}

func appendFile(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}
