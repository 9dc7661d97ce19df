package launch

import (
	"strings"
	"testing"
)

func TestArgv(t *testing.T) {
	model := func(o Options) []string { return Optional(nil, "--model", o.Model) }
	for _, tc := range []struct {
		name string
		r    Recipe
		base []string
		o    Options
		want string
	}{
		{"flags after the base", Recipe{Flags: model}, []string{"--resume", "s1"}, Options{Model: "m"}, "/b --resume s1 --model m"},
		{"an unset option adds nothing", Recipe{Flags: model}, nil, Options{Effort: "high"}, "/b"},
		{"the port only for a server", Recipe{Flags: model}, nil, Options{}, "/b"},
		{"a server's port before the flags", Recipe{Server: true, Flags: model}, []string{"--session", "s1"}, Options{Model: "m"}, "/b --session s1 --port 4242 --model m"},
		{"no flags at all", Recipe{}, []string{"resume", "t1"}, Options{Model: "m"}, "/b resume t1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(tc.r.Argv("/b", tc.base, 4242, tc.o), " "); got != tc.want {
				t.Fatalf("Argv = %q, want %q", got, tc.want)
			}
		})
	}
}
