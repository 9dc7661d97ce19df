// Package store is paddock's own SQLite database: devices, pairing codes, API
// tokens and the security audit log. All SQL lives here; other packages get
// typed methods and domain structs, never a *sql.DB.
//
// It stores only hashes of secrets (pairing codes, device and API tokens);
// it must never be handed, or log, a secret in clear text. It never touches
// an agent's files.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Errors callers map to their own; compare with errors.Is.
var (
	ErrNotFound = errors.New("store: not found")
	ErrExpired  = errors.New("store: expired")
	ErrUsed     = errors.New("store: already used")
)

// maxOpenConns bounds the pool. WAL lets readers run beside the one writer,
// and modernc's docs warn that an unbounded pool costs a page cache and libc
// thread state per connection; four is plenty for a single-user dashboard.
const maxOpenConns = 4

// Store is paddock's database. It is safe for concurrent use.
type Store struct {
	db     *sql.DB
	logger *slog.Logger

	healthMu sync.Mutex
	health   Health
	failing  chan struct{} // a write failed while health was OK: Watch probes sooner
}

// Open opens (creating if needed) the database at path, restricts the file to
// its owner, and applies any pending migrations. A nil logger discards.
// When it fails it leaves no file it created behind: an empty database
// left by a start on a full disk would be taken for paddock's own later.
// A disk that refuses the database is a *WriteError saying why.
func Open(ctx context.Context, path string, logger *slog.Logger) (_ *Store, err error) {
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if path == "" {
		return nil, errors.New("store: empty database path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("store: create data dir: %w", err)
	}
	// Create the file ourselves so it is never, even briefly, readable by
	// others (SQLite would create it with 0644 minus umask). SQLite gives the
	// -wal and -shm files the main file's permissions. Chmod also tightens a
	// file an older build or the user left loose.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	created := err == nil
	if errors.Is(err, os.ErrExist) {
		f, err = os.OpenFile(abs, os.O_RDWR, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("store: create database file: %w", writeError(err))
	}
	defer func() {
		if err != nil && created {
			for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
				_ = os.Remove(abs + suffix)
			}
		}
	}()
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("store: create database file: %w", writeError(err))
	}
	if err := os.Chmod(abs, 0o600); err != nil {
		return nil, fmt.Errorf("store: restrict database file: %w", err)
	}

	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxOpenConns)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", abs, writeError(err))
	}
	s := &Store{db: db, logger: logger.WithGroup("store"), failing: make(chan struct{}, 1)}
	if err := s.migrate(ctx, migrationFS); err != nil {
		db.Close()
		return nil, writeError(err)
	}
	return s, nil
}

// writeError is err as a *WriteError when the disk or the database file
// refused it, else err itself.
func writeError(err error) error {
	if r := writeReason(err); r != "" {
		if _, ok := errors.AsType[*WriteError](err); !ok {
			return &WriteError{Reason: r, Err: err}
		}
	}
	return err
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// dsn builds modernc's connection string. The pragmas are DSN parameters so
// that every pooled connection gets them, not just the first (checked against
// `go doc modernc.org/sqlite.Driver.Open`, v1.62.0):
//   - busy_timeout comes first so that switching to WAL, which needs a lock,
//     waits instead of failing with SQLITE_BUSY (the driver also sorts it
//     first, but we do not rely on that);
//   - _txlock=immediate makes BEGIN take the write lock at once, so two
//     writers queue on busy_timeout instead of one failing when it upgrades
//     a read lock.
//
// The "file:" URI form with an escaped path is used because the driver cuts a
// plain file name at its first '?', which would break a data dir containing
// one; SQLite decodes the %XX escapes itself.
func dsn(absPath string) string {
	u := url.URL{Path: filepath.ToSlash(absPath)}
	return "file:" + u.EscapedPath() +
		"?_pragma=busy_timeout(5000)" +
		"&_pragma=journal_mode(WAL)" +
		"&_pragma=foreign_keys(1)" +
		"&_pragma=synchronous(NORMAL)" +
		"&_txlock=immediate"
}

// querier is what both *sql.DB and *sql.Tx offer, so one query helper can run
// alone or inside a transaction.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// inTx runs fn in one transaction (BEGIN IMMEDIATE, from the DSN), committing
// if fn returns nil. A failure to begin or commit is noted in Health.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.failed(err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return s.failed(err)
	}
	return s.failed(tx.Commit())
}

// Times are stored as Unix milliseconds: integers compare correctly in SQL
// (expiry, the touch interval) and need no format agreement with the driver.
func ms(t time.Time) int64 { return t.UnixMilli() }

// nullMS stores the zero time as NULL ("never").
func nullMS(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func fromNullMS(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return fromMS(v.Int64)
}

// newID returns a random 128-bit identifier in hex. IDs appear in URLs
// (revoke buttons); being random they reveal nothing about how many devices
// exist and cannot be guessed, though they grant nothing on their own.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥1.24)
	return hex.EncodeToString(b[:])
}

// checkHash rejects anything that is not a SHA-256 digest, so a caller bug
// cannot store a secret in clear text in a hash column.
func checkHash(h []byte) error {
	if len(h) != 32 {
		return fmt.Errorf("store: hash must be 32 bytes, got %d", len(h))
	}
	return nil
}
