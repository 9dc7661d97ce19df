package kimi

import (
	"encoding/json"

	"paddock/internal/agent"
)

// edit reads Kimi Code's file tools: Edit (one replacement) and Write
// (the whole new content; an append adds to what was there, which the
// call does not hold, so it is shown as the text added).
func edit(tool, input string) (agent.FileEdit, bool) {
	var in struct {
		Path      string `json:"path"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Content   string `json:"content"`
	}
	if json.Unmarshal([]byte(input), &in) != nil || in.Path == "" {
		return agent.FileEdit{}, false
	}
	switch tool {
	case "Edit":
		return agent.FileEdit{File: in.Path, Old: []string{in.OldString}, New: []string{in.NewString}}, true
	case "Write":
		return agent.FileEdit{File: in.Path, Old: []string{""}, New: []string{in.Content}}, true
	}
	return agent.FileEdit{}, false
}
