package hookstate

import (
	"strings"
	"time"
)

// The state machine's default timings. Config fields left zero take these
// values.
const (
	DefaultPromptingQuiet = 30 * time.Second // prompting, no hook and no output → waiting
	DefaultWaitingIdle    = 5 * time.Minute  // waiting → idle
	DefaultDialogIdle     = 10 * time.Minute // approval/input → idle unless reported open
	DefaultWorkingIdle    = 15 * time.Minute // working without a hook → idle (lost end event)
	DefaultConnectingIdle = 30 * time.Second // connecting → idle (Claude Code, Codex)
	// DefaultRecheck is how soon a timer whose correction was held back by a
	// fact (a dialog reported open, tool children running) asks to be looked
	// at again.
	DefaultRecheck = 5 * time.Second
	// DefaultProcessCheckInterval is the process-check interval: how
	// often the owner should check processes and call Tick with the result.
	// The machine itself schedules no process checks.
	DefaultProcessCheckInterval = 15 * time.Second
)

// Config holds the machine's settings. The zero Config has the default
// timings above.
type Config struct {
	Density        Density
	PromptingQuiet time.Duration
	WaitingIdle    time.Duration
	DialogIdle     time.Duration
	WorkingIdle    time.Duration
	ConnectingIdle time.Duration
	Recheck        time.Duration
	// ToolTimeouts overrides ToolTimeout per tool name (case-insensitive).
	// A zero or negative duration switches inference off for that tool.
	ToolTimeouts map[string]time.Duration
	// ReadBaseline is the initial read baseline of new machines (the first
	// run marks existing history read). Results at or
	// before it are not unread.
	ReadBaseline time.Time
	// Rules are the agents' rules by agent name; an agent not listed
	// follows DefaultRules.
	Rules map[string]Rules
}

func (c Config) rules(runtime string) Rules {
	if r, ok := c.Rules[runtime]; ok {
		return r
	}
	return DefaultRules
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.PromptingQuiet, DefaultPromptingQuiet)
	def(&c.WaitingIdle, DefaultWaitingIdle)
	def(&c.DialogIdle, DefaultDialogIdle)
	def(&c.WorkingIdle, DefaultWorkingIdle)
	def(&c.ConnectingIdle, DefaultConnectingIdle)
	def(&c.Recheck, DefaultRecheck)
	if c.Density == "" {
		c.Density = DensityMedium
	}
	return c
}

// toolTimeout is the inference delay for a tool, and whether it has one.
func (c Config) toolTimeout(tool string) (time.Duration, bool) {
	if d, ok := c.ToolTimeouts[strings.ToLower(tool)]; ok {
		return d, d > 0
	}
	return ToolTimeout(tool), true
}

// toolClass groups tools that share an inference delay.
type toolClass int8

const (
	classOther    toolClass = iota // unknown tools: 8 s
	classFile                      // Read Write Edit Grep Glob NotebookEdit …: 3 s
	classQuestion                  // AskUserQuestion EnterPlanMode ExitPlanMode …: 3 s, → input
	classWeb                       // WebFetch WebSearch: 15 s
	classShell                     // Bash and other shells: 8 s
	classAgent                     // Task / Agent (subagents): 8 s
	classMCP                       // mcp__server__tool: 15 s
)

func classify(tool string) toolClass {
	n := strings.ToLower(tool)
	switch n {
	case "read", "write", "edit", "multiedit", "grep", "glob", "notebookedit",
		"apply_patch", "patch", "ls", "list", "view_image":
		return classFile
	case "askuserquestion", "enterplanmode", "exitplanmode",
		"request_user_input", "question", "plan_enter", "plan_exit":
		return classQuestion
	case "webfetch", "websearch", "web_search", "web_fetch", "fetchurl", "fetch":
		return classWeb
	case "bash", "shell", "powershell", "exec_command", "run_shell_command", "local_shell":
		return classShell
	case "task", "agent":
		return classAgent
	}
	if strings.HasPrefix(n, "mcp__") || strings.HasPrefix(n, "mcp:") {
		return classMCP
	}
	return classOther
}

// editTools are the file tools acceptEdits approves by itself.
func isEditTool(tool string) bool {
	switch strings.ToLower(tool) {
	case "write", "edit", "multiedit", "notebookedit", "apply_patch", "patch":
		return true
	}
	return false
}

// IsQuestionTool reports whether a dialog for this tool waits for an answer
// (input) rather than an approval: AskUserQuestion, EnterPlanMode,
// ExitPlanMode, Codex request_user_input, OpenCode question/plan tools.
func IsQuestionTool(tool string) bool { return classify(tool) == classQuestion }

// ToolTimeout is the inference delay for a tool: Read, Write, Edit,
// Grep, Glob, NotebookEdit 3 s; AskUserQuestion, EnterPlanMode,
// ExitPlanMode 3 s; WebFetch, WebSearch 15 s; Bash, Task 8 s. Names are
// matched case-insensitively with the other runtimes' spellings (OpenCode
// and Pi "bash", Codex exec_command/apply_patch, Cursor Shell, Kimi
// FetchURL, Agent = Task).
//
// MCP tools (mcp__…), which have no delay of their own, get 15 s like the
// web tools, since they are remote calls and often slow; every other tool 8 s
// like Bash — long enough for tools that never ask (TodoWrite, Skill, …) to
// finish, short enough to notice a dialog.
func ToolTimeout(tool string) time.Duration {
	switch classify(tool) {
	case classFile, classQuestion:
		return 3 * time.Second
	case classWeb, classMCP:
		return 15 * time.Second
	}
	return 8 * time.Second
}

// inferenceOff reports whether the permission mode switches a tool's
// inference timer off: bypassPermissions and dontAsk turn off the
// timers of tools that need permission. Decisions: question and plan tools
// are user dialogs, not permissions, so bypassPermissions keeps their timer
// (dontAsk denies them outright, so it does not); "auto" (Claude's
// classifier mode, the default of 2.1.328) never shows a permission dialog
// and is treated like bypassPermissions; acceptEdits approves file edits by
// itself, so edit tools get no timer there.
func inferenceOff(mode, tool string) bool {
	switch mode {
	case "dontAsk":
		return true
	case "bypassPermissions", "auto":
		return !IsQuestionTool(tool)
	case "acceptEdits":
		return isEditTool(tool)
	}
	return false
}
