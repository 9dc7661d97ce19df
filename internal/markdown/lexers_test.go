package markdown

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// chromaRenderer highlights as this package did before it embedded its
// lexers: chroma's registry of every lexer and the github-dark style. The
// tests below hold the embedded lexers to it. (Tests may link chroma's
// lexers and styles packages; paddock must not.)
func chromaRenderer() *codeRenderer {
	c := newCodeRenderer()
	c.style = styles.Get("github-dark")
	c.lexers = lexers.GlobalLexerRegistry
	c.fallback = lexers.Fallback
	return c
}

func highlightString(c *codeRenderer, lang, code string) string {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	c.highlight(w, lang, code)
	_ = w.Flush()
	return buf.String()
}

// The languages agents write most highlight, and exactly as chroma's own
// registry and style did.
func TestHighlightLanguages(t *testing.T) {
	ours, theirs := newCodeRenderer(), chromaRenderer()
	for _, c := range []struct{ lang, code string }{
		{"go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tq := `SELECT {{.Name}} FROM t -- raw`\n\tfmt.Println(q, 1.5, 'x')\n}\n"},
		{"golang", "type T struct{ A int `json:\"a\"` }\n"},
		{"python", "import os\n\n@dataclass\nclass A:\n    def f(self, x: int) -> str:\n        return f\"{x!r}\"  # note\n"},
		{"py", "print('hi')\n"},
		{"javascript", "const f = async (a) => { await fetch(`/x/${a}`); return /re+/g; };\n"},
		{"js", "export default function () {}\n"},
		{"typescript", "interface A { b?: string }\nconst x: A = {} as A;\n"},
		{"ts", "let n: number = 1;\n"},
		{"tsx", "export const C = () => <div className=\"x\">{1}</div>;\n"},
		{"jsx", "const el = <App prop={1} />;\n"},
		{"bash", "#!/bin/bash\nfor f in *.go; do echo \"$f\"; done | grep -v _test\n"},
		{"sh", "set -eu\nexport A=1\n"},
		{"shell", "ls -la ~ && cd /tmp\n"},
		{"zsh", "echo $ZSH_VERSION\n"},
		{"console", "$ go test ./...\nok  \tpaddock/internal/markdown\t0.5s\n"},
		{"json", "{\"a\": [1, 2.5, true, null], \"b\": \"c\"}\n"},
		{"yaml", "on:\n  push:\n    branches: [main]\njobs:\n  test: # c\n    runs-on: ubuntu-latest\n"},
		{"yml", "a: 1\n"},
		{"toml", "[package]\nname = \"x\"\nversion = \"0.1.0\"\n"},
		{"diff", "--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n-old\n+new\n context\n"},
		{"patch", "-a\n+b\n"},
		{"rust", "fn main() -> Result<(), Box<dyn Error>> {\n    let v: Vec<u8> = vec![1];\n    println!(\"{:?}\", v);\n    Ok(())\n}\n"},
		{"c", "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 1); return 0; }\n"},
		{"cpp", "#include <vector>\ntemplate <typename T> class A { std::vector<T> v; };\n"},
		{"c++", "auto x = std::make_unique<int>(1);\n"},
		{"java", "public class A { public static void main(String[] args) { System.out.println(\"x\"); } }\n"},
		{"kotlin", "fun main() { val x: Int = 1; println(\"$x\") }\n"},
		{"csharp", "using System; class A { static void Main() { Console.WriteLine(\"x\"); } }\n"},
		{"swift", "let x: Int = 1\nfunc f() -> String { return \"\\(x)\" }\n"},
		{"ruby", "def f(a)\n  puts \"#{a}\"\nend\n"},
		{"php", "<?php echo $x; ?>\n"},
		{"sql", "SELECT id, name FROM users WHERE id = 1 ORDER BY name;\n"},
		{"html", "<!doctype html><div class=\"a\" onclick=\"f()\"><script>let x = 1;</script><style>a { color: red }</style></div>\n"},
		{"css", ".a > b:hover { color: #fff; margin: 0 auto; }\n"},
		{"dockerfile", "FROM golang:1.26\nRUN go build -o /app .\nCMD [\"/app\"]\n"},
		{"makefile", "build:\n\tgo build ./...\n"},
		{"lua", "local t = {1, 2}\nfor i, v in ipairs(t) do print(v) end\n"},
		{"hcl", "resource \"aws_s3_bucket\" \"b\" { bucket = \"x\" }\n"},
		{"powershell", "Get-ChildItem -Path . | Where-Object { $_.Length -gt 1 }\n"},
		{"xml", "<?xml version=\"1.0\"?><a b=\"c\"><!-- d --></a>\n"},
		{"ini", "[section]\nkey = value\n"},
		{"haskell", "main :: IO ()\nmain = putStrLn \"hi\"\n"},
		{"elixir", "defmodule A do\n  def f(x), do: x\nend\n"},
		{"main.go", "package x\n"}, // a file name picks the lexer too
		{"Dockerfile", "FROM scratch\n"},
	} {
		got := highlightString(ours, c.lang, c.code)
		if want := highlightString(theirs, c.lang, c.code); got != want {
			t.Errorf("%s: highlighted differently from chroma's registry:\n got %s\nwant %s", c.lang, got, want)
			continue
		}
		d, err := goquery.NewDocumentFromReader(strings.NewReader(got))
		if err != nil {
			t.Fatal(err)
		}
		if d.Find("pre.chroma span[class]:not(.line):not(.cl)").Length() == 0 {
			t.Errorf("%s: no token highlighted:\n%s", c.lang, got)
		}
	}
}

