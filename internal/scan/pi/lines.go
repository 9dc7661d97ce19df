package pi

// maxLineBytes caps one session line (jsonl.Reader). A longer line (a
// pasted log, a huge tool result) is skipped whole and counted as bad, so
// no single line can make a read unbounded.
const maxLineBytes = 8 << 20
