package claude

import "testing"

// A multi-line message pasted into Claude Code (as paddock sends one) is
// written between <pasted_content> tags carrying one id; the prompt is
// what was pasted, with what was typed around it.
func TestPastedContentIsThePrompt(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\n\n<pasted_content id=\"42e2\">\nReview of your changes:\n\n1. a.go:1\n</pasted_content id=\"42e2\">\n", "Review of your changes:\n\n1. a.go:1"},
		{"look at this <pasted_content id=\"a1\">\nline one\nline two\n</pasted_content id=\"a1\"> please", "look at this line one\nline two please"},
		{"<pasted_content id=\"a\">\none\n</pasted_content id=\"a\">\n<pasted_content id=\"b\">\ntwo\n</pasted_content id=\"b\">", "one\ntwo"},
		{"<pasted_content id=\"x\">\nno closing tag", "<pasted_content id=\"x\">\nno closing tag"},
		{"plain words", "plain words"},
	} {
		r := record{Type: typeUser, Texts: []string{tc.in}}
		if got, ok := r.prompt(); !ok || got != tc.want {
			t.Errorf("prompt(%q) = %q %v, want %q", tc.in, got, ok, tc.want)
		}
	}
}
