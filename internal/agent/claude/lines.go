package claude

// maxLineBytes caps one transcript line (jsonl.Reader). Longer lines (a
// 10 MB paste, a stray binary) are skipped whole and counted as bad, so
// one line can never hold the whole file hostage.
const maxLineBytes = 8 << 20
