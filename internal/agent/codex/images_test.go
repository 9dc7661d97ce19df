package codex

import (
	"slices"
	"testing"

	"paddock/internal/session"
	"paddock/internal/testkit/imagetest"
)

// TestEventsImages, in the shapes Codex 0.169.0 wrote for `codex exec -i
// red.png` and for a view_image call: the attached image follows the
// prompt, which is shown once and without Codex's <image …> framing
// (the UserMessage item repeats it with only the image's path); the
// returned one follows its call's output.
func TestEventsImages(t *testing.T) {
	const sid = "c0ffee00-0000-4000-8000-0000000000a1"
	dataURL := "data:image/png;base64," + imagetest.RedPNG
	h := newHome(t)
	h.rollout(sid, t0, lines(
		meta(0, sid, "/p"),
		env(1, "response_item", map[string]any{"type": "message", "role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": `<image name=[Image #1] path="/p/red.png">`},
			map[string]any{"type": "input_image", "image_url": dataURL, "detail": "high"},
			map[string]any{"type": "input_text", "text": "</image>"},
			map[string]any{"type": "input_text", "text": "what is in this picture"}}}),
		env(1, "event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "UserMessage", "content": []any{
			map[string]any{"type": "local_image", "path": "/p/red.png"}, map[string]any{"type": "text", "text": "what is in this picture"}}}}),
		env(2, "response_item", map[string]any{"type": "function_call", "name": "view_image", "arguments": `{"path":"/p/red.png"}`, "call_id": "v1"}),
		env(3, "response_item", map[string]any{"type": "function_call_output", "call_id": "v1", "output": []any{
			map[string]any{"type": "input_image", "image_url": dataURL, "detail": "high"}}}),
		respMsg(4, "assistant", "Red."),
	)...)
	s := newTestScanner(h.dir)
	evs := eventsOf(t, s, sid)
	checkEvents(t, s, sid, evs)
	var got []string
	for _, e := range evs {
		got = append(got, e.Kind+" "+e.Role+" "+e.ToolID+" "+e.MediaType+" "+e.Text)
		if e.Kind == session.EventImage && e.Data != string(imagetest.RedPNGBytes()) {
			t.Errorf("image of %d bytes, want the PNG's", len(e.Data))
		}
	}
	want := []string{"message user   what is in this picture", "image user  image/png ", "tool_call  v1  ",
		"tool_result  v1  ", "image  v1 image/png ", "message assistant   Red."}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got  %q\n want %q", got, want)
	}
}
