package codex

import (
	"testing"

	"paddock/internal/hookinstall"
	"paddock/internal/hookinstall/tomlscan"
)

// FuzzNotifyEdit: editing config.toml's notify keeps a scannable document
// scannable.
func FuzzNotifyEdit(f *testing.F) {
	for _, s := range []string{
		"a = 1\n", "notify = [\"/x\"]\n[t]\n", "s = \"\"\"\nx\"\"\"\n", "arr = [\n1,\n]\n", "# c\n\n", "a = { b = [ 'c' ] }",
		"notify = [\"/x/paddock\", \"hook\", \"--runtime\", \"codex\", \"notify\"]\n",
	} {
		f.Add([]byte(s))
	}
	e, err := hookinstall.Resolve(hookinstall.Options{Specs: []hookinstall.Spec{install()}, Binary: "/opt/paddock/bin/paddock", Home: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	n := &notifyEdit{argv: append(e.RelayArgv(runtimeName), "notify"), ours: e.IsOurArgv}
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, err := tomlscan.Scan(src); err != nil {
			return
		}
		for _, install := range []bool{true, false} {
			if res, err := n.edit(src, install); err == nil {
				if _, err := tomlscan.Scan(res.Out); err != nil {
					t.Fatalf("notify edit broke the document: %v\n%q", err, res.Out)
				}
			}
		}
	})
}
