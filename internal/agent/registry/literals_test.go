package registry

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// literalAllowed lists the places outside the agents' packages where an
// agent's name may stand as a string literal, each with its reason.
var literalAllowed = map[string]string{
	// Test support that installs, configures and drives the real agent
	// CLIs (their npm packages, config files and command lines) for the
	// end-to-end tests and the demo: it names the programs it runs.
	"internal/testkit/agentenv/": "drives the real CLIs by name",
	// The benchmark corpus copies each agent's recordings (testdata/<agent>-<version>)
	// into that agent's own layout: it names the directories it writes.
	"internal/testkit/corpus/": "writes each agent's recorded layout by name",
}

// wordAllowed lists single literals, by file, that spell an agent's name
// but mean something else, each with its reason.
var wordAllowed = map[[2]string]string{
	// The list API pages with ?cursor= (its contract's word for a page
	// position), which is only spelled like the Cursor agent.
	{"web/api_sessions.go", "cursor"}: "the paging query parameter",
}

// TestAgentNamesOnlyInTheirPackages: no non-test Go file outside an
// agent's own package and this registry spells an agent's name as a
// string literal, so that everything about one agent is found in its
// folder and a new agent needs no edit elsewhere.
func TestAgentNamesOnlyInTheirPackages(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	names := Default().Names()
	var agentDirs []string
	for _, n := range names {
		agentDirs = append(agentDirs, "internal/agent/"+n+"/")
	}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel != "." && strings.HasPrefix(d.Name(), "."), d.Name() == "testdata", d.Name() == "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		if strings.HasPrefix(rel, "internal/agent/registry/") || slices.ContainsFunc(agentDirs, func(p string) bool { return strings.HasPrefix(rel, p) }) {
			return nil
		}
		for p := range literalAllowed {
			if strings.HasPrefix(rel, p) {
				return nil
			}
		}
		checked++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			v, err := strconv.Unquote(lit.Value)
			if _, ok := wordAllowed[[2]string{rel, v}]; ok {
				return true
			}
			if err == nil && slices.Contains(names, v) {
				t.Errorf("%s: the agent name %q as a literal (it belongs in internal/agent/%s)", rel, v, v)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d files checked: the walk did not find the repository", checked)
	}
}

// TestTheRegistryIsTheOnlyImporter: outside tests, no package imports an
// agent's package but the registry.
func TestTheRegistryIsTheOnlyImporter(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	var agentPkgs []string
	for _, n := range Default().Names() {
		agentPkgs = append(agentPkgs, strconv.Quote("paddock/internal/agent/"+n))
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "internal/agent/registry/") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if slices.Contains(agentPkgs, imp.Path.Value) {
				t.Errorf("%s imports %s: only the registry may", rel, imp.Path.Value)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
