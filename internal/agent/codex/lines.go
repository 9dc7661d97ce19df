package codex

import "paddock/internal/history"

// maxLineBytes bounds one rollout line as it is read: a longer one (a
// giant tool output, a stray binary) is clipped while it is read
// (history.LineReader) instead of being held in memory, and its record
// still shows, marked as clipped.
const maxLineBytes = history.MaxLine
