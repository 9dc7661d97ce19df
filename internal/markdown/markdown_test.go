package markdown

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	xhtml "golang.org/x/net/html"
)

// unsafeMarkup reports the first thing in out that could run script or
// restyle the page: a dangerous element, an on* attribute, a style
// attribute, or a URL attribute whose scheme isn't http(s)/mailto/relative.
// It inspects parsed markup rather than raw text, because escaped text such
// as "&lt;img onerror=…&gt;" or the prose word "javascript:" is harmless and
// must stay visible.
func unsafeMarkup(out string) string {
	if strings.Contains(strings.ToLower(out), "<script") {
		return "literal <script"
	}
	z := xhtml.NewTokenizer(strings.NewReader(out))
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			return ""
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken, xhtml.EndTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "style", "iframe", "object", "embed", "form", "img", "svg", "math", "base", "meta", "link":
				return "element <" + tok.Data + ">"
			}
			for _, a := range tok.Attr {
				key := strings.ToLower(a.Key)
				if strings.HasPrefix(key, "on") {
					return "event attribute " + a.Key
				}
				if key == "style" || key == "srcdoc" || key == "formaction" {
					return "attribute " + a.Key
				}
				if key == "href" || key == "src" || key == "action" {
					v := strings.ToLower(strings.Join(strings.Fields(a.Val), ""))
					if i := strings.IndexByte(v, ':'); i >= 0 && !strings.ContainsAny(v[:i], "/?#") {
						switch v[:i] {
						case "http", "https", "mailto":
						default:
							return fmt.Sprintf("%s with scheme %q", a.Key, v[:i])
						}
					}
				}
			}
		}
	}
}

func doc(t *testing.T, out string) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRenderHostileInput(t *testing.T) {
	r := New()
	tests := []struct {
		name string
		src  string
		// text that must still be visible, escaped, in the output
		visible string
	}{
		{"script block", "<script>alert(1)</script>", "<script>alert(1)</script>"},
		{"script inline", "hello <script>alert(1)</script> world", "<script>"},
		{"img onerror", "<img src=x onerror=alert(1)>", "onerror=alert(1)"},
		{"img onerror inline", "see <img src=x onerror=alert(1)> here", "onerror"},
		{"javascript link", "[x](javascript:alert(1))", "x"},
		{"javascript link upper", "[x](JaVaScRiPt:alert(1))", "x"},
		{"javascript link entity", "[x](&#106;avascript:alert(1))", "x"},
		{"javascript autolink", "<javascript:alert(1)>", ""},
		{"vbscript link", "[x](vbscript:msgbox(1))", "x"},
		{"data link", "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", "x"},
		{"reference javascript", "[x][1]\n\n[1]: javascript:alert(1)", "x"},
		{"svg", "<svg onload=alert(1)>", "svg"},
		{"iframe", "<iframe src=https://evil.example></iframe>", "iframe"},
		{"style", "<style>body{display:none}</style>", "style"},
		{"link title quote", `[x](https://a.example "a\" onmouseover=\"alert(1)")`, "x"},
		{"image with onerror title", `![a](https://a.example/x.png "\" onerror=\"alert(1)")`, "a"},
		{"html comment", "<!-- <script>alert(1)</script> -->", ""},
		{"class smuggling", `<span class="chroma k">x</span>`, "x"},
		{"code fence language injection", "```\"><script>alert(1)</script>\nx\n```", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := string(r.Render(tt.src))
			if bad := unsafeMarkup(out); bad != "" {
				t.Fatalf("unsafe output (%s):\n%s", bad, out)
			}
			d := doc(t, out)
			if !strings.Contains(d.Text(), tt.visible) {
				t.Errorf("text %q not visible in output:\n%s", tt.visible, out)
			}
		})
	}
}

func TestRenderImagesBecomeLinks(t *testing.T) {
	r := New()
	tests := []struct {
		src, href, text string
	}{
		{"![chart](https://evil.example/?q=secret)", "https://evil.example/?q=secret", "chart"},
		{"![](https://example.com/x.png)", "https://example.com/x.png", "image"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			out := string(r.Render(tt.src))
			d := doc(t, out)
			if d.Find("img").Length() != 0 {
				t.Fatalf("image rendered as <img>:\n%s", out)
			}
			a := d.Find("a")
			if href, _ := a.Attr("href"); href != tt.href || a.Text() != tt.text {
				t.Errorf("got <a href=%q>%s</a>, want href %q text %q", href, a.Text(), tt.href, tt.text)
			}
		})
	}
}

