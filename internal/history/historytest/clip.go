package historytest

import (
	"strings"
	"testing"
)

// Clipped checks that text is a long text as a history line over
// history.MaxLine shows it, read clipped: it starts with prefix (the
// text's start, kept), is a few hundred KB at most, and ends in the note
// that says it was clipped and how long it was (size, as "12.0 MB").
func Clipped(tb testing.TB, text, prefix, size string) {
	tb.Helper()
	note := "…\n\n[paddock clipped this text: it is " + size + ", the first 256 KB are shown]"
	if !strings.HasPrefix(text, prefix) || !strings.HasSuffix(text, note) || len(text) > 300<<10 {
		tb.Errorf("clipped text of %d bytes: %.40q … %q; want %.40q … %q",
			len(text), text, text[max(len(text)-len(note), 0):], prefix, note)
	}
}

// LongText is a text of n bytes of "y", with some words first, for a
// line over history.MaxLine; Clipped checks what is shown of it.
func LongText(n int) string {
	const words = "the start of a long paste "
	return words + strings.Repeat("y", n-len(words))
}
