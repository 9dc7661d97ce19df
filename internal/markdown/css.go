package markdown

import _ "embed" // chroma.css

// chromaCSS is the highlighting stylesheet, written by chromagen (go
// generate) so that chroma's styles package, whose initialisation parses
// every style at process start, is not linked into paddock.
//
//go:embed chroma.css
var chromaCSS string

// CSS returns the stylesheet for highlighted code, in both themes
// (github-dark and github).
//
// Theme choice: an explicit data-theme attribute on an ancestor (normally
// <html data-theme="dark|light">, set by a user toggle) wins; when no
// ancestor has data-theme, prefers-color-scheme decides. That gives a
// sensible default with no JavaScript and still lets the UI offer a
// switch. Every token rule is written for both themes, so one theme's
// colours can never leak into the other.
//
// The result is deterministic; callers serve it as a content-hashed asset.
func (r *Renderer) CSS() string {
	return chromaCSS
}
