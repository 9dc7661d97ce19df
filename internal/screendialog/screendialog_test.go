package screendialog_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"paddock/internal/agent/registry"
	. "paddock/internal/screendialog"
	"paddock/internal/testkit/sharedtest"
)

// screens are the readers of the agents paddock ships: the recorded
// screens are read with them.
var screens = registry.Default().Screens()

// The agents whose dialogs were recorded.
const (
	Claude   = "claude"
	Codex    = "codex"
	OpenCode = "opencode"
	Kimi     = "kimi"
)

func Detect(runtime, screen string) (Dialog, bool) { return screens.Detect(runtime, screen) }

func Keys(d Dialog, verb string, choice int) ([]string, bool) { return screens.Keys(d, verb, choice) }

func Matches(d Dialog, screen string) bool { return screens.Matches(d, screen) }

// TestReaders: the agents with recorded dialogs are the ones the tables
// below cover, each with its parsers and keys.
func TestReaders(t *testing.T) {
	if got := slices.Sorted(maps.Keys(screens)); !slices.Equal(got, slices.Sorted(slices.Values(runtimes))) {
		t.Fatalf("readers for %q, want %q", got, runtimes)
	}
	for name, r := range screens {
		if len(r.Parsers) == 0 || r.Keys == nil {
			t.Errorf("%s: reader %+v", name, r)
		}
	}
}

// want is what Detect should read from a recorded screen; the zero value
// means "no dialog" (for every runtime).
type want struct {
	kind    Kind
	tool    string
	text    string // the command (approval) or the question
	options []string
}

func mockCommand(n string) string {
	return "echo hello-from-mock-" + n + " >> mock_out.txt && cat mock_out.txt"
}

// Options as the recorded screens list them.
var (
	claudeOptions = []string{
		"Yes",
		"Yes, and always allow access to /tmp/paddock-screendialog-home/proj from this project",
		"Yes, and switch to auto mode · auto mode handles these prompts for you",
		"No",
	}
	openCodeOptions = []string{"Allow once", "Allow always", "Reject"}
	kimiOptions     = []string{"Approve once", "Approve for this session", "Reject", "Reject with feedback"}
)

func codexOptions(n string) []string {
	return []string{
		"Yes, proceed (y)",
		"Yes, and don't ask again for commands that start with `" + mockCommand(n) + "` (p)",
		"No, and tell Codex what to do differently (esc)",
	}
}

func claudeBash(n string) want {
	return want{kind: Approval, tool: "Bash", text: mockCommand(n), options: claudeOptions}
}
func codexRun(n string) want {
	return want{kind: Approval, text: mockCommand(n), options: codexOptions(n)}
}
func openCodeShell(n string) want {
	return want{kind: Approval, tool: "Shell", text: mockCommand(n), options: openCodeOptions}
}
func kimiRun(n string) want { return want{kind: Approval, text: mockCommand(n), options: kimiOptions} }

const color = "Which color do you prefer?"

