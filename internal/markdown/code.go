package markdown

import (
	"bytes"
	"html/template"
	"strings"
	"sync/atomic"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

const (
	// maxHighlight: larger code blocks are shown unhighlighted. Lexing is
	// regexp-driven and a phone gains little from colouring 10k lines.
	maxHighlight = 128 << 10
	// maxHighlightTotal and maxHighlightBlocks bound chroma's work per
	// document (each block also pays a fixed setup cost, and Analyse
	// runs every analyser); later blocks are shown plain.
	maxHighlightTotal  = 512 << 10
	maxHighlightBlocks = 200
	// maxAnalyse: how much of an untagged block Analyse looks at.
	// It runs every registered analyser over the text, so give it a prefix.
	maxAnalyse = 4 << 10
)

// codeRenderer renders fenced code blocks through chroma. It exists because
// goldmark-highlighting is not a dependency of this module; it is a plain
// goldmark NodeRenderer for ast.KindFencedCodeBlock.
type codeRenderer struct {
	formatter chroma.Formatter
	// style is a formality: with classes on, the formatter writes class
	// names only and the colours come from CSS(), whatever the style.
	style    *chroma.Style
	lexers   *chroma.LexerRegistry // the embedded lexers (lexers.go)
	fallback chroma.Lexer
}

func newCodeRenderer() *codeRenderer {
	return &codeRenderer{
		// RecoveringFormatter turns a lexer panic (chroma's iterators report
		// errors by panicking) into an error we can fall back on.
		formatter: chroma.RecoveringFormatter(chromahtml.New(
			chromahtml.WithClasses(true),
			chromahtml.TabWidth(4),
		)),
		style:    chroma.MustNewStyle("paddock", chroma.StyleEntries{}),
		lexers:   newLexerRegistry(),
		fallback: newFallbackLexer(),
	}
}

// RegisterFuncs implements renderer.NodeRenderer.
func (c *codeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, c.renderFencedCode)
}

func (c *codeRenderer) renderFencedCode(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.FencedCodeBlock)
	var code strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		code.Write(seg.Value(source))
	}
	c.highlight(w, string(n.Language(source)), code.String())
	return ast.WalkSkipChildren, nil
}

// highlight writes code as chroma HTML, or as plain escaped text when it is
// too big or the lexer fails. The language name is only used to pick a
// lexer; it is never written to the output.
func (c *codeRenderer) highlight(w util.BufWriter, lang, code string) {
	if len(code) <= maxHighlight {
		var buf bytes.Buffer
		it, err := chroma.Coalesce(c.lexer(lang, code)).Tokenise(nil, code)
		if err == nil {
			err = c.formatter.Format(&buf, c.style, it)
		}
		if err == nil {
			_, _ = w.Write(buf.Bytes())
			_ = w.WriteByte('\n')
			return
		}
	}
	// Same wrapper class as chroma's, so the block keeps the theme colours.
	_, _ = w.WriteString(`<pre class="chroma"><code>`)
	template.HTMLEscape(w, []byte(code))
	_, _ = w.WriteString("</code></pre>\n")
}

func (c *codeRenderer) lexer(lang, code string) chroma.Lexer {
	if lang != "" {
		if l := c.lexers.Get(lang); l != nil {
			return l
		}
	}
	sample := code
	if len(sample) > maxAnalyse {
		sample = strings.ToValidUTF8(sample[:maxAnalyse], "")
	}
	if l := c.lexers.Analyse(sample); l != nil {
		return l
	}
	return c.fallback
}

// codeBudget runs after parsing and turns fenced blocks past the
// per-document highlight budget into plain (indented-style) code blocks,
// which goldmark renders as escaped <pre><code>. Doing it on the AST keeps
// the budget per document without shared state in codeRenderer.
type codeBudget struct{ trips *atomic.Int64 }

func (c codeBudget) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	var over []*ast.FencedCodeBlock
	total, blocks := 0, 0
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		size := 0
		for i := range fc.Lines().Len() {
			seg := fc.Lines().At(i)
			size += seg.Len() + seg.Padding
		}
		if size > maxHighlight {
			return ast.WalkSkipChildren, nil // highlight() shows it plain anyway
		}
		total += size
		blocks++
		if total > maxHighlightTotal || blocks > maxHighlightBlocks {
			over = append(over, fc)
			c.trips.Add(1)
		}
		return ast.WalkSkipChildren, nil
	})
	for _, fc := range over {
		plain := ast.NewCodeBlock()
		plain.SetLines(fc.Lines())
		fc.Parent().ReplaceChild(fc.Parent(), fc, plain)
	}
}
