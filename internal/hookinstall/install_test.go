package hookinstall_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"paddock/internal/agent/registry"
	. "paddock/internal/hookinstall"
	"paddock/internal/hookinstall/jsonedit"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/sharedtest"
)

const testBinary = "/opt/paddock/bin/paddock"

// claudeSettings stands in for a user's ~/.claude/settings.json (the real
// recordings have none): keys paddock must not touch, a foreign command
// hook and the http hook shape verified on Claude Code 2.1.328.
// cursorHooks stands in for ~/.cursor/hooks.json (Cursor's CLI is not
// installable here), in the documented shape. Both are shared with the
// JSON editor's tests.
var (
	claudeSettings = testdataFile("claude-settings.json")
	cursorHooks    = testdataFile("cursor-hooks.json")
)

func testdataFile(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// fixtureHome builds a HOME with each agent's config dir holding copies of
// the real configs recorded from the CLIs.
func fixtureHome(t *testing.T) string {
	t.Helper()
	real := sharedtest.Fixtures(t, "real")
	home := t.TempDir()
	copyFile(t, filepath.Join(real, "codex-0.169.0/codex-home/config.toml"), filepath.Join(home, ".codex/config.toml"))
	copyFile(t, filepath.Join(real, "codex-0.169.0/codex-home/hooks.json"), filepath.Join(home, ".codex/hooks.json"))
	copyFile(t, filepath.Join(real, "kimi-code-2.1.0/kimi-code-home/config.toml"), filepath.Join(home, ".kimi-code/config.toml"))
	for _, f := range []string{"opencode.json", "package.json", "plugin/rc-eventlog.js"} {
		copyFile(t, filepath.Join(real, "opencode-1.18.33/config", f), filepath.Join(home, ".config/opencode", f))
	}
	for _, f := range []string{"settings.json", "models.json", "auth.json", "extensions/eventlog.ts", "extensions/permission-gate.ts"} {
		copyFile(t, filepath.Join(real, "pi-0.73.1/pi-agent-dir", f), filepath.Join(home, ".pi/agent", f))
	}
	writeFile(t, filepath.Join(home, ".claude/settings.json"), claudeSettings, 0o644)
	writeFile(t, filepath.Join(home, ".cursor/hooks.json"), cursorHooks, 0o644)
	return home
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(b), 0o644)
}

func writeFile(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// specs are the shipped agents' install specs.
var specs = registry.Default().InstallSpecs()

// agentNames are the agents paddock hooks into, in order.
func agentNames() []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

func opts(home string) Options {
	return Options{
		Specs:   specs,
		Binary:  testBinary,
		DataDir: "/home/u/.local/share/paddock",
		Home:    home,
		Env:     func(string) string { return "" },
		Now:     func() time.Time { return time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC) },
	}
}

// fileInfo is what a snapshot keeps of one file.
type fileInfo struct {
	content string
	mode    fs.FileMode
	mtime   time.Time
}

