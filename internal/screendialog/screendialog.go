// Package screendialog reads an agent's approval or question dialog from a
// captured tmux screen (capture-pane -p -J: plain text, no colours) and
// says which keys answer it. It is paddock's fallback for hosted sessions
// with no hook channel: the caller captures the pane, checks with Matches
// that it still shows the dialog its pending item describes, and only then
// sends Keys.
//
// What an agent's dialogs look like, and which keys answer them, is that
// agent's Reader, in its own package: it recognises only the dialogs
// recorded from the agent's pinned CLI, and checks each one's whole
// layout, from its title to its footer at the bottom of the screen. This
// package is what every Reader shares: it splits the screen into lines,
// refuses any dialog no parser could have produced, fingerprints dialogs
// for Matches, never chooses a free-text option, and lets only
// allowlisted keys out. Anything else — another dialog, a half-drawn one,
// a review page, a dialog left on the screen of a CLI that has exited —
// is "no dialog": pressing keys into the wrong prompt costs far more than
// a dialog left for the desk.
//
// It is pure: it never captures, never sends keys, and keeps no state.
package screendialog

import (
	"slices"
	"strings"
	"unicode"
)

// Kind says what a dialog asks for.
type Kind string

const (
	Approval Kind = "approval"
	Question Kind = "question"
)

// Dialog is what an agent's screen asks.
type Dialog struct {
	Runtime  string // the agent's name, as Readers know it; set by Detect
	Kind     Kind
	Tool     string   // e.g. "Bash" when the screen says so; "" when unknown
	Command  string   // the command or path the dialog shows, whitespace-normalised; "" when none
	Question string   // Kind Question: the question text
	Options  []string // the choices as the screen lists them, in order (approval: "Yes", "Yes, and always …", "No …"; question: the option labels)
	// Fingerprint identifies this dialog instance for Matches: the normalised command/question plus options.
	Fingerprint string
}

// Verbs Keys understands.
const (
	VerbAllow  = "allow"
	VerbDeny   = "deny"
	VerbAlways = "always"
	VerbAnswer = "answer"
)

// Parser reads one kind of dialog from a screen's lines (trailing blanks
// trimmed, trailing empty lines dropped). It says ok only when the whole
// layout it knows is there, down to the footer at the bottom, and leaves
// Runtime and Fingerprint empty: Detect sets them.
type Parser func(lines []string) (Dialog, bool)

// Reader is one agent's part of reading its screen: the dialogs recorded
// from its CLI and the keys that answer them. The agent's own package
// builds it.
type Reader struct {
	// Parsers are tried in order; the first to read a dialog decides.
	Parsers []Parser
	// Keys are the tmux key names that answer d, one of this agent's
	// dialogs, with verb (and for VerbAnswer the chosen option's index,
	// 0-based, in choice); ok is false when the dialog cannot be answered
	// that way. d is already known to be plausible, and keys outside
	// the allowlist are refused whatever Keys returns.
	Keys func(d Dialog, verb string, choice int) (keys []string, ok bool)
	// FreeText are the option labels (normalised) its question pickers
	// add that open an editor or a chat instead of answering: the keys
	// that follow would be typed into it.
	FreeText []string
}

// Readers are the agents' Readers by agent name: the dialogs Detect, Keys
// and Matches know. An agent not in it shows no dialog paddock answers.
type Readers map[string]Reader

// Detect reads screen for runtime's dialog; ok is false when the screen
// shows none (or runtime has no Reader).
func (rs Readers) Detect(runtime, screen string) (Dialog, bool) {
	r, ok := rs[runtime]
	if !ok {
		return Dialog{}, false
	}
	ls := screenLines(screen)
	for _, parse := range r.Parsers {
		if d, ok := parse(ls); ok {
			d.Runtime = runtime
			if !rs.plausible(d) {
				return Dialog{}, false
			}
			d.Fingerprint = fingerprint(d)
			return d, true
		}
	}
	return Dialog{}, false
}

// Keys are the tmux key names (as `tmux send-keys` takes them, e.g.
// "Enter", "Escape", "Down", "1") that answer d with verb: "allow" (once),
// "deny", "always" (where the dialog offers it), or for a question
// "answer" with the chosen option's index (0-based) in choice. ok is false
// when the dialog cannot be answered that way (no such option).
//
// No option is chosen whose label any Reader lists as free text, in
// whichever agent's dialog it appears: the other options are the model's
// own words, and one that reads like an agent's editor entry is left for
// the desk rather than risk typing the next keys into an editor.
func (rs Readers) Keys(d Dialog, verb string, choice int) (keys []string, ok bool) {
	r, known := rs[d.Runtime]
	if !known || r.Keys == nil || !rs.plausible(d) {
		return nil, false
	}
	if verb == VerbAnswer && choice >= 0 && choice < len(d.Options) && rs.freeText(d.Options[choice]) {
		return nil, false
	}
	keys, ok = r.Keys(d, verb, choice)
	if !ok || len(keys) == 0 {
		return nil, false
	}
	for _, k := range keys {
		if !allowedKey(k) {
			return nil, false
		}
	}
	return keys, true
}

// Matches reports whether screen still shows the very dialog d (same
// runtime, kind, command/question and options): the check made right
// before sending keys.
func (rs Readers) Matches(d Dialog, screen string) bool {
	if !rs.plausible(d) {
		return false
	}
	want := fingerprint(d)
	if d.Fingerprint != "" && d.Fingerprint != want {
		return false
	}
	got, ok := rs.Detect(d.Runtime, screen)
	return ok && got.Fingerprint == want
}

// fingerprint is the normalised identity of d: runtime, kind, tool,
// command or question, and the options in order. Parts are joined by a
// newline, which no normalised part contains.
func fingerprint(d Dialog) string {
	parts := []string{d.Runtime, string(d.Kind), Norm(d.Tool), Norm(d.Command), Norm(d.Question)}
	for _, o := range d.Options {
		parts = append(parts, Norm(o))
	}
	return strings.Join(parts, "\n")
}

// plausible rejects a Dialog no parser could have produced: one of an
// agent without a Reader, an approval without a command, a question
// without its text, fewer than two options or more than nine (digits
// answer them).
func (rs Readers) plausible(d Dialog) bool {
	if _, ok := rs[d.Runtime]; !ok {
		return false
	}
	if len(d.Options) < 2 || len(d.Options) > 9 {
		return false
	}
	for _, o := range d.Options {
		if Norm(o) == "" {
			return false
		}
	}
	switch d.Kind {
	case Approval:
		return Norm(d.Command) != ""
	case Question:
		return Norm(d.Question) != ""
	}
	return false
}

// freeText reports whether any Reader lists option as free text.
func (rs Readers) freeText(option string) bool {
	option = Norm(option)
	for _, r := range rs {
		if slices.Contains(r.FreeText, option) {
			return true
		}
	}
	return false
}

// allowedKey is the set of key names paddock's tmux layer accepts that
// this package may return.
func allowedKey(k string) bool {
	switch k {
	case "Enter", "Escape", "Tab", "Up", "Down", "Left", "Right",
		"1", "2", "3", "4", "5", "6", "7", "8", "9", "y", "n":
		return true
	}
	return false
}

// screenLines splits a captured screen into lines with trailing blanks
// (and any carriage return) trimmed, and the trailing empty lines dropped.
func screenLines(screen string) []string {
	ls := strings.Split(screen, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	end := len(ls)
	for end > 0 && ls[end-1] == "" {
		end--
	}
	return ls[:end]
}
