package claude

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"paddock/internal/decisions"
	"paddock/internal/decisions/hold"
	"paddock/internal/hookstate"
)

// Claude Code's PermissionRequest hook runs while Claude shows its own
// dialog, and whichever answers first wins: it takes allow (with the
// suggested permanent rules for "always"), deny with a message, and for
// AskUserQuestion an allow whose updatedInput carries the answers. In the
// permission modes that ask nothing (auto, dontAsk, bypassPermissions) a
// question arrives only as PreToolUse, answered there (verified on
// 2.1.328).

// holdFor bounds how long a prompt waits for the phone: below the 600 s
// timeout `paddock hooks install` gives the hook, so the hold always ends
// first. Claude shows its own dialog meanwhile, so a long hold costs
// nothing.
const holdFor = 570 * time.Second

// Tools with a card of their own.
const (
	toolQuestion = "AskUserQuestion"
	toolPlan     = "ExitPlanMode"
)

// questionsSkipPermissionRequest are the permission modes in which
// AskUserQuestion fires no PermissionRequest: paddock answers the question
// at PreToolUse instead.
var questionsSkipPermissionRequest = map[string]bool{"auto": true, "dontAsk": true, "bypassPermissions": true}

func policy() hold.Policy {
	return hold.Policy{
		Events:    []string{"PermissionRequest", "PreToolUse"},
		Hold:      holdFor,
		Unwatched: true,
		Held:      held,
		MayHold:   mayHold,
		Item:      item,
		Encode:    encode,
		Scope:     scope,
	}
}

// held: every PermissionRequest; at PreToolUse only a question Claude
// will not ask through PermissionRequest, and only while someone may
// answer on the phone (else Claude's own question at once).
func held(ev hookstate.Event, r hold.Request, watching bool) bool {
	if ev.Name != "PreToolUse" {
		return true
	}
	return r.Tool == toolQuestion && questionsSkipPermissionRequest[ev.PermissionMode] && watching
}

// mayHold is held as the relay sees it, from the payload alone (it
// cannot know whether someone watches): a PreToolUse is held only for a
// question in a mode that asks no PermissionRequest. Every other tool
// call's PreToolUse — nearly all of them — fails open at once.
func mayHold(event string, payload []byte) bool {
	if event != "PreToolUse" {
		return true
	}
	var p struct {
		Tool string `json:"tool_name"`
		Mode string `json:"permission_mode"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return false
	}
	return p.Tool == toolQuestion && questionsSkipPermissionRequest[p.Mode]
}

// item: an approval (allow, deny, and "always" when Claude offered
// permanent rules), a question card for AskUserQuestion, a plan card for
// ExitPlanMode.
func item(_ hookstate.Event, r hold.Request) decisions.Item {
	it := hold.BaseItem(r)
	switch r.Tool {
	case toolQuestion:
		it.Kind, it.Can, it.FreeText = decisions.KindQuestion, []string{decisions.VerbAnswer, decisions.VerbDeny}, true
		it.Questions = hold.Questions(r.Input)
	case toolPlan:
		it.Kind, it.Can = decisions.KindPlan, []string{decisions.VerbAllow, decisions.VerbDeny}
	default:
		it.Can = []string{decisions.VerbAllow, decisions.VerbDeny}
		if len(r.Suggestions) > 0 && string(r.Suggestions) != "[]" {
			it.Suggestions = r.Suggestions
			it.Can = append(it.Can, decisions.VerbAlways)
		}
	}
	return it
}

func encode(r hold.Request, out decisions.Outcome) []byte {
	if r.Event == "PreToolUse" {
		return preToolUseEncode(r, out)
	}
	switch out.Item.Resolution {
	case decisions.Allowed:
		return hold.PermissionRequestOutput(hold.ProtocolDecision{Behavior: "allow"})
	case decisions.Always:
		return hold.PermissionRequestOutput(hold.ProtocolDecision{Behavior: "allow", UpdatedPermissions: r.Suggestions})
	case decisions.Denied:
		msg := out.Item.Message
		if msg == "" {
			msg = hold.DenyMessage
			if out.Item.Kind == decisions.KindPlan {
				msg = "The user wants you to keep planning."
			}
		}
		return hold.PermissionRequestOutput(hold.ProtocolDecision{Behavior: "deny", Message: msg})
	case decisions.Answered:
		// updatedInput replaces the whole input: the original questions
		// with the answers beside them, keyed by question text.
		updated := hold.WithAnswers(r.Input, out.Item.Answers)
		if updated == nil {
			return nil
		}
		return hold.PermissionRequestOutput(hold.ProtocolDecision{Behavior: "allow", UpdatedInput: updated})
	}
	return nil // answered at the desk, expired, withdrawn: no decision
}

// preToolUseEncode answers an AskUserQuestion intercepted at PreToolUse:
// allow with the answers in updatedInput, or deny; nothing else lets
// Claude show the question in its terminal.
func preToolUseEncode(r hold.Request, out decisions.Outcome) []byte {
	o := map[string]any{"hookEventName": "PreToolUse"}
	switch out.Item.Resolution {
	case decisions.Answered:
		updated := hold.WithAnswers(r.Input, out.Item.Answers)
		if updated == nil {
			return nil
		}
		o["permissionDecision"], o["updatedInput"] = "allow", updated
	case decisions.Denied:
		o["permissionDecision"], o["permissionDecisionReason"] = "deny", hold.DenyText(out)
	default:
		return nil
	}
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": o})
	return b
}

// scope spells out what "Always allow" grants when the user taps it:
// the permission_suggestions, in words, so the user sees the scope before
// tapping. "" when there are none or they do not decode.
func scope(suggestions json.RawMessage) string {
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
