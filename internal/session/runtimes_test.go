package session

import "testing"

func TestEveryRuntimeHasALabel(t *testing.T) {
	for _, rt := range Runtimes() {
		if l := Label(rt); l == rt || l == "" {
			t.Errorf("runtime %q has no display name", rt)
		}
	}
	if Label("emacs") != "emacs" {
		t.Error("an unknown runtime is not shown as it is")
	}
}
