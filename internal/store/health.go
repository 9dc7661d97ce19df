package store

import (
	"context"
	"database/sql"
	"errors"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// WriteError is a write the database could not make because of where it
// lives: the disk is full, read-only or failing, or another program holds
// the database locked. Reason says which in words for the user; the
// wrapped error is the driver's.
type WriteError struct {
	Reason string
	Err    error
}

func (e *WriteError) Error() string { return "store: " + e.Reason + ": " + e.Err.Error() }

func (e *WriteError) Unwrap() error { return e.Err }

// Full reports whether the disk is full: freeing space is what mends it.
func (e *WriteError) Full() bool { return e.Reason == reasonFull }

// reasonFull is the reason of a full disk.
const reasonFull = "the disk holding paddock's data is full"

// Health is whether paddock's database takes writes.
type Health struct {
	// Unwritable is why the last write failed, in words for the user
	// ("the disk holding paddock's data is full"); "" while writes
	// succeed. It never names a path or a secret: health is public.
	Unwritable string
	Since      time.Time // when writes began to fail
}

// OK reports whether writes succeed.
func (h Health) OK() bool { return h.Unwritable == "" }

// Health says whether the last write succeeded. A failed write of any
// kind makes it unwritable; only a write that surely reached the disk
// (Probe, SettlePendingItem) makes it writable again, since a write that
// changed nothing needs no room and proves nothing.
func (s *Store) Health() Health {
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	return s.health
}

// How often Watch probes: seldom while writes succeed (a full disk shows
// before a decision is refused), often while they fail (health recovers
// within seconds of the user freeing space).
const (
	probeEvery   = time.Minute
	probeFailing = 2 * time.Second
	probeTimeout = 5 * time.Second
)

// Watch probes the database's writes until ctx ends, then returns nil; it
// is the store's only goroutine, run by its owner.
func (s *Store) Watch(ctx context.Context) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case <-s.failing:
			// A write failed: probe at the failing pace from now on.
			timer.Reset(probeFailing)
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		_ = s.Probe(pctx)
		cancel()
		next := probeEvery
		if !s.Health().OK() {
			next = probeFailing
		}
		timer.Reset(next)
	}
}

// Probe writes one small row, which needs room on the disk whenever the
// WAL has to grow, and notes how it went in Health.
func (s *Store) Probe(ctx context.Context) error {
	_, err := s.exec(ctx, s.db, `INSERT INTO write_probe (only, at) VALUES (1, ?)
		ON CONFLICT (only) DO UPDATE SET at = excluded.at`, ms(time.Now()))
	if err == nil {
		s.wrote()
	}
	return err
}

// exec runs one write on q (the database or a transaction) and notes a
// failure in Health.
func (s *Store) exec(ctx context.Context, q querier, query string, args ...any) (sql.Result, error) {
	res, err := q.ExecContext(ctx, query, args...)
	return res, s.failed(err)
}

// failed notes a failed write in Health and returns err, as a *WriteError
// when the disk or the database file refused it. Errors of the caller's
// own making (a cancelled context, a constraint) leave Health alone.
func (s *Store) failed(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if we, ok := errors.AsType[*WriteError](err); ok {
		s.unwritable(we.Reason, err)
		return err
	}
	reason := writeReason(err)
	if reason == "" {
		return err
	}
	s.unwritable(reason, err)
	return &WriteError{Reason: reason, Err: err}
}

// unwritable notes in Health that writes fail, and why.
func (s *Store) unwritable(reason string, err error) {
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	if s.health.Unwritable == reason {
		return
	}
	if s.health.OK() {
		s.health.Since = time.Now()
		select {
		case s.failing <- struct{}{}:
		default:
		}
	}
	s.health.Unwritable = reason
	s.logger.Error("paddock's database cannot be written", "reason", reason, "error", err)
}

// wrote notes a write that reached the disk.
func (s *Store) wrote() {
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	if !s.health.OK() {
		s.logger.Info("paddock's database takes writes again", "after", time.Since(s.health.Since).Round(time.Second))
		s.health = Health{}
	}
}

// writeReason says why a write failed when the cause is where the
// database lives; "" for any other error.
func writeReason(err error) string {
	code := 0
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		code = se.Code() & 0xff // the primary code of an extended one
	}
	switch {
	case code == sqlite3.SQLITE_FULL || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT):
		return reasonFull
	case code == sqlite3.SQLITE_READONLY || errors.Is(err, syscall.EROFS):
		return "paddock's database is read-only"
	case code == sqlite3.SQLITE_IOERR:
		return "the disk holding paddock's data fails to write"
	case code == sqlite3.SQLITE_CANTOPEN || code == sqlite3.SQLITE_PERM:
		return "paddock's database cannot be opened for writing"
	case code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED:
		return "another program holds paddock's database locked"
	case code == sqlite3.SQLITE_CORRUPT || code == sqlite3.SQLITE_NOTADB:
		return "paddock's database is damaged"
	}
	return ""
}