// snapshot maps each path under root to its content, mode and mtime
// (directories too, by mode and mtime).
func snapshot(t *testing.T, root string) map[string]fileInfo {
	t.Helper()
	m := map[string]fileInfo{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		fi := fileInfo{mode: st.Mode(), mtime: st.ModTime()}
		if st.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fi.content = string(b)
		}
		rel, _ := filepath.Rel(root, p)
		m[rel] = fi
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func isBackup(p string) bool { return strings.Contains(filepath.Base(p), ".paddock-backup-") }

// withoutBackups drops backup files and the directories only paddock made.
func withoutBackups(m map[string]fileInfo) map[string]fileInfo {
	out := map[string]fileInfo{}
	for k, v := range m {
		if !isBackup(k) {
			out[k] = v
		}
	}
	return out
}

func TestInstallTwiceUninstallOnRealConfigs(t *testing.T) {
	home := fixtureHome(t)
	o := opts(home)
	before := snapshot(t, home)

	res, err := Install(o, []string{"all"}, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, r.Runtime)
		if !r.Changed || r.Err != nil || r.Skipped {
			t.Errorf("%s: first install: %s", r.Runtime, r.Summary())
		}
	}
	if want := agentNames(); !reflect.DeepEqual(got, want) {
		t.Fatalf("all = %v, want %v", got, want)
	}
	installed := snapshot(t, home)

	// every original entry is still there, next to paddock's
	for name, fi := range before {
		if fi.content == "" {
			continue
		}
		now := installed[name]
		if strings.HasSuffix(name, ".json") && strings.Contains(fi.content, `"hooks"`) {
			assertKeptJSON(t, name, []byte(fi.content), []byte(now.content))
		}
		if strings.HasSuffix(name, "config.toml") && strings.Contains(name, "kimi") && !strings.HasPrefix(now.content, fi.content) {
			t.Errorf("%s: the original content is not kept as it was", name)
		}
		if now.mode != fi.mode {
			t.Errorf("%s: mode %v, was %v", name, now.mode, fi.mode)
		}
	}
	for _, p := range []string{".config/opencode/plugin/rc-eventlog.js", ".pi/agent/extensions/eventlog.ts", ".pi/agent/extensions/permission-gate.ts"} {
		if installed[p].content != before[p].content {
			t.Errorf("%s: a foreign plugin changed", p)
		}
	}
	// and paddock's entries are there
	st, err := Status(o, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.State != StateInstalled {
			t.Errorf("%s: status %s after install, want installed (%v)", s.Runtime, s.State, s.Notes)
		}
	}
	for _, want := range []string{
		`"command": "/opt/paddock/bin/paddock hook --runtime claude --data-dir /home/u/.local/share/paddock PermissionRequest"`,
	} {
		if !strings.Contains(installed[".claude/settings.json"].content, want) {
			t.Errorf("settings.json lacks %s", want)
		}
	}
	if !strings.Contains(installed[".kimi-code/config.toml"].content, `command = "/opt/paddock/bin/paddock hook --runtime kimi --data-dir /home/u/.local/share/paddock SessionHeartbeat"`) {
		t.Error("kimi config lacks paddock's SessionHeartbeat hook")
	}

	// backups hold the originals, with their mode
	backups := 0
	for name, fi := range installed {
		if !isBackup(name) {
			continue
		}
		backups++
		orig := name[:strings.Index(name, ".paddock-backup-")]
		if fi.content != before[orig].content || fi.mode != before[orig].mode {
			t.Errorf("backup %s does not hold the original %s", name, orig)
		}
	}
	// claude, codex hooks.json, kimi and cursor existed and changed
	if backups != 4 {
		t.Errorf("%d backups, want 4", backups)
	}

	// install again: nothing written, reported as already installed
	res, err = Install(o, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Changed || r.Summary() != r.Runtime+": already installed" {
			t.Errorf("second install: %s", r.Summary())
		}
	}
	if again := snapshot(t, home); !reflect.DeepEqual(again, installed) {
		t.Error("the second install changed files")
	}

	// uninstall: byte-identical originals, paddock's created files gone
	res, err = Uninstall(o, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if !r.Changed {
			t.Errorf("uninstall: %s", r.Summary())
		}
	}
	after := withoutBackups(snapshot(t, home))
	for name, fi := range withoutBackups(before) {
		a, ok := after[name]
		switch {
		case !ok:
			t.Errorf("%s: gone after uninstall", name)
		case a.content != fi.content:
			t.Errorf("%s: not byte-identical after uninstall:\n%s", name, UnifiedDiff(name, []byte(fi.content), []byte(a.content), true, true))
		case a.mode != fi.mode:
			t.Errorf("%s: mode %v after uninstall, was %v", name, a.mode, fi.mode)
		}
	}
	for name, fi := range after {
		if _, ok := before[name]; !ok && !fi.mode.IsDir() {
			t.Errorf("%s: left behind by uninstall", name)
		}
	}
	res, err = Uninstall(o, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Changed || r.Summary() != r.Runtime+": nothing to remove" {
			t.Errorf("second uninstall: %s", r.Summary())
		}
	}
}

