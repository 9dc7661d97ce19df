package claude

import (
	"slices"
	"testing"

	"paddock/internal/session"
	"paddock/internal/testkit/imagetest"
)

// TestEventsImages: an image the person attached (a user content part)
// and one a tool returned (inside a tool_result, as Read of a PNG writes
// it) are image events with their bytes, in place; an image by URL is
// none. The shapes are those Claude Code 2.1.328 wrote for a prompt sent
// with an image and for Read of a PNG.
func TestEventsImages(t *testing.T) {
	dir := t.TempDir()
	img := func(data string) map[string]any {
		return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": data}}
	}
	writeSession(t, dir, "-p", "s1",
		user("u1", "", "", 0, "message", map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "what is in this picture"}, img(imagetest.RedPNG),
			map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/x.png"}}}}),
		answer("a1", "u1", "", 1, "message", map[string]any{"id": "m1", "role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "I'll look at the image."},
			map[string]any{"type": "tool_use", "id": "t1", "name": "Read", "input": map[string]any{"file_path": "/p/red.png"}}}}),
		user("r1", "a1", "", 2, "message", map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": []any{img(imagetest.RedPNG)}}}}),
		answer("a2", "r1", "Red.", 3),
	)
	evs := checkEvents(t, New(Options{Dir: dir}), "s1")
	var got []string
	for _, e := range evs {
		got = append(got, e.Kind+" "+e.Role+" "+e.ToolID+" "+e.MediaType)
		if e.Kind == session.EventImage && e.Data != string(imagetest.RedPNGBytes()) {
			t.Errorf("image of %d bytes, want the PNG's %d", len(e.Data), len(imagetest.RedPNGBytes()))
		}
	}
	want := []string{"message user  ", "image user  image/png", "message assistant  ", "tool_call  t1 ",
		"tool_result  t1 ", "image  t1 image/png", "message assistant  "}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got  %q\n want %q", got, want)
	}
}
