// Package static embeds paddock's browser assets (vendored htmx, its
// websocket extension, the stylesheet, the small app script, icons) and names
// each by a hash of its content, so pages can reference them under URLs that
// are cached forever and change whenever the file does.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"path"
)

//go:embed app.css app.js icon.svg manifest.webmanifest vendor/*.js
var files embed.FS

// Asset is one embedded file with its content-addressed URL.
type Asset struct {
	Name        string // e.g. "app.css", "vendor/htmx-2.0.11.min.js"
	URL         string // "/static/<hash>/<name>"
	ContentType string
	Body        []byte
}

// Assets is the set of embedded files, computed once at start-up.
type Assets struct {
	byName map[string]*Asset
	byURL  map[string]*Asset
}

// Load reads and hashes every embedded file.
func Load() (*Assets, error) {
	a := &Assets{byName: map[string]*Asset{}, byURL: map[string]*Asset{}}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ct := mime.TypeByExtension(path.Ext(p))
		if path.Ext(p) == ".webmanifest" {
			ct = "application/manifest+json"
		}
		if ct == "" {
			ct = "application/octet-stream"
		}
		as := &Asset{
			Name:        p,
			URL:         "/static/" + hex.EncodeToString(sum[:6]) + "/" + p,
			ContentType: ct,
			Body:        body,
		}
		a.byName[p] = as
		a.byURL[as.URL] = as
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("static: %w", err)
	}
	return a, nil
}

// URL returns the content-addressed URL of a named asset. An unknown name is
// a programming error caught by tests, so it yields an obviously broken URL
// rather than a panic in a request.
func (a *Assets) URL(name string) string {
	if as, ok := a.byName[name]; ok {
		return as.URL
	}
	return "/static/missing/" + name
}

// ByURL finds the asset served at a request path.
func (a *Assets) ByURL(p string) (*Asset, bool) {
	as, ok := a.byURL[p]
	return as, ok
}

// Names lists every embedded asset (for tests).
func (a *Assets) Names() []string {
	out := make([]string, 0, len(a.byName))
	for n := range a.byName {
		out = append(out, n)
	}
	return out
}
