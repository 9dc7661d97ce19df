package session

import (
	"encoding/base64"
	"strings"
	"time"
)

// MaxImageBytes is the largest image a session's record carries: a bigger
// one is an EventImage with its size and no data, so one huge screenshot
// cannot make every read of the record hold it.
const MaxImageBytes = 8 << 20

// ImageEvent is the EventImage for an image a history holds as base64
// text, attached by role or returned by the tool call toolID. The data
// is decoded only when it fits MaxImageBytes; ok is false when b64 is
// empty or not base64 (no image is there to show).
func ImageEvent(mediaType, b64, role, toolID string, t time.Time) (Event, bool) {
	b64 = strings.TrimSpace(b64)
	if b64 == "" {
		return Event{}, false
	}
	e := Event{Kind: EventImage, Role: role, ToolID: toolID, MediaType: strings.ToLower(strings.TrimSpace(mediaType)), Time: t,
		Size: base64.StdEncoding.DecodedLen(len(b64))}
	if e.Size > MaxImageBytes {
		return e, true
	}
	enc := base64.StdEncoding
	if !strings.HasSuffix(b64, "=") && len(b64)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	data, err := enc.DecodeString(b64)
	if err != nil || len(data) == 0 {
		return Event{}, false
	}
	e.Data, e.Size = string(data), len(data)
	return e, true
}

// DataURLImage is ImageEvent for a "data:image/png;base64,…" URL, the form
// the OpenAI-style histories keep; ok is false for any other URL (a
// remote or file URL is never fetched).
func DataURLImage(url, role, toolID string, t time.Time) (Event, bool) {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return Event{}, false
	}
	meta, b64, ok := strings.Cut(rest, ",")
	mediaType, isBase64 := strings.CutSuffix(meta, ";base64")
	if !ok || !isBase64 || !strings.HasPrefix(strings.ToLower(mediaType), "image/") {
		return Event{}, false
	}
	return ImageEvent(mediaType, b64, role, toolID, t)
}
