package history

import (
	"context"
	"maps"
	"testing"

	_ "modernc.org/sqlite"
)

// Columns lists a table's columns, and none for a table that does not
// exist, through a *sql.DB or a *sql.Conn.
func TestColumns(t *testing.T) {
	a := newAgentDB(t)
	a.exec("CREATE TABLE t (id TEXT, name TEXT)")
	db := openSnapshotDB(t, NewSnapshots(SnapshotOptions{Dir: t.TempDir()}), a.path)
	cols, err := Columns(context.Background(), db, "t")
	if err != nil || !maps.Equal(cols, map[string]bool{"id": true, "name": true}) {
		t.Errorf("Columns(t) = %v, %v", cols, err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if cols, err := Columns(context.Background(), conn, "missing"); err != nil || len(cols) != 0 {
		t.Errorf("Columns(missing) = %v, %v; want none", cols, err)
	}
}
