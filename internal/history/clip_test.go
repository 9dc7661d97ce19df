package history

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRunes(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"", 5, ""},
		{"hello", 5, "hello"},
		{"hello!", 5, "hell…"},
		{"héllo wörld", 7, "héllo…"}, // the space before the cut goes
		{"日本語のテキスト", 4, "日本語…"},
		{"abc", 1, "…"},
		{"abc", 0, "abc"},
		{"abc", -1, "abc"},
		{"\xff\xfeabc", 3, "\xff\xfe…"}, // invalid bytes count as one rune each
	}
	for _, tt := range tests {
		if got := ClipRunes(tt.s, tt.max); got != tt.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"  fix\tthe\n\n  bug \r\n", 100, "fix the bug"},
		{"one\ntwo three", 7, "one tw…"},
		{"one two", 5, "one…"},
		{"\n\t ", 10, ""},
	}
	for _, tt := range tests {
		if got := ClipLine(tt.s, tt.max); got != tt.want {
			t.Errorf("Line(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
}

func TestOutputAndJSON(t *testing.T) {
	if got := ClipOutput("short"); got != "short" {
		t.Errorf("Output kept %q", got)
	}
	long := strings.Repeat("é", MaxOutput) // 2 bytes a rune
	got := ClipOutput(long)
	if len(got) > MaxOutput || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("Output of %d bytes: %d bytes, valid %v", len(long), len(got), utf8.ValidString(got))
	}
	if got := ClipJSON([]byte("{ \"a\" : [1, 2] }")); got != `{"a":[1,2]}` {
		t.Errorf("JSON %q", got)
	}
	if got := ClipJSON(nil); got != "" {
		t.Errorf("JSON of nothing %q", got)
	}
	if got := ClipJSON([]byte("{\"a\":\"\xff\"}")); !utf8.ValidString(got) {
		t.Errorf("JSON kept invalid UTF-8: %q", got)
	}
}
