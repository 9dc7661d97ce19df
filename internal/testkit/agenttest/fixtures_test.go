package agenttest_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"paddock/internal/agent/registry"
	"paddock/internal/hookinstall"
	"paddock/internal/testkit/agentenv"
	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
)

// TestRecordFixtures is `make fixtures`: it re-records testdata/<cli>-<version>/
// at the module root from the real, pinned CLIs driven against the mock
// model — the history files each CLI wrote and the hook payloads it sent —
// so the unit tests have real data of their own on a clone without
// ../shared. testdata/README.md describes the result.

var record = flag.Bool("record", false, "re-record testdata/ from the real agent CLIs (make fixtures)")

// fixturesHome is the fake HOME of every recording: a fixed, short path
// makes the recordings comparable from one run to the next (the CLIs write
// it into their files, which are kept byte for byte).
const fixturesHome = "/tmp/paddock-fixtures-home"

// turnKind is what a recorded turn does.
type turnKind string

const (
	plain   turnKind = "plain"    // a prompt and the mock's text reply
	approve turnKind = "approved" // RUN: the shell tool call is approved once
	deny    turnKind = "denied"   // RUN: the call is refused
	answer  turnKind = "answered" // ASK: the question's first option is picked
)

type fixtureTurn struct {
	Prompt string   `json:"prompt"`
	Kind   turnKind `json:"kind"`
}

// fixtureSessions is what every CLI records: keep it small, it is what the
// unit tests need.
var fixtureSessions = []struct {
	name   string
	resume bool // reopen the previous session (Setup.Continue)
	turns  []fixtureTurn
}{
	{"chat", false, []fixtureTurn{{"hello paddock one", plain}, {"second turn please", plain}}},
	{"tools", false, []fixtureTurn{{"please RUN the thing", approve}, {"RUN it again please", deny}, {"ASK me which color", answer}}},
	{"resumed", true, []fixtureTurn{{"one more turn after resume", plain}}},
}

// historySources are the files each CLI keeps its sessions in, relative
// to the fake HOME, and where they go in the recording. A directory is
// copied whole; a .sqlite/.db file is copied consistently (sqliteCopy).
var historySources = map[agentenv.CLI][][2]string{
	agentenv.Claude:   {{".claude/projects", "claude/projects"}},
	agentenv.Codex:    {{".codex/sessions", "codex/sessions"}, {".codex/state_5.sqlite", "codex/state_5.sqlite"}},
	agentenv.OpenCode: {{".local/share/opencode/opencode.db", "opencode/opencode.db"}},
	agentenv.Pi:       {{".pi/agent/sessions", "pi/sessions"}},
	agentenv.Kimi:     {{".kimi-code/sessions", "kimi/sessions"}},
}

func TestRecordFixtures(t *testing.T) {
	if !*record {
		t.Skip("recording runs only under make fixtures (-record)")
	}
	_, file, _, _ := runtime.Caller(0)
	out := filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata")
	for _, cli := range agentenv.CLIs() {
		t.Run(string(cli), func(t *testing.T) {
			if _, err := agentenv.Bin(cli); err != nil && cli == agentenv.Kimi && os.Getenv(agenttest.EnvRequired) != "1" {
				t.Skipf("kimi is optional here (E2E_REQUIRED=1 requires it): %v", err)
			}
			start := time.Now()
			recordCLI(t, cli, filepath.Join(out, string(cli)+"-"+cli.Version()))
			t.Logf("%s recorded in %s", cli, time.Since(start).Round(100*time.Millisecond))
		})
	}
}

// recorder records one CLI.
type recorder struct {
	t     *testing.T
	ctx   context.Context
	cli   agentenv.CLI
	mock  *mockmodel.Server
	setup *agentenv.Setup
	dest  string
	log   string   // the hook logger's directory
	base  []string // the command and the flags every session gets
}

