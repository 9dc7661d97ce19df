package kimi

import (
	"bytes"
	"strings"
	"testing"

	"paddock/internal/hookinstall"
	"paddock/internal/hookinstall/tomlscan"
)

const testBinary = "/opt/paddock/bin/paddock"

// testEnv is the installer's view with paddock at testBinary.
func testEnv(t testing.TB) *hookinstall.Env {
	t.Helper()
	e, err := hookinstall.Resolve(hookinstall.Options{Specs: []hookinstall.Spec{install()}, Binary: testBinary, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// FuzzHooksEdit: editing [[hooks]] keeps a scannable document scannable,
// and installing twice changes nothing more.
func FuzzHooksEdit(f *testing.F) {
	for _, s := range []string{
		"a = 1\n", "[[hooks]]\nevent = \"Stop\"\ncommand = \"/x/paddock hook --runtime kimi Stop\"\n",
		"notify = [\"/x\"]\n[t]\n", "s = \"\"\"\nx\"\"\"\n", "arr = [\n1,\n]\n", "# c\n\n", "a = { b = [ 'c' ] }",
		tomlBegin + "\n[[hooks]]\ncommand = \"/p/paddock hook --runtime kimi X\"\n" + tomlEnd + "\n",
	} {
		f.Add([]byte(s))
	}
	e := testEnv(f)
	k := &tomlHooks{ours: e.IsOurCommand, events: []tomlHook{{event: "Stop", command: e.Command(runtimeName, "Stop"), timeout: 10}}}
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, err := tomlscan.Scan(src); err != nil {
			return
		}
		for _, install := range []bool{true, false} {
			res, err := k.edit(src, install)
			if err != nil {
				continue
			}
			if _, err := tomlscan.Scan(res.Out); err != nil {
				t.Fatalf("edit broke the document: %v\n%q", err, res.Out)
			}
			if install {
				if again, err := k.edit(res.Out, true); err != nil || !bytes.Equal(again.Out, res.Out) {
					t.Fatalf("install is not idempotent:\n%q", res.Out)
				}
			}
		}
	})
}

// paddock's tables outside the marked region (moved by a user) are
// found and removed too, and a user's table inside the region is kept.
func TestTablesOutsideTheRegion(t *testing.T) {
	e := testEnv(t)
	k := &tomlHooks{ours: e.IsOurCommand, events: []tomlHook{{event: "Stop", command: e.Command(runtimeName, "Stop"), timeout: 10}}}
	src := `default_model = "m"

[[hooks]]
event = "Stop"
command = "/elsewhere/paddock hook --runtime kimi Stop"
timeout = 10

# my hooks
[[hooks]]
event = "PreToolUse"
command = "/bin/mine"

` + tomlBegin + `
[[hooks]]
event = "Stop"
command = "/bin/user-added-inside"
` + tomlEnd + `
`
	res, err := k.edit([]byte(src), false)
	if err != nil {
		t.Fatal(err)
	}
	want := `default_model = "m"


# my hooks
[[hooks]]
event = "PreToolUse"
command = "/bin/mine"

[[hooks]]
event = "Stop"
command = "/bin/user-added-inside"
`
	if string(res.Out) != want {
		t.Fatalf("got\n%s\nwant\n%s", res.Out, want)
	}
	if res.Ours != 1 || res.Foreign != 2 {
		t.Errorf("ours %d foreign %d", res.Ours, res.Foreign)
	}
	inst, err := k.edit(res.Out, true)
	if err != nil || !strings.HasSuffix(string(inst.Out), k.region()) {
		t.Fatalf("install: %v\n%s", err, inst.Out)
	}
}
