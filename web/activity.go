package web

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/labstack/echo/v5"

	"paddock/internal/agent"
	"paddock/internal/board"
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
	ctx := c.Request().Context()
	evs, err := s.opts.Board.Events(ctx, k)
	if err != nil {
		return err
	}
	a := activity(evs, s.opts.Agents.UIOf(k.Runtime), sessionURL(k))
	if e, err := s.opts.Board.Get(ctx, k); err == nil && s.canReview(e) && slices.ContainsFunc(a.Items, func(it views.ActivityItem) bool { return len(it.Diff) > 0 }) {
		a.ReviewURL = sessionURL(k) + "/review" // only a diff can be reviewed
	}
	return s.render(c, http.StatusOK, views.ActivityPanel(a))
}

// canReview says whether a review can reach the session: it runs in
// paddock's own terminal, which takes messages.
func (s *Server) canReview(e board.Entry) bool {
	return s.opts.Hosting != nil && e.Card != nil && e.Card.TerminalID != "" && !e.Over()
}

// activity pairs each tool result with its call (by id, else the latest
// call still without one: some agents write no id) and keeps the newest.
// An image a tool returned goes with its call; one the person attached
// is an entry of its own. base is the session page's address.
func activity(evs []session.Event, ui agent.UI, base string) views.Activity {
	var items []views.ActivityItem
	byID := map[string]int{}
	images := 0
	for _, e := range evs {
		switch e.Kind {
		case session.EventImage:
			img := activityImage(e, images, base)
			images++
			if i, ok := byID[e.ToolID]; ok && e.ToolID != "" {
				items[i].Images = append(items[i].Images, img)
				continue
			}
			items = append(items, views.ActivityItem{Attached: true, Role: e.Role, Images: []views.ActivityImage{img}})
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
					if !items[j].Thinking && !items[j].Attached && !items[j].HasOutput {
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
	if fe.Patch != "" {
		return diffLines(fe.Patch, fe.File, true)
	}
	var b strings.Builder
	whole := true // every part writes a whole file: its line numbers are the file's
	for i := range fe.Old {
		b.WriteString(udiff.Unified("a/"+strings.TrimPrefix(fe.File, "/"), "b/"+strings.TrimPrefix(fe.File, "/"), fe.Old[i], fe.New[i]))
		whole = whole && fe.Old[i] == ""
	}
	return diffLines(b.String(), fe.File, whole)
}

// hunkStart reads a unified hunk header's first lines, "@@ -12,3 +14,4 @@".
var hunkStart = regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@`)

// diffLines is a diff's text as lines marked for the page, each with the
// file and line it stands for: file is the edit's own, else what a patch
// names ("*** Update File: …"). Line numbers come from the hunk headers,
// and only when numbered: a replacement's diff counts from the replaced
// text, not the file, which the call does not hold.
func diffLines(text, file string, numbered bool) []views.DiffLine {
	var out []views.DiffLine
	oldNo, newNo := 0, 0
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
		d := views.DiffLine{Kind: kind, Text: l, File: file}
		switch kind {
		case "hunk":
			for _, p := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
				if f, ok := strings.CutPrefix(l, p); ok {
					file, oldNo, newNo = f, 0, 0
				}
			}
			if m := hunkStart.FindStringSubmatch(l); m != nil && numbered {
				oldNo, _ = strconv.Atoi(m[1])
				newNo, _ = strconv.Atoi(m[2])
			} else if strings.HasPrefix(l, "@@") {
				oldNo, newNo = 0, 0
			}
		case "add":
			if newNo > 0 {
				d.Line = newNo
				newNo++
			}
		case "del":
			if oldNo > 0 {
				d.Line = oldNo
				oldNo++
			}
		default:
			if newNo > 0 {
				d.Line = newNo
				oldNo, newNo = oldNo+1, newNo+1
			}
		}
		out = append(out, d)
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
