package mockmodel

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The reply script (the table is in the package comment). Each API handler
// turns its request into a conversation, decide picks the reply, and the
// handler renders it in its wire format. The texts below are the contract
// tests assert on. Keywords match as whole upper-case words, so "TRUNK" is
// not RUN.
const (
	// ToolFinishedReply answers a request whose last item is a tool result
	// (a command's output, a denial, or an answered question).
	ToolFinishedReply = "Mock reply: tool finished."
	// RunPreamble is the text sent before a shell tool call.
	RunPreamble = "I'll run a command."
	// AskPreamble is the text sent before a question tool call.
	AskPreamble = "I'll ask you a question."
	// EditPreamble is the text sent before a file-writing tool call.
	EditPreamble = "I'll write a file."
	// ViewPreamble is the text sent before an image-reading tool call.
	ViewPreamble = "I'll look at the image."
	// EditDefaultFile is the file an EDIT prompt naming no absolute path
	// writes (relative to the agent's directory).
	EditDefaultFile = "mock_edit.txt"
	// AskQuestion is the question asked for ASK; AskHeader its short label.
	AskQuestion = "Which color do you prefer?"
	AskHeader   = "Color"
	// ScriptedErrorMessage is the error message returned for ERROR.
	ScriptedErrorMessage = "mock: scripted error (the prompt contained ERROR)"
	// titlePrefix starts every title; Codex caps titles at 36 characters.
	titlePrefix   = "Mock title: "
	maxTitleRunes = 36
)

// AskOptions are the answers offered for ASK, as {label, description}.
func AskOptions() [][2]string { return [][2]string{{"Red", "warm"}, {"Blue", "cool"}} }

// PlainReply is the default answer to the turn-th prompt.
func PlainReply(turn int) string { return fmt.Sprintf("Mock reply: done (turn %d).", turn) }

// RunCommand is the shell command run for a RUN prompt in the turn-th turn.
func RunCommand(turn int) string {
	return fmt.Sprintf("echo hello-from-mock-%d >> mock_out.txt && cat mock_out.txt", turn)
}

// EditContent is what an EDIT prompt's file gets in the turn-th turn.
func EditContent(turn int) string {
	return fmt.Sprintf("edited-by-mock-%d\nsecond line of the mock's file\n", turn)
}

// TitleReply is the title given for a conversation starting with prompt:
// "Mock title: " + the prompt's first line, cut to 36 characters.
func TitleReply(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	t := titlePrefix + strings.TrimSpace(line)
	if utf8.RuneCountInString(t) > maxTitleRunes {
		t = string([]rune(t)[:maxTitleRunes])
	}
	return strings.TrimSpace(t)
}

// ReplyKind says what the mock answered.
type ReplyKind string

const (
	KindText  ReplyKind = "text"
	KindTool  ReplyKind = "tool_call"
	KindTitle ReplyKind = "title"
	KindError ReplyKind = "error"
)

