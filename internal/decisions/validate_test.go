package decisions_test

import (
	"strings"
	"testing"

	"paddock/internal/decisions"
)

func TestSplitLabels(t *testing.T) {
	extras := []string{"Auth", "Cache, LRU", "Cache", "LRU, big"}
	for _, tc := range []struct {
		labels []string
		multi  bool
		answer string
		want   string // labels joined with "|"
		ok     bool
	}{
		{extras, true, "Auth", "Auth", true},
		{extras, true, "Auth, Cache", "Auth|Cache", true},
		{extras, true, "Cache, LRU", "Cache, LRU", true},
		{extras, true, "Cache, LRU, big", "Cache|LRU, big", true},
		{extras, true, "Cache, LRU, Auth", "Cache, LRU|Auth", true},
		{extras, true, "Auth, ", "", false},
		{extras, true, ", Auth", "", false},
		{extras, true, "Auth,Cache", "", false},
		{extras, true, "Aut", "", false},
		{extras, true, "", "", false},
		{extras, true, "Auth, Nope", "", false},
		// The greedy split ("A, B" then "C") names no option.
		{[]string{"A", "A, B", "B, C"}, true, "A, B, C", "A|B, C", true},
		// Both splits fit: the longest label wins.
		{[]string{"A", "B", "A, B"}, true, "A, B", "A, B", true},
		{[]string{"A", "B", "A, B"}, true, "A, B, A", "A, B|A", true},
		{extras, false, "Cache, LRU", "Cache, LRU", true},
		{extras, false, "Auth, Cache", "", false},
		{extras, false, "", "", false},
	} {
		q := decisions.Question{Question: "Q?", MultiSelect: tc.multi}
		for _, l := range tc.labels {
			q.Options = append(q.Options, decisions.Option{Label: l})
		}
		got, ok := decisions.SplitLabels(tc.answer, q)
		if strings.Join(got, "|") != tc.want || ok != tc.ok {
			t.Errorf("SplitLabels(%q, %q, multi %v) = %q, %v; want %q, %v", tc.answer, tc.labels, tc.multi, got, ok, tc.want, tc.ok)
		}
	}
}