type sessionManifest struct {
	Name  string         `json:"name"`
	Argv  []string       `json:"argv"`
	Turns []turnManifest `json:"turns"`
	// Files are the recorded files this session created or changed.
	Files []string `json:"files"`
}

type turnManifest struct {
	fixtureTurn
	// Outcome is Kind when the turn ran, or why it was skipped.
	Outcome string `json:"outcome"`
	Reply   string `json:"reply,omitempty"`
}

func recordCLI(t *testing.T, cli agentenv.CLI, dest string) {
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	bin := agenttest.Bin(t, cli)
	if err := os.RemoveAll(fixturesHome); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(fixturesHome) })
	mock, err := mockmodel.Start(ctx, mockmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	setup, err := agentenv.New(cli, agentenv.Config{Home: fixturesHome, ModelURL: mock.URL(), Bin: bin})
	if err != nil {
		t.Fatal(err)
	}
	// Record next to dest and swap it in at the end: a failed run leaves
	// the committed recording alone.
	partial := dest + ".partial"
	if err := os.RemoveAll(partial); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(partial) })
	r := &recorder{t: t, ctx: ctx, cli: cli, mock: mock, setup: setup, dest: partial, base: setup.Argv[:1:1]}
	r.installHookLogger()
	if cli == agentenv.Codex {
		r.base = append(r.base, agentenv.CodexBypassHookTrust)
	}

	var sessions []sessionManifest
	for _, s := range fixtureSessions {
		argv, ready := append(slices.Clone(r.base), setup.Argv[1:]...), setup.Ready
		if s.resume {
			argv, ready = append(slices.Clone(r.base), setup.Continue...), setup.ReadyAfterContinue()
		}
		sessions = append(sessions, r.session(s.name, argv, ready, s.turns))
	}

	if err := r.writeHooks(); err != nil {
		t.Fatal(err)
	}
	pkg, version, _ := cli.Pinned()
	writeJSONFile(t, filepath.Join(partial, "manifest.json"), manifest{
		CLI: cli, Package: pkg, Version: version, Command: "make fixtures",
		Home: setup.Home, Cwd: setup.Cwd, Sessions: sessions,
	})
	if err := os.RemoveAll(dest); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(partial, dest); err != nil {
		t.Fatal(err)
	}
}

// manifest is <cli>-<version>/manifest.json: what was recorded, so tests
// can find each session's files by what happened in it.
type manifest struct {
	CLI      agentenv.CLI      `json:"cli"`
	Package  string            `json:"package"`
	Version  string            `json:"version"`
	Command  string            `json:"command"`
	Home     string            `json:"home"`
	Cwd      string            `json:"cwd"`
	Sessions []sessionManifest `json:"sessions"`
}

