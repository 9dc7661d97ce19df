package tomlscan

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"paddock/internal/testkit/sharedtest"
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
		if _, err := Scan(b); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	doc := `# comment
title = "TOML \"Example\" \u00e9"
'literal key' = 'C:\Users\nodejs'
"quoted.Key" = 1
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
	stmts, err := Scan([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range stmts {
		switch s.Kind {
		case KeyValue:
			keys = append(keys, s.Table+"|"+s.Key)
		case Header, ArrayHeader:
			keys = append(keys, "["+s.Key+"]")
		}
	}
	want := []string{"|title", "|literal key", "|quoted.Key", "|a.b.c", "|flt", "|hex", "|inf", "|bool", "|date", "|local", "|day", "|time",
		"|multi", "|lit", "|arr", "|inline", "|empty", "|indented", "[table.sub]", "table.sub|x", "[hooks]", "hooks|event", "[hooks]", "hooks|event"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("keys\n%v\nwant\n%v", keys, want)
	}
	// statements cover the document exactly
	end := 0
	for _, s := range stmts {
		if s.Start != end {
			t.Fatalf("gap before line %d", s.Line)
		}
		end = s.End
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
		_, err := Scan([]byte(src))
		se, ok := err.(*SyntaxError)
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
		got, ok := Strings([]byte(raw))
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q %v", raw, got, ok)
		}
	}
	for _, raw := range []string{`1`, `["x", 1]`, `"x" "y"`, `{a = "b"}`} {
		if _, ok := Strings([]byte(raw)); ok {
			t.Errorf("%s: read as strings", raw)
		}
	}
	s := "a\"b\\c\nd\te\x01é"
	stmts, err := Scan([]byte("k = " + Quote(s) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	src := []byte("k = " + Quote(s) + "\n")
	if got, _ := Strings(src[stmts[0].ValStart:stmts[0].ValEnd]); len(got) != 1 || got[0] != s {
		t.Errorf("Quote round trip: %q", got)
	}
}
