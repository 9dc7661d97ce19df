package store

import (
	"context"
	"fmt"
	"time"
)

// PushSubscription is one browser's Web Push subscription, for one paired
// device. Prefs is the push package's JSON, opaque here.
type PushSubscription struct {
	Endpoint  string
	DeviceID  string
	P256dh    string
	Auth      string
	Prefs     []byte
	CreatedAt time.Time
}

// SavePushSubscription stores a subscription, replacing the one with the
// same endpoint (a browser re-subscribing, or new preferences).
func (s *Store) SavePushSubscription(ctx context.Context, p PushSubscription) error {
	if p.Endpoint == "" || p.DeviceID == "" || p.P256dh == "" || p.Auth == "" {
		return fmt.Errorf("store: push subscription without endpoint, device or keys")
	}
	_, err := s.exec(ctx, s.db, `INSERT INTO push_subscriptions (endpoint, device_id, p256dh, auth, prefs, created_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (endpoint) DO UPDATE SET device_id = excluded.device_id, p256dh = excluded.p256dh, auth = excluded.auth, prefs = excluded.prefs`,
		p.Endpoint, p.DeviceID, p.P256dh, p.Auth, p.Prefs, ms(p.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: save push subscription: %w", err)
	}
	return nil
}

// PushSubscriptions lists the subscriptions of devices that are not
// revoked.
func (s *Store) PushSubscriptions(ctx context.Context) ([]PushSubscription, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT p.endpoint, p.device_id, p.p256dh, p.auth, p.prefs, p.created_at
		FROM push_subscriptions p JOIN devices d ON d.id = p.device_id WHERE d.revoked_at IS NULL ORDER BY p.created_at`)
	if err != nil {
		return nil, fmt.Errorf("store: push subscriptions: %w", err)
	}
	defer rows.Close()
	var out []PushSubscription
	for rows.Next() {
		var p PushSubscription
		var created int64
		if err := rows.Scan(&p.Endpoint, &p.DeviceID, &p.P256dh, &p.Auth, &p.Prefs, &created); err != nil {
			return nil, fmt.Errorf("store: push subscriptions: %w", err)
		}
		p.CreatedAt = fromMS(created)
		out = append(out, p)
	}
	return out, rows.Err()
}

// DeletePushSubscription forgets an endpoint (the push service said it is
// gone, or the user turned notifications off); deleting an unknown one is
// not an error.
func (s *Store) DeletePushSubscription(ctx context.Context, endpoint string) error {
	if _, err := s.exec(ctx, s.db, `DELETE FROM push_subscriptions WHERE endpoint = ?`, endpoint); err != nil {
		return fmt.Errorf("store: delete push subscription: %w", err)
	}
	return nil
}
