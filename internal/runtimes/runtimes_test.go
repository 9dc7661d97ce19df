package runtimes

import (
	"slices"
	"testing"

	"paddock/internal/session"
)

func TestEveryRuntimeHasAScanner(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	set := New(Options{})
	var got []string
	for _, s := range set.All {
		got = append(got, s.Runtime())
	}
	if !slices.Equal(got, session.Runtimes()) {
		t.Fatalf("scanners %v, want one per runtime in %v", got, session.Runtimes())
	}
	if set.Claude == nil || set.All[0] != set.Claude {
		t.Fatal("the Claude scanner is not the one listed")
	}
}