// Reply is the decision for one model call, as logged in Request.Reply.
type Reply struct {
	Kind ReplyKind `json:"kind"`
	// Text is the assistant text (the preamble for a tool call, the title,
	// or the error message).
	Text string `json:"text,omitempty"`
	// Tool and Input describe the tool call, if any; ToolID is its id.
	Tool   string          `json:"tool,omitempty"`
	ToolID string          `json:"tool_id,omitempty"`
	Input  json.RawMessage `json:"input,omitempty"`
	// Turn and Prompt are what the script decided from.
	Turn   int    `json:"turn,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	// Slow is set when the reply was held back (SLOW).
	Slow bool `json:"slow,omitempty"`
}

// conversation is the API-neutral view of a request that decide needs.
type conversation struct {
	items []item
	tools []tool
	// title is set when the request is a CLI's title-generation side call;
	// titleJSON when the title must come back as a JSON object (Codex asks
	// for {"title": …} through a json_schema text format).
	title     bool
	titleJSON bool
}

type item struct {
	role       string // "user" or "assistant"
	texts      []string
	toolResult bool
}

// tool is one offered tool: its name and its input schema (nil when the
// request gave none), which the arguments are fitted to.
type tool struct {
	name   string
	schema *schema
}

func newTool(name string, params json.RawMessage) tool {
	return tool{name: name, schema: parseSchema(params)}
}

var (
	reRun   = regexp.MustCompile(`\bRUN\b`)
	reAsk   = regexp.MustCompile(`\bASK\b`)
	reEdit  = regexp.MustCompile(`\bEDIT\b`)
	reView  = regexp.MustCompile(`\bVIEW\b`)
	rePath  = regexp.MustCompile(`(?:^|\s)(/[^\s"']+)`)
	reSlow  = regexp.MustCompile(`\bSLOW\b`)
	reError = regexp.MustCompile(`\bERROR\b`)
)

// isPrompt reports whether a user text is something a person typed rather
// than context the CLI injected.
func isPrompt(text string) bool {
	t := strings.TrimSpace(text)
	return t != "" && !strings.HasPrefix(t, "<")
}

// pastedTags are Claude Code's marks around text pasted into a prompt:
// what is between them is the person's.
var pastedTags = regexp.MustCompile(`</?pasted_content(?: id="[^"]*")?>`)

// promptOf returns the typed (or pasted) text of a user item ("" if it
// has none).
func promptOf(it item) string {
	var parts []string
	for _, t := range it.texts {
		if t = pastedTags.ReplaceAllString(t, ""); isPrompt(t) {
			parts = append(parts, strings.TrimSpace(t))
		}
	}
	return strings.Join(parts, "\n")
}

// decide applies the script. idSeq makes the tool-call id unique.
func decide(c conversation, idSeq int) Reply {
	turn := 0
	for _, it := range c.items {
		if it.role == "user" && promptOf(it) != "" {
			turn++
		}
	}
	// The last meaningful item: injected context after a tool result or a
	// prompt (Kimi appends reminders after the prompt) does not count.
	var last *item
	for i := len(c.items) - 1; i >= 0; i-- {
		it := &c.items[i]
		if it.toolResult || it.role == "assistant" || promptOf(*it) != "" {
			last = it
			break
		}
	}
	if last != nil && last.toolResult {
		return Reply{Kind: KindText, Text: ToolFinishedReply, Turn: turn}
	}
	prompt := ""
	if last != nil && last.role == "user" {
		prompt = promptOf(*last)
	}
	if c.title {
		return Reply{Kind: KindTitle, Text: TitleReply(titleSubject(prompt)), Turn: turn, Prompt: prompt}
	}
	r := Reply{Kind: KindText, Text: PlainReply(turn), Turn: turn, Prompt: prompt}
	switch {
	case reError.MatchString(prompt):
		r.Kind, r.Text = KindError, ScriptedErrorMessage
	case reRun.MatchString(prompt):
		if t, in, ok := shellCall(c.tools, turn); ok {
			r.Kind, r.Text, r.Tool, r.Input = KindTool, RunPreamble, t, in
		}
	case reAsk.MatchString(prompt):
		if t, in, ok := questionCall(c.tools); ok {
			r.Kind, r.Text, r.Tool, r.Input = KindTool, AskPreamble, t, in
		}
	case reEdit.MatchString(prompt):
		path := EditDefaultFile
		if m := rePath.FindStringSubmatch(prompt); m != nil {
			path = m[1]
		}
		if t, in, ok := writeCall(c.tools, path, EditContent(turn)); ok {
			r.Kind, r.Text, r.Tool, r.Input = KindTool, EditPreamble, t, in
		}
	case reView.MatchString(prompt):
		if m := rePath.FindStringSubmatch(prompt); m != nil {
			if t, in, ok := viewCall(c.tools, m[1]); ok {
				r.Kind, r.Text, r.Tool, r.Input = KindTool, ViewPreamble, t, in
			}
		}
	case reSlow.MatchString(prompt):
		r.Slow = true
	}
	if r.Kind == KindTool {
		r.ToolID = fmt.Sprintf("call_mock_%d", idSeq)
	}
	return r
}

// titleSubject strips the CLIs' title instructions down to the user's
// words: Codex appends the prompt after "User prompt:".
func titleSubject(prompt string) string {
	if _, after, ok := strings.Cut(prompt, "User prompt:"); ok {
		return after
	}
	return prompt
}

// shellTools lists shell tools in preference order with the arguments each
// expects. The arguments are fitted to the offered schema (fitArgs): those
// it does not declare are dropped.
var shellTools = []struct {
	name string
	args func(cmd string) map[string]any
}{
	// Claude Code, Kimi.
	{"Bash", func(cmd string) map[string]any {
		return map[string]any{"command": cmd, "description": "Append a line to mock_out.txt"}
	}},
	// Codex: escalation makes Codex ask for approval even in workspace-write.
	{"exec_command", func(cmd string) map[string]any {
		return map[string]any{"cmd": cmd, "sandbox_permissions": "require_escalated",
			"justification": "Mock wants to append to mock_out.txt"}
	}},
	// Pi, OpenCode.
	{"bash", func(cmd string) map[string]any {
		return map[string]any{"command": cmd, "description": "Append a line to mock_out.txt"}
	}},
	// Older Codex tool names.
	{"shell_command", func(cmd string) map[string]any {
		return map[string]any{"command": cmd, "sandbox_permissions": "require_escalated",
			"justification": "Mock wants to append to mock_out.txt"}
	}},
	{"shell", func(cmd string) map[string]any {
		return map[string]any{"command": []string{"bash", "-lc", cmd}, "sandbox_permissions": "require_escalated",
			"justification": "Mock wants to append to mock_out.txt"}
	}},
	// Qwen Code, Gemini CLI.
	{"run_shell_command", func(cmd string) map[string]any {
		return map[string]any{"command": cmd, "description": "Append a line to mock_out.txt"}
	}},
}

func shellCall(offered []tool, turn int) (string, json.RawMessage, bool) {
	for _, st := range shellTools {
		if t, ok := findTool(offered, st.name); ok {
			return st.name, fitArgs(t, st.args(RunCommand(turn))), true
		}
	}
	return "", nil, false
}

// writeTools are the runtimes' whole-file write tools, each given every
// spelling of the path its family uses; fitArgs keeps the one the
// offered schema defines.
var writeTools = []struct {
	name string
	args func(path, content string) map[string]any
}{
	// Claude Code (file_path), Kimi Code (path).
	{"Write", func(p, c string) map[string]any { return map[string]any{"file_path": p, "path": p, "content": c} }},
	// OpenCode (filePath), Pi (path).
	{"write", func(p, c string) map[string]any { return map[string]any{"filePath": p, "path": p, "content": c} }},
}

func writeCall(offered []tool, path, content string) (string, json.RawMessage, bool) {
	for _, wt := range writeTools {
		if t, ok := findTool(offered, wt.name); ok {
			return wt.name, fitArgs(t, wt.args(path, content)), true
		}
	}
	return "", nil, false
}

// viewTools are the runtimes' tools that read an image file into the
// conversation, in preference order: Kimi Code offers Read too, but its
// Read takes text files only.
var viewTools = []struct {
	name string
	args func(path string) map[string]any
}{
	{"ReadMediaFile", func(p string) map[string]any { return map[string]any{"path": p} }},        // Kimi Code
	{"view_image", func(p string) map[string]any { return map[string]any{"path": p} }},           // Codex
	{"Read", func(p string) map[string]any { return map[string]any{"file_path": p, "path": p} }}, // Claude Code
	{"read", func(p string) map[string]any { return map[string]any{"filePath": p, "path": p} }},  // OpenCode, Pi
}

func viewCall(offered []tool, path string) (string, json.RawMessage, bool) {
	for _, vt := range viewTools {
		if t, ok := findTool(offered, vt.name); ok {
			return vt.name, fitArgs(t, vt.args(path)), true
		}
	}
	return "", nil, false
}

// questionTools are the runtimes' question tools in preference order, each
// with the field its own schema adds to a question.
var questionTools = []struct {
	name  string
	extra map[string]any
}{
	{"AskUserQuestion", map[string]any{"multiSelect": false}},   // Claude Code; Kimi's schema renames it multi_select
	{"request_user_input", map[string]any{"id": "color"}},       // Codex requires a stable id
	{"question", map[string]any{"multiple": false}},             // OpenCode
	{"ask_user_question", map[string]any{"multiSelect": false}}, // fitted to whatever its schema spells
}

// questionCall builds the runtime's own question tool call. The question
// starts in the runtime's usual shape and is then fitted to the schema the
// request offers (see schema.conform): Kimi's AskUserQuestion shares
// Claude's name but spells the flag multi_select and refuses multiSelect. A
// tool whose schema takes one flat question rather than a questions list
// gets the question's fields at the top level.
func questionCall(offered []tool) (string, json.RawMessage, bool) {
	for _, qt := range questionTools {
		t, ok := findTool(offered, qt.name)
		if !ok {
			continue
		}
		var opts []any
		for _, o := range AskOptions() {
			opts = append(opts, map[string]any{"label": o[0], "description": o[1]})
		}
		q := map[string]any{"question": AskQuestion, "header": AskHeader, "options": opts}
		maps.Copy(q, qt.extra)
		args := map[string]any{"questions": []any{q}}
		if !t.schema.defines("questions") && t.schema.defines("question") {
			args = q
		}
		return qt.name, fitArgs(t, args), true
	}
	return "", nil, false
}

func findTool(offered []tool, name string) (tool, bool) {
	for _, t := range offered {
		if t.name == name {
			return t, true
		}
	}
	return tool{}, false
}

// fitArgs fits the arguments to the tool's schema (schema.conform: the
// CLIs refuse keys their schema does not define, at any depth) and encodes
// them.
func fitArgs(t tool, args map[string]any) json.RawMessage {
	var v any
	_ = json.Unmarshal(marshalPlain(args), &v) // to plain JSON values for conform
	return marshalPlain(t.schema.conform(v))
}

// marshalPlain encodes without HTML escaping: the CLIs store tool arguments
// verbatim (Codex's rollout keeps the string), and a real model writes
// "a >> b", not "a \u003e\u003e b".
func marshalPlain(v any) json.RawMessage {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps of strings and slices always encode
	return json.RawMessage(strings.TrimSuffix(b.String(), "\n"))
}
