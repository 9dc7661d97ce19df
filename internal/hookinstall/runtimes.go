package hookinstall

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// runtimeSpec is how paddock hooks into one agent: where its config lives
// and which files it edits there.
type runtimeSpec struct {
	name    string
	title   string
	dir     func(o *resolved) string
	targets func(o *resolved, dir string, install bool) []target
	notes   func(o *resolved) []string
}

// target is one file paddock edits.
type target struct {
	path string
	// base is what edit starts from when the file is absent; an uninstall
	// that leaves exactly base removes the file again.
	base []byte
	mode os.FileMode // of a file paddock creates
	edit func(src []byte, exists, install bool) (editOut, error)
}

// editOut is a file's new content and what was found in the old one.
type editOut struct {
	out     []byte
	remove  bool // the file should not exist afterwards
	ours    int  // paddock entries found
	foreign int  // other entries found (kept)
	notes   []string
	secret  bool // out holds paddock's hook secret: keep the file 0600
}

var specs = []runtimeSpec{
	{name: "claude", title: "Claude Code", dir: claudeDir, targets: claudeTargets, notes: claudeNotes},
	{name: "codex", title: "Codex", dir: codexDir, targets: codexTargets, notes: codexNotes},
	{name: "opencode", title: "OpenCode", dir: opencodeDir, targets: opencodeTargets, notes: opencodeNotes},
	{name: "kimi", title: "Kimi Code", dir: kimiDir, targets: kimiTargets, notes: kimiNotes},
	{name: "cursor", title: "Cursor", dir: cursorDir, targets: cursorTargets, notes: cursorNotes},
	{name: "pi", title: "Pi", dir: piDir, targets: piTargets, notes: piNotes},
}

// Names lists the runtimes paddock can hook into, in a stable order.
func Names() []string {
	n := make([]string, len(specs))
	for i, s := range specs {
		n[i] = s.name
	}
	return n
}

func specFor(name string) (*runtimeSpec, bool) {
	for i := range specs {
		if specs[i].name == name {
			return &specs[i], true
		}
	}
	return nil, false
}

// envDir is $name if set, else home/rel.
func (o *resolved) envDir(name string, rel ...string) string {
	if d := o.env(name); d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(o.home, d)
		}
		return filepath.Clean(d)
	}
	return filepath.Join(append([]string{o.home}, rel...)...)
}

const (
	statusTimeout   = 10  // seconds; the relay itself gives up within 100 ms
	decisionTimeout = 600 // events paddock may hold for a phone answer
)

// ---- Claude Code ----

type claudeEvent struct {
	name     string
	matcher  string
	timeout  int
	httpable bool // may use an http hook under ClaudeHTTP
}

// claudeEvents is every event seed 000 and the AGENTS tab use. SessionStart
// must stay a command hook: Claude does not fire http SessionStart hooks.
var claudeEvents = []claudeEvent{
	{"SessionStart", "", statusTimeout, false},
	{"UserPromptSubmit", "", statusTimeout, true},
	{"PreToolUse", "*", decisionTimeout, true},
	{"PermissionRequest", "*", decisionTimeout, true},
	{"PostToolUse", "*", statusTimeout, true},
	{"PostToolUseFailure", "*", statusTimeout, true},
	{"Notification", "", statusTimeout, true},
	{"Stop", "", statusTimeout, true},
	{"SubagentStart", "", statusTimeout, false},
	{"SubagentStop", "", statusTimeout, false},
	{"PreCompact", "", statusTimeout, false},
	{"SessionEnd", "", statusTimeout, false},
}

// claudeEnvHeaders are forwarded by Claude's http hooks (only variables named
// in allowedEnvVars expand); the command relay reads them from its env.
var claudeEnvHeaders = []struct{ header, env string }{
	{"X-Paddock-Terminal-Id", "PADDOCK_TERMINAL_ID"},
	{"X-Paddock-Tmux-Pane", "TMUX_PANE"},
	{"X-Paddock-Term-Program", "TERM_PROGRAM"},
}

func claudeDir(o *resolved) string { return o.envDir("CLAUDE_CONFIG_DIR", ".claude") }

