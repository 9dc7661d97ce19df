package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// LiveCard is one persisted live-state card: data is the live package's
// own encoding, opaque here.
type LiveCard struct {
	Runtime, ID string
	Data        []byte
	Saved       time.Time
}

// SaveLiveCards upserts cards and deletes the cards named in gone, in one
// transaction.
func (s *Store) SaveLiveCards(ctx context.Context, cards []LiveCard, gone [][2]string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for _, c := range cards {
			if _, err := tx.ExecContext(ctx, `INSERT INTO live_cards (runtime, id, data, saved_at) VALUES (?, ?, ?, ?)
				ON CONFLICT (runtime, id) DO UPDATE SET data = excluded.data, saved_at = excluded.saved_at`,
				c.Runtime, c.ID, c.Data, ms(c.Saved)); err != nil {
				return err
			}
		}
		for _, k := range gone {
			if _, err := tx.ExecContext(ctx, `DELETE FROM live_cards WHERE runtime = ? AND id = ?`, k[0], k[1]); err != nil {
				return err
			}
		}
		return nil
	})
}

// LiveCards returns every persisted card.
func (s *Store) LiveCards(ctx context.Context) ([]LiveCard, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT runtime, id, data, saved_at FROM live_cards ORDER BY runtime, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []LiveCard
	for rows.Next() {
		var c LiveCard
		var saved int64
		if err := rows.Scan(&c.Runtime, &c.ID, &c.Data, &saved); err != nil {
			return nil, err
		}
		c.Saved = time.UnixMilli(saved)
		out = append(out, c)
	}
	return out, rows.Err()
}

// PruneLiveCards deletes cards not saved since before.
func (s *Store) PruneLiveCards(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.exec(ctx, s.db, `DELETE FROM live_cards WHERE saved_at < ?`, ms(before))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// FirstRun returns when paddock first ran against this store, recording now
// as that time on the first call.
func (s *Store) FirstRun(ctx context.Context, now time.Time) (time.Time, error) {
	var at int64
	err := s.db.QueryRowContext(ctx, `SELECT at FROM first_run WHERE only = 1`).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := s.exec(ctx, s.db, `INSERT INTO first_run (only, at) VALUES (1, ?) ON CONFLICT DO NOTHING`, ms(now)); err != nil {
			return time.Time{}, err
		}
		err = s.db.QueryRowContext(ctx, `SELECT at FROM first_run WHERE only = 1`).Scan(&at)
	}
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(at), nil
}
