package pi

import (
	"path/filepath"
	"slices"
	"testing"

	"paddock/internal/session"
	"paddock/internal/testkit/imagetest"
)

// TestEventsImages, in the shapes Pi 0.73.1 wrote for `pi -p @red.png …`
// and for read of a PNG: the attached image follows the prompt, whose
// text loses Pi's empty <file name="…"></file> mark (a text file's mark,
// which holds the file, stays); the returned image follows its result.
func TestEventsImages(t *testing.T) {
	agent := t.TempDir()
	img := map[string]any{"type": "image", "mimeType": "image/png", "data": imagetest.RedPNG}
	line := func(id, parent string, min int, msg map[string]any) string {
		msg["timestamp"] = t0.UnixMilli()
		return jsonLine(map[string]any{"type": "message", "id": id, "parentId": parent, "timestamp": ts(min), "message": msg})
	}
	file := headerLine("s1", "/p", 0) +
		line("u1", "", 1, map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "<file name=\"/p/red.png\"></file>\n<file name=\"/p/a.txt\">hello</file>\nwhat is in this picture"}, img}}) +
		line("a1", "u1", 2, map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "I'll look at the image."},
			map[string]any{"type": "toolCall", "id": "c1", "name": "read", "arguments": map[string]any{"path": "/p/red.png"}}}}) +
		line("r1", "a1", 3, map[string]any{"role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": false,
			"content": []any{map[string]any{"type": "text", "text": "Read image file [image/png]"}, img}}) +
		msgLine("a2", "r1", "assistant", "Red.", 4)
	writeFile(t, filepath.Join(agent, "sessions", "--p--", "s1.jsonl"), file)
	evs := checkEvents(t, newTestScanner(agent), "s1")
	var got []string
	for _, e := range evs {
		got = append(got, e.Kind+" "+e.Role+" "+e.ToolID+" "+e.Text)
		if e.Kind == session.EventImage && (e.Data != string(imagetest.RedPNGBytes()) || e.MediaType != "image/png") {
			t.Errorf("image %s of %d bytes, want the PNG", e.MediaType, len(e.Data))
		}
	}
	want := []string{"message user  <file name=\"/p/a.txt\">hello</file>\nwhat is in this picture", "image user  ",
		"message assistant  I'll look at the image.", "tool_call  c1 ", "tool_result  c1 Read image file [image/png]",
		"image  c1 ", "message assistant  Red."}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got  %q\n want %q", got, want)
	}
}
