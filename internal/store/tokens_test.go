package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestAPITokens(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	a, err := s.InsertAPIToken(ctx, "backup script", hash("pa"), t0, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.InsertAPIToken(ctx, "ci", hash("pb"), t0.Add(time.Second), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.InsertAPIToken(ctx, "dup", hash("pa"), t0, time.Time{}); err == nil {
		t.Error("duplicate token hash accepted")
	}
	if got, err := s.APITokenByHash(ctx, hash("pa")); err != nil || got != a {
		t.Errorf("APITokenByHash = %+v, %v; want %+v", got, err, a)
	}
	if got, err := s.APITokenByHash(ctx, hash("pb")); err != nil || !got.ExpiresAt.Equal(t0.Add(time.Hour)) || got != b {
		t.Errorf("a token with an end: %+v, %v", got, err)
	}
	if _, err := s.APITokenByHash(ctx, hash("nope")); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown: err = %v", err)
	}

	for _, st := range []struct {
		at   time.Time
		want bool
	}{{t0.Add(time.Second), true}, {t0.Add(30 * time.Second), false}, {t0.Add(61 * time.Second), true}} {
		wrote, err := s.TouchAPIToken(ctx, a.ID, st.at)
		if err != nil || wrote != st.want {
			t.Errorf("TouchAPIToken(%v) = %v, %v; want %v", st.at.Sub(t0), wrote, err, st.want)
		}
	}

	list, err := s.ListAPITokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != b.ID || !list[1].LastUsedAt.Equal(t0.Add(61*time.Second)) {
		t.Errorf("ListAPITokens = %+v", list)
	}
	if err := s.RevokeAPIToken(ctx, a.ID, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeAPIToken(ctx, "nope", t0); !errors.Is(err, ErrNotFound) {
		t.Errorf("revoke unknown: err = %v", err)
	}
	if got, _ := s.APITokenByHash(ctx, hash("pa")); !got.Revoked() {
		t.Error("token not revoked")
	}
}

func TestAudit(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	for i, action := range []string{"pair", "device.revoke", "token.create"} {
		if err := s.Audit(ctx, t0.Add(time.Duration(i)*time.Second), "cli", action, "d"); err != nil {
			t.Fatal(err)
		}
	}
	log, err := s.AuditLog(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[0].Action != "token.create" || log[1].Action != "device.revoke" || !log[0].At.Equal(t0.Add(2*time.Second)) {
		t.Errorf("AuditLog = %+v", log)
	}
}
