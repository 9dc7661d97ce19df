package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestLiveCardsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "p.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.UnixMilli(time.Now().UnixMilli())
	if err := s.SaveLiveCards(ctx, []LiveCard{{"claude", "a", []byte(`{"v":1}`), t0}, {"codex", "b", []byte(`{}`), t0}}, nil); err != nil {
		t.Fatal(err)
	}
	// Upsert one, delete the other.
	if err := s.SaveLiveCards(ctx, []LiveCard{{"claude", "a", []byte(`{"v":2}`), t0.Add(time.Second)}}, [][2]string{{"codex", "b"}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.LiveCards(ctx)
	if err != nil || len(got) != 1 || string(got[0].Data) != `{"v":2}` || !got[0].Saved.Equal(t0.Add(time.Second)) {
		t.Fatalf("cards %+v %v", got, err)
	}
	if n, err := s.PruneLiveCards(ctx, t0.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("prune %d %v", n, err)
	}
}

func TestFirstRunIsRecordedOnce(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "p.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first := time.UnixMilli(1_800_000_000_000)
	a, err := s.FirstRun(ctx, first)
	if err != nil || !a.Equal(first) {
		t.Fatalf("first %v %v", a, err)
	}
	b, err := s.FirstRun(ctx, first.Add(time.Hour))
	if err != nil || !b.Equal(first) {
		t.Fatalf("second call moved the first run: %v %v", b, err)
	}
}

func TestHostedTerminalsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "p.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.UnixMilli(time.Now().UnixMilli())
	for _, id := range []string{"pdk-a", "pdk-b"} {
		if err := s.SaveHostedTerminal(ctx, HostedTerminal{ID: id, Runtime: "claude", Cwd: "/p", Data: []byte(`{}`), Created: at}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteHostedTerminal(ctx, "pdk-a"); err != nil {
		t.Fatal(err)
	}
	got, err := s.HostedTerminals(ctx)
	if err != nil || len(got) != 1 || got[0].ID != "pdk-b" || !got[0].Created.Equal(at) {
		t.Fatalf("terminals %+v %v", got, err)
	}
}
