// Package markdown renders the Markdown that coding agents write into HTML
// that is safe to drop into the phone UI.
//
// The pipeline is goldmark (CommonMark + GFM) → chroma for fenced code →
// bluemonday. Input is untrusted: an assistant can be prompt-injected into
// emitting hostile Markdown or HTML. So this package must never render raw
// HTML from the input, never emit script, event-handler attributes or
// javascript: URLs, and never make the phone fetch anything by itself
// (images become links; see imageToLink).
//
// It shares a binary with `paddock hook`, which must start in
// milliseconds, so nothing here may do work at package initialisation or
// link chroma's lexers or styles packages (they parse every lexer and style
// at start-up): the stylesheet and the lexers are generated into this
// package by chromagen (go generate), and New builds what they need.
package markdown

import (
	"bytes"
	"html/template"
	"regexp"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// maxMarkdown bounds the input given to the Markdown parser. Anything larger
// (a pasted log, a dumped file) is shown as escaped preformatted text: it is
// almost never prose, and parser and highlighter cost grow with it.
const maxMarkdown = 1 << 20

// Renderer converts Markdown to sanitised HTML. It is safe for concurrent
// use; build one at start-up and share it.
type Renderer struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy
	trips  *guardTrips
}

// New builds a Renderer with GFM tables, strikethrough, autolinks and task
// lists, class-based chroma highlighting for fenced code, and a bluemonday
// policy applied to everything goldmark produces.
func New() *Renderer {
	trips := &guardTrips{}
	md := goldmark.New(
		goldmark.WithParser(newParser(trips)),
		goldmark.WithExtensions(extension.Linkify, extension.TaskList),
		goldmark.WithParserOptions(append(gfmParserOptions(trips),
			parser.WithASTTransformers(
				util.Prioritized(linkTransformer{}, 100),
				util.Prioritized(codeBudget{trips: &trips.highlight}, 100),
			),
		)...),
		goldmark.WithRendererOptions(
			// Priority below the default HTML renderer's 1000 so ours win.
			// html.WithUnsafe is deliberately absent, and rawHTMLRenderer
			// shows raw HTML as escaped text instead of goldmark's
			// "raw HTML omitted" comment.
			renderer.WithNodeRenderers(
				util.Prioritized(newCodeRenderer(), 100),
				util.Prioritized(rawHTMLRenderer{}, 100),
				// Alignment as the align attribute: bluemonday's UGC policy
				// allows align on cells but strips style attributes.
				util.Prioritized(extension.NewTableHTMLRenderer(
					extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)), 500),
				util.Prioritized(extension.NewStrikethroughHTMLRenderer(), 500),
			),
		),
	)
	return &Renderer{md: md, policy: newPolicy(), trips: trips}
}

// Render converts src to sanitised HTML. Invalid UTF-8 is replaced with
// U+FFFD first so the output is always valid UTF-8. Input over 1 MiB is
// shown as escaped preformatted text. Typical cost is a few MB/s, so callers
// re-rendering the same message often should cache the result.
func (r *Renderer) Render(src string) template.HTML {
	src = strings.ToValidUTF8(src, "\uFFFD")
	var buf bytes.Buffer
	buf.Grow(len(src) + len(src)/2)
	if len(src) > maxMarkdown {
		buf.WriteString("<pre><code>")
		template.HTMLEscape(&buf, []byte(src))
		buf.WriteString("</code></pre>\n")
	} else if err := r.md.Convert([]byte(src), &buf); err != nil {
		// goldmark only fails when the writer fails, which a bytes.Buffer
		// doesn't; still, show the text rather than half a document.
		buf.Reset()
		buf.WriteString("<p>")
		template.HTMLEscape(&buf, []byte(src))
		buf.WriteString("</p>\n")
	}
	// Sanitise even our own escaped fallbacks: one exit, one policy.
	return template.HTML(r.policy.SanitizeBytes(buf.Bytes())) //nolint:gosec // sanitised by bluemonday
}

// newPolicy is bluemonday's UGC policy plus exactly what our own renderers
// emit: chroma's class names on pre/code/span, disabled task-list checkboxes
// and target=_blank on links.
func newPolicy() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("class").Matching(chromaClasses()).OnElements("pre", "code", "span")
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^$`)).OnElements("input")
	p.AllowAttrs("target").Matching(regexp.MustCompile(`^_blank$`)).OnElements("a")
	// Every link leaves the dashboard in a new tab, without handing the
	// opened page our window or our URL (which may carry a session id).
	// bluemonday adds noopener itself whenever target=_blank is present.
	p.RequireNoFollowOnLinks(true)
	p.RequireNoReferrerOnLinks(true)
	return p
}

// chromaClasses matches a class attribute made only of chroma's own class
// names, so input can never smuggle in classes that restyle the page.
func chromaClasses() *regexp.Regexp {
	seen := map[string]bool{}
	var names []string
	for _, c := range chroma.StandardTypes {
		if c != "" && !seen[c] {
			seen[c] = true
			names = append(names, regexp.QuoteMeta(c))
		}
	}
	alt := "(?:" + strings.Join(names, "|") + ")"
	return regexp.MustCompile(`^` + alt + `(?: ` + alt + `)*$`)
}
