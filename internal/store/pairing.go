package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// InsertPairingCode records the SHA-256 of a new pairing code, valid until
// expires.
func (s *Store) InsertPairingCode(ctx context.Context, hash []byte, created, expires time.Time) error {
	if err := checkHash(hash); err != nil {
		return err
	}
	if !expires.After(created) {
		return errors.New("store: pairing code expires before it is created")
	}
	_, err := s.exec(ctx, s.db,
		`INSERT INTO pairing_codes (code_hash, created_at, expires_at) VALUES (?, ?, ?)`,
		hash, ms(created), ms(expires))
	if err != nil {
		return fmt.Errorf("store: insert pairing code: %w", err)
	}
	return nil
}

// ConsumePairingCode marks the code used at now by deviceID (empty for none;
// otherwise it must name an existing device). It succeeds for exactly one
// caller per code: the check and the write are one UPDATE, so concurrent
// callers cannot both see it unused. Failures are ErrNotFound, ErrUsed or
// ErrExpired (a code is valid strictly before its expiry time).
func (s *Store) ConsumePairingCode(ctx context.Context, hash []byte, now time.Time, deviceID string) error {
	if err := checkHash(hash); err != nil {
		return err
	}
	return s.consumePairingCode(ctx, s.db, hash, now, deviceID)
}

// PairDevice creates a device and consumes the pairing code for it in one
// transaction: either both happen or neither, so a failed pairing leaves no
// device behind and a burnt code always names the device it made. The code
// is consumed at nd.CreatedAt. Errors are those of ConsumePairingCode.
func (s *Store) PairDevice(ctx context.Context, codeHash []byte, nd NewDevice) (Device, error) {
	if err := checkHash(codeHash); err != nil {
		return Device{}, err
	}
	var d Device
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if d, err = s.insertDevice(ctx, tx, nd); err != nil {
			return err
		}
		return s.consumePairingCode(ctx, tx, codeHash, nd.CreatedAt, d.ID)
	})
	if err != nil {
		return Device{}, err
	}
	return d, nil
}

func (s *Store) consumePairingCode(ctx context.Context, q querier, hash []byte, now time.Time, deviceID string) error {
	res, err := s.exec(ctx, q, `UPDATE pairing_codes
		SET used_at = ?, used_by_device = ?
		WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?`,
		ms(now), sql.NullString{String: deviceID, Valid: deviceID != ""}, hash, ms(now))
	if err != nil {
		return fmt.Errorf("store: consume pairing code: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: consume pairing code: %w", err)
	}
	if n == 1 {
		return nil
	}
	// Nothing matched: read the row only to say why. This read cannot grant
	// anything, so it need not be atomic with the UPDATE.
	var used sql.NullInt64
	var expires int64
	err = q.QueryRowContext(ctx, `SELECT used_at, expires_at FROM pairing_codes WHERE code_hash = ?`, hash).
		Scan(&used, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ErrNotFound
	case err != nil:
		return fmt.Errorf("store: consume pairing code: %w", err)
	case used.Valid:
		return ErrUsed
	default:
		return ErrExpired
	}
}

// PrunePairingCodes deletes codes that expired at or before before (used or
// not: the audit log keeps the record of a pairing), so the table stays tiny.
func (s *Store) PrunePairingCodes(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.exec(ctx, s.db, `DELETE FROM pairing_codes WHERE expires_at <= ?`, ms(before))
	if err != nil {
		return 0, fmt.Errorf("store: prune pairing codes: %w", err)
	}
	return res.RowsAffected()
}
