package markdown

import (
	"html/template"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// rawHTMLRenderer shows HTML found in the input as escaped text. goldmark's
// safe default replaces it with a comment, which bluemonday then removes,
// so "wrap it in a <details> element" would lose its subject. Agents talk
// about HTML all the time; showing it literally keeps the meaning and is
// still never markup.
type rawHTMLRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (rawHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindRawHTML, renderRawHTML)
}

// renderHTMLBlock writes a block of HTML as preformatted text, keeping its
// line breaks.
func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.HTMLBlock)
	_, _ = w.WriteString("<pre><code>")
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		template.HTMLEscape(w, seg.Value(source))
	}
	if n.HasClosure() {
		template.HTMLEscape(w, n.ClosureLine.Value(source))
	}
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

// renderRawHTML writes an inline tag (`<kbd>`, `<br>`, `<div>` in prose) as
// text.
func renderRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	for i := range n.Segments.Len() {
		seg := n.Segments.At(i)
		template.HTMLEscape(w, seg.Value(source))
	}
	return ast.WalkSkipChildren, nil
}
