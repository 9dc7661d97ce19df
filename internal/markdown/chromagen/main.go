// Command chromagen writes the chroma assets internal/markdown embeds, so
// that paddock never links chroma's styles and lexers packages: their
// package initialisation (every style and every lexer definition parsed at
// process start, ≈12 ms) would run in `paddock hook` too, the command
// every agent hook runs and that must exit within milliseconds.
//
// It writes, into the directory given as its argument (internal/markdown
// under go generate):
//
//   - chroma.css: the highlighting stylesheet (Renderer.CSS);
//   - lexers/*.xml: the lexers of the languages below and of the lexers
//     they delegate to, in chroma's serialised form;
//   - lexers_gen.go: their order, which is chroma's (Analyse breaks ties by
//     registration order).
//
// It is a development tool: nothing in paddock may import it. Its test
// fails when the committed files differ from what it would write now (a
// chroma upgrade, a changed list): run `make generate`.
package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// languages are the fence languages that get highlighting: what coding
// agents write. Each names a chroma lexer (by name, alias or file
// extension); a fence in any other language is highlighted only when
// chroma's analysis recognises it as one of these, or shown plain. A lexer
// chroma writes in Go cannot be listed (markdown, for one); Go itself is
// rewritten (goLexer). Analysers written in Go are set by internal/markdown.
var languages = []string{
	// systems and application languages
	"go", "rust", "c", "cpp", "csharp", "java", "kotlin", "scala", "groovy",
	"swift", "objective-c", "dart", "zig",
	// scripting
	"python", "ruby", "php", "perl", "lua", "r", "julia", "awk",
	// functional
	"haskell", "elixir", "erlang", "ocaml", "fsharp", "clojure",
	// web
	"javascript", "typescript", "jsx", "html", "css", "scss", "sass", "vue",
	"templ", "graphql", "django",
	// shells and terminals
	"bash", "console", "powershell", "batch", "fish", "vim",
	// data and configuration
	"json", "yaml", "toml", "ini", "properties", "xml", "csv", "protobuf",
	"hcl", "terraform", "nix", "nginx", "systemd",
	// build files
	"docker", "makefile", "cmake",
	// queries
	"sql", "postgresql", "mysql",
	// documents
	"diff", "tex", "plaintext",
}

// goRawString names the lexer chromagen adds for Go's raw strings. chroma's
// Go lexer lexes them with its Go text template lexer wrapped in a
// TypeRemappingLexer (the text around actions becomes LiteralString): Go
// code, with no serialised form. This lexer is that remapping written into
// the template lexer's rules, and the Go lexer uses it by name.
const goRawString = "paddock Go raw string"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: chromagen DIR (internal/markdown)")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "chromagen:", err)
		os.Exit(1)
	}
}

