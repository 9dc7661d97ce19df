package markdown

import (
	"bytes"
	"sync/atomic"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// goldmark has super-linear paths that hostile (or just odd) agent output
// can hit, freezing a request for seconds to minutes. Measured on v1.8.7:
//
//   - emphasis pairing: 20,000 × "*a_" in one paragraph takes seconds
//     (yuin/goldmark#555, closed unfixed);
//   - link destinations: each "](<" scans to the end of the line, so
//     100,000 × "[a](<b" on one line takes ~20 s (the cmark#218 shape);
//   - nesting: 40 KB of ">" or "- " takes ~0.5 s and grows quadratically;
//   - link reference definitions: 50,000 in one paragraph take seconds;
//   - tables: a 10,000-column header over 10,000 short rows renders
//     10⁸ cells.
//
// Each guard below wraps the goldmark part responsible and, past a limit no
// prose comes near, declines, so the rest is left as literal text. The
// guards hold no shared state: budgets live in each parse's Context.
const (
	// maxDelimiterAttempts caps emphasis and strikethrough delimiter runs
	// per block (they share goldmark's delimiter list).
	maxDelimiterAttempts = 5000
	// maxLinkAttempts caps link-parser calls per block.
	maxLinkAttempts = 2000
	// maxLinkScan caps the sum, over link-parser calls in one block, of the
	// rest of the line at each call: the most one call can scan.
	maxLinkScan = 32 << 20
	// maxNesting caps nested lists and block quotes.
	maxNesting = 32
	// maxRefWork caps (lines starting with '[') × (lines) in one paragraph,
	// the cost of goldmark's reference-definition extraction.
	maxRefWork = 4 << 20
	// maxTableCells caps columns × lines for a paragraph to become a table.
	maxTableCells = 1 << 17
)

// Context keys for the inline budgets. goldmark allocates keys from a
// process-wide counter, so they have to be created once at package level;
// they are constant identifiers and hold no state.
var (
	delimiterBudgetKey = parser.NewContextKey()
	linkBudgetKey      = parser.NewContextKey()
)

// guardTrips counts, per guard, the times it declined: its own proof that
// a hostile shape was stopped there, read by the tests. Counting is the
// only state; each Renderer has its own.
type guardTrips struct {
	delimiters, links, nesting, references, tables, highlight atomic.Int64
}

// newParser is goldmark's default parser, spelled out (same parsers and
// priorities as parser.DefaultBlockParsers, DefaultInlineParsers and
// DefaultParagraphTransformers) so the expensive parts can be wrapped.
// Adding a second parser for the same trigger would not do: goldmark falls
// through to the next parser when one declines.
func newParser(trips *guardTrips) parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(
			util.Prioritized(parser.NewSetextHeadingParser(), 100),
			util.Prioritized(parser.NewThematicBreakParser(), 200),
			util.Prioritized(depthLimited{parser.NewListParser(), &trips.nesting}, 300),
			util.Prioritized(parser.NewListItemParser(), 400),
			util.Prioritized(parser.NewCodeBlockParser(), 500),
			util.Prioritized(parser.NewATXHeadingParser(), 600),
			util.Prioritized(parser.NewFencedCodeBlockParser(), 700),
			util.Prioritized(depthLimited{parser.NewBlockquoteParser(), &trips.nesting}, 800),
			util.Prioritized(parser.NewHTMLBlockParser(), 900),
			util.Prioritized(parser.NewParagraphParser(), 1000),
		),
		parser.WithInlineParsers(
			util.Prioritized(parser.NewCodeSpanParser(), 100),
			util.Prioritized(budgeted{
				InlineParser: parser.NewLinkParser(),
				key:          linkBudgetKey,
				maxAttempts:  maxLinkAttempts,
				maxScan:      maxLinkScan,
				trips:        &trips.links,
			}, 200),
			util.Prioritized(parser.NewAutoLinkParser(), 300),
			util.Prioritized(parser.NewRawHTMLParser(), 400),
			util.Prioritized(budgetDelimiters(parser.NewEmphasisParser(), &trips.delimiters), 500),
		),
		parser.WithParagraphTransformers(
			util.Prioritized(capped{parser.LinkReferenceParagraphTransformer, refWork, maxRefWork, &trips.references}, 100),
		),
	)
}