// assertKeptJSON checks that every top-level member but "hooks" has the
// same bytes and order, and that every original hook handler is still under
// its event, in order.
func assertKeptJSON(t *testing.T, name string, orig, now []byte) {
	t.Helper()
	a, err := jsonedit.Parse(orig)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, err := jsonedit.Parse(now)
	if err != nil {
		t.Fatalf("%s after install does not parse: %v", name, err)
	}
	var ka, kb []string
	for _, k := range a.Keys() {
		ka = append(ka, k)
		if k == "hooks" {
			continue
		}
		if b.Get(k) == nil {
			t.Errorf("%s: key %q lost", name, k)
			continue
		}
		if string(jsonedit.Raw(orig, a.Get(k))) != string(jsonedit.Raw(now, b.Get(k))) {
			t.Errorf("%s: the value of %q changed", name, k)
		}
	}
	for _, k := range b.Keys() {
		if slices.Contains(ka, k) {
			kb = append(kb, k)
		}
	}
	if !reflect.DeepEqual(ka, kb) {
		t.Errorf("%s: key order %v, was %v", name, kb, ka)
	}
	ha, hb := handlersOf(t, orig), handlersOf(t, now)
	for ev, list := range ha {
		if !isSubsequence(list, hb[ev]) {
			t.Errorf("%s: hooks.%s lost or reordered an original handler", name, ev)
		}
	}
}

