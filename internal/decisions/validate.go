package decisions

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// checkItem validates what Open is given and normalises Can (duplicates
// dropped). Messages name the field, never echo its content.
func checkItem(it *Item) error {
	switch it.Kind {
	case KindApproval, KindPlan:
		if len(it.Questions) > 0 {
			return fmt.Errorf("%w: only a question item carries questions", ErrInvalid)
		}
	case KindQuestion:
		if err := checkQuestions(it.Questions, it.FreeText); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%w: unknown kind %q", ErrInvalid, clip(string(it.Kind)))
	}
	if it.Key.Runtime == "" || it.Key.ID == "" {
		return fmt.Errorf("%w: item has no session (runtime and id are required)", ErrInvalid)
	}
	if it.Resolution != Pending {
		return fmt.Errorf("%w: a new item must be pending", ErrInvalid)
	}
	for _, f := range []struct {
		name string
		v    string
		max  int
	}{
		{"id", it.ID, maxShort},
		{"runtime", it.Key.Runtime, maxShort},
		{"session id", it.Key.ID, maxShort},
		{"tool", it.Tool, maxShort},
		{"tool use id", it.ToolUseID, maxShort},
		{"cwd", it.Cwd, maxCwd},
		{"reason", it.Reason, MaxReason},
	} {
		if err := checkText(f.name, f.v, f.max); err != nil {
			return err
		}
	}
	for _, raw := range []struct {
		name string
		v    json.RawMessage
	}{{"input", it.Input}, {"suggestions", it.Suggestions}} {
		if len(raw.v) > MaxInput {
			return fmt.Errorf("%w: %s is %d bytes, over the %d byte limit", ErrInvalid, raw.name, len(raw.v), MaxInput)
		}
		if len(raw.v) > 0 && !json.Valid(raw.v) {
			return fmt.Errorf("%w: %s is not valid JSON", ErrInvalid, raw.name)
		}
	}
	if len(it.Can) == 0 {
		return fmt.Errorf("%w: item accepts no verb (Can is empty)", ErrInvalid)
	}
	var can []string
	for _, v := range it.Can {
		switch v {
		case VerbAllow, VerbDeny, VerbAlways:
		case VerbAnswer:
			if it.Kind != KindQuestion {
				return fmt.Errorf("%w: only a question can be answered", ErrInvalid)
			}
		default:
			return fmt.Errorf("%w: unknown verb %q", ErrInvalid, clip(v))
		}
		if !slices.Contains(can, v) {
			can = append(can, v)
		}
	}
	it.Can = can
	return nil
}

