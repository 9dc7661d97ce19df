package kimi

import (
	"bytes"

	"paddock/internal/history"
)

// maxLineBytes caps one history line as it is read: a longer one (a giant
// paste, a corrupted file without newlines) is clipped while it is read
// (history.LineReader), so it never holds the rest of the file hostage,
// and its record still shows, marked as clipped.
const maxLineBytes = history.MaxLine

// keepTypes returns a jsonl.Reader.KeepLong filter for wire lines: a line whose type is
// seen and not wanted is skipped.
func keepTypes(wanted map[string]bool) func([]byte) bool {
	return func(prefix []byte) bool {
		t, ok := lineType(prefix)
		return !ok || wanted[t]
	}
}

// keepLegacy keeps context lines that may be user or assistant messages.
func keepLegacy(prefix []byte) bool {
	role, ok := legacyRole(prefix)
	return !ok || role == "user" || role == "assistant"
}

// lineType returns the "type" of a kimi-code wire record without decoding
// the line. kimi-code writes every record as JSON.stringify({type, ...}),
// so type is the first member; event records that put it later, and
// anything unusual, return ok == false and are decoded the slow way when
// they are small enough to matter. A type paddock reads comes back as its
// constant, any other as "": this runs on every line, and most lines are
// of types nobody reads.
func lineType(line []byte) (string, bool) {
	const prefix = `{"type":"`
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return "", false
	}
	rest := line[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", false
	}
	return knownType(rest[:end]), true
}

// knownType returns the constant for a record type paddock reads, else "".
func knownType(typ []byte) string {
	switch string(typ) {
	case recMetadata:
		return recMetadata
	case recAppendMessage:
		return recAppendMessage
	case recLoopEvent:
		return recLoopEvent
	case recCompaction:
		return recCompaction
	case recUndo:
		return recUndo
	case recClear:
		return recClear
	case recConfigUpdate:
		return recConfigUpdate
	case recProfileBind:
		return recProfileBind
	case recLLMRequest:
		return recLLMRequest
	case recUsage:
		return recUsage
	case recTurnEnded:
		return recTurnEnded
	}
	return ""
}
