package store

import (
	"context"
	"time"
)

// HostedTerminal is one terminal paddock started an agent in; Data is the
// hosted package's own encoding.
type HostedTerminal struct {
	ID, Runtime, Cwd string
	Data             []byte
	Created          time.Time
}

// SaveHostedTerminal records (or replaces) a hosted terminal.
func (s *Store) SaveHostedTerminal(ctx context.Context, t HostedTerminal) error {
	_, err := s.exec(ctx, s.db, `INSERT INTO hosted_terminals (id, runtime, cwd, data, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET runtime = excluded.runtime, cwd = excluded.cwd, data = excluded.data`,
		t.ID, t.Runtime, t.Cwd, t.Data, ms(t.Created))
	return err
}

// DeleteHostedTerminal forgets a hosted terminal.
func (s *Store) DeleteHostedTerminal(ctx context.Context, id string) error {
	_, err := s.exec(ctx, s.db, `DELETE FROM hosted_terminals WHERE id = ?`, id)
	return err
}

// HostedTerminals lists every recorded hosted terminal, oldest first.
func (s *Store) HostedTerminals(ctx context.Context) ([]HostedTerminal, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, runtime, cwd, data, created_at FROM hosted_terminals ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []HostedTerminal
	for rows.Next() {
		var t HostedTerminal
		var created int64
		if err := rows.Scan(&t.ID, &t.Runtime, &t.Cwd, &t.Data, &created); err != nil {
			return nil, err
		}
		t.Created = time.UnixMilli(created)
		out = append(out, t)
	}
	return out, rows.Err()
}
