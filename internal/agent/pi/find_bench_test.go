package pi

import (
	"context"
	"testing"
)

// BenchmarkFind looks a session up by id among 10,000 files, as every live
// update of a session page does (catalog.RecentMessages →
// TailConversation → find): "listed" is a session the last Scan read,
// "tail10" the whole first-page read of it.
func BenchmarkFind(b *testing.B) {
	ctx := context.Background()
	s := benchScanner(benchTree(b, 10_000))
	infos, err := s.Scan(ctx, benchLimit, nil)
	if err != nil || len(infos) == 0 {
		b.Fatalf("Scan = %d sessions, %v", len(infos), err)
	}
	id := infos[len(infos)-1].ID
	b.Run("listed", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.find(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tail10", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := s.TailConversation(ctx, id, 10); err != nil {
				b.Fatal(err)
			}
		}
	})
}
