package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/fulldisk"
)

// smallDisk is big enough for a database and its WAL, small enough to
// fill at once.
const smallDisk = 4 << 20

// Starting on a full disk fails with a reason a person can act on, and
// leaves no empty database behind for the next start to trip over.
func TestOpenOnAFullDisk(t *testing.T) {
	dir := fulldisk.Mount(t, smallDisk)
	fulldisk.Fill(t, dir)
	path := filepath.Join(dir, "paddock.db")
	s, err := Open(context.Background(), path, nil)
	if err == nil {
		s.Close()
		t.Fatal("Open on a full disk succeeded")
	}
	if !strings.Contains(err.Error(), "full") {
		t.Errorf("Open's error %q does not say the disk is full", err)
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if _, serr := os.Stat(path + suffix); !errors.Is(serr, os.ErrNotExist) {
			t.Errorf("paddock.db%s left behind after a failed Open (%v)", suffix, serr)
		}
	}
}

// A database that was there before a failed Open stays: only a file Open
// created itself is removed.
func TestOpenOnAFullDiskKeepsAnExistingDatabase(t *testing.T) {
	dir := fulldisk.Mount(t, smallDisk)
	path := filepath.Join(dir, "paddock.db")
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Audit(context.Background(), t0, "cli", "pair", "kept"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	free := fulldisk.Fill(t, dir)
	if s, err := Open(context.Background(), path, nil); err == nil {
		s.Close()
	}
	free()
	s, err = Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.AuditOf(context.Background(), "pair", 10); err != nil || len(got) != 1 || got[0].Detail != "kept" {
		t.Fatalf("the database before the full disk: %+v %v", got, err)
	}
}

// Health turns unwritable, with the reason, when a write fails for want of
// room, and back when a probe writes again; an item and its audit entry
// are settled together or not at all.
func TestHealthFollowsWrites(t *testing.T) {
	ctx := context.Background()
	dir := fulldisk.Mount(t, smallDisk)
	s, err := Open(ctx, filepath.Join(dir, "paddock.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Probe(ctx); err != nil || !s.Health().OK() {
		t.Fatalf("a fresh store: %v %+v", err, s.Health())
	}
	item := PendingItem{ID: "itm_1", Runtime: "claude", SessionID: "s1", Kind: "approval", Created: t0, Data: []byte(`{}`)}
	if err := s.SavePendingItem(ctx, item); err != nil {
		t.Fatal(err)
	}

	free := fulldisk.Fill(t, dir)
	done := item
	done.Resolution, done.ResolvedBy, done.ResolvedAt = "allowed", "device:d1", t0.Add(time.Second)
	entry := AuditEntry{At: done.ResolvedAt, Actor: "device:d1", Action: "approval.allowed", Detail: "item=itm_1"}
	_, err = s.SettlePendingItem(ctx, done, entry)
	we, ok := errors.AsType[*WriteError](err)
	if !ok || !strings.Contains(we.Reason, "full") {
		t.Fatalf("settling on a full disk: %v, want a *WriteError saying the disk is full", err)
	}
	h := s.Health()
	if h.OK() || !strings.Contains(h.Unwritable, "full") || h.Since.IsZero() {
		t.Fatalf("health on a full disk: %+v", h)
	}
	if err := s.Probe(ctx); err == nil || s.Health().OK() {
		t.Fatalf("a probe on a full disk: %v %+v", err, s.Health())
	}

	free()
	if err := s.Probe(ctx); err != nil || !s.Health().OK() {
		t.Fatalf("a probe once there is room: %v %+v", err, s.Health())
	}
	rows, err := s.PendingItems(ctx, t0.Add(-time.Hour))
	if err != nil || len(rows) != 1 || rows[0].Resolution != "" {
		t.Fatalf("the refused settlement left %+v %v, want the item still pending", rows, err)
	}
	if got, _ := s.AuditOf(ctx, "approval.allowed", 10); len(got) != 0 {
		t.Fatalf("the refused settlement left audit entries %+v", got)
	}
	if changed, err := s.SettlePendingItem(ctx, done, entry); err != nil || !changed {
		t.Fatalf("settling once there is room: %v %v", changed, err)
	}
	if changed, err := s.SettlePendingItem(ctx, done, entry); err != nil || changed {
		t.Fatalf("settling twice: %v %v, want the row left as the first settled it", changed, err)
	}
}
