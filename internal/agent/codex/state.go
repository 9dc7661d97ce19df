package codex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"

	"paddock/internal/history"
)

// Codex's thread names live in two places: session_index.jsonl, appended on
// every rename or generated name (the last line of an id wins), and the
// `name` column of state_5.sqlite's threads table, a rebuildable cache the
// running CLI writes through a WAL.
const (
	indexFile = "session_index.jsonl"
	stateFile = "state_5.sqlite"
	// maxIndexBytes bounds what is read of session_index.jsonl: its tail,
	// where the newest names are, when it ever grows larger.
	maxIndexBytes = 16 << 20
)

// readIndex reads session_index.jsonl: thread id → its latest name. A
// missing file is an empty index.
func readIndex(path string, size int64) (map[string]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	start := max(0, size-maxIndexBytes)
	names := make(map[string]string)
	ls := history.NewLineReader(io.NewSectionReader(f, start, size-start), maxLineBytes)
	for drop := start > 0; ; drop = false {
		line, skipped, err := ls.Next()
		if errors.Is(err, io.EOF) {
			return names, nil
		}
		if err != nil {
			return names, err
		}
		if drop || skipped {
			continue
		}
		var id, name string
		err = members(line, func(k, v []byte) bool {
			switch string(k) {
			case "id":
				id = str(v)
			case "thread_name":
				name = str(v)
			}
			return true
		})
		if err == nil && id != "" {
			names[id] = history.ClipLine(name, maxTitleRunes)
		}
	}
}

// thread is what state_5.sqlite says about one thread.
type thread struct {
	name     string // the thread name; "" when none was given
	title    string // Codex's own title: its first user message
	model    string
	subagent bool
}

// threadColumns are the threads columns read when present (checked with
// PRAGMA table_info first: the schema drifts between versions).
var threadColumns = []string{"name", "title", "model", "thread_source", "source"}

// stateReader answers questions about threads from one open state
// database. It is opened for one scan and closed after it.
type stateReader struct {
	db      *history.SnapshotDB
	conn    *sql.Conn
	threads *sql.Stmt // nil: no threads table of a known shape
	spawned *sql.Stmt // nil: no thread_spawn_edges
}

// openState opens the state database at path through a private copy
// (snaps): never the file itself, which Codex keeps in WAL mode and a
// read-only open would still touch. A missing database is (nil, nil): Codex
// older than the state DB, or never run. One that exists but cannot be
// read is an error.
func openState(ctx context.Context, snaps *history.Snapshots, path string) (*stateReader, error) {
	db, err := snaps.OpenDB(ctx, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r := &stateReader{db: db}
	if err := r.prepare(ctx); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// prepare prepares the lookups the schema allows.
func (r *stateReader) prepare(ctx context.Context) error {
	var err error
	if r.conn, err = r.db.Conn(ctx); err != nil {
		return err
	}
	if _, err := r.conn.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
		return err
	}
	cols, err := history.Columns(ctx, r.conn, "threads")
	if err != nil {
		return err
	}
	if cols["id"] {
		sel := make([]string, 0, len(threadColumns))
		for _, c := range threadColumns {
			if cols[c] {
				sel = append(sel, c)
			} else {
				sel = append(sel, "NULL")
			}
		}
		// Column names come from the fixed list above, never from input.
		q := "SELECT " + strings.Join(sel, ", ") + " FROM threads WHERE id = ?"
		if r.threads, err = r.conn.PrepareContext(ctx, q); err != nil {
			return err
		}
	}
	edges, err := history.Columns(ctx, r.conn, "thread_spawn_edges")
	if err != nil {
		return err
	}
	if edges["child_thread_id"] {
		if r.spawned, err = r.conn.PrepareContext(ctx, "SELECT 1 FROM thread_spawn_edges WHERE child_thread_id = ? LIMIT 1"); err != nil {
			return err
		}
	}
	return nil
}

// thread looks up one thread (the zero thread when the database has none).
func (r *stateReader) thread(ctx context.Context, id string) (thread, error) {
	var t thread
	if r.threads != nil {
		var name, title, model, threadSource, source sql.NullString
		err := r.threads.QueryRowContext(ctx, id).Scan(&name, &title, &model, &threadSource, &source)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return thread{}, err
		default:
			t = thread{
				name:     history.ClipLine(name.String, maxTitleRunes),
				title:    history.ClipLine(title.String, maxTitleRunes),
				model:    model.String,
				subagent: threadSource.String == "subagent" || subagentSource(source.String),
			}
		}
	}
	if r.spawned != nil && !t.subagent {
		var one int
		err := r.spawned.QueryRowContext(ctx, id).Scan(&one)
		switch {
		case err == nil:
			t.subagent = true
		case !errors.Is(err, sql.ErrNoRows):
			return thread{}, err
		}
	}
	return t, nil
}

func (r *stateReader) close() {
	for _, st := range []*sql.Stmt{r.threads, r.spawned} {
		if st != nil {
			st.Close()
		}
	}
	if r.conn != nil {
		r.conn.Close()
	}
	r.db.Close()
}

// subagentSource: the source column holds the serialized session source,
// an object {"subagent": …} for subagent threads.
func subagentSource(s string) bool {
	if !strings.HasPrefix(s, "{") {
		return false
	}
	var src map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &src) == nil && src["subagent"] != nil
}
