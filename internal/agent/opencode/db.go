package opencode

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"paddock/internal/history"

	"modernc.org/sqlite"
)

// How a database is opened (checked with modernc.org/sqlite v1.62.0 on
// OpenCode 1.18.33's databases; see TestReadOnlyOpen):
//
//   - mode=ro, never immutable=1: OpenCode keeps its database in WAL mode and
//     new rows sit in opencode.db-wal until a checkpoint; immutable would
//     skip them.
//   - A WAL-mode database whose -wal or -shm file is missing cannot be read
//     in place without writing: with a writable directory SQLite creates an
//     empty -wal and a 32 KiB -shm beside it (and leaves them), with a
//     read-only directory the open fails (SQLITE_READONLY_CANTINIT with no
//     sidecars, SQLITE_CANTOPEN with a -wal but no -shm). OpenCode 1.18
//     leaves both files behind when it exits, so this happens only to a
//     database something else closed cleanly (the sqlite3 shell), or copied.
//     Such a database is read from a private copy (file and -wal) in
//     TempDir, removed after the read.
//   - Both sidecars present, even read-only for us (another user's files,
//     a read-only mount), or a rollback-journal database (what VACUUM INTO
//     makes): read in place; SQLite creates nothing. A reader may still
//     update the shared-memory index in -shm, which holds no data.

// dbFile is one database found, with what was seen of it and its sidecars.
type dbFile struct {
	path          string
	db, wal, shm  fileStat
	walModeHeader bool // the file header says WAL (bytes 18-19 = 2)
}

// fileStat identifies one version of a file.
type fileStat struct {
	exists        bool
	size, mtimeNs int64
	dev, ino      uint64
}

func statFile(path string) fileStat {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return fileStat{}
	}
	st := fileStat{exists: true, size: fi.Size(), mtimeNs: fi.ModTime().UnixNano()}
	st.dev, st.ino = history.FileID(fi)
	return st
}

func statDB(path string) dbFile {
	return dbFile{
		path:          path,
		db:            statFile(path),
		wal:           statFile(path + "-wal"),
		shm:           statFile(path + "-shm"),
		walModeHeader: walHeader(path),
	}
}

// walHeader reads the database header: bytes 18 and 19 (file format write
// and read versions) are 2 in WAL mode and 1 in rollback-journal mode.
func walHeader(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [20]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return false
	}
	return h[18] == 2 || h[19] == 2
}

// databases lists the databases to read: every opencode*.db in DataDir
// (the default channel's opencode.db and other channels'
// opencode-<channel>.db) and ExtraDBs, those that exist, sorted by path.
func (s *Scanner) databases() []dbFile {
	var paths []string
	if s.opts.DataDir != "" {
		entries, _ := os.ReadDir(s.opts.DataDir)
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, "opencode") && strings.HasSuffix(name, ".db") {
				paths = append(paths, filepath.Join(s.opts.DataDir, name))
			}
		}
	}
	for _, p := range s.opts.ExtraDBs {
		p = filepath.Clean(p)
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var out []dbFile
	for _, p := range paths {
		if f := statDB(p); f.db.exists {
			out = append(out, f)
		}
	}
	return out
}

// conn is one open database and the columns its tables have.
type conn struct {
	path    string
	db      *sql.DB
	cols    map[string]map[string]bool // table → column → present
	cleanup func()                     // removes a private copy
}

func (c *conn) close() {
	c.db.Close()
	if c.cleanup != nil {
		c.cleanup()
	}
}

// has reports whether table has column.
func (c *conn) has(table, column string) bool { return c.cols[table][column] }