// recorded lists every recorded screen, by runtime and directory (testdata/
// here, ../shared/fixtures/real/<cli>/screens there), with what Detect must
// read from it. A screen missing from the table fails the test.
var recorded = []struct {
	runtime string
	shared  bool   // under ../shared/fixtures/real
	dir     string // testdata/<dir> or ../shared/fixtures/real/<dir>/screens
	screens map[string]want
}{
	{Claude, false, "claude-2.1.328", map[string]want{
		"claude-approval-1.txt":                  claudeBash("1"),
		"claude-approval-1-option2-selected.txt": claudeBash("1"), // footer loses "· Tab to amend"
		"claude-approval-2.txt":                  claudeBash("2"),
		"claude-approval-3.txt":                  claudeBash("4"),
		"claude-approval-4.txt":                  claudeBash("5"),
		"claude-approval-narrow.txt":             claudeBash("6"), // 50 columns: command and options wrapped
		"claude-question.txt":                    {kind: Question, text: color, options: []string{"Red", "Blue", "Type something.", "Chat about this"}},
		"claude-question-2.txt":                  {kind: Question, text: color, options: []string{"Red", "Blue", "Type something.", "Chat about this"}},
		"claude-question-option2-selected.txt":   {kind: Question, text: color, options: []string{"Red", "Blue", "Type something.", "Chat about this"}},
		"claude-after-allow-1.txt":               {},
		"claude-after-always-2.txt":              {},
		"claude-after-deny-4.txt":                {},
		"claude-after-escape.txt":                {},
		"claude-after-question-2.txt":            {},
		"claude-after-question-escape.txt":       {},
		"claude-busy.txt":                        {},
		"claude-exit.txt":                        {},
		"claude-idle.txt":                        {},
	}},
	{Codex, false, "codex-0.169.0", map[string]want{
		"codex-approval-1.txt":            codexRun("1"),
		"codex-approval-narrow.txt":       codexRun("1"), // 70 columns: option 2 wrapped
		"codex-question.txt":              {kind: Question, text: color, options: []string{"Red", "Blue", "None of the above"}},
		"codex-after-always-p.txt":        {},
		"codex-after-digit2.txt":          {},
		"codex-after-escape-narrow.txt":   {},
		"codex-idle.txt":                  {},
		"codex-question-after-digit2.txt": {},
	}},
	{OpenCode, false, "opencode-1.18.33", map[string]want{
		"opencode-approval-1.txt":             openCodeShell("1"), // sidebar text on the command's row
		"opencode-approval-1-after-moves.txt": openCodeShell("1"),
		"opencode-approval-narrow.txt":        openCodeShell("1"), // 60 columns: command wrapped, hints below
		"opencode-question.txt":               {kind: Question, text: color, options: []string{"Red", "Blue", "Type your own answer"}},
		"opencode-after-always-burst.txt":     {},
		"opencode-after-always-next-run.txt":  {},
		"opencode-after-question-2.txt":       {},
		"opencode-after-reject-escape.txt":    {},
		"opencode-busy.txt":                   {},
		"opencode-idle.txt":                   {},
	}},
	{Codex, true, "codex-0.169.0", map[string]want{
		"codex-approval-1.txt":                  codexRun("3"),
		"codex-approval-2-before-deny.txt":      codexRun("4"),
		"codex-approval-3-resumed.txt":          codexRun("5"),
		"codex-approval-4-pending.txt":          codexRun("6"),
		"codex-approval-4-option3-selected.txt": codexRun("6"),
		"codex-after-deny-option3.txt":          {},
		"codex-after-deny.txt":                  {},
		"codex-exit.txt":                        {},
		"codex-hook-allowed.txt":                {},
		"codex-hook-denied.txt":                 {},
		"codex-resume-start.txt":                {},
	}},
	{OpenCode, true, "opencode-1.18.33", map[string]want{
		"oc-approval-1.txt":                 openCodeShell("2"),
		"oc-approval-2-reject-selected.txt": openCodeShell("3"),
		"oc-approval-3-always-selected.txt": openCodeShell("4"),
		"oc-approval-3-resumed.txt":         openCodeShell("4"),
		"oc-approval-4-port-tui.txt":        openCodeShell("8"),
		"oc-question.txt":                   {kind: Question, text: color, options: []string{"Red", "Blue", "Type your own answer"}},
		// Colours (capture-pane -e) are not what Detect reads.
		"oc-approval-3-resumed.ansi.txt": {},
		// The second page after "Allow always": Enter there confirms.
		"oc-always-confirm.txt":         {},
		"oc-after-allow.txt":            {},
		"oc-after-api-allow-in-tui.txt": {},
		"oc-after-escape.txt":           {},
		"oc-after-reject.txt":           {},
		"oc-exit.txt":                   {},
		"oc-start.txt":                  {},
	}},
	{Kimi, true, "kimi-code-2.1.0", map[string]want{
		"kimi-approval-1.txt":               kimiRun("3"),
		"kimi-approval-2.txt":               kimiRun("4"),
		"kimi-approval-resumed.txt":         kimiRun("6"),
		"kimi-hook-allow-still-prompts.txt": kimiRun("10"),
		"kimi-subagent-approval.txt":        kimiRun("11"),
		"kimi-question.txt":                 {kind: Question, text: color, options: []string{"Red", "Blue", "Other"}},
		"kimi-approval-1.ansi.txt":          {},
		// The dialog is still drawn, but the CLI was killed: a shell
		// prompt sits below it.
		"kimi-after-kill.txt": {},
		// Option 4's feedback editor is open: digits would be typed.
		"kimi-reject-feedback-typing.txt": {},
		// The review page after choosing.
		"kimi-question-review.txt":          {},
		"kimi-trust-dialog.txt":             {},
		"kimi-after-approve-1.txt":          {},
		"kimi-after-approve-session.txt":    {},
		"kimi-after-first-turn.txt":         {},
		"kimi-after-interrupt.txt":          {},
		"kimi-after-question.txt":           {},
		"kimi-after-reject-3.txt":           {},
		"kimi-after-reject-esc.txt":         {},
		"kimi-after-reject-feedback.txt":    {},
		"kimi-after-subagent.txt":           {},
		"kimi-busy.txt":                     {},
		"kimi-continue-after-kill.txt":      {},
		"kimi-ctrl-c-once.txt":              {},
		"kimi-exit-A-resumed.txt":           {},
		"kimi-exit-A.txt":                   {},
		"kimi-hook-deny.txt":                {},
		"kimi-hook-exit2.txt":               {},
		"kimi-idle-before-first-prompt.txt": {},
		"kimi-resumed-A.txt":                {},
	}},
	// Pi is not a runtime here (its approvals come from paddock's own
	// extension): none of its screens is any runtime's dialog.
	{"pi", true, "pi-0.73.1", map[string]want{
		"pi-after-deny.txt":             {},
		"pi-approval-1.txt":             {},
		"pi-approval-2-No-selected.txt": {},
		"pi-approval-3-continued.txt":   {},
		"pi-continue-start.txt":         {},
		"pi-session-flag.txt":           {},
		"pi-session-info.txt":           {},
		"screen-start.txt":              {},
	}},
}

