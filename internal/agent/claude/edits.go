package claude

import (
	"encoding/json"

	"paddock/internal/agent"
)

// edit reads Claude Code's file tools: Edit (one replacement), MultiEdit
// (several in one file) and Write (the whole new content).
func edit(tool, input string) (agent.FileEdit, bool) {
	var in struct {
		FilePath  string `json:"file_path"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Content   string `json:"content"`
		Edits     []struct {
			OldString string `json:"old_string"`
			NewString string `json:"new_string"`
		} `json:"edits"`
	}
	if json.Unmarshal([]byte(input), &in) != nil || in.FilePath == "" {
		return agent.FileEdit{}, false
	}
	e := agent.FileEdit{File: in.FilePath}
	switch tool {
	case "Edit":
		e.Old, e.New = []string{in.OldString}, []string{in.NewString}
	case "MultiEdit":
		for _, x := range in.Edits {
			e.Old, e.New = append(e.Old, x.OldString), append(e.New, x.NewString)
		}
	case "Write":
		e.Old, e.New = []string{""}, []string{in.Content}
	default:
		return agent.FileEdit{}, false
	}
	return e, len(e.Old) > 0
}
