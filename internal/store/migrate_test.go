package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestMigrationsEmbedded(t *testing.T) {
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || ms[0].name != "0001_init.sql" {
		t.Fatalf("migrations = %v", ms)
	}
}

func TestMigrateIdempotentOnReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "paddock.db")
	all, err := loadMigrations(migrationFS)
	if err != nil {
		t.Fatal(err)
	}

	type applied struct {
		version int
		at      int64
	}
	read := func(s *Store) []applied {
		t.Helper()
		rows, err := s.db.QueryContext(ctx, `SELECT version, applied_at FROM schema_migrations ORDER BY version`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []applied
		for rows.Next() {
			var a applied
			if err := rows.Scan(&a.version, &a.at); err != nil {
				t.Fatal(err)
			}
			out = append(out, a)
		}
		return out
	}

	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := read(s)
	v, err := s.schemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v != len(all) || len(first) != len(all) {
		t.Fatalf("schema version %d with %d rows, want %d", v, len(first), len(all))
	}
	s.Close()

	// A second Open must not re-apply: 0001 has plain CREATE TABLEs, so a
	// re-run would fail, and the recorded times must be unchanged.
	s, err = Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("second Open: %v", err)
	}
	defer s.Close()
	second := read(s)
	if len(second) != len(first) {
		t.Fatalf("rows after reopen = %v, want %v", second, first)
	}
	for i := range first {
		if first[i] != second[i] {
			t.Errorf("migration row %d changed: %v -> %v", i, first[i], second[i])
		}
	}
	for _, table := range []string{"devices", "pairing_codes", "api_tokens", "audit_log"} {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("table %s missing", table)
		}
	}
}

func TestLoadMigrationsRejects(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"bad name", fstest.MapFS{"migrations/init.sql": file("")}, "NNNN_description.sql"},
		{"gap", fstest.MapFS{"migrations/0001_a.sql": file(""), "migrations/0003_c.sql": file("")}, "expected version 0002"},
		{"duplicate", fstest.MapFS{"migrations/0001_a.sql": file(""), "migrations/0001_b.sql": file("")}, "expected version 0002"},
		{"starts at 2", fstest.MapFS{"migrations/0002_a.sql": file("")}, "expected version 0001"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadMigrations(tc.fsys)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

// A failing migration leaves neither its partial schema nor a record, and
// the earlier ones stay applied.
func TestMigrateFailureRollsBack(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	before, _ := s.schemaVersion(ctx)
	fsys := fstest.MapFS{}
	all, _ := loadMigrations(migrationFS)
	for _, m := range all {
		fsys["migrations/"+m.name] = &fstest.MapFile{Data: []byte(m.sql)}
	}
	next := len(all) + 1
	fsys[fmt.Sprintf("migrations/%04d_broken.sql", next)] = &fstest.MapFile{Data: []byte(`CREATE TABLE half_done (x INTEGER); THIS IS NOT SQL;`)}

	if err := s.migrate(ctx, fsys); err == nil {
		t.Fatal("broken migration applied")
	}
	after, _ := s.schemaVersion(ctx)
	if after != before {
		t.Errorf("schema version %d after failed migration, want %d", after, before)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'half_done'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("partial schema of a failed migration survived")
	}
}

// A database from a newer paddock is refused, not silently used.
func TestMigrateRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "paddock.db")
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err := Open(ctx, path, nil); err == nil {
		s.Close()
		t.Fatal("opened a database with a newer schema")
	} else if !strings.Contains(err.Error(), "newer") {
		t.Fatalf("err = %v", err)
	}
}
