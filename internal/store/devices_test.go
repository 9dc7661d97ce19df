package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDevices(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	a, err := s.InsertDevice(ctx, NewDevice{Name: "iPhone · Safari", UserAgent: "ua-a", IP: "192.0.2.1", TokenHash: hash("ta"), CreatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.InsertDevice(ctx, NewDevice{Name: "Mac · Firefox", UserAgent: "ua-b", TokenHash: hash("tb"), CreatedAt: t0.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.ID) != 32 || a.ID == b.ID {
		t.Fatalf("ids %q %q", a.ID, b.ID)
	}
	if _, err := s.InsertDevice(ctx, NewDevice{Name: "dup", TokenHash: hash("ta"), CreatedAt: t0}); err == nil {
		t.Error("duplicate token hash accepted")
	}
	if _, err := s.InsertDevice(ctx, NewDevice{Name: "clear", TokenHash: []byte("secret"), CreatedAt: t0}); err == nil {
		t.Error("non-hash token accepted")
	}

	got, err := s.DeviceByTokenHash(ctx, hash("ta"))
	if err != nil {
		t.Fatal(err)
	}
	if got != a {
		t.Errorf("DeviceByTokenHash = %+v, want %+v", got, a)
	}
	if _, err := s.DeviceByTokenHash(ctx, hash("nope")); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown token: err = %v", err)
	}
	if got, err := s.DeviceByID(ctx, b.ID); err != nil || got != b {
		t.Errorf("DeviceByID = %+v, %v", got, err)
	}

	list, err := s.ListDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != b.ID || list[1].ID != a.ID {
		t.Errorf("ListDevices not newest first: %+v", list)
	}

	if err := s.RevokeDevice(ctx, a.ID, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeDevice(ctx, a.ID, t0.Add(2*time.Hour)); err != nil {
		t.Errorf("second revoke: %v", err)
	}
	if err := s.RevokeDevice(ctx, "nope", t0); !errors.Is(err, ErrNotFound) {
		t.Errorf("revoke unknown: err = %v", err)
	}
	got, err = s.DeviceByTokenHash(ctx, hash("ta"))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Revoked() || !got.RevokedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("revoked device: RevokedAt = %v, want first revocation time", got.RevokedAt)
	}
}

func TestTouchDevice(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	d, err := s.InsertDevice(ctx, NewDevice{Name: "p", IP: "192.0.2.1", TokenHash: hash("t"), CreatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name      string
		at        time.Time
		ip        string
		wantWrite bool
		wantSeen  time.Time
		wantIP    string
	}{
		{"within a minute, same ip", t0.Add(30 * time.Second), "192.0.2.1", false, t0, "192.0.2.1"},
		{"new ip writes at once", t0.Add(40 * time.Second), "192.0.2.9", true, t0.Add(40 * time.Second), "192.0.2.9"},
		{"59s later", t0.Add(99 * time.Second), "192.0.2.9", false, t0.Add(40 * time.Second), "192.0.2.9"},
		{"a minute later", t0.Add(100 * time.Second), "192.0.2.9", true, t0.Add(100 * time.Second), "192.0.2.9"},
		{"unknown ip is no change", t0.Add(110 * time.Second), "", false, t0.Add(100 * time.Second), "192.0.2.9"},
		{"unknown ip keeps the address", t0.Add(160 * time.Second), "", true, t0.Add(160 * time.Second), "192.0.2.9"},
	}
	for _, st := range steps {
		wrote, err := s.TouchDevice(ctx, d.ID, st.at, st.ip)
		if err != nil {
			t.Fatal(err)
		}
		if wrote != st.wantWrite {
			t.Errorf("%s: wrote = %v, want %v", st.name, wrote, st.wantWrite)
		}
		got, err := s.DeviceByID(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !got.LastSeenAt.Equal(st.wantSeen) || got.LastIP != st.wantIP {
			t.Errorf("%s: last seen %v from %q, want %v from %q", st.name, got.LastSeenAt, got.LastIP, st.wantSeen, st.wantIP)
		}
	}
	if err := s.RevokeDevice(ctx, d.ID, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if wrote, err := s.TouchDevice(ctx, d.ID, t0.Add(2*time.Hour), "192.0.2.1"); err != nil || wrote {
		t.Errorf("touching a revoked device: wrote=%v err=%v", wrote, err)
	}
}