func (o *resolved) claudeHooks() *jsonHooks {
	s := &jsonHooks{nested: true, ours: o.isOurJSONHandler}
	for _, e := range claudeEvents {
		var h jobj
		if o.claudeHTTP && e.httpable {
			headers := jobj{{"X-Paddock-Secret", o.secret}}
			var allowed []string
			for _, eh := range claudeEnvHeaders {
				headers = append(headers, jfield{eh.header, "$" + eh.env})
				allowed = append(allowed, eh.env)
			}
			h = jobj{
				{"type", "http"},
				{"url", fmt.Sprintf("http://127.0.0.1:%d/hook/claude", o.hookPort)},
				{"timeout", e.timeout},
				{"headers", headers},
				{"allowedEnvVars", allowed},
			}
		} else {
			h = jobj{{"type", "command"}, {"command", o.command("claude", e.name)}, {"timeout", e.timeout}}
		}
		s.events = append(s.events, jsonEvent{name: e.name, matcher: e.matcher, handler: h})
	}
	return s
}

// isOurJSONHandler recognises paddock's handler objects: a command running
// the relay, or an http hook to the loopback listener carrying paddock's
// secret header.
func (o *resolved) isOurJSONHandler(h *jnode) bool {
	if h == nil || h.kind != '{' {
		return false
	}
	if cmd, ok := h.getString("command"); ok && o.isOurCommand(cmd) {
		return true
	}
	if u, ok := h.getString("url"); ok && ourHookURL.MatchString(u) {
		if hd := h.get("headers"); hd != nil && hd.kind == '{' {
			for _, k := range hd.keys {
				if strings.EqualFold(k, "X-Paddock-Secret") {
					return true
				}
			}
		}
	}
	return false
}

func claudeTargets(o *resolved, dir string, _ bool) []target {
	s := o.claudeHooks()
	return []target{{
		path: filepath.Join(dir, "settings.json"),
		base: []byte("{}\n"),
		mode: 0o600,
		edit: func(src []byte, _, install bool) (editOut, error) {
			res, err := s.edit(src, install)
			if err != nil {
				return res, err
			}
			res.secret = install && o.claudeHTTP
			if root, _ := parseJSON(src); install && root != nil && string(jsonRaw(src, root.get("disableAllHooks"))) == "true" {
				res.notes = append(res.notes, `settings.json has "disableAllHooks": true: Claude Code runs no hooks, paddock's included, until it is removed`)
			}
			return res, nil
		},
	}}
}

func claudeNotes(o *resolved) []string {
	n := []string{"Claude Code reads its hooks when a session starts: restart running sessions to pick up the change."}
	if o.claudeHTTP {
		n = append(n, "UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse(Failure), Notification and Stop post straight to paddock's listener (http hooks); "+
			"their secret header sits in settings.json, which paddock keeps at mode 0600. Everything else runs the relay command.")
	} else {
		n = append(n, "Every event runs paddock's relay command, which reads the hook secret from paddock's data dir; no secret is written into settings.json.")
	}
	return n
}

// ---- Codex ----

var codexEvents = []struct {
	name, matcher string
	timeout       int
}{
	{"SessionStart", "startup|resume|clear", statusTimeout},
	{"UserPromptSubmit", "", statusTimeout},
	{"PreToolUse", "*", decisionTimeout},
	{"PermissionRequest", "*", decisionTimeout},
	{"PostToolUse", "*", statusTimeout},
	{"Stop", "", statusTimeout},
	{"SessionEnd", "", statusTimeout},
	{"Interrupt", "", statusTimeout},
}

func codexDir(o *resolved) string { return o.envDir("CODEX_HOME", ".codex") }

func codexTargets(o *resolved, dir string, _ bool) []target {
	s := &jsonHooks{nested: true, ours: o.isOurJSONHandler}
	for _, e := range codexEvents {
		s.events = append(s.events, jsonEvent{name: e.name, matcher: e.matcher, handler: jobj{
			{"type", "command"}, {"command", o.command("codex", e.name)}, {"timeout", e.timeout},
		}})
	}
	notify := &notifyEdit{argv: append(o.relayArgv("codex"), "notify"), ours: o.isOurArgv}
	return []target{
		{
			path: filepath.Join(dir, "hooks.json"),
			base: []byte("{}\n"),
			mode: 0o600,
			edit: func(src []byte, _, install bool) (editOut, error) { return s.edit(src, install) },
		},
		{
			path: filepath.Join(dir, "config.toml"),
			base: []byte{},
			mode: 0o600,
			edit: func(src []byte, _, install bool) (editOut, error) {
				res, err := notify.edit(src, install)
				if err == nil && install && codexHooksOff(src) {
					res.notes = append(res.notes, "config.toml turns hooks off ([features] hooks = false): Codex runs no hooks, paddock's included, until that is removed")
				}
				return res, err
			},
		},
	}
}

