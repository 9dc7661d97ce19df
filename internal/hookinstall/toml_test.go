package hookinstall

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"paddock/internal/sharedtest"
)

func TestTOMLScannerAcceptsValidDocuments(t *testing.T) {
	real := sharedtest.Fixtures(t, "real")
	for _, f := range []string{
		"codex-0.169.0/codex-home/config.toml",
		"kimi-code-2.1.0/kimi-code-home/config.toml",
		"kimi-code-2.1.0/kimi-code-home/tui.toml",
		"kimi-code-2.1.0/config.toml.as-written-by-driver",
	} {
		b, err := os.ReadFile(filepath.Join(real, f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := scanTOML(b); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	doc := `# comment
title = "TOML \"Example\" \u00e9"
'literal key' = 'C:\Users\nodejs'
"quoted.key" = 1
a.b.c = +1_000
flt = -3.14e-2
hex = 0xDEAD_beef
inf = -inf
bool = true
date = 1979-05-27 07:32:00-08:00
local = 1979-05-27T07:32:00.999
day = 1979-05-27
time = 07:32:00
multi = """
Roses are red \
  "Violets" are blue"""
lit = '''
raw \n '' text'''
arr = [
  "one", # a comment
  [1, 2],
  { x = 1, y = "two" },
]
inline = { name = "x", nested = { a = [1, 2] } }
empty = []
  indented = "ok"	# tab before the comment

[ table . "sub" ]
x = 1
[[hooks]]
event = "Stop"
[[ hooks ]]
event = 'PreToolUse'
`
	stmts, err := scanTOML([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range stmts {
		switch s.kind {
		case tomlKeyValue:
			keys = append(keys, s.table+"|"+s.key)
		case tomlTable, tomlArrayTable:
			keys = append(keys, "["+s.key+"]")
		}
	}
	want := []string{"|title", "|literal key", "|quoted.key", "|a.b.c", "|flt", "|hex", "|inf", "|bool", "|date", "|local", "|day", "|time",
		"|multi", "|lit", "|arr", "|inline", "|empty", "|indented", "[table.sub]", "table.sub|x", "[hooks]", "hooks|event", "[hooks]", "hooks|event"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("keys\n%v\nwant\n%v", keys, want)
	}
	// statements cover the document exactly
	end := 0
	for _, s := range stmts {
		if s.start != end {
			t.Fatalf("gap before line %d", s.line)
		}
		end = s.end
	}
	if end != len(doc) {
		t.Fatal("statements do not reach the end")
	}
}

func TestTOMLScannerRejectsBrokenDocuments(t *testing.T) {
	for src, line := range map[string]int{
		"a = \"open\n":                   1,
		"a = 1\nb = \n":                  2,
		"a = 1\n[table\n":                2,
		"a = 1\n[[t]\n":                  2,
		"a = [1, 2\nb = 3\n":             2,
		"a = { x = 1\n":                  2,
		"= 1\n":                          1,
		"a = 1 2\n":                      1,
		"a = nope\n":                     1,
		"a = \"\"\"never closed\n":       2,
		"a = 1\n\n\nkey without value\n": 4,
		"a = 1\rb = 2\n":                 1,
		"a = \"\\q\"\n":                  1,
		"a = 1979-13-27x\n":              1,
		"\xff = 1\n":                     1,
		"[a]]\n":                         1,
	} {
		_, err := scanTOML([]byte(src))
		se, ok := err.(*syntaxError)
		if !ok {
			t.Errorf("%q: accepted (%v)", src, err)
			continue
		}
		if se.Line != line {
			t.Errorf("%q: line %d, want %d (%s)", src, se.Line, line, se.Msg)
		}
	}
}

func TestTOMLStrings(t *testing.T) {
	for raw, want := range map[string][]string{
		`"a"`:                          {"a"},
		`'b\c'`:                        {`b\c`},
		`["x", 'y']`:                   {"x", "y"},
		"[\n  \"x\", # c\n  \"y\",\n]": {"x", "y"},
		`[]`:                           nil,
	} {
		got, ok := tomlStrings([]byte(raw))
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q %v", raw, got, ok)
		}
	}
	for _, raw := range []string{`1`, `["x", 1]`, `"x" "y"`, `{a = "b"}`} {
		if _, ok := tomlStrings([]byte(raw)); ok {
			t.Errorf("%s: read as strings", raw)
		}
	}
	s := "a\"b\\c\nd\te\x01é"
	stmts, err := scanTOML([]byte("k = " + tomlQuote(s) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	src := []byte("k = " + tomlQuote(s) + "\n")
	if got, _ := tomlStrings(src[stmts[0].valStart:stmts[0].valEnd]); len(got) != 1 || got[0] != s {
		t.Errorf("tomlQuote round trip: %q", got)
	}
}

// Kimi: paddock's tables outside the marked region (moved by a user) are
// found and removed too, and a user's table inside the region is kept.
func TestKimiTablesOutsideTheRegion(t *testing.T) {
	o := &resolved{binary: testBinary}
	k := &tomlHooks{ours: o.isOurCommand, events: []tomlHook{{event: "Stop", command: o.command("kimi", "Stop"), timeout: 10}}}
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
	if string(res.out) != want {
		t.Fatalf("got\n%s\nwant\n%s", res.out, want)
	}
	if res.ours != 1 || res.foreign != 2 {
		t.Errorf("ours %d foreign %d", res.ours, res.foreign)
	}
	inst, err := k.edit(res.out, true)
	if err != nil || !strings.HasSuffix(string(inst.out), k.region()) {
		t.Fatalf("install: %v\n%s", err, inst.out)
	}
}