var runtimes = []string{Claude, Codex, OpenCode, Kimi}

// screenDir is where a recorded directory's screens are.
func screenDir(t *testing.T, shared bool, dir string) string {
	t.Helper()
	if shared {
		return sharedtest.Fixtures(t, "real", dir, "screens")
	}
	return filepath.Join("testdata", dir)
}

func readScreen(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// screen reads one recorded screen of this package's testdata.
func screen(t testing.TB, dir, name string) string {
	t.Helper()
	return readScreen(t, filepath.Join("testdata", dir, name))
}

func TestDetectRecordedScreens(t *testing.T) {
	for _, rec := range recorded {
		name := rec.dir
		if rec.shared {
			name = "shared/" + name
		}
		t.Run(name, func(t *testing.T) {
			dir := screenDir(t, rec.shared, rec.dir)
			files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
			if err != nil || len(files) == 0 {
				t.Fatalf("no screens in %s (%v)", dir, err)
			}
			var listed []string
			for _, f := range files {
				listed = append(listed, filepath.Base(f))
			}
			var inTable []string
			for f := range rec.screens {
				inTable = append(inTable, f)
			}
			sort.Strings(inTable)
			if !slices.Equal(listed, inTable) {
				t.Fatalf("recorded screens and table differ:\n  on disk  %q\n  in table %q", listed, inTable)
			}
			for _, f := range files {
				w := rec.screens[filepath.Base(f)]
				t.Run(filepath.Base(f), func(t *testing.T) {
					s := readScreen(t, f)
					for _, rt := range runtimes {
						d, ok := Detect(rt, s)
						if rt != rec.runtime || w.kind == "" {
							if ok {
								t.Errorf("Detect(%s) read a %s dialog %q %q from a screen with none", rt, d.Kind, d.Command+d.Question, d.Options)
							}
							continue
						}
						if !ok {
							t.Fatalf("Detect(%s) found no dialog; want %s %q", rt, w.kind, w.text)
						}
						got := want{kind: d.Kind, tool: d.Tool, text: d.Command, options: d.Options}
						if d.Kind == Question {
							got.text = d.Question
							if d.Command != "" || d.Tool != "" {
								t.Errorf("question with command %q tool %q", d.Command, d.Tool)
							}
						} else if d.Question != "" {
							t.Errorf("approval with question %q", d.Question)
						}
						if got.kind != w.kind || got.tool != w.tool || got.text != w.text || !slices.Equal(got.options, w.options) {
							t.Errorf("Detect(%s) =\n  %+v\nwant\n  %+v", rt, got, w)
						}
						if d.Runtime != rt || d.Fingerprint == "" {
							t.Errorf("runtime %q fingerprint %q", d.Runtime, d.Fingerprint)
						}
						if !Matches(d, s) {
							t.Error("Matches is false on the screen the dialog was read from")
						}
					}
				})
			}
		})
	}
}

func TestDetectUnknownRuntime(t *testing.T) {
	s := screen(t, "claude-2.1.328", "claude-approval-1.txt")
	for _, rt := range []string{"", "pi", "cursor", "Claude", "claude "} {
		if d, ok := Detect(rt, s); ok {
			t.Errorf("Detect(%q) = %+v", rt, d)
		}
	}
}

// Variants made from real screens by changing one thing: each must stop
// being a dialog, because the keys that answer it would be different or
// would land somewhere else.
func TestDetectRefusesVariants(t *testing.T) {
	claudeQ := screen(t, "claude-2.1.328", "claude-question.txt")
	claudeA := screen(t, "claude-2.1.328", "claude-approval-1.txt")
	codexA := screen(t, "codex-0.169.0", "codex-approval-1.txt")
	codexQ := screen(t, "codex-0.169.0", "codex-question.txt")
	ocA := screen(t, "opencode-1.18.33", "opencode-approval-1.txt")
	ocQ := screen(t, "opencode-1.18.33", "opencode-question.txt")
	for _, tc := range []struct {
		name, runtime, screen string
	}{
		{"claude: several questions", Claude, strings.Replace(claudeQ, "☐ Color", "☐ Color  ☐ Size  ✔ Submit", 1)},
		{"claude: multi-select", Claude, strings.NewReplacer("1. Red", "1. [ ] Red", "2. Blue", "2. [ ] Blue").Replace(claudeQ)},
		{"claude: text typed below the question", Claude, claudeQ + "\n❯ hello"},
		{"claude: an edit, not a command", Claude, strings.Replace(claudeA, " Bash command", " Edit file", 1)},
		{"claude: no No", Claude, strings.Replace(claudeA, "4. No", "4. Maybe", 1)},
		{"claude: options out of order", Claude, strings.Replace(claudeA, "3. Yes, and switch", "5. Yes, and switch", 1)},
		{"claude: another question", Claude, strings.Replace(claudeA, "Do you want to proceed?", "Do you want to make this edit to a.go?", 1)},
		{"claude: footer not last", Claude, claudeA + "\n$ "},
		{"codex: patch approval", Codex, strings.Replace(codexA, "Would you like to run the following command?", "Would you like to make the following edits?", 1)},
		{"codex: no command", Codex, strings.Replace(codexA, "  $ echo", "  echo", 1)},
		{"codex: shell prompt below", Codex, codexA + "\nbash-5.2#"},
		{"codex: question 1 of 2", Codex, strings.Replace(codexQ, "Question 1/1", "Question 1/2", 1)},
		{"opencode: edit permission", OpenCode, strings.Replace(ocA, "# Shell command", "# Edit a.go", 1)},
		{"opencode: text below the dialog", OpenCode, ocA + "\nbash-5.2#"},
		{"opencode: confirm page buttons", OpenCode, strings.Replace(ocA, "Allow once   Allow always   Reject", "Confirm   Cancel", 1)},
		{"opencode: two paragraphs above the options", OpenCode, strings.Replace(ocQ, "  ┃  Which color do you prefer?", "  ┃  Color · Size\n  ┃\n  ┃  Which color do you prefer?", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d, ok := Detect(tc.runtime, tc.screen); ok {
				t.Errorf("Detect read %+v", d)
			}
		})
	}
}

func TestDetectRefusesKimiVariants(t *testing.T) {
	dir := sharedtest.Fixtures(t, "real", "kimi-code-2.1.0", "screens")
	approval := readScreen(t, filepath.Join(dir, "kimi-approval-1.txt"))
	question := readScreen(t, filepath.Join(dir, "kimi-question.txt"))
	for _, tc := range []struct{ name, screen string }{
		{"two questions", strings.Replace(question, "Color    Submit", "Color    Size    Submit", 1)},
		{"question answered already", strings.Replace(question, "Color    Submit", "(✓) Color   Submit", 1)},
		{"options miscounted", strings.Replace(question, "1-3 /", "1-4 /", 1)},
		{"approval options miscounted", strings.Replace(approval, "1/2/3/4 choose", "1/2/3 choose", 1)},
		{"no approve once", strings.Replace(approval, "1. Approve once", "1. Approve", 1)},
		{"another dialog", strings.Replace(approval, "▶ Run this command?", "▶ Edit this file?", 1)},
		{"exited below", approval + "\nBye!\nbash-5.2#"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d, ok := Detect(Kimi, tc.screen); ok {
				t.Errorf("Detect read %+v", d)
			}
		})
	}
}

