package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"paddock/internal/store"
)

// Device returns the device whose session token this is, and records it as
// seen now, from the context's client address if WithClientIP set one (at
// most one write a minute per device, or when its address changes).
// ErrUnauthenticated for a malformed or unknown token, ErrRevoked for a
// revoked device.
func (s *Service) Device(ctx context.Context, token string) (store.Device, error) {
	if !wellFormed(token, tokenLen) {
		return store.Device{}, ErrUnauthenticated
	}
	dev, err := s.store.DeviceByTokenHash(ctx, digest(token))
	if errors.Is(err, store.ErrNotFound) {
		return store.Device{}, ErrUnauthenticated
	}
	if err != nil {
		return store.Device{}, fmt.Errorf("auth: device: %w", err)
	}
	if dev.Revoked() {
		return store.Device{}, ErrRevoked
	}
	now := s.now()
	if last := dev.LastSeenAt; s.idle > 0 && !last.IsZero() && now.Sub(last) > s.idle {
		// Unused too long: its session ends for good, as a revocation.
		if err := s.store.RevokeDevice(ctx, dev.ID, now); err != nil {
			return store.Device{}, fmt.Errorf("auth: expire device: %w", err)
		}
		s.audit(ctx, now, "paddock", "device.expire", "device="+dev.ID)
		s.logger.Info("device expired: unused too long", "device", dev.ID, "last_seen", last)
		return store.Device{}, ErrExpired
	}
	ip := clientIPFrom(ctx)
	// A failed touch must not lock the user out; the session is valid.
	if wrote, err := s.store.TouchDevice(ctx, dev.ID, now, ip); err != nil {
		s.logger.Warn("recording device activity failed", "device", dev.ID, "err", err)
	} else if wrote {
		dev.LastSeenAt = now.UTC().Truncate(time.Millisecond) // as the store would return it
		if ip != "" {
			dev.LastIP = ip
		}
	}
	return dev, nil
}

// ListDevices returns every device, revoked ones included, newest first.
func (s *Service) ListDevices(ctx context.Context) ([]store.Device, error) {
	ds, err := s.store.ListDevices(ctx)
	if err != nil {
		return nil, fmt.Errorf("auth: list devices: %w", err)
	}
	return ds, nil
}

// RevokeDevice ends a device's session for good, recording the context's
// actor (WithActor) in the audit log. Revoking twice is not an error;
// ErrNotFound for an unknown id. The caller must also close the device's
// open websockets: this only stops new requests.
func (s *Service) RevokeDevice(ctx context.Context, id string) error {
	if !validID(id) {
		return ErrNotFound
	}
	now := s.now()
	if err := s.store.RevokeDevice(ctx, id, now); err != nil {
		return mapStoreErr("revoke device", err)
	}
	actor := actorFrom(ctx)
	s.audit(ctx, now, actor, "device.revoke", "device="+id)
	s.logger.Info("device revoked", "device", id, "by", actor)
	return nil
}

// validID reports whether id has the store's ID shape (32 lowercase hex), so
// arbitrary input never reaches a query.
func validID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// MaxDeviceName bounds a device's name.
const MaxDeviceName = 60

// ErrBadName is a device name that is empty or too long.
var ErrBadName = errors.New("auth: a device's name is 1 to 60 characters")

// RenameDevice gives a paired device a name of the user's (audited).
func (s *Service) RenameDevice(ctx context.Context, id, name string) error {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxDeviceName || strings.ContainsAny(name, "\n\r\t") {
		return ErrBadName
	}
	if !validID(id) {
		return ErrNotFound
	}
	if err := s.store.RenameDevice(ctx, id, name); err != nil {
		return mapStoreErr("rename device", err)
	}
	s.audit(ctx, s.now(), actorFrom(ctx), "device.rename", "device="+id)
	return nil
}

// ErrBadTheme is a theme other than "light", "dark" or "" (the system's).
var ErrBadTheme = errors.New(`auth: a theme is "light", "dark" or "" (follow the system)`)

// SetDeviceTheme records the theme a device chose ("" follows its
// system setting again); ErrNotFound for an unknown or revoked device.
func (s *Service) SetDeviceTheme(ctx context.Context, id, theme string) error {
	if theme != "" && theme != "light" && theme != "dark" {
		return ErrBadTheme
	}
	if !validID(id) {
		return ErrNotFound
	}
	if err := s.store.SetDeviceTheme(ctx, id, theme); err != nil {
		return mapStoreErr("set device theme", err)
	}
	return nil
}
