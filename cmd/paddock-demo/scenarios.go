package main

import (
	"fmt"
	"regexp"
	"slices"

	"paddock/internal/testkit/agentenv"
	"paddock/internal/testkit/mockmodel"
)

// pending is what a scenario leaves its session waiting for.
type pending string

const (
	nothing  pending = ""         // idle at the prompt
	approval pending = "approval" // a shell command waits for approval
	question pending = "question" // the mock's question waits for an answer
)

// scenario is one agent session of the demo.
type scenario struct {
	// Name names the tmux session and the project directory (~/Name), so
	// the board shows it as the project.
	Name string
	CLI  agentenv.CLI
	// Chat are prompts answered with plain text, typed in order.
	Chat []string
	// Then, when Leave is not nothing, is typed last and left waiting.
	Then  string
	Leave pending
}

// scenarios is the demo: something of each kind on the board within a
// minute. The mock answers RUN with a shell command and ASK with a
// question (see mockmodel).
var scenarios = []scenario{
	{Name: "claude-chat", CLI: agentenv.Claude, Chat: []string{"hello paddock", "what would you show on a phone?"}},
	{Name: "claude-approval", CLI: agentenv.Claude, Chat: []string{"set up the project"}, Then: "please RUN the tests", Leave: approval},
	{Name: "claude-question", CLI: agentenv.Claude, Then: "ASK me which color the board should use", Leave: question},
	{Name: "codex-chat", CLI: agentenv.Codex, Chat: []string{"hello from codex"}},
	{Name: "codex-approval", CLI: agentenv.Codex, Then: "please RUN the build", Leave: approval},
	{Name: "opencode-chat", CLI: agentenv.OpenCode, Chat: []string{"hello from opencode"}},
	{Name: "pi-chat", CLI: agentenv.Pi, Chat: []string{"hello from pi"}},
	{Name: "kimi-chat", CLI: agentenv.Kimi, Chat: []string{"hello from kimi"}},
}

// selectScenarios keeps the scenarios of the CLIs in only (all when empty).
func selectScenarios(all []scenario, only []agentenv.CLI) []scenario {
	var out []scenario
	for _, s := range all {
		if len(only) == 0 || slices.Contains(only, s.CLI) {
			out = append(out, s)
		}
	}
	return out
}

// screenFor is what the screen shows once the scenario has played out.
func (s scenario) screenFor(setup *agentenv.Setup) (*regexp.Regexp, error) {
	switch s.Leave {
	case approval:
		if setup.Dialogs.Approval == nil {
			return nil, fmt.Errorf("%s shows no approval prompt", s.CLI)
		}
		return setup.Dialogs.Approval, nil
	case question:
		if setup.Dialogs.Question == nil || len(setup.Dialogs.QuestionMode) > 0 {
			return nil, fmt.Errorf("%s shows no question in its default mode", s.CLI)
		}
		return setup.Dialogs.Question, nil
	}
	if len(s.Chat) == 0 {
		return setup.Ready, nil
	}
	return regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(len(s.Chat)))), nil
}

// describe is the scenario's line in the summary.
func (s scenario) describe() string {
	switch s.Leave {
	case approval:
		return fmt.Sprintf("waits for approval of a shell command (%q)", s.Then)
	case question:
		return fmt.Sprintf("waits for an answer to a question (%q)", s.Then)
	}
	return fmt.Sprintf("%d turn(s) done, idle", len(s.Chat))
}