// installHookLogger installs paddock's own hooks (hookinstall) with a
// logging script in place of paddock's relay: each call's argv and stdin
// land in a file of their own, which writeHooks turns into hooks.jsonl.
// For Pi, whose tool calls nobody approves, the logger blocks the next
// tool call (the answer paddock's relay gives to deny one) when
// <log>/block-next-tool exists.
func (r *recorder) installHookLogger() {
	r.log = filepath.Join(r.setup.Home, ".hooklog")
	script := filepath.Join(r.setup.Home, "bin", "paddock-hooklog")
	if err := os.MkdirAll(r.log, 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		r.t.Fatal(err)
	}
	body := `#!/bin/sh
# make fixtures' stand-in for paddock's hook relay: it records the call.
d=` + r.log + `
f="$d/$(date +%s%N)-$$"
cat > "$f.in"
printf '%s\0' "$@" > "$f.tmp" && mv "$f.tmp" "$f.argv"
for last; do :; done
if [ "$last" = tool_call ] && rm "$d/block-next-tool" 2>/dev/null; then
  printf '{"block":true,"reason":"denied by make fixtures"}'
fi
exit 0
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		r.t.Fatal(err)
	}
	opts := hookinstall.Options{Specs: registry.Default().InstallSpecs(), Binary: script, Home: r.setup.Home, Env: r.setup.Getenv}
	res, err := hookinstall.Install(opts, []string{string(r.cli)}, false)
	if err != nil || len(res) != 1 || !res[0].Changed {
		r.t.Fatalf("installing the hook logger: %v %+v", err, res)
	}
}

// session runs one CLI session through its turns and quits it.
func (r *recorder) session(name string, argv []string, ready *regexp.Regexp, turns []fixtureTurn) sessionManifest {
	t := r.t
	before := r.historyState()
	a := agenttest.FromSetup(r.setup)
	a.Argv = argv
	term := a.Start(t)
	term.Expect(r.ctx, ready)
	m := sessionManifest{Name: name, Argv: append([]string{string(r.cli)}, argv[1:]...)}
	for _, tn := range turns {
		m.Turns = append(m.Turns, r.turn(term, name, tn))
	}
	if _, err := a.Quit(r.ctx, term); err != nil {
		t.Fatal(err)
	}
	r.settleHooks()
	// Close now, not at the end of the test: Codex's app-server daemon
	// would go on writing into the next session's files.
	term.Close()
	r.copyHistory()
	after := r.historyState()
	for path, sig := range after {
		if before[path] != sig {
			m.Files = append(m.Files, path)
		}
	}
	slices.Sort(m.Files)
	return m
}

// turn types one prompt and plays the dialog it opens.
func (r *recorder) turn(term *agenttest.Term, session string, tn fixtureTurn) turnManifest {
	t := r.t
	d := r.setup.Dialogs
	out := turnManifest{fixtureTurn: tn, Outcome: string(tn.Kind)}
	var dialog *regexp.Regexp
	var keys []string
	switch tn.Kind {
	case approve:
		dialog, keys = d.Approval, d.Approve
	case deny:
		dialog, keys = d.Approval, d.Deny
		if dialog == nil {
			// Pi: the logger plays paddock's relay refusing the call.
			writeFile(t, filepath.Join(r.log, "block-next-tool"), "")
		}
	case answer:
		if d.Question == nil {
			out.Outcome = "skipped: " + string(r.cli) + " shows no question for the mock's ASK"
			return out
		}
		if len(d.QuestionMode) > 0 {
			term.Key(d.QuestionMode...)
			time.Sleep(time.Second)
		}
		dialog, keys = d.Question, d.Answer
	}
	n := len(r.mock.Requests())
	r.t.Logf("%s %s: typing %q (%s)", r.cli, session, tn.Prompt, tn.Kind)
	term.Type(tn.Prompt)
	if tn.Kind == plain {
		rep := r.waitReply(n, func(rep mockmodel.Reply) bool {
			return rep.Kind == mockmodel.KindText && strings.Contains(rep.Prompt, tn.Prompt)
		})
		term.Expect(r.ctx, regexp.MustCompile(regexp.QuoteMeta(rep.Text)))
		out.Reply = rep.Text
		r.settle()
		return out
	}
	// Contains: after an interrupted turn Claude sends the new prompt in
	// one message with its "[Request interrupted by user…]" note.
	r.waitReply(n, func(rep mockmodel.Reply) bool {
		return rep.Kind == mockmodel.KindTool && strings.Contains(rep.Prompt, tn.Prompt)
	})
	if dialog != nil {
		term.Expect(r.ctx, dialog)
		if r.cli == agentenv.Claude && tn.Kind == approve {
			// Claude's registry of running sessions, while one waits for
			// approval (it is removed when the TUI exits).
			r.copyPidFiles()
		}
		term.Answer(dialog, keys...)
	}
	if tn.Kind != deny || dialog == nil {
		// The tool ran (or Pi's refusal went back to the model): the mock
		// answers the tool result.
		rep := r.waitReply(n, func(rep mockmodel.Reply) bool { return rep.Text == mockmodel.ToolFinishedReply })
		out.Reply = rep.Text
	}
	r.settle()
	return out
}

// waitReply waits for a reply among the requests after the first n that
// satisfies ok.
func (r *recorder) waitReply(n int, ok func(mockmodel.Reply) bool) mockmodel.Reply {
	r.t.Helper()
	var found mockmodel.Reply
	_, err := r.mock.WaitFor(r.ctx, func(reqs []mockmodel.Request) bool {
		for _, q := range reqs[min(n, len(reqs)):] {
			if q.Reply != nil && ok(*q.Reply) {
				found = *q.Reply
				return true
			}
		}
		return false
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return found
}

// copyPidFiles keeps Claude's registry of running sessions
// (~/.claude/sessions/<pid>.json), which the TUI removes when it exits.
// The <pid>.<hash>.key files beside them (a peer token) are left out.
func (r *recorder) copyPidFiles() {
	dir := filepath.Join(r.setup.Home, ".claude", "sessions")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		r.t.Fatalf("no Claude pid file in %s while a session runs", dir)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			r.t.Fatal(err)
		}
		writeFile(r.t, filepath.Join(r.dest, "claude", "sessions-waiting", filepath.Base(f)), string(b))
	}
}

// settle waits until the mock has seen no request for a while: the CLI has
// finished the turn and its side calls (titles).
func (r *recorder) settle() {
	const quiet = 1500 * time.Millisecond
	last, since := len(r.mock.Requests()), time.Now()
	for time.Since(since) < quiet {
		time.Sleep(100 * time.Millisecond)
		if n := len(r.mock.Requests()); n != last {
			last, since = n, time.Now()
		}
		if r.ctx.Err() != nil {
			r.t.Fatal(r.ctx.Err())
		}
	}
}

// settleHooks waits until no hook call has been logged for a while (some
// CLIs run hooks asynchronously, SessionEnd after the TUI has gone).
func (r *recorder) settleHooks() {
	const quiet = 2 * time.Second
	count := func() int { e, _ := os.ReadDir(r.log); return len(e) }
	last, since := count(), time.Now()
	for deadline := time.Now().Add(20 * time.Second); time.Since(since) < quiet && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		if n := count(); n != last {
			last, since = n, time.Now()
		}
	}
}

type fileSig struct {
	size  int64
	mtime time.Time
}

// historyState maps each history file (by its path in the recording) to
// its size and mtime, to tell which files a session touched.
func (r *recorder) historyState() map[string]fileSig {
	out := map[string]fileSig{}
	for _, s := range historySources[r.cli] {
		root := filepath.Join(r.setup.Home, filepath.FromSlash(s[0]))
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			st, err := d.Info()
			if err == nil {
				out[filepath.ToSlash(filepath.Join(s[1], rel))] = fileSig{st.Size(), st.ModTime()}
			}
			return nil
		})
	}
	return out
}

// copyHistory copies the CLI's history files into the recording, replacing
// what an earlier session copied.
func (r *recorder) copyHistory() {
	for _, s := range historySources[r.cli] {
		src := filepath.Join(r.setup.Home, filepath.FromSlash(s[0]))
		st, err := os.Stat(src)
		if err != nil {
			r.t.Fatalf("%s wrote no %s: %v", r.cli, s[0], err)
		}
		if st.IsDir() {
			r.copyTree(src, s[1])
			continue
		}
		if err := sqliteCopy(r.ctx, src, filepath.Join(r.dest, filepath.FromSlash(s[1]))); err != nil {
			r.t.Fatal(err)
		}
	}
}

// copyTree copies the files under src to dest/rel, byte for byte.
func (r *recorder) copyTree(src, rel string) {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		in, _ := filepath.Rel(src, p)
		dst := filepath.Join(r.dest, filepath.FromSlash(rel), in)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		r.t.Fatal(err)
	}
}

// sqliteCopy copies a database the CLI has closed: byte for byte when its
// WAL has been checkpointed away, else through VACUUM INTO, which yields
// one consistent file.
func sqliteCopy(ctx context.Context, src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	os.Remove(dst)
	if st, err := os.Stat(src + "-wal"); err != nil || st.Size() == 0 {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	}
	db, err := sql.Open("sqlite", src)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return nil
}

// writeHooks turns the logger's files into hooks.jsonl, in the order the
// calls started: {"event": …, "payload": …} per call, the payload being
// the JSON the CLI wrote to the hook's stdin (for Codex's notify, the JSON
// it passed as the last argument).
func (r *recorder) writeHooks() error {
	entries, err := os.ReadDir(r.log)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".argv")
		if !ok {
			continue
		}
		argvRaw, err := os.ReadFile(filepath.Join(r.log, e.Name()))
		if err != nil {
			return err
		}
		stdin, err := os.ReadFile(filepath.Join(r.log, name+".in"))
		if err != nil {
			return err
		}
		// hook --runtime R EVENT [argument]
		argv := strings.Split(strings.TrimSuffix(string(argvRaw), "\x00"), "\x00")
		if len(argv) < 4 || argv[0] != "hook" || argv[1] != "--runtime" {
			return fmt.Errorf("hook logger called with %q", argv)
		}
		event := argv[3]
		payload := json.RawMessage("null")
		switch {
		case json.Valid(stdin) && len(bytes.TrimSpace(stdin)) > 0:
			payload = stdin
		case len(argv) > 4 && json.Valid([]byte(argv[len(argv)-1])):
			payload = json.RawMessage(argv[len(argv)-1])
		case len(stdin) > 0:
			payload, _ = json.Marshal(string(stdin))
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, payload); err != nil {
			return err
		}
		line, err := json.Marshal(struct {
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}{event, compact.Bytes()})
		if err != nil {
			return err
		}
		buf.Write(append(line, '\n'))
	}
	if buf.Len() == 0 {
		return errors.New("no hook calls were logged")
	}
	return os.WriteFile(filepath.Join(r.dest, "hooks.jsonl"), buf.Bytes(), 0o644)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(b)+"\n")
}

// TestFixturesWellFormed checks the committed recordings without the CLIs:
// each manifest names files that are there, the hook log is one
// {"event","payload"} object per line, and the whole set stays small.
func TestFixturesWellFormed(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata")
	dirs, _ := filepath.Glob(filepath.Join(root, "*-*"))
	if len(dirs) == 0 {
		t.Fatal("no recordings in testdata/ (make fixtures)")
	}
	var total int64
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if st, err := d.Info(); err == nil {
				total += st.Size()
			}
		}
		return nil
	})
	if total > 2<<20 {
		t.Errorf("testdata/ holds %d bytes; keep the recordings under 2 MB", total)
	}
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var m manifest
			b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
			if err == nil {
				err = json.Unmarshal(b, &m)
			}
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Base(dir) != string(m.CLI)+"-"+m.Version || m.Version != m.CLI.Version() {
				t.Errorf("%s records %s %s; pinned is %s", dir, m.CLI, m.Version, m.CLI.Version())
			}
			if len(m.Sessions) != len(fixtureSessions) {
				t.Errorf("%d sessions recorded, want %d", len(m.Sessions), len(fixtureSessions))
			}
			for _, s := range m.Sessions {
				if len(s.Files) == 0 {
					t.Errorf("session %s wrote no history file", s.Name)
				}
				for _, f := range s.Files {
					if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
						t.Errorf("session %s: %v", s.Name, err)
					}
				}
			}
			hooks, err := os.ReadFile(filepath.Join(dir, "hooks.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range bytes.Split(bytes.TrimSuffix(hooks, []byte("\n")), []byte("\n")) {
				var h struct {
					Event   string
					Payload json.RawMessage
				}
				if err := json.Unmarshal(line, &h); err != nil || h.Event == "" || len(h.Payload) == 0 {
					t.Errorf("hooks.jsonl:%d: %v %.80s", i+1, err, line)
				}
			}
		})
	}
}
