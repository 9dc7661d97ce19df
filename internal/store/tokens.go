package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// APIToken is a bearer token for scripts (`paddock token create`). Zero
// times mean "never".
type APIToken struct {
	ID         string
	Name       string
	CreatedAt  time.Time
	LastUsedAt time.Time
	RevokedAt  time.Time
	ExpiresAt  time.Time // zero: until revoked
}

// Revoked reports whether the token has been revoked.
func (t APIToken) Revoked() bool { return !t.RevokedAt.IsZero() }

const tokenColumns = `id, name, created_at, last_used_at, revoked_at, expires_at`

// InsertAPIToken records a new token by the SHA-256 of its secret; a
// non-zero expires ends it then.
func (s *Store) InsertAPIToken(ctx context.Context, name string, hash []byte, created, expires time.Time) (APIToken, error) {
	if err := checkHash(hash); err != nil {
		return APIToken{}, err
	}
	if created.IsZero() {
		return APIToken{}, errors.New("store: token without creation time")
	}
	t := APIToken{ID: newID(), Name: name, CreatedAt: fromMS(ms(created))}
	var exp any // NULL: no end
	if !expires.IsZero() {
		t.ExpiresAt = fromMS(ms(expires))
		exp = ms(expires)
	}
	_, err := s.exec(ctx, s.db,
		`INSERT INTO api_tokens (id, name, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
		t.ID, t.Name, hash, ms(t.CreatedAt), exp)
	if err != nil {
		return APIToken{}, fmt.Errorf("store: insert api token: %w", err)
	}
	return t, nil
}

// APITokenByHash finds a token by the SHA-256 of its secret, revoked or not;
// ErrNotFound if none.
func (s *Store) APITokenByHash(ctx context.Context, hash []byte) (APIToken, error) {
	if err := checkHash(hash); err != nil {
		return APIToken{}, err
	}
	return scanAPIToken(s.db.QueryRowContext(ctx,
		`SELECT `+tokenColumns+` FROM api_tokens WHERE token_hash = ?`, hash))
}

// TouchAPIToken records a use at now, at most once per TouchInterval, and
// reports whether it wrote.
func (s *Store) TouchAPIToken(ctx context.Context, id string, now time.Time) (bool, error) {
	res, err := s.exec(ctx, s.db, `UPDATE api_tokens SET last_used_at = ?
		WHERE id = ? AND revoked_at IS NULL
		  AND (last_used_at IS NULL OR last_used_at <= ?)`,
		ms(now), id, ms(now.Add(-TouchInterval)))
	if err != nil {
		return false, fmt.Errorf("store: touch api token: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// ListAPITokens returns every token, revoked ones included, newest first.
func (s *Store) ListAPITokens(ctx context.Context) ([]APIToken, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT `+tokenColumns+` FROM api_tokens ORDER BY created_at DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("store: list api tokens: %w", err)
	}
	defer rows.Close()
	var out []APIToken
	for rows.Next() {
		t, err := scanAPIToken(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list api tokens: %w", err)
	}
	return out, nil
}

// RevokeAPIToken revokes a token at the given time; idempotent, ErrNotFound
// for an unknown id.
func (s *Store) RevokeAPIToken(ctx context.Context, id string, at time.Time) error {
	return s.revoke(ctx, "api_tokens", id, at)
}

func scanAPIToken(r scanner) (APIToken, error) {
	var (
		t                 APIToken
		created           int64
		lastUsed, revoked sql.NullInt64
		expires           sql.NullInt64
	)
	err := r.Scan(&t.ID, &t.Name, &created, &lastUsed, &revoked, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return APIToken{}, ErrNotFound
	}
	if err != nil {
		return APIToken{}, fmt.Errorf("store: read api token: %w", err)
	}
	t.CreatedAt = fromMS(created)
	t.LastUsedAt = fromNullMS(lastUsed)
	t.ExpiresAt = fromNullMS(expires)
	t.RevokedAt = fromNullMS(revoked)
	return t, nil
}
