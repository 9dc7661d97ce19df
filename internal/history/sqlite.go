// These are the pieces every scanner uses to read an
// agent's SQLite database without writing beside it: the read-only
// connection string, the column check that comes before any query, and
// the private copy of a database that cannot be read in place.
//
// The rule they serve: open with mode=ro and never immutable=1 (the
// newest rows sit in the -wal until a checkpoint, and immutable would
// skip them), and never let SQLite create a -wal or -shm beside the
// agent's database — it does so, even on a read-only connection, when a
// WAL-mode database lacks them. When to read in place and how to read
// otherwise stays with each runtime, because their files differ:
//
//   - OpenCode (internal/agent/opencode) reads in place unless the header says WAL
//     and a sidecar is missing, or the open fails for want of one; it then
//     reads a copy (CopyFile) in its TempDir.
//   - Cursor (internal/agent/cursor) reads store.db in place only while both
//     sidecars exist, else a copy in os.TempDir.
//   - Codex (internal/agent/codex) reads state_5.sqlite in place while its -wal
//     exists (or it is over 256 MiB), else deserialises it into memory.
//
// Nothing here opens a database for writing or writes to an agent's
// directory.

package history

import (
	"context"
	"database/sql"
	"io"
	"net/url"
	"os"
	"strings"
)

// SQLiteDSN is the modernc.org/sqlite connection string that reads an
// agent's database at path in place: read-only, WAL included (mode=ro,
// never immutable), and with its -shm opened read-only too (readonly_shm).
// A reader of a WAL database otherwise opens the -shm for writing and
// stores its read mark there, which changes the agent's file (its mtime)
// though not its content; with a read-only -shm SQLite reads the WAL into
// its own memory when it cannot use the shared index as it is. A WAL
// database without its -shm then fails to open (SQLITE_CANTOPEN) rather
// than gain one: the caller reads a private copy instead (SQLiteCopyDSN).
//
// Each of pragmas is a _pragma parameter ("busy_timeout(3000)"). The path
// is escaped in a "file:" URI, since '?', '#' and '%' are legal in file
// names and the driver would cut a plain name at its first '?'. Pass a
// slash-separated path (filepath.ToSlash) where that matters.
func SQLiteDSN(path string, pragmas ...string) string {
	return dsn(path, "mode=ro&readonly_shm=1", pragmas)
}

// SQLiteCopyDSN opens paddock's own private copy of an agent's database
// read-only; SQLite may build the copy's -shm beside it.
func SQLiteCopyDSN(path string, pragmas ...string) string {
	return dsn(path, "mode=ro", pragmas)
}

func dsn(path, mode string, pragmas []string) string {
	var b strings.Builder
	b.WriteString("file:")
	b.WriteString((&url.URL{Path: path}).EscapedPath())
	b.WriteString("?")
	b.WriteString(mode)
	for _, p := range pragmas {
		b.WriteString("&_pragma=")
		b.WriteString(p)
	}
	return b.String()
}

// Querier is what Columns needs: a *sql.DB or a *sql.Conn.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Columns lists the columns of table (PRAGMA table_info); a table that
// does not exist has none. Agents' schemas drift between versions, so no
// column is used before it is known to exist.
func Columns(ctx context.Context, q Querier, table string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := make(map[string]bool)
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		cols[name] = true
	}
	return cols, rows.Err()
}

// CopyFile copies src to dst, a new file readable by the owner only (a
// copy holds private conversations). It fails if dst exists: copies go
// into a fresh private directory.
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