func TestRenderCodeHighlighting(t *testing.T) {
	r := New()
	tests := []struct {
		name string
		src  string
		// a token class chroma must have emitted
		class string
	}{
		{"go", "```go\npackage main\n\nfunc main() { println(\"hi\") }\n```\n", "kd"},
		{"alias", "```golang\nfunc f() {}\n```\n", "kd"},
		{"python", "```python\ndef f():\n    return 1\n```\n", "k"},
		{"unknown language falls back", "```nosuchlang\nplain <b>text</b>\n```\n", ""},
		{"no language, analysed", "```\n#!/bin/sh\necho hi\n```\n", "nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := string(r.Render(tt.src))
			d := doc(t, out)
			pre := d.Find("pre.chroma")
			if pre.Length() != 1 {
				t.Fatalf("want one pre.chroma, got %d:\n%s", pre.Length(), out)
			}
			if tt.class != "" && pre.Find("span."+tt.class).Length() == 0 {
				t.Errorf("no span.%s in:\n%s", tt.class, out)
			}
			if strings.Contains(out, "style=") {
				t.Errorf("inline style in output, want classes only:\n%s", out)
			}
		})
	}

	// The code's own text survives exactly, including characters that need
	// escaping.
	out := string(r.Render("```go\nif a < b && c > \"d\" {}\n```"))
	if got := doc(t, out).Find("pre").Text(); got != "if a < b && c > \"d\" {}\n" {
		t.Errorf("code text = %q", got)
	}
}

func TestRenderGFM(t *testing.T) {
	r := New()
	tests := []struct {
		name string
		src  string
		sel  string // goquery selector that must match
		n    int
	}{
		{"table", "| a | b |\n|:--|--:|\n| 1 | 2 |\n| 3 | 4 |\n", "table tbody tr", 2},
		{"table alignment", "| a | b |\n|:--|--:|\n| 1 | 2 |\n", `td[align="right"]`, 1},
		{"task list", "- [x] done\n- [ ] todo\n", `li input[type="checkbox"][disabled]`, 2},
		{"task checked", "- [x] done\n- [ ] todo\n", `input[checked]`, 1},
		{"strikethrough", "~~gone~~", "del", 1},
		{"autolink", "see https://example.com/path now", `a[href="https://example.com/path"]`, 1},
		{"www autolink", "see www.example.com now", `a[href="http://www.example.com"]`, 1},
		{"heading", "# Title", "h1", 1},
		{"indented code", "    x := 1\n", "pre code", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := string(r.Render(tt.src))
			if got := doc(t, out).Find(tt.sel).Length(); got != tt.n {
				t.Errorf("%s matched %d, want %d:\n%s", tt.sel, got, tt.n, out)
			}
		})
	}
}

func TestRenderLinks(t *testing.T) {
	r := New()
	tests := []struct{ name, src string }{
		{"inline", "[x](https://example.com)"},
		{"relative", "[x](docs/readme.md)"},
		{"autolink", "<https://example.com>"},
		{"linkify", "https://example.com"},
		{"mailto", "<me@example.com>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := string(r.Render(tt.src))
			a := doc(t, out).Find("a")
			if a.Length() != 1 {
				t.Fatalf("want 1 link:\n%s", out)
			}
			if target, _ := a.Attr("target"); target != "_blank" {
				t.Errorf("target = %q:\n%s", target, out)
			}
			rel, _ := a.Attr("rel")
			for _, want := range []string{"nofollow", "noopener", "noreferrer"} {
				if !strings.Contains(" "+rel+" ", " "+want+" ") {
					t.Errorf("rel %q lacks %s", rel, want)
				}
			}
		})
	}
}

func TestRenderRawHTMLShownAsText(t *testing.T) {
	r := New()
	out := string(r.Render("Wrap it in a <details> element and press <kbd>Ctrl</kbd>."))
	d := doc(t, out)
	if d.Find("details, kbd").Length() != 0 {
		t.Fatalf("raw HTML rendered as markup:\n%s", out)
	}
	if want := "Wrap it in a <details> element and press <kbd>Ctrl</kbd>."; d.Find("p").Text() != want {
		t.Errorf("text = %q, want %q", d.Find("p").Text(), want)
	}
}

