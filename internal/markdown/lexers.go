package markdown

import (
	"embed"

	"github.com/alecthomas/chroma/v2"
)

//go:generate go run ./chromagen .

// lexerXML holds the lexers of the languages chromagen lists, serialised
// from chroma. chroma's own lexers package would register all of its ≈300
// lexers in its package initialisation, ≈5 ms at every start of the
// binary, `paddock hook` included; these are parsed by New instead.
//
//go:embed lexers/*.xml
var lexerXML embed.FS

// newLexerRegistry registers the embedded lexers in chroma's order. Only
// their configurations are read here; chroma reads a lexer's rules the
// first time it is used. Untagged blocks are recognised only by the
// analysers the serialised lexers declare: chroma writes a few (Go, MySQL)
// in Go code, and those languages need their fence tag here.
func newLexerRegistry() *chroma.LexerRegistry {
	reg := chroma.NewLexerRegistry()
	for _, f := range lexerFiles() {
		// The files are generated and tested: a bad one is a build bug.
		reg.Register(chroma.MustNewXMLLexer(lexerXML, "lexers/"+f))
	}
	return reg
}

// newFallbackLexer is chroma's lexers.Fallback: the whole text as plain
// text, for code nothing recognises.
func newFallbackLexer() chroma.Lexer {
	return chroma.MustNewLexer(&chroma.Config{Name: "fallback", Filenames: []string{"*"}, Priority: -1},
		func() chroma.Rules {
			return chroma.Rules{"root": {
				{Pattern: `.+`, Type: chroma.Text},
				{Pattern: `\n`, Type: chroma.Text},
			}}
		})
}
