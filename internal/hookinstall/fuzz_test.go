package hookinstall_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"paddock/internal/agent/registry"
	"paddock/internal/hookinstall"
	"paddock/internal/hookinstall/tomlscan"
	"paddock/internal/testkit/fuzzseed"
)

// configNames are the config files an agent keeps its hooks and MCP
// servers in: the seeds of the editors' fuzz target.
var configNames = []string{"settings.json", "hooks.json", "mcp.json", "config.toml", "opencode.json", ".claude.json"}

// configSeeds are every recorded config file of those names and this
// package's own samples.
func configSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, f := range fuzzseed.Files(tb, func(rel string) bool { return slices.Contains(configNames, path.Base(rel)) }) {
		out = append(out, f.Data)
	}
	local, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, p := range local {
		if b, err := os.ReadFile(p); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// editTarget is one file an agent's install edits, as the plan reads it.
type editTarget struct {
	agent string
	t     hookinstall.Target
}

// editTargets are every agent's install targets, MCP registrations
// included, in a throw-away home.
func editTargets(tb testing.TB) []editTarget {
	tb.Helper()
	specs := registry.Default().InstallSpecs()
	e, err := hookinstall.Resolve(hookinstall.Options{Specs: specs, Binary: testBinary, DataDir: "/var/lib/paddock",
		Home: tb.TempDir(), Env: func(string) string { return "" }, MCP: true})
	if err != nil {
		tb.Fatal(err)
	}
	var out []editTarget
	for _, s := range specs {
		for _, t := range s.Targets(e, s.Dir(e), true) {
			out = append(out, editTarget{agent: s.Name, t: t})
		}
	}
	return out
}

// parses reports whether a config file of name's kind reads: JSON for
// .json, TOML that paddock's scanner and a full parser both take for
// .toml; any other file (a plugin paddock writes whole) has no syntax
// paddock checks.
func parses(name string, b []byte) bool {
	switch filepath.Ext(name) {
	case ".json":
		return json.Valid(b)
	case ".toml":
		// paddock's scanner, and a full TOML parser as the judge of
		// what the agent will read.
		var v map[string]any
		_, err := tomlscan.Scan(b)
		return err == nil && toml.Unmarshal(b, &v) == nil
	}
	return true
}

// FuzzConfigEdits throws arbitrary config files at every file every
// agent's install edits (hooks, MCP registrations, plugins). Each edit is
// a clean refusal or a clean edit: a file that parsed still parses after
// install and after uninstall; installing again changes nothing; an
// install that adds nothing says why;
// uninstalling what was installed leaves no paddock entry and, where the
// file had none of paddock's, gives back the file byte for byte (but for
// a newline ending its last line, and empty containers of paddock's own
// keys); and an
// install leaves every top-level JSON member it does not own as it was.
func FuzzConfigEdits(f *testing.F) {
	targets := editTargets(f)
	for _, s := range configSeeds(f) {
		for i := range targets {
			f.Add(uint8(i), s, true)
		}
	}
	for _, s := range []string{"", "{}", "[]", "null", `{"hooks":null}`, "a = 1\n", "[mcp_servers.paddock]\ncommand = 1\n",
		"notify = [\"/x\"]\n", "{\"mcpServers\":{\"paddock\":{\"command\":\"/other/paddock\",\"args\":[\"mcp\"]}}}"} {
		f.Add(uint8(0), []byte(s), true)
	}
	f.Add(uint8(0), []byte(nil), false)
	f.Fuzz(func(t *testing.T, idx uint8, src []byte, exists bool) {
		et := targets[int(idx)%len(targets)]
		name, edit := filepath.Base(et.t.Path), et.t.Edit
		if !exists {
			src = et.t.Base
		}
		in, err := edit(src, exists, true)
		if err != nil {
			if !exists {
				t.Fatalf("%s %s: install into a new file refused: %v", et.agent, name, err)
			}
			return // a clean refusal: the plan leaves the file as it was
		}
		valid := parses(name, src) || !exists
		if in.Remove {
			t.Fatalf("%s %s: an install removes the file", et.agent, name)
		}
		if valid && !parses(name, in.Out) {
			t.Fatalf("%s %s: install broke the file:\n%q\n->\n%q", et.agent, name, src, in.Out)
		}
		again, err := edit(in.Out, true, true)
		if err != nil || !bytes.Equal(again.Out, in.Out) {
			t.Fatalf("%s %s: install is not idempotent (%v):\n%q\n->\n%q", et.agent, name, err, in.Out, again.Out)
		}
		if again.Ours == 0 && len(in.Notes) == 0 {
			// Only an entry of the same name that is not paddock's (kept)
			// may stop an install, and the install says so.
			t.Fatalf("%s %s: no paddock entry after install, and no note why:\n%q", et.agent, name, in.Out)
		}
		out, err := edit(in.Out, true, false)
		if err != nil {
			t.Fatalf("%s %s: uninstall refused what install wrote: %v\n%q", et.agent, name, err, in.Out)
		}
		if !out.Remove {
			if valid && !parses(name, out.Out) {
				t.Fatalf("%s %s: uninstall broke the file:\n%q", et.agent, name, out.Out)
			}
			if left, err := edit(out.Out, true, false); err != nil || left.Ours != 0 {
				t.Fatalf("%s %s: uninstall left %d paddock entries (%v):\n%q", et.agent, name, left.Ours, err, out.Out)
			}
		}
		orig, err := edit(src, exists, false)
		if err != nil {
			t.Fatalf("%s %s: uninstall refuses a file install took: %v", et.agent, name, err)
		}
		// A last line install had to end keeps its newline: the one
		// difference an uninstall cannot tell from the user's own.
		restored := bytes.Equal(out.Out, src) || len(src) > 0 && src[len(src)-1] != '\n' && bytes.Equal(out.Out, append(slices.Clone(src), '\n'))
		if !restored && filepath.Ext(name) == ".json" {
			// An uninstall drops the containers paddock's entries leave
			// empty ("hooks": {} after the last one): the same meaning.
			restored = sameMeaning(et, src, out.Out)
		}
		if exists && orig.Ours == 0 && !out.Remove && !restored {
			t.Fatalf("%s %s: uninstall(install(x)) is not x:\n%q\n->\n%q\n->\n%q", et.agent, name, src, in.Out, out.Out)
		}
		switch filepath.Ext(name) {
		case ".json":
			checkForeignMembers(t, et, src, in.Out)
		case ".toml":
			checkForeignTOML(t, et, src, in.Out)
		}
	})
}

// checkForeignMembers: install changes only the top-level members it adds
// to an empty object (its own); every other member of src is kept byte
// for byte.
func checkForeignMembers(t *testing.T, et editTarget, src, out []byte) {
	t.Helper()
	var before, after map[string]json.RawMessage
	if json.Unmarshal(src, &before) != nil || json.Unmarshal(out, &after) != nil {
		return
	}
	own := ownKeys(et)
	for k, v := range before {
		if own[k] {
			continue
		}
		if w, ok := after[k]; !ok || !bytes.Equal(w, v) {
			t.Fatalf("%s %s: install changed the member %q it does not own:\n%s\n->\n%s", et.agent, filepath.Base(et.t.Path), k, v, w)
		}
	}
}

// ownKeys are the top-level members install adds to an empty object.
func ownKeys(et editTarget) map[string]bool {
	fresh, err := et.t.Edit([]byte("{}"), true, true)
	if err != nil {
		return nil
	}
	var own map[string]json.RawMessage
	_ = json.Unmarshal(fresh.Out, &own)
	out := map[string]bool{}
	for k := range own {
		out[k] = true
	}
	return out
}

// sameMeaning reports whether two JSON documents are equal once the empty
// objects and lists under paddock's own keys are dropped.
func sameMeaning(et editTarget, a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	own := ownKeys(et)
	prune := func(v any) any {
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		for k := range own {
			if x, ok := m[k]; ok {
				if x = dropEmpty(x); x == nil {
					delete(m, k)
				} else {
					m[k] = x
				}
			}
		}
		return m
	}
	return reflect.DeepEqual(prune(va), prune(vb))
}

// dropEmpty removes empty objects and lists, depth first; nil when v
// itself ends up empty.
func dropEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e = dropEmpty(e); e == nil {
				delete(x, k)
			} else {
				x[k] = e
			}
		}
		if len(x) == 0 {
			return nil
		}
	case []any:
		var kept []any
		for _, e := range x {
			if e = dropEmpty(e); e != nil {
				kept = append(kept, e)
			}
		}
		if len(kept) == 0 {
			return nil
		}
		return kept
	}
	return v
}

