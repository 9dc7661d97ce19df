package store

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"
)

func TestSettingsSavedReplacedAndDeleted(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	at := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	str := func(v string) *string { return &v }
	if got, err := s.Settings(ctx); err != nil || len(got) != 0 {
		t.Fatalf("a new store's settings: %v %v", got, err)
	}
	steps := []struct {
		save map[string]*string
		want map[string]string
	}{
		{map[string]*string{"sleep_idle": str("30m"), "density": str("high")}, map[string]string{"sleep_idle": "30m", "density": "high"}},
		{map[string]*string{"sleep_idle": str("1h")}, map[string]string{"sleep_idle": "1h", "density": "high"}},
		{map[string]*string{"density": nil, "never_set": nil}, map[string]string{"sleep_idle": "1h"}},
	}
	for i, st := range steps {
		if err := s.SaveSettings(ctx, st.save, at); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got, err := s.Settings(ctx); err != nil || !maps.Equal(got, st.want) {
			t.Fatalf("step %d: settings %v (%v), want %v", i, got, err, st.want)
		}
	}
}

func TestDeviceThemeKeptOnTheDevice(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	at := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	d, err := s.InsertDevice(ctx, NewDevice{Name: "Pixel · Chrome", UserAgent: "ua", TokenHash: hash("t"), CreatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if d.Theme != "" {
		t.Fatalf("a new device's theme is %q, want the system's", d.Theme)
	}
	if err := s.SetDeviceTheme(ctx, d.ID, "dark"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.DeviceByTokenHash(ctx, hash("t")); err != nil || got.Theme != "dark" {
		t.Fatalf("theme read back %q %v", got.Theme, err)
	}
	if err := s.RevokeDevice(ctx, d.ID, at); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDeviceTheme(ctx, d.ID, "light"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("theme of a revoked device: %v, want ErrNotFound", err)
	}
	if err := s.SetDeviceTheme(ctx, "no-such-device", "light"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("theme of an unknown device: %v", err)
	}
}
