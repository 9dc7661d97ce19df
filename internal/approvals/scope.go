package approvals

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Scope spells out what "Always allow" grants when the user taps it:
// Claude Code's permission_suggestions, in words, so the user sees the
// scope before tapping (issue 6). "" when there are none or they do not
// decode.
func Scope(suggestions json.RawMessage) string {
	var ss []struct {
		Type        string   `json:"type"`
		Mode        string   `json:"mode"`
		Directories []string `json:"directories"`
		Behavior    string   `json:"behavior"`
		Destination string   `json:"destination"`
		Rules       []struct {
			ToolName    string `json:"toolName"`
			RuleContent string `json:"ruleContent"`
		} `json:"rules"`
	}
	if len(suggestions) == 0 || json.Unmarshal(suggestions, &ss) != nil {
		return ""
	}
	var parts []string
	for _, s := range ss {
		where := destination(s.Destination)
		switch s.Type {
		case "addRules", "replaceRules":
			var rules []string
			for _, r := range s.Rules {
				if r.RuleContent != "" {
					rules = append(rules, fmt.Sprintf("%s(%s)", r.ToolName, r.RuleContent))
				} else {
					rules = append(rules, r.ToolName)
				}
			}
			verb := "allow"
			if s.Behavior != "" {
				verb = s.Behavior
			}
			parts = append(parts, fmt.Sprintf("%s %s %s", verb, strings.Join(rules, ", "), where))
		case "addDirectories":
			parts = append(parts, fmt.Sprintf("allow access to %s %s", strings.Join(s.Directories, ", "), where))
		case "setMode":
			parts = append(parts, fmt.Sprintf("switch to %s mode %s", s.Mode, where))
		default:
			parts = append(parts, fmt.Sprintf("%s %s", s.Type, where))
		}
	}
	return strings.Join(parts, "; ")
}

func destination(d string) string {
	switch d {
	case "session":
		return "for this session"
	case "localSettings":
		return "in this project (your local settings)"
	case "projectSettings":
		return "in this project (shared project settings)"
	case "userSettings":
		return "everywhere (your user settings)"
	}
	return "(" + d + ")"
}