func TestKeys(t *testing.T) {
	type keyCase struct {
		verb   string
		choice int
		want   []string // nil: not answerable that way
	}
	cases := []struct {
		shared     bool
		dir, file  string
		runtime    string
		keys       []keyCase
		verifiedBy string
	}{
		{false, "claude-2.1.328", "claude-approval-1.txt", Claude, []keyCase{
			{VerbAllow, 0, []string{"1"}},  // claude-after-allow-1.txt: the command ran
			{VerbAlways, 0, []string{"2"}}, // claude-after-always-2.txt
			{VerbDeny, 0, []string{"4"}},   // claude-after-deny-4.txt; agentenv Deny "4"
			{VerbAnswer, 0, nil},
			{"approve", 0, nil},
		}, "digits pick and confirm a line (recorded here); verified on the real CLI: Enter approves the selected line"},
		{false, "claude-2.1.328", "claude-question.txt", Claude, []keyCase{
			{VerbAnswer, 0, []string{"1"}},
			{VerbAnswer, 1, []string{"2"}}, // claude-after-question-2.txt: "→ Blue"
			{VerbAnswer, 2, nil},           // Type something.
			{VerbAnswer, 3, nil},           // Chat about this
			{VerbAnswer, 4, nil},
			{VerbAnswer, -1, nil},
			{VerbDeny, 0, []string{"Escape"}}, // claude-after-question-escape.txt: "Declined to answer"
			{VerbAllow, 0, nil},
			{VerbAlways, 0, nil},
		}, "recorded here"},
		{false, "codex-0.169.0", "codex-approval-1.txt", Codex, []keyCase{
			{VerbAllow, 0, []string{"y"}},     // verified on the real CLI "y or Enter (option 1) approve"; agentenv Approve "y"
			{VerbDeny, 0, []string{"Escape"}}, // verified on the real CLI "Esc … deny"; agentenv Deny "Escape"
			{VerbAlways, 0, []string{"2"}},    // codex-after-digit2.txt ("p" is not an allowed key)
			{VerbAnswer, 0, nil},
		}, "verified on the real CLI, agentenv, recorded here"},
		{false, "codex-0.169.0", "codex-question.txt", Codex, []keyCase{
			{VerbAnswer, 1, []string{"2"}}, // codex-question-after-digit2.txt: "answer: Blue"
			{VerbAnswer, 2, nil},           // None of the above (asks for notes)
			{VerbDeny, 0, []string{"Escape"}},
		}, "recorded here"},
		{false, "opencode-1.18.33", "opencode-approval-1.txt", OpenCode, []keyCase{
			{VerbAllow, 0, []string{"Enter"}},                    // verified on the real CLI "Enter = Allow once (preselected)"
			{VerbAlways, 0, []string{"Right", "Enter", "Enter"}}, // verified on the real CLI "→ Enter = Allow always → second dialog"; opencode-after-always-*.txt
			{VerbDeny, 0, []string{"Escape"}},                    // verified on the real CLI "Esc = Reject"; agentenv Deny "Escape"
		}, "verified on the real CLI, recorded here"},
		{false, "opencode-1.18.33", "opencode-question.txt", OpenCode, []keyCase{
			{VerbAnswer, 0, []string{"1"}},
			{VerbAnswer, 1, []string{"2"}}, // opencode-after-question-2.txt: "Blue"
			{VerbAnswer, 2, nil},           // Type your own answer
			{VerbDeny, 0, []string{"Escape"}},
		}, "recorded here; agentenv Answer Enter on the preselected first option"},
		{true, "kimi-code-2.1.0", "kimi-approval-1.txt", Kimi, []keyCase{
			{VerbAllow, 0, []string{"1"}},  // verified on the real CLI "1 or Enter approve once"; agentenv Approve "1"
			{VerbAlways, 0, []string{"2"}}, // verified on the real CLI "2 approve for this session"
			{VerbDeny, 0, []string{"3"}},   // verified on the real CLI "3 or Esc reject"; agentenv Deny "3"
			{VerbAnswer, 0, nil},
		}, "verified on the real CLI, agentenv"},
		{true, "kimi-code-2.1.0", "kimi-question.txt", Kimi, []keyCase{
			{VerbAnswer, 0, []string{"1", "1"}}, // agentenv Answer "1", "1" (option, then Submit on the review page)
			{VerbAnswer, 1, []string{"2", "1"}},
			{VerbAnswer, 2, nil}, // Other
			{VerbDeny, 0, []string{"Escape"}},
		}, "verified on the real CLI, agentenv"},
	}
	for _, tc := range cases {
		t.Run(tc.runtime+"/"+tc.file, func(t *testing.T) {
			s := readScreen(t, filepath.Join(screenDir(t, tc.shared, tc.dir), tc.file))
			d, ok := Detect(tc.runtime, s)
			if !ok {
				t.Fatal("no dialog")
			}
			for _, k := range tc.keys {
				got, ok := Keys(d, k.verb, k.choice)
				if ok != (k.want != nil) || !slices.Equal(got, k.want) {
					t.Errorf("Keys(%s, %d) = %q, %v; want %q (%s)", k.verb, k.choice, got, ok, k.want, tc.verifiedBy)
				}
			}
		})
	}
}