// openDB opens f read-only: in place when that creates nothing, else a
// private copy (see the comment at the top of this file). The tables are
// checked before anything relies on them: session, message and part must
// exist with the columns every OpenCode version has.
func (s *Scanner) openDB(ctx context.Context, f dbFile) (*conn, error) {
	copyNeeded := f.walModeHeader && !(f.wal.exists && f.shm.exists)
	if !copyNeeded {
		c, err := openAt(ctx, roDSN(f.path))
		if err == nil {
			c.path = f.path
			return c, nil
		}
		// The sidecars went away between the stat and the open, or
		// cannot be opened: a copy still reads.
		if !cannotOpen(err) {
			return nil, err
		}
	}
	s.problems.Log(slog.LevelInfo, "copy:"+f.path, "OpenCode database cannot be read in place without creating files beside it; reading a private copy",
		"path", f.path)
	dir, copyPath, err := s.copyDB(ctx, f.path)
	if err != nil {
		return nil, err
	}
	c, err := openAt(ctx, history.SQLiteCopyDSN(filepath.ToSlash(copyPath), dsnPragmas...))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c.path = f.path
	c.cleanup = func() { os.RemoveAll(dir) }
	return c, nil
}

// cannotOpen: SQLITE_CANTOPEN or SQLITE_READONLY (with any extended code):
// what a read-only open of a WAL database without its sidecars fails with.
func cannotOpen(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == 14 || code == 8
}

// roDSN is the read-only connection string: mode=ro and query_only so no
// statement can write, busy_timeout so a reader waits out a checkpoint. The
// "file:" URI form with an escaped path keeps a '?' or '#' in the path from
// being read as the query.
func roDSN(path string) string {
	return history.SQLiteDSN(filepath.ToSlash(path), dsnPragmas...)
}

var dsnPragmas = []string{"busy_timeout(3000)", "query_only(1)"}

// openAt opens the database dsn names (in place, or a private copy).
func openAt(ctx context.Context, dsn string) (*conn, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	c := &conn{db: db, cols: make(map[string]map[string]bool)}
	for _, table := range []string{"session", "message", "part"} {
		cols, err := tableColumns(ctx, db, table)
		if err != nil {
			db.Close()
			return nil, err
		}
		c.cols[table] = cols
	}
	for _, need := range []struct{ table, column string }{
		{"session", "id"}, {"message", "id"}, {"message", "session_id"}, {"message", "data"},
		{"part", "id"}, {"part", "message_id"}, {"part", "data"},
	} {
		if !c.has(need.table, need.column) {
			db.Close()
			return nil, errSchema{need.table, need.column}
		}
	}
	if !c.has("session", "time_updated") && !c.has("session", "time_created") {
		db.Close()
		return nil, errSchema{"session", "time_updated"}
	}
	return c, nil
}

// tableColumns reads PRAGMA table_info: columns were added over OpenCode's
// versions (workspace_id, path, model, time_archived, ...), so no column is
// used before it is known to exist.
func tableColumns(ctx context.Context, db *sql.DB, table string) (map[string]bool, error) {
	cols, err := history.Columns(ctx, db, table)
	if err != nil {
		return nil, fmt.Errorf("opencode: table_info(%s): %w", table, err)
	}
	if len(cols) == 0 {
		return nil, errSchema{table: table}
	}
	return cols, nil
}

// copyDB copies the database and its -wal (not the -shm, which SQLite
// rebuilds from the WAL) into a new private directory. A copy taken while
// a writer checkpointed could be torn, so the source must look the same
// before and after; it is tried a few times.
func (s *Scanner) copyDB(ctx context.Context, src string) (dir, path string, err error) {
	for range 3 {
		if err := ctx.Err(); err != nil {
			return "", "", err
		}
		before := statDB(src)
		dir, err = os.MkdirTemp(s.opts.TempDir, "paddock-opencode-*")
		if err != nil {
			return "", "", fmt.Errorf("opencode: private copy: %w", err)
		}
		path = filepath.Join(dir, "opencode.db")
		err = history.CopyFile(src, path)
		if err == nil && before.wal.exists {
			err = history.CopyFile(src+"-wal", path+"-wal")
		}
		after := statDB(src)
		if err == nil && after.db == before.db && after.wal == before.wal {
			return dir, path, nil
		}
		os.RemoveAll(dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", "", fmt.Errorf("opencode: private copy: %w", err)
		}
	}
	return "", "", fmt.Errorf("opencode: private copy of %s: it kept changing", src)
}
