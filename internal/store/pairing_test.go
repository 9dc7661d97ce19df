package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestConsumePairingCode(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		setup   func(s *Store) // inserts codes
		code    string
		at      time.Time
		wantErr error
	}{
		{"fresh", nil, "good", t0.Add(time.Minute), nil},
		{"unknown", nil, "nope", t0.Add(time.Minute), ErrNotFound},
		{"last valid millisecond", nil, "good", t0.Add(10*time.Minute - time.Millisecond), nil},
		{"at expiry", nil, "good", t0.Add(10 * time.Minute), ErrExpired},
		{"after expiry", nil, "good", t0.Add(11 * time.Minute), ErrExpired},
		{"used", func(s *Store) {
			if err := s.ConsumePairingCode(ctx, hash("good"), t0, ""); err != nil {
				t.Fatal(err)
			}
		}, "good", t0.Add(time.Minute), ErrUsed},
		{"used then expired reports used", func(s *Store) {
			if err := s.ConsumePairingCode(ctx, hash("good"), t0, ""); err != nil {
				t.Fatal(err)
			}
		}, "good", t0.Add(time.Hour), ErrUsed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openTest(t)
			if err := s.InsertPairingCode(ctx, hash("good"), t0, t0.Add(10*time.Minute)); err != nil {
				t.Fatal(err)
			}
			if tc.setup != nil {
				tc.setup(s)
			}
			err := s.ConsumePairingCode(ctx, hash(tc.code), tc.at, "")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestInsertPairingCodeRejects(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	if err := s.InsertPairingCode(ctx, []byte("clear text code"), t0, t0.Add(time.Minute)); err == nil {
		t.Error("accepted a non-hash")
	}
	if err := s.InsertPairingCode(ctx, hash("a"), t0, t0); err == nil {
		t.Error("accepted a code that expires as it is made")
	}
	if err := s.InsertPairingCode(ctx, hash("a"), t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertPairingCode(ctx, hash("a"), t0, t0.Add(time.Minute)); err == nil {
		t.Error("accepted a duplicate code")
	}
}

// The single-use guarantee: of many concurrent consumers exactly one wins.
func TestConsumePairingCodeConcurrent(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	if err := s.InsertPairingCode(ctx, hash("race"), t0, t0.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	const n = 20
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = s.ConsumePairingCode(ctx, hash("race"), t0.Add(time.Minute), "")
		})
	}
	close(start)
	wg.Wait()
	ok := 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrUsed):
		default:
			t.Errorf("goroutine %d: unexpected error %v", i, err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d consumers succeeded, want exactly 1", ok)
	}
}

// Concurrent PairDevice: one device made, the losers leave nothing behind.
func TestPairDeviceConcurrent(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	if err := s.InsertPairingCode(ctx, hash("race"), t0, t0.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	const n = 20
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = s.PairDevice(ctx, hash("race"), NewDevice{
				Name: "phone", TokenHash: hash("token" + string(rune('a'+i))), CreatedAt: t0.Add(time.Minute),
			})
		})
	}
	close(start)
	wg.Wait()
	ok := 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrUsed):
		default:
			t.Errorf("goroutine %d: unexpected error %v", i, err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d pairings succeeded, want exactly 1", ok)
	}
	devs, err := s.ListDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 1 {
		t.Fatalf("%d devices exist, want 1", len(devs))
	}
	var usedBy string
	if err := s.db.QueryRowContext(ctx, `SELECT used_by_device FROM pairing_codes`).Scan(&usedBy); err != nil {
		t.Fatal(err)
	}
	if usedBy != devs[0].ID {
		t.Errorf("code used by %q, want %q", usedBy, devs[0].ID)
	}
}

func TestPairDeviceFailureLeavesNoDevice(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	if err := s.InsertPairingCode(ctx, hash("old"), t0, t0.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		code string
		want error
	}{{"old", ErrExpired}, {"unknown", ErrNotFound}} {
		_, err := s.PairDevice(ctx, hash(tc.code), NewDevice{Name: "x", TokenHash: hash("t"), CreatedAt: t0.Add(time.Hour)})
		if !errors.Is(err, tc.want) {
			t.Errorf("PairDevice(%s) err = %v, want %v", tc.code, err, tc.want)
		}
	}
	devs, err := s.ListDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 0 {
		t.Fatalf("failed pairings left devices: %v", devs)
	}
}

func TestPrunePairingCodes(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	for i, code := range []string{"a", "b", "c"} {
		if err := s.InsertPairingCode(ctx, hash(code), t0, t0.Add(time.Duration(i+1)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.PrunePairingCodes(ctx, t0.Add(2*time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	if err := s.ConsumePairingCode(ctx, hash("c"), t0, ""); err != nil {
		t.Errorf("unexpired code pruned: %v", err)
	}
}
