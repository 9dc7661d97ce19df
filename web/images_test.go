package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/color"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/imagetest"
)

// TestSessionImages: the images of a session's record are in its activity
// panel (an attached one as its own entry, a returned one under its call)
// and served one by one, sniffed from their bytes; a non-raster image is
// listed but never served, and bad numbers are refused.
func TestSessionImages(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	const id = "0b5d4c2e-4444-4a2b-9c3d-aaaaaaaaaaaa"
	at := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	line := func(typ, uuid, parent string, msg map[string]any) string {
		m := map[string]any{"type": typ, "uuid": uuid, "parentUuid": parent, "sessionId": id, "cwd": projectPath, "timestamp": at, "message": msg}
		if parent == "" {
			m["parentUuid"] = nil
		}
		b, _ := json.Marshal(m)
		return string(b) + "\n"
	}
	blue := imagetest.PNG(3, 2, color.RGBA{0, 0, 255, 255})
	img := func(b64 string) map[string]any {
		return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": b64}}
	}
	svg := "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciPjxzY3JpcHQ+YWxlcnQoMSk8L3NjcmlwdD48L3N2Zz4=" // <svg …><script>…
	svgBytes, _ := base64.StdEncoding.DecodeString(svg)
	body := line("user", "u1", "", map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "what is in this picture"}, img(imagetest.RedPNG)}}) +
		line("assistant", "a1", "u1", map[string]any{"id": "msg_1", "role": "assistant", "model": "claude-test", "content": []any{
			map[string]any{"type": "tool_use", "id": "toolu_read", "name": "Read", "input": map[string]any{"file_path": "/work/demo/blue.png"}},
			map[string]any{"type": "tool_use", "id": "toolu_svg", "name": "Read", "input": map[string]any{"file_path": "/work/demo/x.svg"}}}}) +
		line("user", "u2", "a1", map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_read", "content": []any{img(base64.StdEncoding.EncodeToString(blue))}},
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_svg", "content": []any{img(svg)}}}}) +
		line("assistant", "a2", "u2", map[string]any{"id": "msg_2", "role": "assistant", "model": "claude-test", "content": []any{
			map[string]any{"type": "text", "text": "Red, then blue."}}})
	if err := os.WriteFile(filepath.Join(r.claudeDir, "projects", "-work-demo-project", id+".jsonl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	h := r.srv.Handler()
	base := "/s/claude/" + id
	var page string
	waitFor(t, func() bool {
		w := r.do(h, http.MethodGet, base+"/activity", withCookie(tok))
		page = w.Body.String()
		return w.Code == http.StatusOK && strings.Contains(page, "activity-list")
	})
	for _, want := range []string{
		`<span class="tool">Image you attached</span>`, `src="` + base + `/images/0"`, `alt="Image you attached (image/png, 78 bytes)"`,
		`src="` + base + `/images/1"`, `alt="Image returned by Read (image/png, ` + strconv.Itoa(len(blue)) + ` bytes)"`,
		`data-testid="activity-image-hidden"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("activity lacks %q in %s", want, page)
		}
	}
	if strings.Contains(page, base+"/images/2") {
		t.Error("the SVG is linked")
	}

	for _, tc := range []struct {
		n    string
		want []byte
	}{{"0", imagetest.RedPNGBytes()}, {"1", blue}} {
		for _, path := range []string{base + "/images/" + tc.n, "/api/v1/sessions/claude/" + id + "/images/" + tc.n} {
			w := r.do(h, http.MethodGet, path, withCookie(tok))
			if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "image/png" || !bytes.Equal(w.Body.Bytes(), tc.want) {
				t.Errorf("GET %s: %d %s, %d bytes", path, w.Code, w.Header().Get("Content-Type"), w.Body.Len())
			}
			if !strings.Contains(w.Header().Get("Content-Security-Policy"), "sandbox") || w.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("GET %s: headers %v", path, w.Header())
			}
		}
	}
	for _, tc := range []struct {
		n         string
		code      int
		errorCode string
	}{
		{"2", http.StatusUnsupportedMediaType, "image_not_shown"},
		{"3", http.StatusNotFound, "no_image"},
		{"-1", http.StatusBadRequest, "bad_image"},
		{"x", http.StatusBadRequest, "bad_image"},
	} {
		if w := r.do(h, http.MethodGet, base+"/images/"+tc.n, withCookie(tok)); w.Code != tc.code {
			t.Errorf("page image %s: %d, want %d", tc.n, w.Code, tc.code)
		}
		w := r.do(h, http.MethodGet, "/api/v1/sessions/claude/"+id+"/images/"+tc.n, withCookie(tok))
		if w.Code != tc.code || decodeError(t, w.Body.Bytes()) != tc.errorCode {
			t.Errorf("API image %s: %d %s, want %d %s", tc.n, w.Code, w.Body, tc.code, tc.errorCode)
		}
	}
	if w := r.do(h, http.MethodGet, base+"/images/0"); w.Code == http.StatusOK {
		t.Error("an image is served without a device session")
	}

	// The API lists each image with where it is served.
	w := r.do(h, http.MethodGet, "/api/v1/sessions/claude/"+id+"/events", withCookie(tok))
	var out struct {
		Events []struct {
			Kind      string
			MediaType string `json:"media_type"`
			URL       string
			ToolID    string `json:"tool_id"`
			Size      int
		} `json:"events"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	var images []string
	for _, e := range out.Events {
		if e.Kind == "image" {
			images = append(images, e.ToolID+" "+e.URL+" "+strconv.Itoa(e.Size))
		}
	}
	api := "/api/v1/sessions/claude/" + id + "/images/"
	want := []string{" " + api + "0 78", "toolu_read " + api + "1 " + strconv.Itoa(len(blue)), "toolu_svg  " + strconv.Itoa(len(svgBytes))}
	if strings.Join(images, "|") != strings.Join(want, "|") {
		t.Errorf("API images %q, want %q", images, want)
	}
}
