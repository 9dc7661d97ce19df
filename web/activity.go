package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/labstack/echo/v5"

	"paddock/internal/agent"
	"paddock/internal/history"
	"paddock/internal/session"
	"paddock/views"
)

// activityMax is how many tool calls and thoughts the panel shows (the
// newest); activityOutputMax how much of one output.
const (
	activityMax       = 150
	activityOutputMax = 4000
)

// sessionActivity is the session page's activity panel: the tool calls
// with their output, file edits as diffs, and the visible thinking, read
// from the whole history when the user opens it.
func (s *Server) sessionActivity(c *echo.Context) error {
	k, err := sessionKey(c)
	if err != nil {
		return err
	}
	evs, err := s.opts.Board.Events(c.Request().Context(), k)
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.ActivityPanel(activity(evs, s.opts.Agents.UIOf(k.Runtime))))
}

// activity pairs each tool result with its call (by id, else the latest
// call still without one: some agents write no id) and keeps the newest.
func activity(evs []session.Event, ui agent.UI) views.Activity {
	var items []views.ActivityItem
	byID := map[string]int{}
	for _, e := range evs {
		switch e.Kind {
		case session.EventThinking:
			if strings.TrimSpace(e.Text) != "" {
				items = append(items, views.ActivityItem{Thinking: true, Output: history.ClipBytes(e.Text, activityOutputMax)})
			}
		case session.EventToolCall:
			it := views.ActivityItem{Tool: e.Tool, Summary: toolSummary(e.Input)}
			if ui.Edit != nil {
				if fe, ok := ui.Edit(e.Tool, e.Input); ok {
					it.File, it.Diff = fe.File, editDiff(fe)
					if it.Summary == "" {
						it.Summary = fe.File
					}
				}
			}
			if len(it.Diff) == 0 {
				it.Input = prettyJSON(e.Input)
			}
			if e.ToolID != "" {
				byID[e.ToolID] = len(items)
			}
			items = append(items, it)
		case session.EventToolResult:
			i, ok := byID[e.ToolID]
			if !ok {
				for j := len(items) - 1; j >= 0; j-- {
					if !items[j].Thinking && !items[j].HasOutput {
						i, ok = j, true
						break
					}
				}
			}
			if ok && !items[i].HasOutput {
				items[i].Output, items[i].HasOutput, items[i].IsError = history.ClipBytes(e.Text, activityOutputMax), true, e.IsError
			}
		}
	}
	a := views.Activity{Items: items}
	if len(items) > activityMax {
		a.Omitted, a.Items = len(items)-activityMax, items[len(items)-activityMax:]
	}
	return a
}

// editDiff is a file edit as diff lines: the agent's own patch as it is,
// or a unified diff of each replacement.
func editDiff(fe agent.FileEdit) []views.DiffLine {
	var text string
	if fe.Patch != "" {
		text = fe.Patch
	} else {
		var b strings.Builder
		for i := range fe.Old {
			b.WriteString(udiff.Unified("a/"+strings.TrimPrefix(fe.File, "/"), "b/"+strings.TrimPrefix(fe.File, "/"), fe.Old[i], fe.New[i]))
		}
		text = b.String()
	}
	return diffLines(text)
}

// diffLines is a unified diff's text as lines marked for the page.
func diffLines(text string) []views.DiffLine {
	var out []views.DiffLine
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		kind := "ctx"
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"), strings.HasPrefix(l, "***"):
			kind = "hunk"
		case strings.HasPrefix(l, "+"):
			kind = "add"
		case strings.HasPrefix(l, "-"):
			kind = "del"
		}
		out = append(out, views.DiffLine{Kind: kind, Text: l})
	}
	return out
}

// toolSummary is the one line that says what a call did; a call whose
// input is not JSON shows the input itself.
func toolSummary(input string) string {
	if subj := session.ToolSubject([]byte(input)); subj != "" {
		return history.ClipLine(subj, 120)
	}
	if json.Valid([]byte(input)) {
		return ""
	}
	return history.ClipLine(input, 120)
}

func prettyJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return history.ClipBytes(s, activityOutputMax)
	}
	return history.ClipBytes(indentJSON(v, s), activityOutputMax)
}

// indentJSON is v as indented JSON for people: "<", ">" and "&" as
// themselves (the page escapes them), not \u003c; raw when it fails.
func indentJSON(v any, raw string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return raw
	}
	return strings.TrimRight(b.String(), "\n")
}
