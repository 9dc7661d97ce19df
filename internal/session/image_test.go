package session

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/imagetest"
)

var t0 = time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)

func TestImageEvent(t *testing.T) {
	red := imagetest.RedPNGBytes()
	huge := strings.Repeat("A", base64.StdEncoding.EncodedLen(MaxImageBytes+3))
	tests := []struct {
		name, mediaType, b64 string
		ok                   bool
		data                 string
		size                 int
	}{
		{"padded base64", "image/png", imagetest.RedPNG, true, string(red), len(red)},
		{"unpadded base64", "IMAGE/PNG ", strings.TrimRight(imagetest.RedPNG, "="), true, string(red), len(red)},
		{"surrounding space", "image/png", "\n" + imagetest.RedPNG + " ", true, string(red), len(red)},
		{"over the limit: size, no data", "image/png", huge, true, "", base64.StdEncoding.DecodedLen(len(huge))},
		{"empty", "image/png", "", false, "", 0},
		{"not base64", "image/png", "x", false, "", 0},
		{"garbage", "image/png", "%%%%", false, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := ImageEvent(tc.mediaType, tc.b64, RoleUser, "c1", t0)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if e.Kind != EventImage || e.Role != RoleUser || e.ToolID != "c1" || e.MediaType != "image/png" || !e.Time.Equal(t0) {
				t.Errorf("event = %+v", e)
			}
			if e.Data != tc.data || e.Size != tc.size {
				t.Errorf("data %d bytes, size %d; want %d bytes, size %d", len(e.Data), e.Size, len(tc.data), tc.size)
			}
		})
	}
}

func TestDataURLImage(t *testing.T) {
	tests := []struct {
		name, url string
		ok        bool
	}{
		{"png data URL", "data:image/png;base64," + imagetest.RedPNG, true},
		{"upper-case type", "data:IMAGE/PNG;base64," + imagetest.RedPNG, true},
		{"not base64", "data:image/png," + imagetest.RedPNG, false},
		{"not an image", "data:text/html;base64,PHNjcmlwdD4=", false},
		{"remote URL: never fetched", "https://example.com/a.png", false},
		{"file URL: never read", "file:///etc/passwd", false},
		{"no comma", "data:image/png;base64", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := DataURLImage(tc.url, "", "call_1", t0)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tc.ok, e)
			}
			if ok && (e.Data != string(imagetest.RedPNGBytes()) || e.ToolID != "call_1") {
				t.Errorf("event = %+v", e)
			}
		})
	}
}