func checkQuestions(qs []Question, freeText bool) error {
	if len(qs) == 0 {
		return fmt.Errorf("%w: a question item has no questions", ErrInvalid)
	}
	if len(qs) > MaxQuestions {
		return fmt.Errorf("%w: %d questions, over the limit of %d", ErrInvalid, len(qs), MaxQuestions)
	}
	seen := map[string]bool{}
	for i, q := range qs {
		n := i + 1
		if strings.TrimSpace(q.Question) == "" {
			return fmt.Errorf("%w: question %d has no text", ErrInvalid, n)
		}
		if seen[q.Question] {
			return fmt.Errorf("%w: question %d repeats an earlier question's text (answers are keyed by it)", ErrInvalid, n)
		}
		seen[q.Question] = true
		if err := checkText(fmt.Sprintf("question %d", n), q.Question, MaxText); err != nil {
			return err
		}
		if err := checkText(fmt.Sprintf("question %d header", n), q.Header, MaxText); err != nil {
			return err
		}
		if len(q.Options) > MaxOptions {
			return fmt.Errorf("%w: question %d has %d options, over the limit of %d", ErrInvalid, n, len(q.Options), MaxOptions)
		}
		if len(q.Options) == 0 && !freeText {
			return fmt.Errorf("%w: question %d has no options and free text is not allowed", ErrInvalid, n)
		}
		labels := map[string]bool{}
		for j, o := range q.Options {
			if o.Label == "" {
				return fmt.Errorf("%w: question %d option %d has no label", ErrInvalid, n, j+1)
			}
			if labels[o.Label] {
				return fmt.Errorf("%w: question %d repeats option label %d", ErrInvalid, n, j+1)
			}
			labels[o.Label] = true
			if err := checkText(fmt.Sprintf("question %d option %d label", n, j+1), o.Label, MaxText); err != nil {
				return err
			}
			if err := checkText(fmt.Sprintf("question %d option %d description", n, j+1), o.Description, MaxText); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDecision turns a decision into the resolution it makes, keeping
// only the fields its verb uses. The item is pending.
func checkDecision(it *Item, d Decision) (Resolution, Decision, error) {
	if d.By == "" {
		return "", Decision{}, fmt.Errorf("%w: a decision must say who made it", ErrInvalid)
	}
	if err := checkText("decider", d.By, maxShort); err != nil {
		return "", Decision{}, err
	}
	if !slices.Contains(it.Can, d.Verb) {
		return "", Decision{}, fmt.Errorf("%w: this %s cannot take %q (it takes %s)", ErrInvalid, it.Kind, clip(d.Verb), strings.Join(it.Can, ", "))
	}
	out := Decision{Verb: d.Verb, By: d.By}
	switch d.Verb {
	case VerbAllow:
		return Allowed, out, nil
	case VerbAlways:
		return Always, out, nil
	case VerbDeny:
		if err := checkText("message", d.Message, MaxText); err != nil {
			return "", Decision{}, err
		}
		out.Message = d.Message
		return Denied, out, nil
	case VerbAnswer:
		if err := checkAnswers(it, d.Answers); err != nil {
			return "", Decision{}, err
		}
		out.Answers = maps.Clone(d.Answers)
		return Answered, out, nil
	}
	// Unreachable: checkItem admits only the verbs above into Can.
	return "", Decision{}, fmt.Errorf("%w: unknown verb %q", ErrInvalid, clip(d.Verb))
}

func checkAnswers(it *Item, answers map[string]string) error {
	if it.Kind != KindQuestion {
		return fmt.Errorf("%w: only a question can be answered", ErrInvalid)
	}
	for k := range answers {
		if !slices.ContainsFunc(it.Questions, func(q Question) bool { return q.Question == k }) {
			return fmt.Errorf("%w: an answer names a question this item does not ask", ErrInvalid)
		}
	}
	for i, q := range it.Questions {
		n := i + 1
		a, ok := answers[q.Question]
		if !ok || strings.TrimSpace(a) == "" {
			return fmt.Errorf("%w: question %d is not answered", ErrInvalid, n)
		}
		if err := checkText(fmt.Sprintf("answer %d", n), a, MaxText); err != nil {
			return err
		}
		if it.FreeText {
			continue
		}
		if _, ok := SplitLabels(a, q); !ok {
			return fmt.Errorf("%w: answer %d is not one of its question's options", ErrInvalid, n)
		}
	}
	return nil
}

// SplitLabels returns the option labels an answer to q names, and whether
// it names only labels: one label for a single-select question, one or
// more joined with ", " for a multi-select one. It is the split the answer
// was validated with, so a runtime that wants labels back gets exactly
// those. A label may itself contain ", ", so every split is tried (an
// answer is at most MaxText bytes and labels at most MaxOptions); where
// several splits fit, the longest label wins at each step, which is the
// greedy split whenever the greedy split fits.
func SplitLabels(answer string, q Question) ([]string, bool) {
	if !q.MultiSelect {
		for _, o := range q.Options {
			if o.Label == answer {
				return []string{answer}, true
			}
		}
		return nil, false
	}
	const sep = ", "
	// next[i] > i: answer[i:next[i]] is a label and answer[next[i]:] is
	// empty or sep then labels joined with sep; next[i] == 0: no split
	// starts at i.
	next := make([]int, len(answer))
	for i := len(answer) - 1; i >= 0; i-- {
		if i > 0 && !strings.HasSuffix(answer[:i], sep) {
			continue // a label starts only at the beginning or after a separator
		}
		for _, o := range q.Options {
			end := i + len(o.Label)
			if o.Label == "" || end <= next[i] || !strings.HasPrefix(answer[i:], o.Label) {
				continue
			}
			if end == len(answer) || strings.HasPrefix(answer[end:], sep) && end+len(sep) < len(answer) && next[end+len(sep)] > 0 {
				next[i] = end
			}
		}
	}
	if len(answer) == 0 || next[0] == 0 {
		return nil, false
	}
	var labels []string
	for i := 0; ; i = next[i] + len(sep) {
		labels = append(labels, answer[i:next[i]])
		if next[i] == len(answer) {
			return labels, true
		}
	}
}

// checkText bounds a string and refuses what cannot be shown or stored
// faithfully: invalid UTF-8 and NUL.
func checkText(name, v string, max int) error {
	if len(v) > max {
		return fmt.Errorf("%w: %s is %d bytes, over the %d byte limit", ErrInvalid, name, len(v), max)
	}
	if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
		return fmt.Errorf("%w: %s is not valid text", ErrInvalid, name)
	}
	return nil
}

// clip shortens a caller's value quoted in an error.
func clip(s string) string {
	const n = 40
	if len(s) <= n {
		return s
	}
	for i := n; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return ""
}