func TestKeysRefusesMadeUpDialogs(t *testing.T) {
	d, ok := Detect(Claude, screen(t, "claude-2.1.328", "claude-approval-1.txt"))
	if !ok {
		t.Fatal("no dialog")
	}
	for name, mutate := range map[string]func(*Dialog){
		"zero":            func(d *Dialog) { *d = Dialog{} },
		"unknown runtime": func(d *Dialog) { d.Runtime = "pi" },
		"no command":      func(d *Dialog) { d.Command = "  " },
		"unknown kind":    func(d *Dialog) { d.Kind = "plan" },
		"one option":      func(d *Dialog) { d.Options = d.Options[:1] },
		"ten options": func(d *Dialog) {
			d.Options = append(slices.Clone(d.Options), "5", "6", "7", "8", "9", "10")
		},
	} {
		t.Run(name, func(t *testing.T) {
			m := d
			m.Options = slices.Clone(d.Options)
			mutate(&m)
			for _, verb := range []string{VerbAllow, VerbDeny, VerbAlways, VerbAnswer} {
				if keys, ok := Keys(m, verb, 0); ok {
					t.Errorf("Keys(%s) = %q", verb, keys)
				}
			}
		})
	}
	// A Claude approval without an "always" line offers no always.
	m := d
	m.Options = []string{"Yes", "No"}
	if keys, ok := Keys(m, VerbAlways, 0); ok {
		t.Errorf("always without the option: %q", keys)
	}
	if keys, ok := Keys(m, VerbDeny, 0); !ok || !slices.Equal(keys, []string{"2"}) {
		t.Errorf("deny as option 2: %q %v", keys, ok)
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		runtime, dir, dialog string
		same                 []string // other captures of the very same dialog
		other                []string // another dialog, or the screen after it was answered
	}{
		{Claude, "claude-2.1.328", "claude-approval-1.txt",
			[]string{"claude-approval-1-option2-selected.txt"},
			[]string{"claude-approval-2.txt", "claude-after-allow-1.txt", "claude-question.txt", "claude-idle.txt"}},
		{Claude, "claude-2.1.328", "claude-approval-3.txt", nil,
			[]string{"claude-approval-4.txt", "claude-after-always-2.txt"}},
		{Claude, "claude-2.1.328", "claude-question.txt",
			[]string{"claude-question-option2-selected.txt", "claude-question-2.txt"},
			[]string{"claude-after-question-2.txt", "claude-approval-1.txt"}},
		{Codex, "codex-0.169.0", "codex-approval-1.txt",
			[]string{"codex-approval-narrow.txt"},
			[]string{"codex-after-digit2.txt", "codex-after-escape-narrow.txt", "codex-question.txt"}},
		{Codex, "codex-0.169.0", "codex-question.txt", nil,
			[]string{"codex-question-after-digit2.txt"}},
		{OpenCode, "opencode-1.18.33", "opencode-approval-1.txt",
			[]string{"opencode-approval-narrow.txt", "opencode-approval-1-after-moves.txt"},
			[]string{"opencode-after-always-burst.txt", "opencode-after-reject-escape.txt", "opencode-question.txt"}},
		{OpenCode, "opencode-1.18.33", "opencode-question.txt", nil,
			[]string{"opencode-after-question-2.txt"}},
	} {
		t.Run(tc.runtime+"/"+tc.dialog, func(t *testing.T) {
			s := screen(t, tc.dir, tc.dialog)
			d, ok := Detect(tc.runtime, s)
			if !ok {
				t.Fatal("no dialog")
			}
			if !Matches(d, s) {
				t.Error("Matches(same screen) = false")
			}
			for _, f := range tc.same {
				if !Matches(d, screen(t, tc.dir, f)) {
					t.Errorf("Matches(%s) = false, want true", f)
				}
			}
			for _, f := range tc.other {
				if Matches(d, screen(t, tc.dir, f)) {
					t.Errorf("Matches(%s) = true, want false", f)
				}
			}
			// The dialog as read, altered in any field, no longer matches.
			for name, mutate := range map[string]func(*Dialog){
				"runtime":     func(d *Dialog) { d.Runtime = Kimi },
				"kind":        func(d *Dialog) { d.Kind = map[Kind]Kind{Approval: Question, Question: Approval}[d.Kind] },
				"command":     func(d *Dialog) { d.Command += " && rm -rf ~" },
				"question":    func(d *Dialog) { d.Question += "?" },
				"option":      func(d *Dialog) { d.Options[0] += "!" },
				"options":     func(d *Dialog) { d.Options = d.Options[:len(d.Options)-1] },
				"fingerprint": func(d *Dialog) { d.Fingerprint += "x" },
			} {
				m := d
				m.Options = slices.Clone(d.Options)
				mutate(&m)
				if Matches(m, s) {
					t.Errorf("Matches with another %s = true", name)
				}
			}
			// Whitespace differences in the caller's copy do not matter.
			m := d
			m.Fingerprint = ""
			m.Command = "  " + strings.ReplaceAll(d.Command, " ", "   ")
			if !Matches(m, s) {
				t.Error("Matches with the fingerprint recomputed = false")
			}
		})
	}
}

