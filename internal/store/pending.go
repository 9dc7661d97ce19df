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
	if it.ID == "" {
		return errors.New("store: pending item without id")
	}
	if it.Resolution == "" && !it.ResolvedAt.IsZero() || it.Resolution != "" && it.ResolvedAt.IsZero() {
		return fmt.Errorf("store: pending item %s: resolution and resolved time must come together", it.ID)
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO pending_items
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
		return fmt.Errorf("store: save pending item: %w", err)
	}
	return nil
}

// ResolvePendingItem records an item's resolution, and data (its encoding
// as resolved), only if it is still pending: it reports false when it was
// resolved already, so the first resolution wins here as in memory. An
// unknown id is ErrNotFound.
func (s *Store) ResolvePendingItem(ctx context.Context, id string, res string, by string, at time.Time, data []byte) (bool, error) {
	if res == "" || at.IsZero() {
		return false, fmt.Errorf("store: resolve pending item %s: empty resolution or time", id)
	}
	r, err := s.db.ExecContext(ctx, `UPDATE pending_items
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
	r, err := s.db.ExecContext(ctx, `DELETE FROM pending_items WHERE resolution != '' AND resolved_at < ?`, ms(before))
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
