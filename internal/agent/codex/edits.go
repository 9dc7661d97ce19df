package codex

import (
	"encoding/json"
	"strings"

	"paddock/internal/agent"
)

// edit reads Codex's apply_patch, whose input is its own patch format
// ("*** Begin Patch", "*** Update File: …", +/- lines): the page shows it
// as it is. The history holds it as the raw text or as {"input": …}.
func edit(tool, input string) (agent.FileEdit, bool) {
	if tool != "apply_patch" {
		return agent.FileEdit{}, false
	}
	patch := input
	var s string
	var obj struct {
		Input string `json:"input"`
		Patch string `json:"patch"`
	}
	switch {
	case json.Unmarshal([]byte(input), &s) == nil:
		patch = s
	case json.Unmarshal([]byte(input), &obj) == nil && (obj.Input != "" || obj.Patch != ""):
		patch = obj.Input + obj.Patch
	}
	if !strings.Contains(patch, "*** Begin Patch") {
		return agent.FileEdit{}, false
	}
	file := ""
	for _, l := range strings.Split(patch, "\n") {
		for _, p := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(l, p); ok && file == "" {
				file = f
			}
		}
	}
	return agent.FileEdit{File: file, Patch: patch}, true
}
