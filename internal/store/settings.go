package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Settings are the machine's stored preferences, by key.
func (s *Store) Settings(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM settings`)
	if err != nil {
		return nil, fmt.Errorf("store: settings: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("store: settings: %w", err)
		}
		out[k] = v
	}
	return out, rows.Err()
}

// SaveSettings stores the given keys in one transaction: a value replaces
// the stored one, a nil value deletes the key (back to the default).
func (s *Store) SaveSettings(ctx context.Context, kv map[string]*string, at time.Time) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for k, v := range kv {
			var err error
			if v == nil {
				_, err = tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, k)
			} else {
				_, err = tx.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
					ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, k, *v, ms(at))
			}
			if err != nil {
				return fmt.Errorf("setting %s: %w", k, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: save settings: %w", err)
	}
	return nil
}

// SetDeviceTheme records a paired device's theme ("" follows the
// device's system setting); ErrNotFound for an unknown or revoked device.
func (s *Store) SetDeviceTheme(ctx context.Context, id, theme string) error {
	res, err := s.exec(ctx, s.db, `UPDATE devices SET theme = ? WHERE id = ? AND revoked_at IS NULL`, theme, id)
	if err != nil {
		return fmt.Errorf("store: set device theme: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: set device theme: %w", err)
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}
