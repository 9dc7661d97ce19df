package codex

// maxLineBytes bounds one rollout line (jsonl.Reader). A longer line (a
// giant tool output, a stray binary) is skipped whole and counted as bad
// instead of being held in memory.
const maxLineBytes = 16 << 20
