package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"time"
)

// Migrations are embedded so the binary carries its schema. Files are named
// NNNN_description.sql and numbered from 0001 without gaps; a file, once
// released, is never edited — a change is a new file.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

var migrationName = regexp.MustCompile(`^(\d{4})_[a-z0-9_]+\.sql$`)

// loadMigrations reads migrations/*.sql from fsys, sorted by version, and
// refuses anything but a contiguous 1..n sequence so a misnamed or missing
// file fails loudly in tests rather than silently skipping schema.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, "migrations")
	if err != nil {
		return nil, fmt.Errorf("store: read migrations: %w", err)
	}
	var out []migration
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("store: migration %q: name must be NNNN_description.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		b, err := fs.ReadFile(fsys, path.Join("migrations", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("store: read migration %s: %w", e.Name(), err)
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("store: migration %s: expected version %04d (versions must run 1..n without gaps or duplicates)", m.name, i+1)
		}
	}
	return out, nil
}

// migrate applies each pending migration in its own transaction, recording it
// in schema_migrations in that same transaction, so a failed migration leaves
// neither partial schema nor a record. The "already applied?" check happens
// inside the (immediate, so write-locked) transaction: a CLI command and the
// server opening the database at once cannot both apply a migration.
func (s *Store) migrate(ctx context.Context, fsys fs.FS) error {
	all, err := loadMigrations(fsys)
	if err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL
	) STRICT`); err != nil {
		return fmt.Errorf("store: create schema_migrations: %w", err)
	}

	// A database written by a newer paddock may have tables this build
	// does not know how to keep consistent; refuse rather than guess.
	current, err := s.schemaVersion(ctx)
	if err != nil {
		return err
	}
	if current > len(all) {
		return fmt.Errorf("store: database schema version %d is newer than this paddock supports (%d); upgrade paddock", current, len(all))
	}

	for _, m := range all {
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			var one int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM schema_migrations WHERE version = ?`, m.version).Scan(&one)
			if err == nil {
				return nil // applied already (possibly by another process just now)
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.version, m.name, ms(time.Now()))
			if err == nil {
				s.logger.Info("applied migration", "version", m.version, "name", m.name)
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("store: migration %s: %w", m.name, err)
		}
	}
	return nil
}

// schemaVersion is the highest applied migration, 0 for a new database.
func (s *Store) schemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: read schema version: %w", err)
	}
	return v, nil
}
