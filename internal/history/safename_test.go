package history

import (
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	tests := []struct {
		name string
		max  int
		want bool
	}{
		{"14d07547-4535-40bc-9800-7f7c499cfab7", 128, true},
		{"ses_01ABCxyz", 128, true},
		{"a", 1, true},
		{"ab", 1, false},
		{strings.Repeat("a", 128), 128, true},
		{strings.Repeat("a", 129), 128, false},
		{"", 128, false},
		{"..", 128, false},
		{"a.b", 128, false},
		{"../etc", 128, false},
		{`a\b`, 128, false},
		{"a/b", 128, false},
		{"a*", 128, false},
		{"a?", 128, false},
		{"[a]", 128, false},
		{"a b", 128, false},
		{"a\x00", 128, false},
		{"é", 128, false},
	}
	for _, tt := range tests {
		if got := SafeName(tt.name, tt.max); got != tt.want {
			t.Errorf("Valid(%q, %d) = %v, want %v", tt.name, tt.max, got, tt.want)
		}
	}
}
