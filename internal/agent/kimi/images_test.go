package kimi

import (
	"encoding/json"
	"slices"
	"testing"

	"paddock/internal/session"
	"paddock/internal/testkit/imagetest"
)

// TestEventsImages: the image a ReadMediaFile call returned, in the shape
// Kimi Code 2.1.0 wrote it (a tool.result output list holding an
// image_url part between Kimi's <image> framing), and in a migrated
// context message (kimi-cli's image_url spelling), follows its result.
func TestEventsImages(t *testing.T) {
	dataURL := "data:image/png;base64," + imagetest.RedPNG
	result := loopRec(map[string]any{"type": "tool.result", "toolCallId": "v1", "result": map[string]any{"output": []any{
		map[string]any{"type": "text", "text": `<image path="/p/red.png">`},
		map[string]any{"type": "image_url", "imageUrl": map[string]any{"url": dataURL}},
		map[string]any{"type": "text", "text": "</image>"}}}}, t0+4)
	assistant := `{"type":"context.append_message","message":{"role":"assistant","content":[{"type":"text","text":"Again."}],` +
		`"toolCalls":[{"type":"function","id":"m1","name":"ReadMediaFile","arguments":"{\"path\":\"red.png\"}"}]},"time":` + itoa(t0+20) + `}`
	content, _ := json.Marshal([]any{map[string]any{"type": "image_url", "image_url": map[string]any{"url": dataURL}}})
	toolMsg := `{"type":"context.append_message","message":{"role":"tool","content":` + string(content) + `,"toolCallId":"m1"},"time":` + itoa(t0+21) + `}`
	wire := []string{
		recMeta(t0),
		recUser("VIEW /p/red.png", t0+1),
		recStep("s1", t0+2),
		recToolCall("s1", "v1", t0+3), result,
		recStepEnd("s1", "tool_use", t0+5),
		recUser("migrated", t0+19), assistant, toolMsg,
	}
	home := t.TempDir()
	fake{bucket: bucket, id: "session_i", state: stateJSON("session_i", "/p", "VIEW /p/red.png", t0), wire: wire}.write(t, home)
	s := newTest(home)
	evs := eventsOf(t, s, "session_i")
	checkEvents(t, s, "session_i", evs)
	var got []string
	for _, e := range evs {
		got = append(got, e.Kind+" "+e.ToolID)
		if e.Kind == session.EventImage && (e.Data != string(imagetest.RedPNGBytes()) || e.MediaType != "image/png") {
			t.Errorf("image %s of %d bytes, want the PNG", e.MediaType, len(e.Data))
		}
	}
	want := []string{"message ", "tool_call v1", "tool_result v1", "image v1",
		"message ", "message ", "tool_call m1", "tool_result m1", "image m1"}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got  %q\n want %q", got, want)
	}
}
