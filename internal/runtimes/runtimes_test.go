package runtimes

import (
	"slices"
	"testing"
)

func TestEveryRuntimeHasAScannerAndALabel(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	set := New(Options{})
	var got []string
	for _, s := range set.All {
		got = append(got, s.Runtime())
	}
	if !slices.Equal(got, Names()) {
		t.Fatalf("scanners %v, want one per runtime in %v", got, Names())
	}
	if set.Claude == nil || set.All[0] != set.Claude {
		t.Fatal("the Claude scanner is not the one listed")
	}
	for _, rt := range Names() {
		if l := Label(rt); l == rt || l == "" {
			t.Errorf("runtime %q has no display name", rt)
		}
	}
	if Label("emacs") != "emacs" {
		t.Error("an unknown runtime is not shown as it is")
	}
}