func TestRenderRobustness(t *testing.T) {
	rep := strings.Repeat
	// guard names the guard that must stop a shape goldmark is super-linear
	// in (see limits.go): without it each of these takes from tens of
	// seconds to minutes. The check is that the guard declined, not a
	// clock: machines are shared and slow under -race.
	tests := []struct {
		name  string
		src   string
		guard func(*guardTrips) int64
	}{
		{name: "empty", src: ""},
		{name: "invalid utf8", src: "abc \xff\xfe \xc3\x28 **x** ```\xff\n\xfe\n```"},
		{name: "invalid utf8 in fence info", src: "```\xff\xfe\ncode\n```"},
		{name: "NUL bytes", src: rep("\x00*a", 1000)},
		{name: "1MB prose", src: rep("word *em* **strong** `code` [l](https://x.example)\n", 1<<20/52)},
		{name: "1MB code block", src: "```go\n" + rep("x := 1 // comment <b>\n", 1<<20/23) + "```\n"},
		{name: "1MB untagged code", src: "```\n" + rep("a", 1<<20-10) + "\n```\n"},
		{name: "over the markdown limit", src: rep("<script>alert(1)</script>\n", maxMarkdown/26+1)},
		{name: "emphasis pairing", src: rep("*a_", 40000), guard: delimiters},
		{name: "strong/underscore pairing", src: rep("**a__", 40000), guard: delimiters},
		{name: "strikethrough pairing", src: rep("~~a_", 40000), guard: delimiters},
		{name: "unclosed link destinations", src: rep("[a](<b", 100000), guard: links},
		{name: "deep block quotes", src: rep(">", 200000) + " x", guard: nesting},
		{name: "deep lists", src: rep("- ", 100000) + "x", guard: nesting},
		{name: "deep indented lists", src: func() string {
			var b strings.Builder
			for i := range 1000 {
				b.WriteString(rep(" ", 2*i) + "- a\n")
			}
			return b.String()
		}(), guard: nesting},
		{name: "many reference definitions", src: rep("[a]: u\n", 100000) + rep("[a]", 1000), guard: references},
		{name: "wide table over short rows", src: rep("|a", 10000) + "|\n" + rep("|-", 10000) + "|\n" + rep("x\n", 10000), guard: tables},
		{name: "many fences", src: rep("```\nx\n```\n", 50000), guard: highlight},
		{name: "many brackets", src: rep("[", 100000) + rep("]", 100000), guard: links},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New() // its own trip counts
			out := string(r.Render(tt.src))
			if !utf8.ValidString(out) {
				t.Error("output is not valid UTF-8")
			}
			if bad := unsafeMarkup(out); bad != "" {
				t.Errorf("unsafe output: %s", bad)
			}
			if tt.guard != nil && tt.guard(r.trips) == 0 {
				t.Error("its guard never declined: goldmark ran the super-linear path")
			}
		})
	}
}

func delimiters(g *guardTrips) int64 { return g.delimiters.Load() }
func links(g *guardTrips) int64      { return g.links.Load() }
func nesting(g *guardTrips) int64    { return g.nesting.Load() }
func references(g *guardTrips) int64 { return g.references.Load() }
func tables(g *guardTrips) int64     { return g.tables.Load() }
func highlight(g *guardTrips) int64  { return g.highlight.Load() }

// BenchmarkRenderHostile renders each hostile shape of TestRenderRobustness
// that a guard stops: what one such message costs a page render.
func BenchmarkRenderHostile(b *testing.B) {
	rep := strings.Repeat
	for _, tc := range []struct{ name, src string }{
		{"emphasis", rep("*a_", 40000)},
		{"links", rep("[a](<b", 100000)},
		{"nesting", rep(">", 200000) + " x"},
		{"references", rep("[a]: u\n", 100000) + rep("[a]", 1000)},
		{"table", rep("|a", 10000) + "|\n" + rep("|-", 10000) + "|\n" + rep("x\n", 10000)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := New()
			for b.Loop() {
				r.Render(tc.src)
			}
		})
	}
}

// The guards must not change ordinary documents.
func TestLimitsKeepOrdinaryMarkdown(t *testing.T) {
	r := New()
	tests := []struct {
		name, src, sel string
		n              int
	}{
		{"emphasis", rep2("*a* _b_ **c** ", 800), "em, strong", 2400},
		{"links", rep2("[x](https://e.example) ", 500), "a", 500},
		{"nesting to 10", strings.Repeat("> ", 10) + "x", "blockquote", 10},
		{"reference links", "[a] [b]\n\n[a]: https://a.example\n[b]: https://b.example\n", "a", 2},
		{"table", "| a | b |\n|---|---|\n" + rep2("| x | y |\n", 100), "tbody tr", 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := string(r.Render(tt.src))
			if got := doc(t, out).Find(tt.sel).Length(); got != tt.n {
				t.Errorf("%s matched %d, want %d", tt.sel, got, tt.n)
			}
		})
	}

	// Past the nesting limit the rest is text, not an error.
	out := string(r.Render(strings.Repeat("> ", maxNesting+10) + "deep"))
	d := doc(t, out)
	if got := d.Find("blockquote").Length(); got != maxNesting {
		t.Errorf("blockquotes = %d, want %d", got, maxNesting)
	}
	if !strings.Contains(d.Text(), "deep") {
		t.Error("text past the nesting limit lost")
	}
}

