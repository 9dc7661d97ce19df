package agent

import (
	"strings"
	"testing"

	"paddock/internal/catalog"
	"paddock/internal/procscan"
)

func testAgent(name string, cli procscan.CLI) Agent {
	return Agent{Name: name, Label: name, Product: name, Process: cli,
		NewScanner: func(Env) catalog.Scanner { return nil }}
}

// A command line names one agent: two agents may not run as one program
// or ship in one package.
func TestRegistryRejectsSharedPrograms(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b procscan.CLI
		want string
	}{
		{"program", procscan.CLI{Programs: []string{"tool", "one"}}, procscan.CLI{Programs: []string{"two", "tool"}}, `program "tool"`},
		{"package", procscan.CLI{Packages: []string{"/pkg/"}}, procscan.CLI{Packages: []string{"/pkg/"}}, `package "/pkg/"`},
	} {
		_, err := NewRegistry(testAgent("one", tt.a), testAgent("two", tt.b))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s claimed twice: err %v", tt.name, err)
		}
	}
	if _, err := NewRegistry(testAgent("one", procscan.CLI{Programs: []string{"one"}}), testAgent("two", procscan.CLI{Programs: []string{"two"}})); err != nil {
		t.Fatal(err)
	}
}

// Processes names each agent's processes by the agent, whatever its CLI
// says.
func TestProcessesRuntimeIsTheName(t *testing.T) {
	r := MustRegistry(testAgent("one", procscan.CLI{Runtime: "other", Programs: []string{"tool"}, HoldsHistoryOpen: true}))
	if inv, ok := r.Processes().Classify([]string{"tool"}); !ok || inv.Runtime != "one" {
		t.Errorf("Classify(tool) = %+v, %v; want runtime one", inv, ok)
	}
	if !r.HoldsHistoryOpen("one") || r.HoldsHistoryOpen("other") {
		t.Error("HoldsHistoryOpen does not follow the agent's Process")
	}
}