// codexHooksOff reports [features] hooks = false in a config that scans.
func codexHooksOff(src []byte) bool {
	stmts, err := scanTOML(src)
	if err != nil {
		return false
	}
	for _, st := range stmts {
		if st.kind == tomlKeyValue && (st.table == "features" && st.key == "hooks" || st.table == "" && st.key == "features.hooks") {
			return strings.TrimSpace(string(src[st.valStart:st.valEnd])) == "false"
		}
	}
	return false
}

func codexNotes(*resolved) []string {
	return []string{
		"Codex runs hooks from hooks.json only after you trust them: start codex, type /hooks, review paddock's entries and trust them. " +
			"Trust is pinned to each hook's hash, so trust again after paddock's binary or data dir moves. " +
			"Until then Codex skips them (codex --dangerously-bypass-hook-trust runs them for one session).",
		"paddock's notify in config.toml (installed unless you already have a notify program) reports turn ends; Codex appends the event JSON as the last argument.",
	}
}

// notifyEdit manages the top-level `notify = [...]` of Codex's config.toml.
// A notify program that is not paddock's is never replaced: Codex has one
// notify slot, and chaining would mean paddock re-running someone else's
// program. paddock's hooks.json Stop hook reports turn ends without it.
type notifyEdit struct {
	argv []string
	ours func([]string) bool
}

const notifyComment = " # paddock hook relay (paddock hooks uninstall removes this line)"

func (n *notifyEdit) line() string {
	q := make([]string, len(n.argv))
	for i, a := range n.argv {
		q[i] = tomlQuote(a)
	}
	return "notify = [" + strings.Join(q, ", ") + "]" + notifyComment + "\n"
}