// checkForeignTOML: install changes nothing a full TOML parser reads in
// src but paddock's own entries (its notify, its [mcp_servers.paddock],
// its [[hooks]] tables).
func checkForeignTOML(t *testing.T, et editTarget, src, out []byte) {
	t.Helper()
	var before, after map[string]any
	if toml.Unmarshal(src, &before) != nil {
		return
	}
	if err := toml.Unmarshal(out, &after); err != nil {
		t.Fatalf("%s %s: install broke the TOML: %v\n%q", et.agent, filepath.Base(et.t.Path), err, out)
	}
	if b, a := stripOurs(before), stripOurs(after); !reflect.DeepEqual(b, a) {
		t.Fatalf("%s %s: install changed what is not paddock's:\n%v\n->\n%v", et.agent, filepath.Base(et.t.Path), b, a)
	}
}

// stripOurs removes paddock's entries from a decoded config (any value
// that runs the test binary) and the containers that held only them.
func stripOurs(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if isOurs(e) {
				continue
			}
			if se := stripOurs(e); !isEmpty(se) || isEmpty(e) {
				out[k] = se // a container left empty held paddock's alone
			}
		}
		return out
	case []map[string]any:
		var out []any
		for _, e := range x {
			if !isOurs(e) {
				out = append(out, stripOurs(e))
			}
		}
		return out
	case []any:
		var out []any
		for _, e := range x {
			if !isOurs(e) {
				out = append(out, stripOurs(e))
			}
		}
		return out
	}
	return v
}

