package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// PendingItem is one persisted approval or question. Data is the pending
// package's own encoding, opaque here; the other fields are columns so that
// exactly-once resolution and start-up recovery need no decoding.
type PendingItem struct {
	ID, Runtime, SessionID, Kind string
	Created, Expires             time.Time // Expires zero: no expiry
	Resolution, ResolvedBy       string    // Resolution "": still pending
	ResolvedAt                   time.Time
	Data                         []byte
}

// SavePendingItem records a new item. Saving an id again replaces it only
// while it is still pending: a resolved item is never reopened.
func (s *Store) SavePendingItem(ctx context.Context, it PendingItem) error {
	if err := checkPendingItem(it); err != nil {
		return err
	}
	if _, err := s.upsertPendingItem(ctx, s.db, it); err != nil {
		return fmt.Errorf("store: save pending item: %w", err)
	}
	return nil
}

// SettlePendingItem records an item's end and its audit entry in one
// transaction, so that neither is ever stored without the other. it is
// the item as resolved (stored whole if its row is missing); the row
// changes only while it is still pending, and changed reports whether it
// did: false means it was resolved already, and only the audit entry was
// added. Its success shows the database takes writes (Health).
func (s *Store) SettlePendingItem(ctx context.Context, it PendingItem, a AuditEntry) (changed bool, err error) {
	if err := checkPendingItem(it); err != nil {
		return false, err
	}
	if it.Resolution == "" {
		return false, fmt.Errorf("store: settle pending item %s: no resolution", it.ID)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := s.upsertPendingItem(ctx, tx, it)
		if err != nil {
			return err
		}
		changed = n == 1
		_, err = tx.ExecContext(ctx, `INSERT INTO audit_log (at, actor, action, detail) VALUES (?, ?, ?, ?)`,
			ms(a.At), a.Actor, a.Action, a.Detail)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: settle pending item: %w", err)
	}
	s.wrote()
	return changed, nil
}

func checkPendingItem(it PendingItem) error {
	if it.ID == "" {
		return errors.New("store: pending item without id")
	}
	if it.Resolution == "" && !it.ResolvedAt.IsZero() || it.Resolution != "" && it.ResolvedAt.IsZero() {
		return fmt.Errorf("store: pending item %s: resolution and resolved time must come together", it.ID)
	}
	return nil
}

// upsertPendingItem inserts it, or replaces its row while that is still
// pending; it returns how many rows changed (0: resolved already).
func (s *Store) upsertPendingItem(ctx context.Context, q querier, it PendingItem) (int64, error) {
	r, err := s.exec(ctx, q, `INSERT INTO pending_items
		(id, runtime, session_id, kind, created_at, expires_at, resolution, resolved_by, resolved_at, data)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET runtime = excluded.runtime, session_id = excluded.session_id,
			kind = excluded.kind, created_at = excluded.created_at, expires_at = excluded.expires_at,
			resolution = excluded.resolution, resolved_by = excluded.resolved_by,
			resolved_at = excluded.resolved_at, data = excluded.data
		WHERE pending_items.resolution = ''`,
		it.ID, it.Runtime, it.SessionID, it.Kind, ms(it.Created), nullMS(it.Expires),
		it.Resolution, it.ResolvedBy, nullMS(it.ResolvedAt), nonNil(it.Data))
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

// ResolvePendingItem records an item's resolution, and data (its encoding
// as resolved), only if it is still pending: it reports false when it was
// resolved already, so the first resolution wins here as in memory. An
// unknown id is ErrNotFound.
func (s *Store) ResolvePendingItem(ctx context.Context, id string, res string, by string, at time.Time, data []byte) (bool, error) {
	if res == "" || at.IsZero() {
		return false, fmt.Errorf("store: resolve pending item %s: empty resolution or time", id)
	}
	r, err := s.exec(ctx, s.db, `UPDATE pending_items
		SET resolution = ?, resolved_by = ?, resolved_at = ?, data = ?
		WHERE id = ? AND resolution = ''`,
		res, by, ms(at), nonNil(data), id)
	if err != nil {
		return false, fmt.Errorf("store: resolve pending item: %w", err)
	}
	n, err := r.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: resolve pending item: %w", err)
	}
	if n == 1 {
		return true, nil
	}
	var one int
	err = s.db.QueryRowContext(ctx, `SELECT 1 FROM pending_items WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, ErrNotFound
	}
	if err != nil {
		return false, fmt.Errorf("store: resolve pending item: %w", err)
	}
	return false, nil
}

// PendingItems returns every item created at or after since, resolved or
// not, and every item still pending however old, oldest first.
func (s *Store) PendingItems(ctx context.Context, since time.Time) ([]PendingItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, runtime, session_id, kind, created_at, expires_at,
			resolution, resolved_by, resolved_at, data
		FROM pending_items WHERE created_at >= ? OR resolution = ''
		ORDER BY created_at, id`, ms(since))
	if err != nil {
		return nil, fmt.Errorf("store: read pending items: %w", err)
	}
	defer rows.Close()
	var out []PendingItem
	for rows.Next() {
		var it PendingItem
		var created int64
		var expires, resolved sql.NullInt64
		if err := rows.Scan(&it.ID, &it.Runtime, &it.SessionID, &it.Kind, &created, &expires,
			&it.Resolution, &it.ResolvedBy, &resolved, &it.Data); err != nil {
			return nil, fmt.Errorf("store: read pending items: %w", err)
		}
		it.Created = fromMS(created)
		it.Expires = fromNullMS(expires)
		it.ResolvedAt = fromNullMS(resolved)
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read pending items: %w", err)
	}
	return out, nil
}

// PrunePendingItems deletes items resolved before before; pending items
// stay whatever their age. The audit log keeps the record of each decision.
func (s *Store) PrunePendingItems(ctx context.Context, before time.Time) (int64, error) {
	r, err := s.exec(ctx, s.db, `DELETE FROM pending_items WHERE resolution != '' AND resolved_at < ?`, ms(before))
	if err != nil {
		return 0, fmt.Errorf("store: prune pending items: %w", err)
	}
	return r.RowsAffected()
}

// nonNil keeps a NOT NULL blob column from receiving NULL for an empty
// encoding.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