// write replaces the generated files in dir.
func write(dir string) error {
	files, err := generate()
	if err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "lexers", "*.xml"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "lexers"), 0o755); err != nil {
		return err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// generate returns the generated files by their path relative to
// internal/markdown.
func generate() (map[string][]byte, error) {
	files := map[string][]byte{"chroma.css": []byte(stylesheet())}
	lexerFiles, order, err := serialisedLexers()
	if err != nil {
		return nil, err
	}
	for name, b := range lexerFiles {
		files["lexers/"+name] = b
	}
	src, err := orderSource(order)
	if err != nil {
		return nil, err
	}
	files["lexers_gen.go"] = src
	return files, nil
}

// serialisedLexers serialises the lexers of languages and of every lexer
// they use, and says in which order to register them.
func serialisedLexers() (map[string][]byte, []string, error) {
	var todo []chroma.Lexer
	for _, lang := range languages {
		l := lexers.Get(lang)
		if l == nil {
			return nil, nil, fmt.Errorf("chroma has no lexer for %q", lang)
		}
		todo = append(todo, l)
	}
	done := map[string]*chroma.RegexLexer{}
	for len(todo) > 0 {
		l := todo[0]
		todo = todo[1:]
		name := l.Config().Name
		if done[name] != nil {
			continue
		}
		rl, err := serialisable(l)
		if err != nil {
			return nil, nil, err
		}
		done[name] = rl
		rules, err := rl.Rules()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, used := range usedLexers(rules) {
			var u chroma.Lexer
			if used == goRawString {
				if g := goRawStringLexer(); g != nil {
					u = g
				}
			} else {
				u = lexers.Get(used)
			}
			if u == nil {
				return nil, nil, fmt.Errorf("%s uses %q, which chroma does not have", name, used)
			}
			todo = append(todo, u)
		}
	}

	// chroma's registration order, our stand-ins last
	rank := map[string]int{}
	for i, l := range lexers.GlobalLexerRegistry.Lexers {
		rank[l.Config().Name] = i
	}
	names := make([]string, 0, len(done))
	for name := range done {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		ra, oka := rank[a]
		rb, okb := rank[b]
		switch {
		case oka && okb:
			return ra - rb
		case oka != okb:
			if oka {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})

	files := map[string][]byte{}
	var order []string
	for _, name := range names {
		b, err := marshal(done[name])
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		file := fileName(name)
		if files[file] != nil {
			return nil, nil, fmt.Errorf("two lexers would be written to %s", file)
		}
		files[file] = b
		order = append(order, file)
	}
	return files, order, nil
}

// serialisable returns l as a RegexLexer whose rules chroma can serialise:
// the lexer itself, or for Go an equivalent.
func serialisable(l chroma.Lexer) (*chroma.RegexLexer, error) {
	name := l.Config().Name
	rl, ok := l.(*chroma.RegexLexer)
	if !ok {
		return nil, fmt.Errorf("chroma's %s lexer is written in Go (%T) and cannot be embedded; drop it from languages", name, l)
	}
	if name == "Go" {
		return goLexer(rl)
	}
	return rl, nil
}

// goLexer is chroma's Go lexer with raw strings lexed by goRawString. Its
// analyser is Go code, which no serialised lexer carries: internal/markdown
// sets it (lexers.go).
func goLexer(l *chroma.RegexLexer) (*chroma.RegexLexer, error) {
	rules := l.MustRules().Clone()
	found := false
	for i, r := range rules["root"] {
		if r.Pattern == "(`)([^`]*)(`)" {
			rules["root"][i].Type = chroma.ByGroups(chroma.LiteralString, chroma.Using(goRawString), chroma.LiteralString)
			found = true
		}
	}
	if !found {
		return nil, errors.New("chroma's Go lexer no longer has the raw string rule chromagen replaces; update goLexer")
	}
	config := *l.Config()
	return chroma.NewLexer(&config, func() chroma.Rules { return rules })
}

// goRawStringLexer is chroma's Go text template lexer with the Other
// tokens (the text around actions) remapped to LiteralString, as chroma's
// Go lexer does for raw strings.
func goRawStringLexer() *chroma.RegexLexer {
	tmpl, ok := lexers.Get("go-text-template").(*chroma.RegexLexer)
	if !ok {
		return nil
	}
	rules := tmpl.MustRules().Clone()
	for state, rs := range rules {
		for i, r := range rs {
			if r.Type == chroma.Other {
				rules[state][i].Type = chroma.LiteralString
			}
		}
	}
	l := chroma.MustNewLexer(&chroma.Config{Name: goRawString}, func() chroma.Rules { return rules })
	// Other in a group would escape the remapping above.
	if b, err := chroma.Marshal(l); err != nil || bytes.Contains(b, []byte(`"Other"`)) {
		return nil
	}
	return l
}

// usingRe finds the lexers a serialised lexer delegates to.
var usingRe = regexp.MustCompile(`<using lexer="([^"]+)"`)

// usedLexers are the lexers rules delegate to by name.
func usedLexers(rules chroma.Rules) []string {
	b, err := chroma.Marshal(chroma.MustNewLexer(&chroma.Config{}, func() chroma.Rules { return rules }))
	if err != nil {
		return nil // marshal reports it
	}
	var out []string
	for _, m := range usingRe.FindAllSubmatch(b, -1) {
		out = append(out, xmlUnescape(string(m[1])))
	}
	return out
}

func xmlUnescape(s string) string {
	var v struct {
		S string `xml:"s,attr"`
	}
	if xml.Unmarshal([]byte(`<x s="`+s+`"/>`), &v) != nil {
		return s
	}
	return v.S
}

// marshal serialises l with its states sorted by name: chroma.Marshal
// writes them in map order.
func marshal(l *chroma.RegexLexer) ([]byte, error) {
	raw, err := chroma.Marshal(l)
	if err != nil {
		return nil, err
	}
	var doc node
	if err := xml.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	doc.trimSpace()
	for i := range doc.Nodes {
		if doc.Nodes[i].XMLName.Local == "rules" {
			slices.SortStableFunc(doc.Nodes[i].Nodes, func(a, b node) int { return strings.Compare(a.attr("name"), b.attr("name")) })
		}
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	out = emptyElementRe.ReplaceAll(out, []byte("/>"))
	header := "<!-- Code generated by internal/markdown/chromagen. DO NOT EDIT. -->\n"
	return append(append([]byte(header), out...), '\n'), nil
}

// emptyElementRe is chroma.Marshal's own clean-up: <x a="b"></x> as <x a="b"/>.
var emptyElementRe = regexp.MustCompile(`></[a-zA-Z_]+>`)

// node is any XML element, kept in document order.
type node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []node     `xml:",any"`
}

// trimSpace drops the indentation text between elements, which
// MarshalIndent writes anew.
func (n *node) trimSpace() {
	if strings.TrimSpace(n.Text) == "" {
		n.Text = ""
	}
	for i := range n.Nodes {
		n.Nodes[i].trimSpace()
	}
}

func (n node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// fileName names a lexer's file: its name in lower case, with + and # spelt
// out and anything else but letters and digits as _.
func fileName(lexer string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(lexer) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '+':
			b.WriteString("p")
		case r == '#':
			b.WriteString("sharp")
		default:
			b.WriteRune('_')
		}
	}
	return b.String() + ".xml"
}

// orderSource is lexers_gen.go.
func orderSource(order []string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by internal/markdown/chromagen. DO NOT EDIT.\n\n")
	b.WriteString("package markdown\n\n")
	b.WriteString("// lexerFiles are the files under lexers/ in chroma's registration order,\n")
	b.WriteString("// which decides Analyse's ties.\n")
	b.WriteString("func lexerFiles() []string {\n\treturn []string{\n")
	for _, f := range order {
		fmt.Fprintf(&b, "\t\t%q,\n", f)
	}
	b.WriteString("\t}\n}\n")
	return format.Source(b.Bytes())
}
