package pi

import (
	"encoding/json"

	"paddock/internal/agent"
)

// edit reads Pi's file tools: edit (a list of replacements in one file,
// or the older single oldText/newText) and write (the whole new
// content).
func edit(tool, input string) (agent.FileEdit, bool) {
	var in struct {
		Path    string `json:"path"`
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
		Content string `json:"content"`
		Edits   []struct {
			OldText string `json:"oldText"`
			NewText string `json:"newText"`
		} `json:"edits"`
	}
	if json.Unmarshal([]byte(input), &in) != nil || in.Path == "" {
		return agent.FileEdit{}, false
	}
	e := agent.FileEdit{File: in.Path}
	switch tool {
	case "edit":
		for _, x := range in.Edits {
			e.Old, e.New = append(e.Old, x.OldText), append(e.New, x.NewText)
		}
		if in.OldText != "" || in.NewText != "" {
			e.Old, e.New = append(e.Old, in.OldText), append(e.New, in.NewText)
		}
	case "write":
		e.Old, e.New = []string{""}, []string{in.Content}
	default:
		return agent.FileEdit{}, false
	}
	return e, len(e.Old) > 0
}
