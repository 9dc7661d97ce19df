package claude

import "paddock/internal/history"

// maxLineBytes caps one transcript line as it is read: a longer one (a
// 10 MB paste, a stray binary) is clipped while it is read
// (history.LineReader), so one line can never hold the whole file
// hostage, and its record still shows, marked as clipped.
const maxLineBytes = history.MaxLine