func (n *notifyEdit) edit(src []byte, install bool) (editOut, error) {
	stmts, err := scanTOML(src)
	if err != nil {
		return editOut{}, err
	}
	res := editOut{out: src}
	var at *tomlStmt
	lastTop, firstHeader := -1, -1
	for i := range stmts {
		st := &stmts[i]
		if st.kind == tomlTable || st.kind == tomlArrayTable {
			if firstHeader < 0 {
				firstHeader = i
			}
			continue
		}
		if st.kind != tomlKeyValue || st.table != "" {
			continue
		}
		lastTop = i
		if st.key == "notify" {
			if at != nil {
				return editOut{}, fmt.Errorf("line %d: notify is set twice", st.line)
			}
			at = st
		}
	}
	if at != nil {
		raw := src[at.valStart:at.valEnd]
		vals, ok := tomlStrings(raw)
		if !ok || !n.ours(vals) {
			res.foreign = 1
			if install {
				res.notes = append(res.notes, fmt.Sprintf("config.toml already has notify = %s (kept): paddock's notify is not installed; its Stop hook reports turn ends instead", strings.TrimSpace(string(raw))))
			}
			return res, nil
		}
		res.ours = 1
		switch {
		case install && equalStrings(vals, n.argv):
			return res, nil
		case install:
			res.out = splice(src, at.start, at.end, n.line())
		default:
			res.out = splice(src, at.start, at.end, "")
		}
		return res, nil
	}
	if !install {
		return res, nil
	}
	pos := 0
	if lastTop >= 0 {
		pos = stmts[lastTop].end
	}
	line := n.line()
	if pos > 0 && src[pos-1] != '\n' {
		line = "\n" + line
	}
	res.out = splice(src, pos, pos, line)
	return res, nil
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ---- Cursor ----

var cursorEvents = []struct {
	name    string
	timeout int
}{
	{"sessionStart", statusTimeout},
	{"beforeSubmitPrompt", statusTimeout},
	{"beforeShellExecution", decisionTimeout},
	{"beforeMCPExecution", decisionTimeout},
	{"afterAgentResponse", statusTimeout},
	{"stop", statusTimeout},
	{"sessionEnd", statusTimeout},
}

func cursorDir(o *resolved) string { return filepath.Join(o.home, ".cursor") }

func cursorTargets(o *resolved, dir string, _ bool) []target {
	s := &jsonHooks{nested: false, ours: o.isOurJSONHandler}
	for _, e := range cursorEvents {
		s.events = append(s.events, jsonEvent{name: e.name, handler: jobj{
			{"command", o.command("cursor", e.name)}, {"timeout", e.timeout},
		}})
	}
	return []target{{
		path: filepath.Join(dir, "hooks.json"),
		base: []byte("{\n  \"version\": 1\n}\n"),
		mode: 0o600,
		edit: func(src []byte, _, install bool) (editOut, error) { return s.edit(src, install) },
	}}
}

func cursorNotes(*resolved) []string {
	return []string{"Cursor reads ~/.cursor/hooks.json when it starts: restart Cursor (and cursor-agent) to pick up the change."}
}

// ---- Kimi Code ----

var kimiEvents = []string{
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PermissionResult",
	"PostToolUse", "PostToolUseFailure", "Stop", "StopFailure", "Interrupt",
	"SubagentStart", "SubagentStop", "Notification", "SessionHeartbeat", "SessionEnd",
}

func kimiDir(o *resolved) string { return o.envDir("KIMI_CODE_HOME", ".kimi-code") }

func kimiTargets(o *resolved, dir string, _ bool) []target {
	k := &tomlHooks{ours: o.isOurCommand}
	for _, e := range kimiEvents {
		k.events = append(k.events, tomlHook{event: e, command: o.command("kimi", e), timeout: statusTimeout})
	}
	return []target{{
		path: filepath.Join(dir, "config.toml"),
		base: []byte{},
		mode: 0o600,
		edit: func(src []byte, _, install bool) (editOut, error) { return k.edit(src, install) },
	}}
}

func kimiNotes(*resolved) []string {
	return []string{"Kimi reads [[hooks]] when a session starts: restart running sessions. Kimi hooks can report and deny, never approve: approvals stay in Kimi's own prompt."}
}

// ---- OpenCode ----

//go:embed assets/opencode-plugin.js
var opencodePlugin string

//go:embed assets/pi-extension.ts
var piExtension string

const (
	opencodeMarker = "paddock-hook-plugin"
	piMarker       = "paddock-hook-extension"
)

func opencodeDir(o *resolved) string {
	if d := o.env("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "opencode")
	}
	return filepath.Join(o.home, ".config", "opencode")
}

// fill puts the relay's path and arguments into a plugin source as JS
// literals (JSON strings are JS strings).
func (o *resolved) fill(src, runtime string) []byte {
	bin, _ := json.Marshal(o.binary)
	args, _ := json.Marshal(o.relayArgv(runtime)[1:])
	return []byte(strings.NewReplacer("__PADDOCK_BIN__", string(bin), "__PADDOCK_ARGS__", string(args)).Replace(src))
}

// wholeFile manages a file that is entirely paddock's: recognised by marker,
// written whole, removed on uninstall; a file of that name without the
// marker is someone else's and is never touched.
func wholeFile(content []byte, marker string) func([]byte, bool, bool) (editOut, error) {
	return func(src []byte, exists, install bool) (editOut, error) {
		if exists && !bytes.Contains(src, []byte(marker)) {
			if install {
				return editOut{}, fmt.Errorf("the file exists and is not paddock's (no %q marker)", marker)
			}
			return editOut{out: src, foreign: 1}, nil
		}
		res := editOut{}
		if exists {
			res.ours = 1
		}
		if install {
			res.out = content
		} else {
			res.remove = true
		}
		return res, nil
	}
}

// pluginTargets is the file in the first of subdirs that holds it, else in
// the first subdir that exists, else in subdirs[0]; uninstall and status
// also look at the others.
func pluginTargets(dir string, subdirs []string, name string, edit func([]byte, bool, bool) (editOut, error), install bool) []target {
	var have []target
	for _, sd := range subdirs {
		p := filepath.Join(dir, sd, name)
		if _, err := os.Lstat(p); err == nil {
			have = append(have, target{path: p, mode: 0o600, edit: edit})
		}
	}
	if len(have) > 0 {
		if install {
			return have[:1]
		}
		return have
	}
	sd := subdirs[0]
	for _, c := range subdirs {
		if st, err := os.Stat(filepath.Join(dir, c)); err == nil && st.IsDir() {
			sd = c
			break
		}
	}
	return []target{{path: filepath.Join(dir, sd, name), mode: 0o600, edit: edit}}
}

func opencodeTargets(o *resolved, dir string, install bool) []target {
	// OpenCode loads {plugin,plugins}/*.{js,ts} from its config dir.
	return pluginTargets(dir, []string{"plugin", "plugins"}, "paddock.js", wholeFile(o.fill(opencodePlugin, "opencode"), opencodeMarker), install)
}

func opencodeNotes(*resolved) []string {
	return []string{"OpenCode loads plugins when it starts: restart it. The plugin only reports; answering a permission from the phone needs the TUI started with --port so paddock can reach its HTTP server."}
}

// ---- Pi ----

func piDir(o *resolved) string { return o.envDir("PI_CODING_AGENT_DIR", ".pi", "agent") }

func piTargets(o *resolved, dir string, install bool) []target {
	return pluginTargets(dir, []string{"extensions"}, "paddock.ts", wholeFile(o.fill(piExtension, "pi"), piMarker), install)
}

func piNotes(*resolved) []string {
	return []string{"Pi loads extensions when it starts: restart running sessions. The extension also reports Pi's pid and session file, which is how paddock knows a Pi session is alive."}
}

// ---- Kimi's [[hooks]] ----

// tomlHooks manages paddock's [[hooks]] tables in Kimi's config.toml. They
// are appended at the end between two marker comments and removed again
// with them; paddock's tables are recognised by their command either way.
type tomlHooks struct {
	events []tomlHook
	ours   func(cmd string) bool
}

type tomlHook struct {
	event, command string
	timeout        int
}

const (
	tomlBegin = "# >>> paddock hooks: added by `paddock hooks install`, removed by `paddock hooks uninstall` >>>"
	tomlEnd   = "# <<< paddock hooks <<<"
)

func (k *tomlHooks) region() string {
	var b strings.Builder
	b.WriteString(tomlBegin + "\n")
	for i, h := range k.events {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[[hooks]]\nevent = %s\ncommand = %s\ntimeout = %d\n", tomlQuote(h.event), tomlQuote(h.command), h.timeout)
	}
	b.WriteString(tomlEnd + "\n")
	return b.String()
}

func (h tomlHook) signature() string {
	return "command=s:" + h.command + "\x00event=s:" + h.event + "\x00timeout=r:" + strconv.Itoa(h.timeout)
}

// tomlBlock is one [[hooks]] table.
type tomlBlock struct {
	first, last int // statement indexes: the header and its last key/value
	ours        bool
	parts       []string // key=value, for comparing meaning
}

func (b tomlBlock) sig() string {
	p := slices.Clone(b.parts)
	slices.Sort(p)
	return strings.Join(p, "\x00")
}

func (k *tomlHooks) scan(src []byte) ([]tomlStmt, []tomlBlock, error) {
	stmts, err := scanTOML(src)
	if err != nil {
		return nil, nil, err
	}
	var blocks []tomlBlock
	cur := -1
	for i, st := range stmts {
		switch st.kind {
		case tomlTable, tomlArrayTable:
			cur = -1
			if st.kind == tomlTable && st.key == "hooks" {
				return nil, nil, fmt.Errorf("line %d: [hooks] is a table here, not a list of [[hooks]]; paddock cannot add its entries", st.line)
			}
			if st.kind == tomlArrayTable && st.key == "hooks" {
				blocks = append(blocks, tomlBlock{first: i, last: i})
				cur = len(blocks) - 1
			}
		case tomlKeyValue:
			if st.table == "" && (st.key == "hooks" || strings.HasPrefix(st.key, "hooks.")) {
				return nil, nil, fmt.Errorf("line %d: hooks is set as a key, not as [[hooks]] tables; paddock cannot add its entries", st.line)
			}
			if cur < 0 {
				continue
			}
			b := &blocks[cur]
			b.last = i
			raw := src[st.valStart:st.valEnd]
			v := "r:" + strings.TrimSpace(string(raw))
			if vals, ok := tomlStrings(raw); ok && len(vals) == 1 && raw[0] != '[' {
				v = "s:" + vals[0]
				if st.key == "command" && k.ours(vals[0]) {
					b.ours = true
				}
			}
			b.parts = append(b.parts, st.key+"="+v)
		}
	}
	return stmts, blocks, nil
}

func (k *tomlHooks) remove(src []byte, stmts []tomlStmt, blocks []tomlBlock) []byte {
	begin, end := -1, -1
	for i, st := range stmts {
		if st.kind != tomlComment {
			continue
		}
		line := strings.TrimSpace(string(src[st.start:st.end]))
		switch {
		case strings.HasPrefix(line, "# >>> paddock hooks") && begin < 0:
			begin = i
		case strings.HasPrefix(line, "# <<< paddock hooks") && begin >= 0 && end < 0:
			end = i
		}
	}
	inOurs := make([]bool, len(stmts))
	for _, b := range blocks {
		if b.ours {
			for i := b.first; i <= b.last; i++ {
				inOurs[i] = true
			}
		}
	}
	// the whole marked region, when it holds nothing of the user's
	if begin >= 0 && end > begin {
		clean := true
		for i := begin + 1; i < end; i++ {
			if !inOurs[i] && stmts[i].kind != tomlBlank {
				clean = false
				break
			}
		}
		if clean {
			from := stmts[begin].start
			if begin > 0 && stmts[begin-1].kind == tomlBlank {
				from = stmts[begin-1].start
			}
			rest := tomlRemove(src, [][2]int{{from, stmts[end].end}})
			// paddock tables outside the region too
			if s2, b2, err := k.scan(rest); err == nil {
				return k.removeBlocks(rest, s2, b2, -1, -1)
			}
			return rest
		}
	}
	return k.removeBlocks(src, stmts, blocks, begin, end)
}

// removeBlocks deletes paddock's tables one by one, and the marker lines.
func (k *tomlHooks) removeBlocks(src []byte, stmts []tomlStmt, blocks []tomlBlock, begin, end int) []byte {
	var ranges [][2]int
	for _, b := range blocks {
		if b.ours {
			ranges = append(ranges, [2]int{stmts[b.first].start, stmts[b.last].end})
		}
	}
	for _, m := range []int{begin, end} {
		if m >= 0 {
			ranges = append(ranges, [2]int{stmts[m].start, stmts[m].end})
		}
	}
	sortRanges(ranges)
	return tomlRemove(src, ranges)
}

func sortRanges(r [][2]int) {
	slices.SortFunc(r, func(a, b [2]int) int { return a[0] - b[0] })
}

func (k *tomlHooks) edit(src []byte, install bool) (editOut, error) {
	stmts, blocks, err := k.scan(src)
	if err != nil {
		return editOut{}, err
	}
	res := editOut{out: src}
	var have []string
	for _, b := range blocks {
		if b.ours {
			res.ours++
			have = append(have, b.sig())
		} else {
			res.foreign++
		}
	}
	if install && k.installed(have) {
		return res, nil
	}
	out := src
	if res.ours > 0 || bytes.Contains(src, []byte("# >>> paddock hooks")) {
		out = k.remove(src, stmts, blocks)
	}
	if install {
		switch {
		case len(out) == 0:
			out = []byte(k.region())
		case out[len(out)-1] == '\n':
			out = append(append(bytes.Clone(out), '\n'), k.region()...)
		default:
			out = append(append(bytes.Clone(out), '\n', '\n'), k.region()...)
		}
	}
	// what paddock writes must still scan
	if _, _, err := k.scan(out); err != nil {
		return editOut{}, fmt.Errorf("internal error: the edited file would not parse (%v)", err)
	}
	res.out = out
	return res, nil
}

func (k *tomlHooks) installed(have []string) bool {
	if len(have) != len(k.events) {
		return false
	}
	used := make([]bool, len(have))
	for _, e := range k.events {
		sig, hit := e.signature(), false
		for i, h := range have {
			if !used[i] && h == sig {
				used[i], hit = true, true
				break
			}
		}
		if !hit {
			return false
		}
	}
	return true
}