func TestCodeBudget(t *testing.T) {
	r := New()
	out := string(r.Render(strings.Repeat("```go\nx := 1\n```\n\n", maxHighlightBlocks+50)))
	d := doc(t, out)
	if got := d.Find("pre.chroma").Length(); got != maxHighlightBlocks {
		t.Errorf("highlighted blocks = %d, want %d", got, maxHighlightBlocks)
	}
	if got := d.Find("pre").Length(); got != maxHighlightBlocks+50 {
		t.Errorf("code blocks = %d, want %d", got, maxHighlightBlocks+50)
	}
	if got := d.Find("pre").Last().Text(); got != "x := 1\n" {
		t.Errorf("plain block text = %q", got)
	}
}

func rep2(s string, n int) string { return strings.Repeat(s, n) }

// Render is called from many request goroutines at once.
func TestRenderConcurrent(t *testing.T) {
	r := New()
	src := "# T\n\n```go\nfunc f() {}\n```\n\n| a |\n|---|\n| b |\n\n[x](https://e.example)"
	want := r.Render(src)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if got := r.Render(src); got != want {
					t.Errorf("concurrent render differs")
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCSS(t *testing.T) {
	css := New().CSS()
	if css != New().CSS() {
		t.Fatal("CSS not deterministic")
	}
	for _, want := range []string{
		"[data-theme=dark] .chroma {",
		"[data-theme=light] .chroma {",
		"[data-theme=dark] .chroma .kd {",
		"[data-theme=light] .chroma .kd {",
		"@media (prefers-color-scheme: dark) {",
		":root:not([data-theme]) .chroma .kd {",
	} {
		if !strings.Contains(css, want) {
			t.Errorf("CSS lacks %q", want)
		}
	}
	// Every rule line must be scoped; an unscoped ".chroma" rule would apply
	// to both themes at once.
	unscoped := regexp.MustCompile(`(?m)^\s*(/\*[^*]*\*/\s*)?\.`)
	if m := unscoped.FindString(css); m != "" {
		t.Errorf("unscoped rule: %q", m)
	}
	if strings.Count(css, "{") != strings.Count(css, "}") {
		t.Error("unbalanced braces")
	}
}

// Every class chroma can put on an element must survive the sanitiser, or
// highlighting silently disappears after a chroma upgrade.
func TestChromaClassesAllowed(t *testing.T) {
	re := chromaClasses()
	for _, c := range []string{"chroma", "line", "cl", "k", "kd", "nf", "s", "w", "err", "line hl"} {
		if !re.MatchString(c) {
			t.Errorf("class %q rejected", c)
		}
	}
	for _, c := range []string{"", "evil", "k evil", "k  kd", " k", "language-go"} {
		if re.MatchString(c) {
			t.Errorf("class %q accepted", c)
		}
	}
}

func FuzzRender(f *testing.F) {
	for _, s := range []string{
		"<script>alert(1)</script>",
		"<img src=x onerror=alert(1)>",
		"[x](javascript:alert(1))",
		"[x](JAVASCRIPT:alert(1))",
		"<a href=\"javascript:alert(1)\">x</a>",
		"```go\nfunc main() {}\n```",
		"```\"><svg onload=alert(1)>\nx\n```",
		"| a |\n|---|\n| <b onclick=x>b</b> |",
		"- [x] <input onfocus=alert(1) autofocus>",
		"![x](javascript:alert(1))",
		"<javascript:alert(1)>",
		"[x]: javascript:alert(1)\n\n[x]",
		"\xff\xfe",
	} {
		f.Add(s)
	}
	r := New()
	f.Fuzz(func(t *testing.T, src string) {
		out := string(r.Render(src))
		if bad := unsafeMarkup(out); bad != "" {
			t.Fatalf("unsafe output (%s) for %q:\n%s", bad, src, out)
		}
	})
}
