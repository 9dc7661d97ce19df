package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// AuditEntry is one security event: a pairing, a revocation, a token
// creation. Details never contain secrets.
type AuditEntry struct {
	ID     int64
	At     time.Time
	Actor  string // who did it: "device:<id>", "cli", ...
	Action string // what: "pair", "device.revoke", ...
	Detail string
}

// Audit appends a security event.
func (s *Store) Audit(ctx context.Context, at time.Time, actor, action, detail string) error {
	_, err := s.exec(ctx, s.db,
		`INSERT INTO audit_log (at, actor, action, detail) VALUES (?, ?, ?, ?)`,
		ms(at), actor, action, detail)
	if err != nil {
		return fmt.Errorf("store: audit: %w", err)
	}
	return nil
}

// AuditLog returns the newest limit entries, newest first.
func (s *Store) AuditLog(ctx context.Context, limit int) ([]AuditEntry, error) {
	return s.audits(ctx, `SELECT id, at, actor, action, detail FROM audit_log ORDER BY id DESC LIMIT ?`, limit)
}

// AuditOf returns the newest limit entries of one action, newest first.
func (s *Store) AuditOf(ctx context.Context, action string, limit int) ([]AuditEntry, error) {
	return s.audits(ctx, `SELECT id, at, actor, action, detail FROM audit_log WHERE action = ? ORDER BY id DESC LIMIT ?`, action, limit)
}

// audits runs a query of audit entries whose last argument is the limit.
func (s *Store) audits(ctx context.Context, query string, args ...any) ([]AuditEntry, error) {
	if args[len(args)-1].(int) <= 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: read audit log: %w", err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Detail); err != nil {
			return nil, fmt.Errorf("store: read audit log: %w", err)
		}
		e.At = fromMS(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read audit log: %w", err)
	}
	return out, nil
}

// LatestAudit is the newest entry of action whose detail starts with
// prefix; ok is false when there is none. One indexed row, not the log.
func (s *Store) LatestAudit(ctx context.Context, action, prefix string) (e AuditEntry, ok bool, err error) {
	var at int64
	err = s.db.QueryRowContext(ctx,
		`SELECT id, at, actor, action, detail FROM audit_log WHERE action = ? AND instr(detail, ?) = 1 ORDER BY id DESC LIMIT 1`,
		action, prefix).Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Detail)
	if errors.Is(err, sql.ErrNoRows) {
		return e, false, nil
	}
	if err != nil {
		return e, false, fmt.Errorf("store: read audit log: %w", err)
	}
	e.At = fromMS(at)
	return e, true, nil
}
