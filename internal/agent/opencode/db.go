package opencode

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"paddock/internal/history"
)

// How a database is read: through a private copy of it and its -wal
// (history.Snapshots), never in place. OpenCode keeps its database in WAL
// mode and new rows sit in opencode.db-wal until a checkpoint, so the
// -wal is copied too (immutable=1 would skip it); and a read-only open in
// place would still open, lock, create or (as root) chown the -wal and
// -shm beside OpenCode's database. The copy is refreshed only when the
// files change, and only its -wal while the WAL keeps its generation.

// dbFile is one database found, with what was seen of it and its -wal.
type dbFile struct {
	path    string
	db, wal fileStat
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
	return dbFile{path: path, db: statFile(path), wal: statFile(path + "-wal")}
}

// databases lists the databases to read: every opencode*.db in DataDir
// (the default channel's opencode.db and other channels'
// opencode-<channel>.db) and ExtraDBs, those that exist, sorted by path.
func (s *Scanner) databases() []dbFile {
	dbs, _ := s.listDatabases()
	return dbs
}

// listDatabases is databases, and the names among them that are there
// but cannot be read (a pipe, a link loop), with why: those are never
// opened.
func (s *Scanner) listDatabases() ([]dbFile, map[string]error) {
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
	var bad map[string]error
	for _, p := range paths {
		if f := statDB(p); f.db.exists {
			out = append(out, f)
		} else if _, ok, err := history.StatHistory(p, nil); ok && err != nil {
			if bad == nil {
				bad = make(map[string]error)
			}
			bad[p] = err
		}
	}
	return out, bad
}

// conn is one open database and the columns its tables have.
type conn struct {
	path string
	db   *history.SnapshotDB
	cols map[string]map[string]bool // table → column → present
}

func (c *conn) close() { c.db.Close() }

// has reports whether table has column.
func (c *conn) has(table, column string) bool { return c.cols[table][column] }

// openDB opens a copy of f read-only (see the comment at the top of this
// file). The tables are checked before anything relies on them: session,
// message and part must exist with the columns every OpenCode version has.
func (s *Scanner) openDB(ctx context.Context, f dbFile) (*conn, error) {
	db, err := s.snapshots.OpenDB(ctx, f.path, dsnPragmas...)
	if err != nil {
		return nil, err
	}
	c, err := openAt(ctx, db)
	if err != nil {
		return nil, err
	}
	c.path = f.path
	return c, nil
}

// dsnPragmas: query_only so no statement can write even the copy.
var dsnPragmas = []string{"query_only(1)"}

// openAt checks the tables of db, closing it when they will not do.
func openAt(ctx context.Context, db *history.SnapshotDB) (*conn, error) {
	db.SetMaxOpenConns(1)
	c := &conn{db: db, cols: make(map[string]map[string]bool)}
	for _, table := range []string{"session", "message", "part"} {
		cols, err := tableColumns(ctx, db.DB, table)
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