// handlersOf lists each event's handlers as raw JSON, nested or flat.
func handlersOf(t *testing.T, src []byte) map[string][]string {
	t.Helper()
	var doc struct {
		Hooks map[string][]map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for ev, groups := range doc.Hooks {
		for _, g := range groups {
			if hs, ok := g["hooks"]; ok {
				var list []json.RawMessage
				if err := json.Unmarshal(hs, &list); err != nil {
					t.Fatal(err)
				}
				for _, h := range list {
					out[ev] = append(out[ev], compact(t, h))
				}
				continue
			}
			b, _ := json.Marshal(g)
			out[ev] = append(out[ev], compact(t, b))
		}
	}
	return out
}

func compact(t *testing.T, raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func isSubsequence(a, b []string) bool {
	j := 0
	for _, x := range b {
		if j < len(a) && a[j] == x {
			j++
		}
	}
	return j == len(a)
}

func TestDryRunWritesNothing(t *testing.T) {
	home := fixtureHome(t)
	o := opts(home)
	before := snapshot(t, home)
	res, err := Install(o, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if !r.DryRun || !r.Changed || !strings.HasPrefix(r.Summary(), r.Runtime+": would ") {
			t.Errorf("dry run: %s", r.Summary())
		}
		for _, f := range r.Files {
			if f.Action != ActionNone && (f.Diff == "" || f.Backup != "") {
				t.Errorf("%s: dry run diff %q backup %q", f.Path, f.Diff, f.Backup)
			}
		}
	}
	if after := snapshot(t, home); !reflect.DeepEqual(after, before) {
		t.Fatal("a dry-run install wrote to the agents' dirs")
	}

	// and the dry run's diff is exactly what a real install does
	p, err := Plan(o, "codex")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Install(o, []string{"codex"}, false); err != nil {
		t.Fatal(err)
	}
	applyDiffCheck(t, before[".codex/hooks.json"].content, p.Files[0].Diff, filepath.Join(home, ".codex/hooks.json"))

	if _, err := Install(o, nil, false); err != nil {
		t.Fatal(err)
	}
	installed := snapshot(t, home)
	if _, err := Uninstall(o, nil, true); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, home); !reflect.DeepEqual(after, installed) {
		t.Fatal("a dry-run uninstall wrote to the agents' dirs")
	}
}

func TestSkipsAgentsNotInstalled(t *testing.T) {
	home := t.TempDir()
	o := opts(home)
	res, err := Install(o, []string{"all"}, false)
	if err != nil || len(res) != 0 {
		t.Fatalf("all with no agents: %v %v", res, err)
	}
	res, err = Install(o, []string{"cursor"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !res[0].Skipped || !strings.Contains(strings.Join(res[0].Notes, " "), ".cursor") {
		t.Fatalf("cursor without ~/.cursor: %+v", res)
	}
	if ents, _ := os.ReadDir(home); len(ents) != 0 {
		t.Fatalf("created %v", ents)
	}
	st, err := Status(o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != len(agentNames()) {
		t.Fatalf("status of all lists %d runtimes", len(st))
	}
	for _, s := range st {
		if s.State != StateAbsent {
			t.Errorf("%s: %s", s.Runtime, s.State)
		}
	}
	if _, err := Install(o, []string{"gemini"}, false); err == nil || !strings.Contains(err.Error(), "unknown runtime") {
		t.Fatalf("unknown runtime: %v", err)
	}
}

func TestMissingConfigIsCreatedWithOnlyPaddocksEntries(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".claude", ".codex", ".cursor", ".kimi-code", ".config/opencode", ".pi/agent"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	o := opts(home)
	before := snapshot(t, home)
	if _, err := Install(o, nil, false); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".claude/settings.json", ".codex/hooks.json", ".codex/config.toml", ".cursor/hooks.json", ".kimi-code/config.toml", ".config/opencode/plugin/paddock.js", ".pi/agent/extensions/paddock.ts"} {
		st, err := os.Stat(filepath.Join(home, p))
		if err != nil {
			t.Errorf("%s not created: %v", p, err)
			continue
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s created with mode %v", p, st.Mode().Perm())
		}
	}
	var cursor map[string]any
	b, _ := os.ReadFile(filepath.Join(home, ".cursor/hooks.json"))
	if err := json.Unmarshal(b, &cursor); err != nil || cursor["version"] != float64(1) {
		t.Errorf("cursor hooks.json: %v %s", err, b)
	}
	toml, _ := os.ReadFile(filepath.Join(home, ".codex/config.toml"))
	if want := `notify = ["/opt/paddock/bin/paddock", "hook", "--runtime", "codex", "--data-dir", "/home/u/.local/share/paddock", "notify"]`; !strings.HasPrefix(string(toml), want) {
		t.Errorf("codex config.toml = %q", toml)
	}
	if _, err := Uninstall(o, nil, false); err != nil {
		t.Fatal(err)
	}
	after := withoutBackups(snapshot(t, home))
	for name, fi := range after {
		if _, ok := before[name]; !ok && !fi.mode.IsDir() {
			t.Errorf("%s left behind", name)
		}
	}
}

func TestBrokenConfigIsLeftAlone(t *testing.T) {
	cases := []struct {
		runtime, file, content string
		line                   string
	}{
		{"claude", ".claude/settings.json", "{\n  \"model\": \"opus\",\n  \"hooks\": {},\n}\n", ":4:1 does not parse"},
		{"cursor", ".cursor/hooks.json", "{\"version\": 1, \"hooks\": [}", ":1:"},
		{"claude", ".claude/settings.json", "{\"hooks\": \"none\"}", `"hooks" is a string`},
		{"claude", ".claude/settings.json", "{\"hooks\": {}, \"hooks\": {}}", "more than once"},
		{"claude", ".claude/settings.json", "[]", "expected an object"},
		{"codex", ".codex/config.toml", "model = \"gpt\"\nnotify = [\"/bin/x\"\n[tui]\n", ":3:1 does not parse"},
		{"codex", ".codex/config.toml", "model = \"unterminated\n", ":1:"},
		{"codex", ".codex/config.toml", "notify = []\nnotify = []\n", "notify is set twice"},
		{"kimi", ".kimi-code/config.toml", "[[hooks]]\nevent = PreToolUse\n", ":2:9 does not parse"},
		{"kimi", ".kimi-code/config.toml", "[hooks]\nx = 1\n", "[hooks] is a table"},
		{"kimi", ".kimi-code/config.toml", "hooks = []\n", "hooks is set as a key"},
	}
	for _, c := range cases {
		t.Run(c.runtime+"/"+c.line, func(t *testing.T) {
			home := t.TempDir()
			writeFile(t, filepath.Join(home, c.file), c.content, 0o644)
			if c.runtime == "codex" {
				writeFile(t, filepath.Join(home, ".codex/hooks.json"), "{}\n", 0o644)
			}
			before := snapshot(t, home)
			o := opts(home)
			for _, uninstall := range []bool{false, true} {
				run := Install
				if uninstall {
					run = Uninstall
				}
				res, err := run(o, []string{c.runtime}, false)
				if err == nil || len(res) != 1 || res[0].Err == nil {
					t.Fatalf("no error for a broken config: %+v", res)
				}
				msg := err.Error()
				if !strings.Contains(msg, filepath.Join(home, c.file)) || !strings.Contains(msg, c.line) || !strings.Contains(msg, "left unchanged") {
					t.Errorf("error %q should name the file, %q and say it was left unchanged", msg, c.line)
				}
			}
			st, err := Status(o, []string{c.runtime})
			if err == nil || st[0].Err == nil {
				t.Errorf("status of a broken config: %+v", st)
			}
			if after := snapshot(t, home); !reflect.DeepEqual(after, before) {
				t.Error("a broken config was touched (or backups/temp files left)")
			}
		})
	}
}

func TestCodexNotify(t *testing.T) {
	t.Run("foreign notify kept", func(t *testing.T) {
		home := fixtureHome(t)
		orig, _ := os.ReadFile(filepath.Join(home, ".codex/config.toml"))
		res, err := Install(opts(home), []string{"codex"}, false)
		if err != nil {
			t.Fatal(err)
		}
		now, _ := os.ReadFile(filepath.Join(home, ".codex/config.toml"))
		if !bytes.Equal(orig, now) {
			t.Error("config.toml with a foreign notify was changed")
		}
		if notes := strings.Join(res[0].Notes, "\n"); !strings.Contains(notes, `notify = ["/opt/harness/notify_codex.sh"] (kept)`) || !strings.Contains(notes, "/hooks") {
			t.Errorf("notes do not explain notify and trust: %s", notes)
		}
		st, _ := Status(opts(home), []string{"codex"})
		if st[0].State != StateInstalled || !strings.Contains(strings.Join(st[0].Notes, "\n"), "trust") {
			t.Errorf("status: %+v", st[0])
		}
	})
	t.Run("inserted before the first table and removed again", func(t *testing.T) {
		home := t.TempDir()
		orig := "# my codex\nmodel = \"gpt-5\" # default\napproval_policy = \"on-request\"\n\n[tui]\nnotifications = true\n"
		writeFile(t, filepath.Join(home, ".codex/config.toml"), orig, 0o640)
		o := opts(home)
		if _, err := Install(o, []string{"codex"}, false); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(home, ".codex/config.toml"))
		want := "# my codex\nmodel = \"gpt-5\" # default\napproval_policy = \"on-request\"\n" +
			`notify = ["/opt/paddock/bin/paddock", "hook", "--runtime", "codex", "--data-dir", "/home/u/.local/share/paddock", "notify"]` + " # paddock hook relay (paddock hooks uninstall removes this line)" + "\n" +
			"\n[tui]\nnotifications = true\n"
		if string(b) != want {
			t.Fatalf("config.toml =\n%s\nwant\n%s", b, want)
		}
		if st, _ := os.Stat(filepath.Join(home, ".codex/config.toml")); st.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, want 0640 kept", st.Mode().Perm())
		}
		// a moved paddock binary replaces the line, not adds one
		o2 := o
		o2.Binary = "/usr/local/bin/paddock"
		if st, _ := Status(o2, []string{"codex"}); st[0].State != StatePartial {
			t.Errorf("status with a moved binary: %s", st[0].State)
		}
		if _, err := Install(o2, []string{"codex"}, false); err != nil {
			t.Fatal(err)
		}
		b, _ = os.ReadFile(filepath.Join(home, ".codex/config.toml"))
		if strings.Count(string(b), "notify =") != 1 || !strings.Contains(string(b), `"/usr/local/bin/paddock"`) {
			t.Errorf("after moving the binary:\n%s", b)
		}
		hj, _ := os.ReadFile(filepath.Join(home, ".codex/hooks.json"))
		if strings.Contains(string(hj), testBinary) || strings.Count(string(hj), "/usr/local/bin/paddock hook") != 8 /* Codex's hook events */ {
			t.Errorf("hooks.json after moving the binary:\n%s", hj)
		}
		if _, err := Uninstall(o2, []string{"codex"}, false); err != nil {
			t.Fatal(err)
		}
		b, _ = os.ReadFile(filepath.Join(home, ".codex/config.toml"))
		if string(b) != orig {
			t.Errorf("after uninstall:\n%s", b)
		}
	})
}

func TestOnlyPaddocksEntriesAreRemoved(t *testing.T) {
	home := t.TempDir()
	// a user moved paddock's handler into their own group, kept an old
	// paddock entry from another path, and has a look-alike of their own
	settings := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {"type": "command", "command": "notify-send done"},
          {"type": "command", "command": "/old/place/paddock hook --runtime claude Stop"},
          {"type": "command", "command": "/usr/bin/other-tool hook --runtime claude Stop"}
        ]
      }
    ],
    "Notification": [
      {"hooks": [{"type": "command", "command": "'/weird path/paddock' hook --runtime claude Notification"}]}
    ]
  }
}
`
	writeFile(t, filepath.Join(home, ".claude/settings.json"), settings, 0o600)
	o := opts(home)
	st, err := Status(o, []string{"claude"})
	if err != nil {
		t.Fatal(err)
	}
	if st[0].State != StatePartial || st[0].Ours != 2 || st[0].Foreign != 2 {
		t.Fatalf("status: %s ours=%d foreign=%d", st[0].State, st[0].Ours, st[0].Foreign)
	}
	if _, err := Install(o, []string{"claude"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(o, []string{"claude"}, false); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(home, ".claude/settings.json"))
	want := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {"type": "command", "command": "notify-send done"},
          {"type": "command", "command": "/usr/bin/other-tool hook --runtime claude Stop"}
        ]
      }
    ]
  }
}
`
	if string(b) != want {
		t.Fatalf("after uninstall:\n%s", b)
	}
}

