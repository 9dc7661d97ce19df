// Package static embeds paddock's browser assets (vendored htmx, its
// websocket extension, the stylesheet, the small app script, icons) and names
// each by a hash of its content, so pages can reference them under URLs that
// are cached forever and change whenever the file does.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"mime"
	"path"
	"slices"
	"strings"
)

//go:embed app.css app.js icon.svg manifest.webmanifest vendor/*.js icons/*.png
var files embed.FS

// The service worker is served at /sw.js (its scope is the whole site),
// not under a hashed URL; start-up writes the assets' URLs into it.
//
//go:embed sw.js
var serviceWorker string

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
	sw     []byte
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
	// The manifest names the icons by their hashed URLs, known only now.
	if m, ok := a.byName["manifest.webmanifest"]; ok {
		body := string(m.Body)
		for name, as := range a.byName {
			body = strings.ReplaceAll(body, "{{"+name+"}}", as.URL)
		}
		if strings.Contains(body, "{{") {
			return nil, fmt.Errorf("static: manifest.webmanifest names a file that is not embedded")
		}
		delete(a.byURL, m.URL)
		sum := sha256.Sum256([]byte(body))
		m.Body, m.URL = []byte(body), "/static/"+hex.EncodeToString(sum[:6])+"/"+m.Name
		a.byURL[m.URL] = m
	}
	urls := make([]string, 0, len(a.byURL))
	for u := range a.byURL {
		urls = append(urls, u)
	}
	slices.Sort(urls)
	list, err := json.Marshal(urls)
	if err != nil {
		return nil, fmt.Errorf("static: %w", err)
	}
	version := sha256.Sum256(list)
	sw := strings.Replace(serviceWorker, "__VERSION__", hex.EncodeToString(version[:6]), 1)
	a.sw = []byte(strings.Replace(sw, "__ASSETS__", string(list), 1))
	return a, nil
}

// ServiceWorker is /sw.js, naming this build's assets: a new build is a
// new worker, which replaces the old one's cache.
func (a *Assets) ServiceWorker() []byte { return a.sw }

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
