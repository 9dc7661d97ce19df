package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"paddock/internal/session"
)

// repoRoot is the module root (for testdata/).
func repoRoot(tb testing.TB) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("cannot locate test source")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// recordedDB is the database `make fixtures` recorded from the real
// OpenCode 1.18.33 (rollback-journal mode: VACUUM INTO'd).
func recordedDB(tb testing.TB) string {
	return filepath.Join(repoRoot(tb), "testdata", "opencode-1.18.33", "opencode", "opencode.db")
}

// recordingDSN opens a committed recording read-only and immutable: it
// has no WAL and nothing writes it, so SQLite need not look beside it.
func recordingDSN(path string) string {
	return "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath() + "?mode=ro&immutable=1"
}

// realSchema is the DDL of OpenCode 1.18.33's database, read from the
// recording, so synthetic databases have exactly the real tables.
func realSchema(tb testing.TB) []string {
	tb.Helper()
	db, err := sql.Open("sqlite", recordingDSN(recordedDB(tb)))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index', name")
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			tb.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// writer is a read-write connection to a test database, like OpenCode's
// own: WAL mode, and no automatic checkpoint, so written rows stay in the
// -wal file (what a live OpenCode leaves) until Checkpoint.
type writer struct {
	tb testing.TB
	db *sql.DB
}

func rwDSN(path string) string {
	u := url.URL{Path: filepath.ToSlash(path)}
	return "file:" + u.EscapedPath() + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)"
}

// newDB creates dir/opencode.db with the real schema.
func newDB(tb testing.TB, dir string) *writer {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	w := openWriter(tb, filepath.Join(dir, "opencode.db"))
	for _, stmt := range realSchema(tb) {
		w.exec(stmt)
	}
	return w
}

func openWriter(tb testing.TB, path string) *writer {
	tb.Helper()
	db, err := sql.Open("sqlite", rwDSN(path))
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	return &writer{tb: tb, db: db}
}

func (w *writer) exec(q string, args ...any) {
	w.tb.Helper()
	if _, err := w.db.Exec(q, args...); err != nil {
		w.tb.Fatalf("%s: %v", q, err)
	}
}

// Close closes the connection; the last one to close checkpoints and
// removes the -wal and -shm files, as the sqlite3 shell does.
func (w *writer) Close() { w.db.Close() }

// sess describes a session row; zero fields take defaults.
type sess struct {
	id, dir, title   string
	created, updated time.Time
	parent           string
	archived         time.Time
}

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func (w *writer) session(s sess) {
	w.tb.Helper()
	if s.title == "" {
		s.title = "New session - " + s.created.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	if s.updated.IsZero() {
		s.updated = s.created
	}
	var parent, archived any
	if s.parent != "" {
		parent = s.parent
	}
	if !s.archived.IsZero() {
		archived = s.archived.UnixMilli()
	}
	w.exec(`INSERT OR IGNORE INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('global', '/', 0, 0, '[]')`)
	w.exec(`INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, model, time_created, time_updated, time_archived)
		VALUES (?, 'global', ?, 'slug', ?, ?, '1.18.33', '{"id":"mock-model","providerID":"mock"}', ?, ?, ?)`,
		s.id, parent, s.dir, s.title, s.created.UnixMilli(), s.updated.UnixMilli(), archived)
}

// message adds a message with the given role and parts (each a part's
// data JSON). Ids are made from the session id and n so they sort in
// order.
func (w *writer) message(sid string, n int, role string, at time.Time, parts ...string) {
	w.messageData(sid, n, at, fmt.Sprintf(`{"role":%q,"time":{"created":%d}}`, role, at.UnixMilli()), parts...)
}

func (w *writer) messageData(sid string, n int, at time.Time, data string, parts ...string) {
	w.tb.Helper()
	mid := fmt.Sprintf("msg_%s_%04d", sid, n)
	w.exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
		mid, sid, at.UnixMilli(), at.UnixMilli(), data)
	for i, p := range parts {
		w.exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
			fmt.Sprintf("prt_%s_%04d_%02d", sid, n, i), mid, sid, at.UnixMilli(), at.UnixMilli(), p)
	}
}

// text is a text part's JSON.
func text(s string) string {
	b, _ := json.Marshal(map[string]any{"type": "text", "text": s})
	return string(b)
}

// chat adds a session with one prompt and one answer.
func (w *writer) chat(s sess, prompt, answer string) {
	w.session(s)
	w.message(s.id, 1, "user", s.created, text(prompt))
	w.message(s.id, 2, "assistant", s.created.Add(time.Second), `{"type":"step-start"}`, text(answer))
}

// copyTree copies src into dst (a test's private copy of a fixture).
func copyTree(tb testing.TB, src, dst string) {
	tb.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// exercise calls every public method on every session, twice (the second
// time on warm caches).
func exercise(tb testing.TB, s *Scanner) {
	tb.Helper()
	ctx := context.Background()
	for range 2 {
		infos, err := s.Scan(ctx, -1, []string{"ses_missing"})
		if err != nil {
			tb.Fatal(err)
		}
		for _, info := range infos {
			if _, err := s.Session(ctx, info.ID); err != nil {
				tb.Errorf("Session(%s): %v", info.ID, err)
			}
			if _, err := s.Conversation(ctx, info.ID); err != nil {
				tb.Errorf("Conversation(%s): %v", info.ID, err)
			}
		}
		_, _ = s.Session(ctx, "ses_missing")
		_, _ = s.Conversation(ctx, "ses_missing")
		s.WatchDirs()
	}
}

func ids(infos []session.Info) []string {
	var out []string
	for _, i := range infos {
		out = append(out, i.ID)
	}
	return out
}

// convText renders a conversation compactly for comparisons.
func convText(msgs []session.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role+": "+m.Text)
	}
	return out
}

// checkConversation applies the preview rules to any conversation:
// roles only user/assistant, no empty or "None" text, times ascending.
func checkConversation(tb testing.TB, id string, msgs []session.Message) {
	tb.Helper()
	var last time.Time
	for i, m := range msgs {
		if m.Role != session.RoleUser && m.Role != session.RoleAssistant {
			tb.Errorf("%s message %d: role %q", id, i, m.Role)
		}
		if strings.TrimSpace(m.Text) == "" || m.Text == "None" || m.Text == "null" {
			tb.Errorf("%s message %d: text %q", id, i, m.Text)
		}
		if !m.Time.IsZero() {
			if m.Time.Before(last) {
				tb.Errorf("%s message %d: time %v before %v", id, i, m.Time, last)
			}
			last = m.Time
		}
	}
}
