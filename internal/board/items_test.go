package board

import (
	"slices"
	"testing"

	"paddock/internal/decisions"
	"paddock/internal/session"
)

// The broker's "List again" (the zero Item) must refresh every session
// viewer, not the session of an empty key.
func TestItemChange(t *testing.T) {
	k := session.Key{Runtime: "claude", ID: "0b5d4c2e-1111-4a2b-9c3d-aaaaaaaaaaaa"}
	tests := []struct {
		name    string
		it      decisions.Item
		full    bool
		updated []session.Key
	}{
		{"an item", decisions.Item{ID: "itm_1", Key: k}, false, []session.Key{k}},
		{"list again", decisions.Item{}, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := itemChange(tc.it)
			if got.Full != tc.full || !slices.Equal(got.Updated, tc.updated) || len(got.Removed) != 0 {
				t.Fatalf("got %+v", got)
			}
		})
	}
}
