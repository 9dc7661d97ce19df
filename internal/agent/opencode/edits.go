package opencode

import (
	"encoding/json"

	"paddock/internal/agent"
)

// edit reads OpenCode's file tools: edit (one replacement, or every
// occurrence with replaceAll) and write (the whole new content), whose
// inputs name the file filePath.
func edit(tool, input string) (agent.FileEdit, bool) {
	var in struct {
		FilePath  string `json:"filePath"`
		OldString string `json:"oldString"`
		NewString string `json:"newString"`
		Content   string `json:"content"`
	}
	if json.Unmarshal([]byte(input), &in) != nil || in.FilePath == "" {
		return agent.FileEdit{}, false
	}
	switch tool {
	case "edit":
		return agent.FileEdit{File: in.FilePath, Old: []string{in.OldString}, New: []string{in.NewString}}, true
	case "write":
		return agent.FileEdit{File: in.FilePath, Old: []string{""}, New: []string{in.Content}}, true
	}
	return agent.FileEdit{}, false
}
