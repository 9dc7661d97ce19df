package registry

import (
	"slices"
	"testing"

	"paddock/internal/agent"
)

func TestEveryAgentHasAScanner(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	reg := Default()
	var got []string
	for _, s := range reg.Scanners(agent.Env{}, nil) {
		got = append(got, s.Runtime())
	}
	if !slices.Equal(got, reg.Names()) {
		t.Fatalf("scanners %v, want one per agent in %v", got, reg.Names())
	}
	for _, a := range reg.All() {
		if a.Label == a.Name || a.Product == "" {
			t.Errorf("agent %q has no display name", a.Name)
		}
	}
	if reg.Label("emacs") != "emacs" {
		t.Error("an unknown agent is not shown as it is")
	}
}
