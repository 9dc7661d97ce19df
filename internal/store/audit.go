package store

import (
	"context"
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
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO audit_log (at, actor, action, detail) VALUES (?, ?, ?, ?)`,
		ms(at), actor, action, detail)
	if err != nil {
		return fmt.Errorf("store: audit: %w", err)
	}
	return nil
}

// AuditLog returns the newest limit entries, newest first.
func (s *Store) AuditLog(ctx context.Context, limit int) ([]AuditEntry, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx,
		`SELECT id, at, actor, action, detail FROM audit_log ORDER BY id DESC LIMIT ?`, limit)
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
