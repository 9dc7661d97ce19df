package procscan

import (
	"slices"
	"testing"
)

// The order a Matcher asks its CLIs in, with made-up CLIs: an
// interpreter's script by name, then by package; otherwise every
// Launcher, then the program names, then the prefixes (never a script's).
// A name two CLIs list goes to the first.
func TestMatcherOrder(t *testing.T) {
	launcher := func(prog string, argv []string) ([]string, bool) {
		if prog == "tool" && len(argv) > 1 && argv[1] == "--launched" {
			return argv[2:], true
		}
		return nil, false
	}
	m := NewMatcher(
		CLI{Runtime: "a", Programs: []string{"tool", "both"}, ProgramPrefixes: []string{"tool-"}},
		CLI{Runtime: "b", Programs: []string{"both", "other"}, Packages: []string{"/pkg-b/"}, Launcher: launcher},
	)
	tests := []struct {
		argv    []string
		runtime string // "" = none
		args    []string
	}{
		{[]string{"/usr/bin/tool", "--launched", "x"}, "b", []string{"x"}},
		{[]string{"tool", "x"}, "a", []string{"x"}},
		{[]string{"both", "x"}, "a", []string{"x"}},
		{[]string{"other.exe"}, "b", []string{}},
		{[]string{"tool-x86_64-linux", "y"}, "a", []string{"y"}},
		{[]string{"node", "/opt/bin/tool-x86_64-linux.js"}, "", nil},
		{[]string{"node", "/opt/pkg-b/cli.js", "y"}, "b", []string{"y"}},
		{[]string{"node", "/opt/pkg-b/tool.js", "y"}, "a", []string{"y"}},
		{[]string{"node", "--launched", "/opt/x/other"}, "b", []string{}},
		{[]string{"sh", "-c", "tool x"}, "", nil},
		{[]string{"toolbox"}, "", nil},
	}
	for _, tt := range tests {
		got, ok := m.Classify(tt.argv)
		if ok != (tt.runtime != "") || got.Runtime != tt.runtime || ok && !slices.Equal(got.Args, tt.args) {
			t.Errorf("Classify(%q) = %q %q, %v; want %q %q", tt.argv, got.Runtime, got.Args, ok, tt.runtime, tt.args)
		}
	}
	if _, ok := NewMatcher().Classify([]string{"tool"}); ok {
		t.Error("a matcher of no CLIs matched")
	}
}
