package codex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"paddock/internal/history"

	_ "modernc.org/sqlite" // read-only access to Codex's state_5.sqlite
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
	// maxStateBytes bounds a state database copied into memory (see
	// openState); a larger one is read in place.
	maxStateBytes = 256 << 20
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
	db      *sql.DB
	conn    *sql.Conn
	threads *sql.Stmt // nil: no threads table of a known shape
	spawned *sql.Stmt // nil: no thread_spawn_edges
}

// openState opens the state database at path, strictly read-only and never
// with immutable=1 (it would hide the WAL):
//
//   - while both a -wal and a -shm file exist (Codex is running) the
//     database is opened in place with mode=ro, which reads the WAL too;
//   - otherwise it is read into memory and queried there. Opening it in
//     place would make SQLite create the missing -wal or -shm beside it:
//     writing to Codex's directory. (A -wal left by a crash without its
//     -shm is read by nobody then: its last writes are missed until Codex
//     runs again, which is better than writing there.) A database too
//     large for memory is an error: the titles come from the index and
//     the prompts then.
//
// A missing database is (nil, nil): Codex older than the state DB, or
// never run. One that exists but cannot be read is an error.
func openState(ctx context.Context, path string) (*stateReader, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		if sidecars(path) {
			return newStateReader(ctx, history.SQLiteDSN(path), nil)
		}
		if st.Size() > maxStateBytes {
			return nil, fmt.Errorf("codex state database %s is %d MB: too large to read without opening it in place", path, st.Size()>>20)
		}
		image, err := readAll(path, st.Size())
		if err != nil {
			return nil, err
		}
		// Codex may have started meanwhile: then the copy may be torn, and
		// the WAL exists now; look again.
		after, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if sameFile(st, after) && !sidecars(path) {
			return newStateReader(ctx, ":memory:", image)
		}
		if attempt == 2 {
			return nil, fmt.Errorf("codex state database %s keeps changing while read", path)
		}
		st = after
	}
}

// sidecars reports whether path's -wal and -shm both exist: only then does
// a read-only open create nothing beside it.
func sidecars(path string) bool {
	_, walErr := os.Stat(path + "-wal")
	_, shmErr := os.Stat(path + "-shm")
	return walErr == nil && shmErr == nil
}

func sameFile(a, b fs.FileInfo) bool {
	return history.SigOf(a) == history.SigOf(b)
}

func readAll(path string, size int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}

// newStateReader opens dsn (with image deserialized into it when not nil)
// and prepares the lookups the schema allows.
func newStateReader(ctx context.Context, dsn string, image []byte) (*stateReader, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	r := &stateReader{db: db}
	if err := r.prepare(ctx, image); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

func (r *stateReader) prepare(ctx context.Context, image []byte) error {
	var err error
	if r.conn, err = r.db.Conn(ctx); err != nil {
		return err
	}
	if image != nil {
		// The file says WAL mode (header bytes 18 and 19 are 2); an
		// in-memory image has no WAL, so it becomes a rollback-journal
		// database. Only the copy is changed.
		if len(image) > 19 {
			image[18], image[19] = min(image[18], 1), min(image[19], 1)
		}
		err := r.conn.Raw(func(dc any) error {
			d, ok := dc.(interface{ Deserialize([]byte) error })
			if !ok {
				return errors.New("sqlite driver cannot deserialize")
			}
			return d.Deserialize(image)
		})
		if err != nil {
			return err
		}
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