// gfmParserOptions adds GFM tables and strikethrough with the same guards.
// (extension.Table and extension.Strikethrough would register unguarded
// parsers; their renderers are added in New.)
func gfmParserOptions(trips *guardTrips) []parser.Option {
	return []parser.Option{
		parser.WithParagraphTransformers(
			util.Prioritized(capped{extension.NewTableParagraphTransformer(), tableCells, maxTableCells, &trips.tables}, 200),
		),
		parser.WithASTTransformers(util.Prioritized(extension.NewTableASTTransformer(), 0)),
		parser.WithInlineParsers(util.Prioritized(budgetDelimiters(extension.NewStrikethroughParser(), &trips.delimiters), 500)),
	}
}

type budgetState struct {
	block    ast.Node
	attempts int
	scanned  int
}

// budgeted wraps an inline parser. Once a block has used up its budget the
// wrapper declines, and goldmark treats the trigger character as text.
type budgeted struct {
	parser.InlineParser
	key         parser.ContextKey
	maxAttempts int
	maxScan     int // 0: calls are not charged for the line they see
	trips       *atomic.Int64
}

func budgetDelimiters(p parser.InlineParser, trips *atomic.Int64) budgeted {
	return budgeted{InlineParser: p, key: delimiterBudgetKey, maxAttempts: maxDelimiterAttempts, trips: trips}
}

func (b budgeted) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	st, _ := pc.Get(b.key).(*budgetState)
	if st == nil {
		st = &budgetState{}
		pc.Set(b.key, st)
	}
	// Inline parsers are handed the block being parsed as parent, so a new
	// parent means a new block and a fresh budget.
	if st.block != parent {
		*st = budgetState{block: parent}
	}
	st.attempts++
	if b.maxScan > 0 {
		line, _ := block.PeekLine()
		st.scanned += len(line)
	}
	if st.attempts > b.maxAttempts || (b.maxScan > 0 && st.scanned > b.maxScan) {
		b.trips.Add(1)
		return nil
	}
	return b.InlineParser.Parse(parent, block, pc)
}

// CloseBlock forwards goldmark's end-of-block hook (the link parser needs it
// to turn unclosed '[' back into text).
func (b budgeted) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	if cb, ok := b.InlineParser.(parser.CloseBlocker); ok {
		cb.CloseBlock(parent, block, pc)
	}
}

// depthLimited wraps a container block parser (list, block quote) and
// declines to open one more than maxNesting deep; the line then becomes
// paragraph text.
type depthLimited struct {
	parser.BlockParser
	trips *atomic.Int64
}

func (d depthLimited) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	depth := 0
	// The walk is bounded: the chain only holds what this guard let open,
	// plus one list item per list.
	for n := parent; n != nil; n = n.Parent() {
		switch n.(type) {
		case *ast.List, *ast.Blockquote:
			depth++
		}
	}
	if depth >= maxNesting {
		d.trips.Add(1)
		return nil, parser.NoChildren
	}
	return d.BlockParser.Open(parent, reader, pc)
}

// capped skips a paragraph transformer when cost says the paragraph would
// make it too expensive.
type capped struct {
	parser.ParagraphTransformer
	cost  func(lines *text.Segments, source []byte) int
	max   int
	trips *atomic.Int64
}

func (c capped) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	if c.cost(node.Lines(), reader.Source()) > c.max {
		c.trips.Add(1)
		return
	}
	c.ParagraphTransformer.Transform(node, reader, pc)
}

// refWork estimates goldmark's reference-definition extraction, which
// copies the rest of the paragraph once per definition found.
func refWork(lines *text.Segments, source []byte) int {
	starts := 0
	for i := range lines.Len() {
		seg := lines.At(i)
		if l := bytes.TrimLeft(seg.Value(source), " "); len(l) > 0 && l[0] == '[' {
			starts++
		}
	}
	return starts * lines.Len()
}

// tableCells bounds the cells a paragraph could turn into: the widest line's
// cell count for every line (short rows are padded to the header's width).
func tableCells(lines *text.Segments, source []byte) int {
	widest := 0
	for i := range lines.Len() {
		seg := lines.At(i)
		widest = max(widest, bytes.Count(seg.Value(source), []byte{'|'})+1)
	}
	return widest * lines.Len()
}