func TestPluginFileOfSomeoneElseIsNotTouched(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, ".config/opencode/plugin/paddock.js")
	writeFile(t, p, "export const Mine = async () => ({})\n", 0o644)
	o := opts(home)
	before := snapshot(t, home)
	if _, err := Install(o, []string{"opencode"}, false); err == nil || !strings.Contains(err.Error(), "not paddock's") {
		t.Fatalf("install over a foreign plugin: %v", err)
	}
	res, err := Uninstall(o, []string{"opencode"}, false)
	if err != nil || res[0].Changed {
		t.Fatalf("uninstall of a foreign plugin: %+v %v", res, err)
	}
	if after := snapshot(t, home); !reflect.DeepEqual(after, before) {
		t.Fatal("a foreign plugin file was touched")
	}
}

func TestPluginsDirIsUsedWhenItIsTheOneThatExists(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".config/opencode/plugins"), 0o700); err != nil {
		t.Fatal(err)
	}
	o := opts(home)
	if _, err := Install(o, []string{"opencode"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".config/opencode/plugins/paddock.js")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".config/opencode/plugin")); err == nil {
		t.Fatal("plugin/ created beside plugins/")
	}
}

func TestSymlinkedConfigIsEditedInPlace(t *testing.T) {
	home := t.TempDir()
	dotfiles := filepath.Join(home, "dotfiles/claude-settings.json")
	writeFile(t, dotfiles, claudeSettings, 0o644)
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, ".claude/settings.json")
	if err := os.Symlink(dotfiles, link); err != nil {
		t.Fatal(err)
	}
	o := opts(home)
	if _, err := Install(o, []string{"claude"}, false); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v", err)
	}
	b, _ := os.ReadFile(dotfiles)
	if !strings.Contains(string(b), "hook --runtime claude") {
		t.Fatal("the link's target was not edited")
	}
	if _, err := Uninstall(o, []string{"claude"}, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dotfiles); string(b) != claudeSettings {
		t.Fatal("uninstall through the symlink is not byte-identical")
	}
}

