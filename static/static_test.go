package static

import (
	"encoding/json"
	"strings"
	"testing"
)

// The manifest and the service worker name this build's hashed URLs, and
// every URL they name is served.
func TestManifestAndWorkerNameServedAssets(t *testing.T) {
	a, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := a.ByURL(a.URL("manifest.webmanifest"))
	if !ok {
		t.Fatal("the manifest is not served at its URL")
	}
	var man struct {
		Icons []struct{ Src, Sizes, Type, Purpose string }
	}
	if err := json.Unmarshal(m.Body, &man); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	purposes := map[string]bool{}
	for _, i := range man.Icons {
		if _, ok := a.ByURL(i.Src); !ok {
			t.Errorf("the manifest's icon %q is not served", i.Src)
		}
		purposes[i.Purpose+" "+i.Sizes] = true
	}
	for _, want := range []string{"any 192x192", "any 512x512", "maskable 512x512"} {
		if !purposes[want] {
			t.Errorf("the manifest has no %s icon", want)
		}
	}
	sw := string(a.ServiceWorker())
	if strings.Contains(sw, "__ASSETS__") || strings.Contains(sw, "__VERSION__") || !strings.Contains(sw, a.URL("app.css")) {
		t.Fatalf("the service worker does not name this build's assets")
	}
}