func TestMatchesSharedScreens(t *testing.T) {
	for _, tc := range []struct {
		runtime, dir, dialog string
		same, other          []string
	}{
		{Codex, "codex-0.169.0", "codex-approval-4-pending.txt",
			[]string{"codex-approval-4-option3-selected.txt"},
			[]string{"codex-approval-3-resumed.txt", "codex-after-deny-option3.txt"}},
		{OpenCode, "opencode-1.18.33", "oc-approval-3-resumed.txt",
			[]string{"oc-approval-3-always-selected.txt"},
			[]string{"oc-approval-2-reject-selected.txt", "oc-always-confirm.txt", "oc-after-allow.txt"}},
		{Kimi, "kimi-code-2.1.0", "kimi-approval-1.txt", nil,
			[]string{"kimi-approval-2.txt", "kimi-after-approve-1.txt", "kimi-after-kill.txt"}},
		{Kimi, "kimi-code-2.1.0", "kimi-question.txt", nil,
			[]string{"kimi-question-review.txt", "kimi-after-question.txt"}},
	} {
		t.Run(tc.runtime+"/"+tc.dialog, func(t *testing.T) {
			dir := sharedtest.Fixtures(t, "real", tc.dir, "screens")
			s := readScreen(t, filepath.Join(dir, tc.dialog))
			d, ok := Detect(tc.runtime, s)
			if !ok {
				t.Fatal("no dialog")
			}
			for _, f := range tc.same {
				if !Matches(d, readScreen(t, filepath.Join(dir, f))) {
					t.Errorf("Matches(%s) = false, want true", f)
				}
			}
			for _, f := range tc.other {
				if Matches(d, readScreen(t, filepath.Join(dir, f))) {
					t.Errorf("Matches(%s) = true, want false", f)
				}
			}
		})
	}
}
