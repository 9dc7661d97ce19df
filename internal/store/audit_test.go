package store

import (
	"context"
	"testing"
	"time"
)

// TestLatestAudit: the newest entry of an action whose detail starts with
// the prefix, and nothing when none does (a longer key sharing the start
// is another session).
func TestLatestAudit(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	for i, d := range []string{"source=claude:a target=codex:1", "source=claude:ab target=codex:2", "source=claude:a target=codex:3"} {
		if err := s.Audit(ctx, t0.Add(time.Duration(i)*time.Minute), "cli", "session.handoff", d); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Audit(ctx, t0.Add(time.Hour), "cli", "pair", "source=claude:a target=x"); err != nil {
		t.Fatal(err)
	}
	e, ok, err := s.LatestAudit(ctx, "session.handoff", "source=claude:a target=")
	if err != nil || !ok || e.Detail != "source=claude:a target=codex:3" || !e.At.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("latest: %+v %v %v", e, ok, err)
	}
	if _, ok, err := s.LatestAudit(ctx, "session.handoff", "source=claude:z target="); ok || err != nil {
		t.Errorf("none: %v %v", ok, err)
	}
	got, err := s.AuditOf(ctx, "session.handoff", 2)
	if err != nil || len(got) != 2 || got[0].Detail != "source=claude:a target=codex:3" || got[1].Detail != "source=claude:ab target=codex:2" {
		t.Errorf("AuditOf, newest two: %+v %v", got, err)
	}
	if all, err := s.AuditLog(ctx, 10); err != nil || len(all) != 4 || all[0].Action != "pair" {
		t.Errorf("AuditLog: %+v %v", all, err)
	}
}