// Untagged blocks are recognised as chroma recognised them, unless chroma
// took them for a language paddock does not embed.
func TestAnalysedLikeChroma(t *testing.T) {
	ours, theirs := newCodeRenderer(), chromaRenderer()
	for _, c := range []struct{ code, want, chroma string }{
		{"#!/bin/sh\necho hi\n", "Bash", "Bash"},
		{"#!/usr/bin/env bash\nset -e\n", "Bash", "Bash"},
		{"#include <stdio.h>\nint main() {}\n", "C", "C"},

		{"just some words\n", "fallback", "fallback"},
		{"def f():\n    return 1\n", "fallback", "fallback"},
		// Analysers chroma writes in Go code are not embedded: untagged Go
		// and MySQL stay plain (chroma's registry guesses GDScript3 here).
		{"package main\n\nfunc main() {}\n", "fallback", "GDScript3"},
	} {
		got, chromas := ours.lexer("", c.code).Config().Name, theirs.lexer("", c.code).Config().Name
		if got != c.want || chromas != c.chroma {
			t.Errorf("%q analysed as %s (chroma's registry: %s), want %s (%s)", c.code, got, chromas, c.want, c.chroma)
			continue
		}
		if got != chromas {
			continue
		}
		if a, b := highlightString(ours, "", c.code), highlightString(theirs, "", c.code); a != b {
			t.Errorf("%q: highlighted differently:\n got %s\nwant %s", c.code, a, b)
		}
	}
}

// Every embedded lexer is chroma's: the same configuration, the same
// analyser scores and the same tokens, over chroma's own test corpus and
// some Go (whose raw strings chromagen rewrites and whose analyser
// lexers.go copies).
// codedAnalysers are the embedded languages whose analyser chroma writes in
// Go, left out on purpose.
var codedAnalysers = map[string]bool{"Go": true, "MySQL": true}

func TestEmbeddedLexersAreChromas(t *testing.T) {
	samples := chromaSamples(t)
	samples["go raw strings"] = "package x\n\nimport \"fmt\"\n\nvar q = `SELECT {{ .A | printf \"%q\" }} {{- if .B}}x{{end}} {` + \"`\" + `\nnext line`\n"
	samples["fmt before package"] = "fmt.Println(1)\n// package main\n"

	written := map[string]string{} // sample → the lexer it was written for
	for sample := range samples {
		written[sample] = sampleLexer(sample)
	}

	reg := newLexerRegistry()
	if len(reg.Lexers) != len(lexerFiles()) {
		t.Fatalf("%d lexers registered from %d files", len(reg.Lexers), len(lexerFiles()))
	}
	for _, ours := range reg.Lexers {
		name := ours.Config().Name
		if name == "paddock Go raw string" {
			continue // Go's, tested through it
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			theirs := lexers.GlobalLexerRegistry.Get(name)
			if theirs == nil || theirs.Config().Name != name {
				t.Fatalf("chroma has no lexer %q", name)
			}
			if !reflect.DeepEqual(ours.Config(), theirs.Config()) {
				t.Errorf("config %+v, chroma's %+v", ours.Config(), theirs.Config())
			}
			for sample, text := range samples {
				// Equal configurations have equal regex analysers; one outside
				// the configuration is Go code that paddock does not embed.
				if _, coded := codedAnalysers[name]; ours.Config().Analyse == nil && !coded {
					text := text[:min(len(text), maxAnalyse)]
					if a, b := ours.AnalyseText(text), theirs.AnalyseText(text); a != b {
						t.Errorf("analyses %s as %v, chroma %v", sample, a, b)
					}
				}
				if written[sample] != name && !strings.Contains(sample, " ") {
					continue
				}
				text = text[:min(len(text), 16<<10)] // zig's is 75 KB: seconds under -race
				a, errA := chroma.Tokenise(ours, nil, text)
				b, errB := chroma.Tokenise(theirs, nil, text)
				if (errA != nil) != (errB != nil) || !reflect.DeepEqual(a, b) {
					t.Errorf("tokenises %s differently from chroma (errors %v, %v)", sample, errA, errB)
				}
			}
		})
	}
}

// chromaSamples are the *.actual files of chroma's lexer tests, by path
// under testdata/.
func chromaSamples(t *testing.T) map[string]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/alecthomas/chroma/v2").Output()
	if err != nil {
		t.Fatalf("locating chroma's module: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "lexers", "testdata")
	samples := map[string]string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".actual") {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		samples[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil || len(samples) < 100 {
		t.Fatalf("chroma's test corpus: %d files, %v", len(samples), err)
	}
	return samples
}

// sampleLexer is the name of the chroma lexer a corpus file was written
// for: named by its directory, or by its file name up to the first dot.
func sampleLexer(sample string) string {
	key, _, _ := strings.Cut(sample, "/")
	if !strings.Contains(sample, "/") {
		key, _, _ = strings.Cut(sample, ".")
	}
	if key == "analysis" {
		return ""
	}
	if l := lexers.Get(key); l != nil {
		return l.Config().Name
	}
	return ""
}

// The style given to the formatter does not matter: with classes on it
// writes class names only, so a bare style gives github-dark's output.
func TestStyleIsAFormality(t *testing.T) {
	f := chromahtml.New(chromahtml.WithClasses(true), chromahtml.TabWidth(4))
	code := "package main\n\nfunc main() {\n\tprintln(\"hi\") // x\n}\n"
	render := func(s *chroma.Style) string {
		it, err := lexers.Get("go").Tokenise(nil, code)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := f.Format(&buf, s, it); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	want := render(styles.Get("github-dark"))
	for _, s := range []*chroma.Style{newCodeRenderer().style, styles.Get("github"), styles.Get("monokai")} {
		if got := render(s); got != want {
			t.Fatalf("style %s changes the HTML:\n%s\nvs\n%s", s.Name, got, want)
		}
	}
}