func TestClaudeHTTPHooks(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".claude/settings.json"), claudeSettings, 0o644)
	o := opts(home)
	o.HTTPHooks, o.HookPort, o.Secret = true, 7081, "c2VjcmV0LXZhbHVl"
	res, err := Install(o, []string{"claude"}, false)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, ".claude/settings.json")
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("settings.json holding the secret has mode %v", st.Mode().Perm())
	}
	if !strings.Contains(strings.Join(res[0].Notes, " "), "0600") {
		t.Errorf("notes do not mention the secret's file mode: %v", res[0].Notes)
	}
	b, _ := os.ReadFile(path)
	var doc struct {
		Hooks map[string][]struct {
			Hooks []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	last := func(ev string) map[string]any {
		g := doc.Hooks[ev]
		h := g[len(g)-1].Hooks
		return h[len(h)-1]
	}
	// Claude fires no http SessionStart hooks, and the subagent, compaction
	// and end events keep the relay (it adds the process facts). The events
	// paddock may hold keep it too: Claude would wait out an http hook's
	// timeout on a hung listener at every tool call, where the relay tells
	// a held prompt from the rest and lets the rest go within 100 ms. An
	// http hook gives the listener no more than that.
	for ev, http := range map[string]bool{
		"SessionStart": false, "UserPromptSubmit": true, "PreToolUse": false, "PermissionRequest": false,
		"PostToolUse": true, "PostToolUseFailure": true, "Notification": true, "Stop": true,
		"SubagentStart": false, "SubagentStop": false, "PreCompact": false, "SessionEnd": false,
	} {
		h := last(ev)
		switch {
		case http:
			hd, _ := h["headers"].(map[string]any)
			if h["type"] != "http" || h["url"] != "http://127.0.0.1:7081/hook/claude" || hd["X-Paddock-Secret"] != o.Secret || hd["X-Paddock-Tmux-Pane"] != "$TMUX_PANE" {
				t.Errorf("%s: %v", ev, h)
			}
			if to, _ := h["timeout"].(float64); to <= 0 || to > 0.1 {
				t.Errorf("%s: an http hook waits %v s for the listener, want ≤ 0.1", ev, h["timeout"])
			}
		case h["type"] != "command":
			t.Errorf("%s should be a command hook: %v", ev, h)
		}
	}
	if st, _ := Status(o, []string{"claude"}); st[0].State != StateInstalled {
		t.Errorf("status %s", st[0].State)
	}
	// switching back to the relay replaces the http hooks
	o2 := opts(home)
	if st, _ := Status(o2, []string{"claude"}); st[0].State != StatePartial {
		t.Errorf("status without http: %s", st[0].State)
	}
	if _, err := Uninstall(o2, []string{"claude"}, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != claudeSettings {
		t.Errorf("uninstall left:\n%s", b)
	}
	if _, err := Install(Options{Specs: specs, Binary: testBinary, Home: home, HTTPHooks: true}, []string{"claude"}, true); err == nil {
		t.Error("HTTPHooks without port and secret accepted")
	}
}

func TestOptionsAreChecked(t *testing.T) {
	home := t.TempDir()
	for _, o := range []Options{
		{Specs: specs, Binary: "paddock", Home: home},
		{Specs: specs, Binary: "", Home: home},
		{Specs: specs, Binary: testBinary, DataDir: "rel/dir", Home: home},
		{Binary: testBinary, Home: home}, // no agents
	} {
		if _, err := Install(o, nil, true); err == nil {
			t.Errorf("accepted %+v", o)
		}
	}
}

func TestEnvironmentOverridesConfigDirs(t *testing.T) {
	home := t.TempDir()
	alt := t.TempDir()
	env := map[string]string{
		"CLAUDE_CONFIG_DIR":   filepath.Join(alt, "claude"),
		"CODEX_HOME":          filepath.Join(alt, "codex"),
		"KIMI_CODE_HOME":      filepath.Join(alt, "kimi"),
		"XDG_CONFIG_HOME":     filepath.Join(alt, "xdg"),
		"PI_CODING_AGENT_DIR": filepath.Join(alt, "pi"),
	}
	for _, d := range []string{"claude", "codex", "kimi", "xdg/opencode", "pi"} {
		if err := os.MkdirAll(filepath.Join(alt, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	o := opts(home)
	o.Env = func(k string) string { return env[k] }
	res, err := Install(o, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 5 { // all but cursor, which has no env override
		t.Fatalf("%d runtimes", len(res))
	}
	for _, p := range []string{"claude/settings.json", "codex/hooks.json", "kimi/config.toml", "xdg/opencode/plugin/paddock.js", "pi/extensions/paddock.ts"} {
		if _, err := os.Stat(filepath.Join(alt, p)); err != nil {
			t.Error(err)
		}
	}
	if ents, _ := os.ReadDir(home); len(ents) != 0 {
		t.Errorf("wrote under HOME: %v", ents)
	}
}

func TestChangedUnderneathIsNotOverwritten(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".claude/settings.json")
	writeFile(t, path, claudeSettings, 0o644)
	err := WriteAtomic(path, []byte("{}"), 0o644, []byte("something else"), true)
	if err == nil || !strings.Contains(err.Error(), "changed while paddock was editing") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != claudeSettings {
		t.Fatal("overwritten")
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Fatalf("temp file left: %v", ents)
	}
}

func TestSymlinkedConfigKeepsItsTargetWhenEmptied(t *testing.T) {
	home := t.TempDir()
	dotfiles := filepath.Join(home, "dotfiles/settings.json")
	writeFile(t, dotfiles, "{}\n", 0o644)
	link := filepath.Join(home, ".claude/settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dotfiles, link); err != nil {
		t.Fatal(err)
	}
	o := opts(home)
	if _, err := Install(o, []string{"claude"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(o, []string{"claude"}, false); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("the symlink was removed")
	}
	if b, _ := os.ReadFile(dotfiles); string(b) != "{}\n" {
		t.Fatalf("target after uninstall: %q", b)
	}
}

func TestCRLFDocumentsGetCRLFLines(t *testing.T) {
	home := t.TempDir()
	orig := "{\r\n  \"model\": \"opus\",\r\n  \"hooks\": {\r\n    \"Stop\": []\r\n  }\r\n}\r\n"
	writeFile(t, filepath.Join(home, ".claude/settings.json"), orig, 0o600)
	o := opts(home)
	if _, err := Install(o, []string{"claude"}, false); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(home, ".claude/settings.json"))
	if strings.Count(string(b), "\n") != strings.Count(string(b), "\r\n") {
		t.Fatalf("mixed line endings:\n%q", b)
	}
	if !json.Valid(b) {
		t.Fatal("invalid JSON")
	}
}

func TestHooksTurnedOffIsReported(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".claude/settings.json"), `{"disableAllHooks": true}`, 0o600)
	writeFile(t, filepath.Join(home, ".codex/config.toml"), "model = \"m\"\n[features]\nhooks = false\n", 0o600)
	st, err := Status(opts(home), []string{"claude", "codex"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if n := strings.Join(s.Notes, "\n"); !strings.Contains(n, "runs no hooks") {
			t.Errorf("%s: notes do not say hooks are off: %s", s.Runtime, n)
		}
	}
}
