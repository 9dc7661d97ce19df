// These are the pieces every scanner uses to read an agent's SQLite
// database without touching it: the private copy it opens instead of the
// agent's file (Snapshots, snapshot.go), the read-only connection string
// for that copy, and the column check that comes before any query.
//
// The rule they serve: SQLite never opens an agent's database where it
// lies, not even read-only. A read-only open of a WAL database still opens
// its -wal and -shm, locks the -shm, creates either when it is missing
// and, as root, chowns them (a ctime change); immutable=1 would avoid that
// but skip the newest rows, which sit in the -wal until a checkpoint. So
// the database and its -wal are copied with plain reads into paddock's
// private directory, and the copy is opened with mode=ro. Each runtime
// keeps its own rules about which databases to read and what a missing
// one means:
//
//   - OpenCode (internal/agent/opencode): every opencode*.db in its data
//     directory and $OPENCODE_DB; one that cannot be read fails the scan
//     once it was read before.
//   - Cursor (internal/agent/cursor): one store.db per chat, read for a
//     conversation or a parent, never to list.
//   - Codex (internal/agent/codex): state_5.sqlite, for thread names; a
//     missing one means none.
//
// Nothing here opens an agent's database for writing, locks it, or writes
// to an agent's directory.

package history

import (
	"context"
	"database/sql"
)

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