// isOurs reports a value that runs the test binary: a command string, an
// argv, or a table holding either.
func isOurs(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.HasPrefix(x, testBinary)
	case []any:
		return len(x) > 0 && isOurs(x[0])
	case map[string]any:
		return isOurs(x["command"])
	}
	return false
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	case []map[string]any:
		return len(x) == 0
	}
	return false
}

// TestInstallRandomConfigs runs the real install and uninstall, files and
// all, on agents' config directories holding the recorded configs cut and
// spliced at random: an install either refuses and leaves the directory
// exactly as it was, or writes files that parse where they parsed before;
// the uninstall after it succeeds and gives every file back (byte for
// byte, or as the editors' own round trip allows) and removes the files
// the install created. Seeded and random rather than a fuzz target: each
// case writes, syncs and backs up real files.
func TestInstallRandomConfigs(t *testing.T) {
	seeds := append(configSeeds(t), []byte("{}"), []byte("[]"), []byte("a = 1"), []byte("{\"hooks\":{\"Stop\":3}}"), nil)
	specs := registry.Default().InstallSpecs()
	rng := rand.New(rand.NewPCG(16, 8))
	pick := func() []byte {
		a, b := seeds[rng.IntN(len(seeds))], seeds[rng.IntN(len(seeds))]
		switch rng.IntN(6) {
		case 0:
			return a[:rng.IntN(len(a)+1)]
		case 1:
			return append(slices.Clone(a[:rng.IntN(len(a)+1)]), b[rng.IntN(len(b)+1):]...)
		}
		return a
	}
	refused, installed := 0, 0
	for i := range 120 {
		s := specs[i%len(specs)]
		opts := hookinstall.Options{Specs: specs, Binary: testBinary, DataDir: "/var/lib/paddock", Home: t.TempDir(),
			Env: func(string) string { return "" }, MCP: rng.IntN(2) == 0}
		e, err := hookinstall.Resolve(opts)
		if err != nil {
			t.Fatal(err)
		}
		dir := s.Dir(e)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, tg := range s.Targets(e, dir, true) {
			if rng.IntN(3) > 0 {
				if err := os.MkdirAll(filepath.Dir(tg.Path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(tg.Path, pick(), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
		before := filesIn(t, dir)
		if _, err := hookinstall.Install(opts, []string{s.Name}, false); err != nil {
			refused++
			if after := filesIn(t, dir); !reflect.DeepEqual(after, before) {
				t.Fatalf("%s case %d: a refused install (%v) changed the directory", s.Name, i, err)
			}
			continue
		}
		installed++
		for rel, data := range filesIn(t, dir) {
			if old, ok := before[rel]; (!ok || parses(rel, old)) && !parses(rel, data) {
				t.Fatalf("%s case %d: install left %s unreadable:\n%q\n->\n%q", s.Name, i, rel, old, data)
			}
		}
		if _, err := hookinstall.Uninstall(opts, []string{s.Name}, false); err != nil {
			t.Fatalf("%s case %d: uninstall after install: %v", s.Name, i, err)
		}
		after := filesIn(t, dir)
		for rel, data := range after {
			old, ok := before[rel]
			if !ok {
				t.Fatalf("%s case %d: %s is left after uninstall:\n%q", s.Name, i, rel, data)
			}
			if !bytes.Equal(old, data) && !bytes.Equal(append(slices.Clone(old), '\n'), data) && !jsonSame(old, data) {
				t.Fatalf("%s case %d: %s not given back:\n%q\n->\n%q", s.Name, i, rel, old, data)
			}
		}
		for rel, old := range before {
			if _, ok := after[rel]; !ok && len(bytes.TrimSpace(old)) > 0 && string(bytes.TrimSpace(old)) != "{}" {
				t.Fatalf("%s case %d: uninstall removed %s, which held %q", s.Name, i, rel, old)
			}
		}
	}
	t.Logf("%d installs refused, %d installed and uninstalled", refused, installed)
	if refused == 0 || installed == 0 {
		t.Errorf("the cases test only one way: %d refused, %d installed", refused, installed)
	}
}

// jsonSame: two JSON documents equal once empty objects and lists are
// dropped (what an uninstall may leave out).
func jsonSame(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(dropEmpty(va), dropEmpty(vb))
}

// filesIn maps every file under dir but paddock's backups to its content.
func filesIn(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(d.Name(), ".paddock-backup-") {
			return err
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, dir)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
