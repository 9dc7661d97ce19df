// Package hookstate is the live session state machine: it turns
// the hook events of every agent runtime (Claude Code, Codex, OpenCode, Kimi,
// Cursor, Pi) into one of the states
//
//	connecting idle prompting working approval input waiting ended asleep
//
// corrected by timeouts and process facts, plus the attention verdict (the
// card's dot) and the per-session latency metrics.
//
// It is pure. It never reads a file, a socket, a process table or the clock,
// and starts no goroutine: everything it knows arrives through Decoders
// (raw hook payloads, read by each agent's Decoder), Machine.Apply (one event at an explicit time) and
// Machine.Tick (an explicit time plus the Facts its owner observed). The
// owner serialises the calls, schedules one timer at NextDeadline instead of
// polling, and persists Snapshots if it wants state to survive a restart.
//
// # Transitions
//
//	SessionStart                     → idle
//	UserPromptSubmit                 → prompting
//	PreToolUse / PostToolUse         → working
//	PermissionRequest                → approval (AskUserQuestion, EnterPlanMode,
//	                                   ExitPlanMode and other question tools → input)
//	Stop                             → waiting
//	SessionEnd                       → ended
//	a new hosted terminal            → connecting until its first hook
//
// and each agent's equivalents (its hooks.go under internal/agent): Codex Interrupt
// and notify agent-turn-complete, OpenCode session.status busy/idle,
// permission.asked/replied and question.asked/replied, Cursor
// beforeSubmitPrompt/afterAgentResponse/stop/beforeShellExecution, Kimi
// TurnStarted/PermissionResult/Interrupt, Pi input/agent_end/tool_call and
// the permission gate's permission_asked/permission_decided.
//
// # Corrections (Tick)
//
//	prompting, no hook and no terminal output for 30 s → waiting
//	waiting 5 min                                     → idle
//	approval/input 10 min, dialog not reported open   → idle
//	working 15 min without a hook                     → idle
//	connecting 30 s (Rules.ConnectingTimesOut)        → idle
//	process gone                                      → ended
//
// # Permission inference
//
// A PreToolUse starts a per-tool timer (ToolTimeout). If no PostToolUse,
// PermissionRequest or other resolution arrives in time the session is taken
// to wait for approval (input for question and plan tools). A tool whose child
// processes are still running is not reported; bypassPermissions and
// dontAsk switch the timers off (and so do Claude's auto mode for every
// tool and acceptEdits for edit tools: neither shows those dialogs); a real
// PermissionRequest overrides inference at once, and at density medium/high
// so does the permission Notification.
package hookstate
