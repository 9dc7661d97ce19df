package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Device is a paired browser (usually a phone) holding a session token.
// Zero times mean "never".
type Device struct {
	ID         string
	Name       string // derived from the user agent at pairing
	UserAgent  string
	CreatedAt  time.Time
	LastSeenAt time.Time
	LastIP     string
	RevokedAt  time.Time
	Theme      string // "light" or "dark" chosen on the device; "" follows its system
}

// Revoked reports whether the device's session has been revoked.
func (d Device) Revoked() bool { return !d.RevokedAt.IsZero() }

// NewDevice is what a caller supplies to create a device; the store picks
// the ID.
type NewDevice struct {
	Name      string
	UserAgent string
	IP        string
	TokenHash []byte // SHA-256 of the session token; the token itself is never stored
	CreatedAt time.Time
}

// TouchInterval is how stale last_seen_at must be before TouchDevice writes
// again, so an active phone costs one write a minute, not one per request.
const TouchInterval = time.Minute

const deviceColumns = `id, name, user_agent, created_at, last_seen_at, last_ip, revoked_at, theme`

// InsertDevice creates a device. Most callers want PairDevice, which also
// consumes the pairing code.
func (s *Store) InsertDevice(ctx context.Context, nd NewDevice) (Device, error) {
	return s.insertDevice(ctx, s.db, nd)
}

func (s *Store) insertDevice(ctx context.Context, q querier, nd NewDevice) (Device, error) {
	if err := checkHash(nd.TokenHash); err != nil {
		return Device{}, err
	}
	if nd.CreatedAt.IsZero() {
		return Device{}, errors.New("store: device without creation time")
	}
	d := Device{
		ID:         newID(),
		Name:       nd.Name,
		UserAgent:  nd.UserAgent,
		CreatedAt:  fromMS(ms(nd.CreatedAt)),
		LastSeenAt: fromMS(ms(nd.CreatedAt)),
		LastIP:     nd.IP,
	}
	_, err := s.exec(ctx, q, `INSERT INTO devices
		(id, name, user_agent, token_hash, created_at, last_seen_at, last_ip)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.Name, d.UserAgent, nd.TokenHash, ms(d.CreatedAt), ms(d.LastSeenAt), d.LastIP)
	if err != nil {
		return Device{}, fmt.Errorf("store: insert device: %w", err)
	}
	return d, nil
}

// DeviceByTokenHash finds a device by the SHA-256 of its session token,
// revoked or not (the caller decides what revoked means); ErrNotFound if none.
func (s *Store) DeviceByTokenHash(ctx context.Context, hash []byte) (Device, error) {
	if err := checkHash(hash); err != nil {
		return Device{}, err
	}
	return scanDevice(s.db.QueryRowContext(ctx,
		`SELECT `+deviceColumns+` FROM devices WHERE token_hash = ?`, hash))
}

// DeviceByID finds a device by ID; ErrNotFound if none.
func (s *Store) DeviceByID(ctx context.Context, id string) (Device, error) {
	return scanDevice(s.db.QueryRowContext(ctx,
		`SELECT `+deviceColumns+` FROM devices WHERE id = ?`, id))
}

// TouchDevice records that a device was seen at now from ip ("" if unknown:
// the recorded address is then kept). It writes only when the last record is
// at least TouchInterval old or the address changed, and reports whether it
// wrote. Revoked devices are left as they were.
func (s *Store) TouchDevice(ctx context.Context, id string, now time.Time, ip string) (bool, error) {
	res, err := s.exec(ctx, s.db, `UPDATE devices
		SET last_seen_at = ?, last_ip = CASE WHEN ? = '' THEN last_ip ELSE ? END
		WHERE id = ? AND revoked_at IS NULL
		  AND (last_seen_at IS NULL OR last_seen_at <= ? OR (? <> '' AND last_ip <> ?))`,
		ms(now), ip, ip, id, ms(now.Add(-TouchInterval)), ip, ip)
	if err != nil {
		return false, fmt.Errorf("store: touch device: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// ListDevices returns every device, revoked ones included, newest first.
func (s *Store) ListDevices(ctx context.Context) ([]Device, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT `+deviceColumns+` FROM devices ORDER BY created_at DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("store: list devices: %w", err)
	}
	defer rows.Close()
	var out []Device
	for rows.Next() {
		d, err := scanDevice(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list devices: %w", err)
	}
	return out, nil
}

// RevokeDevice revokes a device's session at the given time. Revoking a
// revoked device is a no-op that keeps the first revocation time; an unknown
// id is ErrNotFound.
func (s *Store) RevokeDevice(ctx context.Context, id string, at time.Time) error {
	if err := s.revoke(ctx, "devices", id, at); err != nil {
		return err
	}
	// A revoked device gets no more notifications.
	if _, err := s.exec(ctx, s.db, `DELETE FROM push_subscriptions WHERE device_id = ?`, id); err != nil {
		return fmt.Errorf("store: revoke device's push subscriptions: %w", err)
	}
	return nil
}

// revoke is shared by devices and api_tokens; table is always a constant
// from this package, never caller input.
func (s *Store) revoke(ctx context.Context, table, id string, at time.Time) error {
	res, err := s.exec(ctx, s.db,
		`UPDATE `+table+` SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, ms(at), id)
	if err != nil {
		return fmt.Errorf("store: revoke %s: %w", table, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: revoke %s: %w", table, err)
	} else if n == 1 {
		return nil
	}
	var one int
	err = s.db.QueryRowContext(ctx, `SELECT 1 FROM `+table+` WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("store: revoke %s: %w", table, err)
	}
	return nil
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanDevice(r scanner) (Device, error) {
	var (
		d                 Device
		created           int64
		lastSeen, revoked sql.NullInt64
	)
	err := r.Scan(&d.ID, &d.Name, &d.UserAgent, &created, &lastSeen, &d.LastIP, &revoked, &d.Theme)
	if errors.Is(err, sql.ErrNoRows) {
		return Device{}, ErrNotFound
	}
	if err != nil {
		return Device{}, fmt.Errorf("store: read device: %w", err)
	}
	d.CreatedAt = fromMS(created)
	d.LastSeenAt = fromNullMS(lastSeen)
	d.RevokedAt = fromNullMS(revoked)
	return d, nil
}

// RenameDevice names a paired device; ErrNotFound for an unknown or
// revoked one.
func (s *Store) RenameDevice(ctx context.Context, id, name string) error {
	res, err := s.exec(ctx, s.db, `UPDATE devices SET name = ? WHERE id = ? AND revoked_at IS NULL`, name, id)
	if err != nil {
		return fmt.Errorf("store: rename device: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: rename device: %w", err)
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}
