package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"

	"paddock/internal/app"
	"paddock/internal/testkit/agentenv"
	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/imagetest"
	"paddock/internal/testkit/mockmodel"
	"paddock/internal/testkit/servetest"
	"paddock/internal/testkit/sharedtest"
)

// chromiumPath finds Debian's chromium; without it the browser test skips,
// unless E2E_REQUIRED=1 (CI) makes that a failure.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium not installed (apt-get install chromium); set E2E_REQUIRED=1 to make this a failure"
	if os.Getenv("E2E_REQUIRED") == "1" {
		t.Fatal("E2E_REQUIRED=1 but " + msg)
	}
	t.Skip(msg)
	return ""
}

// artifactDir is where screenshots go: $TEST_ARTIFACTS or testresults/ at
// the repository root.
func artifactDir(t *testing.T) string {
	dir := os.Getenv("TEST_ARTIFACTS")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "testresults")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fixtureHome builds a HOME whose ~/.claude holds the transcripts recorded
// from the real Claude Code 2.1.328.
func fixtureHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	copyTree(t, sharedtest.Fixtures(t, "real", "claude-2.1.328", "projects"), filepath.Join(home, ".claude", "projects"))
	// The recordings ran in this directory; sessions whose directory is
	// gone are not listed.
	if err := os.MkdirAll("/tmp/fakehome1/proj", 0o755); err != nil {
		t.Fatal(err)
	}
	return home
}

// copyTree copies the files below src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestBrowserPairBoardSession(t *testing.T) {
	chrome := chromiumPath(t)
	home := fixtureHome(t)
	srv := servetest.Start(t, home)
	if !strings.HasPrefix(srv.PairLink, "https://127.0.0.1:") {
		t.Fatalf("pair link %q does not use the bound address", srv.PairLink)
	}

	ph := newPhone(t, chrome)
	ctx, step, poll := ph.ctx, ph.step, ph.poll

	// Before pairing, the board redirects to the pairing page.
	base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
	step("unpaired", chromedp.Navigate(base+"/"))
	poll("unpaired redirect", `location.pathname === "/pair" && !!document.querySelector('[data-testid="pair"]')`)

	// Pair through the link.
	step("open pair link", chromedp.Navigate(srv.PairLink))
	step("tap pair", chromedp.WaitVisible(`[data-testid="pair-submit"]`), chromedp.Click(`[data-testid="pair-submit"]`))
	poll("board", `location.pathname === "/" && document.querySelectorAll('[data-testid="card"]').length === 3`)
	// The websocket connected (its snapshot replaced the board) and no
	// reconnect banner shows.
	poll("live", `document.getElementById("reconnecting").hidden === true`)
	shot(t, ctx, "board")

	titles, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="card"] .title')].map(e => e.textContent.trim())`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"RUN once more", "say hi"} {
		if !contains(titles, want) {
			t.Fatalf("board titles %q lack %q", titles, want)
		}
	}

	// A session that appears while the board is open shows up without a reload.
	writeTranscript(t, filepath.Join(home, ".claude", "projects", "-tmp-fakehome1-proj"), "5b2a4e6c-0000-4000-8000-00000000live", "a session started while the phone watched")
	poll("live card", `[...document.querySelectorAll('[data-testid="card"] .title')].some(e => e.textContent.includes("a session started while the phone watched"))`)

	// Open a session and read its conversation.
	step("open session", chromedp.Click(`a[href="/s/claude/1e6fec4f-a6cb-42e2-ad9e-c92c9d1309d2"]`))
	poll("messages", `document.querySelectorAll('[data-testid="message"]').length === 2`)
	msgs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="message"]')].map(e => e.dataset.role + ": " + e.querySelector('.md, div:not(.who)').textContent.trim())`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"user: say hi", "assistant: Mock reply: done."}; strings.Join(msgs, "|") != strings.Join(want, "|") {
		t.Fatalf("messages %q, want %q", msgs, want)
	}
	shot(t, ctx, "session")

	// Back on the board, an agent asks for approval: the card turns to
	// "needs approval" in the strip on top, without a reload, and leaves
	// it when the tool runs.
	step("back to board", chromedp.Navigate(base+"/"))
	poll("board again", `document.getElementById("reconnecting").hidden === true && !!document.querySelector('[data-testid="card"]')`)
	const waiting = "1e6fec4f-a6cb-42e2-ad9e-c92c9d1309d2"
	// paddock holds the hook for the phone: it runs in the background.
	held := startRelayHook(t, srv, "PermissionRequest", `{"session_id":"`+waiting+`","hook_event_name":"PermissionRequest","cwd":"/tmp/fakehome1/proj","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`)
	poll("needs you", `[...document.querySelectorAll('[data-testid="needs-you"] [data-testid="approval"]')].some(c => c.textContent.includes("rm -rf build")) &&
		[...document.querySelectorAll('#board > [data-testid="card"]')].some(c => c.dataset.state === "approval")`)
	colours, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#board > [data-testid="card"]')].map(c => c.dataset.state + " " + getComputedStyle(c).borderLeftColor)`))
	if err != nil {
		t.Fatal(err)
	}
	byState := map[string]string{}
	for _, c := range colours {
		st, col, _ := strings.Cut(c, " ")
		byState[st] = col
	}
	if byState["approval"] == "" || byState["approval"] == byState["ended"] {
		t.Fatalf("state colours %q: approval must stand out from ended", colours)
	}
	shot(t, ctx, "board-needs-you")
	// Answered at the desk: the tool ran. The held hook lets go with no
	// decision, and the card says what happened.
	relayHook(t, srv, "PostToolUse", `{"session_id":"`+waiting+`","hook_event_name":"PostToolUse","cwd":"/tmp/fakehome1/proj","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}`)
	if out := held(); out != "" {
		t.Fatalf("the hook answered at the desk printed %q", out)
	}
	poll("answered at the desk", `document.querySelector('[data-testid="approval-resolved"]')?.textContent.includes("at the desk") &&
		!document.querySelector('[data-testid="needs-you"] [data-testid="approval"]:not(.resolved)') &&
		[...document.querySelectorAll('[data-testid="card"]')].some(c => c.dataset.state === "working")`)
}

// phone is a chromium emulating an iPhone 13, with the steps the browser
// tests take: step runs actions (a screenshot on failure), poll waits for
// a script to be true across page loads.
type phone struct {
	t   *testing.T
	ctx context.Context
}

func newPhone(t *testing.T, chrome string) *phone {
	t.Helper()
	// The test browser has not installed paddock's CA: it trusts paddock
	// as a phone that has would.
	return startPhone(t, chrome, chromedp.IgnoreCertErrors)
}

// startPhone is a phone with more allocator options.
func startPhone(t *testing.T, chrome string, more ...chromedp.ExecAllocatorOption) *phone {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	opts = append(opts, more...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Emulate(device.IPhone13)); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return &phone{t: t, ctx: ctx}
}

func (p *phone) step(name string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	sctx, done := context.WithTimeout(p.ctx, 20*time.Second)
	defer done()
	var err error
	for range 3 {
		// The websocket may swap the element between finding it and
		// clicking it (the node is gone: nothing was clicked), as a finger
		// would meet the new button: try again.
		if err = chromedp.Do(sctx, actions...); err == nil || !nodeGone(err) {
			break
		}
	}
	if err != nil {
		shot(p.t, p.ctx, "failed-"+name)
		p.t.Fatalf("%s: %v", name, err)
	}
}

// nodeGone reports the error of an action whose node left the document
// before it ran.
func nodeGone(err error) bool {
	m := err.Error()
	return strings.Contains(m, "Could not find node with given id") || strings.Contains(m, "No node with given id") ||
		strings.Contains(m, "Node is detached")
}

// poll evaluates js until it is true. It re-evaluates across page loads
// (a form post and its redirect replace the document under it).
func (p *phone) poll(name, js string) {
	p.t.Helper()
	p.pollFor(name, js, 20*time.Second)
}

func (p *phone) pollFor(name, js string, within time.Duration, opts ...chromedp.EvaluateOption) {
	p.t.Helper()
	deadline := time.Now().Add(within)
	var last error
	for time.Now().Before(deadline) {
		ectx, done := context.WithTimeout(p.ctx, 2*time.Second)
		ok, err := chromedp.Run(ectx, chromedp.Evaluate[bool](js, opts...))
		done()
		if err == nil && ok {
			return
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	shot(p.t, p.ctx, "failed-"+name)
	// Whether the page thought itself live says much about why it waited.
	ectx, done := context.WithTimeout(p.ctx, 2*time.Second)
	live, _ := chromedp.Run(ectx, chromedp.Evaluate[string](`(document.documentElement.hasAttribute("data-stale") ? "stale" : "live") + ", banner: " + (document.getElementById("reconnecting")?.hidden ? "hidden" : document.getElementById("reconnecting")?.textContent)`))
	done()
	p.t.Fatalf("%s: waiting for %s: last error %v (page %s)", name, js, last, live)
}

// acceptDialogs taps OK on every confirm the page asks (hx-confirm).
func (p *phone) acceptDialogs() {
	go func() {
		for _, err := range chromedp.Events(p.ctx, page.JavascriptDialogOpening) {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(p.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
}

// waitFor runs cond until it is true (each try may load pages).
func (p *phone) waitFor(name string, within time.Duration, cond func() bool) {
	p.t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			shot(p.t, p.ctx, "failed-"+name)
			p.t.Fatalf("%s: not within %v", name, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// pair opens the pairing link and taps Pair.
func (p *phone) pair(link string) {
	p.t.Helper()
	p.step("open pair link", chromedp.Navigate(link))
	p.step("tap pair", chromedp.WaitVisible(`[data-testid="pair-submit"]`), chromedp.Click(`[data-testid="pair-submit"]`))
	p.poll("board", `location.pathname === "/" && !!document.getElementById("board")`)
}

// relayHook runs the real `paddock hook` as Claude Code would, from a tmux
// pane (a terminal the relay can name), with payload on stdin.
func relayHook(t *testing.T, srv *servetest.Server, event, payload string) {
	t.Helper()
	cmd := exec.Command(servetest.Binary(t), "hook", "--runtime", "claude", "--data-dir", srv.DataDir, event)
	cmd.Env = append(os.Environ(), "TMUX_PANE=%3")
	cmd.Stdin = strings.NewReader(payload)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("paddock hook %s: %v %q", event, err, out)
	}
}

// startRelayHook runs `paddock hook` in the background, for an event
// paddock may hold; the func returned waits for it and returns what it
// printed.
func startRelayHook(t *testing.T, srv *servetest.Server, event, payload string) func() string {
	t.Helper()
	cmd := exec.Command(servetest.Binary(t), "hook", "--runtime", "claude", "--data-dir", srv.DataDir, event)
	cmd.Env = append(os.Environ(), "TMUX_PANE=%3")
	cmd.Stdin = strings.NewReader(payload)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return func() string {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("paddock hook %s: %v", event, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("paddock hook %s still waits", event)
		}
		return out.String()
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// writeTranscript writes a minimal Claude Code transcript (one prompt, one
// answer) the way Claude Code itself lays it out.
func writeTranscript(t *testing.T, dir, id, prompt string) {
	t.Helper()
	now := time.Now().UTC().Format(time.RFC3339Nano)
	body := fmt.Sprintf(`{"type":"user","uuid":"11111111-0000-4000-8000-000000000001","parentUuid":null,"sessionId":%q,"cwd":"/tmp/fakehome1/proj","timestamp":%q,"message":{"role":"user","content":%q}}
{"type":"assistant","uuid":"11111111-0000-4000-8000-000000000002","parentUuid":"11111111-0000-4000-8000-000000000001","sessionId":%q,"cwd":"/tmp/fakehome1/proj","timestamp":%q,"message":{"id":"msg_1","role":"assistant","model":"claude-test","content":[{"type":"text","text":"Noted."}]}}
`, id, now, prompt, id, now)
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// shot saves a full-page screenshot as a test artifact.
func shot(t *testing.T, ctx context.Context, name string) {
	sctx, done := context.WithTimeout(ctx, 10*time.Second)
	defer done()
	png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	p := filepath.Join(artifactDir(t), "browser-"+name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	t.Logf("screenshot: %s", p)
}

// TestBrowserHostedSession is the phone's way through a hosted session:
// New session → first prompt → the reply on the session page → a second
// message from the message box → Kill (confirmed) → ended → Resume → a
// message delivered again.
func TestBrowserHostedSession(t *testing.T) {
	chrome := chromiumPath(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	agent, srv, _ := hostingServe(t, ctx)
	ph := newPhone(t, chrome)
	// hx-confirm asks before Kill; the test taps OK.
	ph.acceptDialogs()
	ph.pair(srv.PairLink)

	ph.step("open the form", chromedp.Click(`[data-testid="new-link"]`))
	ph.poll("form", `!!document.querySelector('[data-testid="new-session"]')`)
	// The form offers the chosen agent's own permission modes and
	// effort levels (Claude Code's here), and recent directories.
	ph.step("choose the agent", chromedp.SetValue(`select[name="runtime"]`, "claude"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('select[name="runtime"]').dispatchEvent(new Event("change"))`))
	ph.poll("the agent's choices", `(() => {
		const shown = n => [...document.querySelectorAll('select[name="' + n + '"] optgroup:not([hidden]) option')].map(o => o.value).join(",");
		return shown("permission_mode") === "manual,default,acceptEdits,plan,auto,dontAsk,bypassPermissions" && shown("effort") === "low,medium,high,xhigh,max";
	})()`)
	ph.step("fill the form",
		chromedp.SetValue(`select[name="runtime"]`, "claude"),
		chromedp.SetValue(`input[name="workdir"]`, agent.Cwd),
		chromedp.SetValue(`textarea[name="prompt"]`, "hello from the phone"),
		chromedp.SetValue(`select[name="permission_mode"]`, "default"),
		chromedp.SetValue(`select[name="effort"]`, "high"),
		chromedp.SetValue(`input[name="name"]`, "phone-named"),
	)
	shot(t, ph.ctx, "hosted-new")
	ph.checkPhone("new-filled")
	ph.step("start", chromedp.Click(`[data-testid="start"]`))
	ph.pollFor("session page", `location.pathname.startsWith("/s/claude/") && !!document.querySelector('[data-testid="controls"]')`, 90*time.Second)
	ph.poll("first reply", `[...document.querySelectorAll('[data-testid="message"]')].some(m => m.textContent.includes(`+strconv.Quote(mockmodel.PlainReply(1))+`))`)
	ph.poll("the name as its title", `document.title.includes("phone-named")`)
	ph.step("open the live facts", chromedp.Click(`[data-testid="live-facts"] summary`))
	ph.poll("terminal health", `document.querySelector('[data-testid="health"]')?.textContent.includes("running")`)

	ph.step("type a message", chromedp.SetValue(`[data-testid="send-form"] textarea`, "and a second one"), chromedp.Click(`[data-testid="send"]`))
	ph.pollFor("delivered", `!!document.querySelector('[data-testid="result-ok"]') && document.querySelector('[data-testid="send-form"] textarea').value === ""`, 60*time.Second)
	ph.poll("second reply", `[...document.querySelectorAll('[data-testid="message"]')].some(m => m.textContent.includes(`+strconv.Quote(mockmodel.PlainReply(2))+`))`)
	shot(t, ph.ctx, "hosted-session")

	// The terminal view follows the pane over the websocket; its key bar
	// sends the keys a phone keyboard lacks.
	ph.step("open the terminal", chromedp.Click(`[data-testid="terminal-view"] summary`))
	ph.poll("terminal text", `document.getElementById("terminal").textContent.includes(`+strconv.Quote(mockmodel.PlainReply(2))+`)`)
	ph.step("press Esc", chromedp.Click(`[data-testid="keybar"] button[data-key="Escape"]`))
	ph.poll("key sent", `document.querySelector('[data-testid="result-ok"]')?.textContent.includes("Sent Escape")`)
	shot(t, ph.ctx, "hosted-terminal")
	ph.checkPhone("hosted")

	// Restart: the same page comes back, connecting then idle.
	// (The old page's result area is marked: the restart's answer
	// reloads the page into a fresh one.)
	ph.poll("mark the old page", `(document.getElementById("send-result").dataset.old = "1") === "1"`)
	ph.step("restart", chromedp.Click(`[data-testid="restart"]`))
	ph.pollFor("restarted", `!document.querySelector('#send-result[data-old]') && !!document.querySelector('[data-testid="controls"]') && document.querySelector('[data-testid="state"]')?.textContent.trim() === "idle"`, 60*time.Second)

	// Sleep, then open the page again: it wakes by itself.
	ph.step("sleep", chromedp.Click(`[data-testid="sleep"]`))
	ph.poll("asleep", `document.querySelector('[data-testid="result-ok"]')?.textContent.includes("Asleep")`)
	ph.poll("asleep state", `document.querySelector('[data-testid="state"]')?.textContent.trim() === "asleep"`)
	shot(t, ph.ctx, "hosted-asleep")
	ph.step("open it again", chromedp.Reload())
	// Woken means the page the wake-up navigated to: the asleep page's
	// "Waking…" button and its request are gone (a tap on the page before
	// would be lost in the swap).
	ph.pollFor("woken", `!!document.querySelector('[data-testid="controls"]') && document.querySelector('[data-testid="state"]')?.textContent.trim() === "idle" &&
		!document.querySelector('[data-testid="resume"]') && !document.querySelector('.htmx-request')`, 60*time.Second)

	ph.step("kill", chromedp.Click(`[data-testid="kill"]`))
	ph.poll("killed", `document.querySelector('[data-testid="result-ok"]')?.textContent.includes("Killed")`)
	ph.poll("ended", `document.querySelector('[data-testid="state"]')?.textContent.trim() === "ended"`)
	shot(t, ph.ctx, "hosted-killed")

	// Resume after the kill: the page comes back with its controls and
	// the agent takes a message again.
	ph.step("reload the ended session", chromedp.Reload())
	ph.poll("resume and reconnect offered", `!!document.querySelector('[data-testid="resume"]') && !!document.querySelector('[data-testid="reconnect"]')`)
	// Resume from the board: the ended card has its own button.
	ph.step("to the board", chromedp.Navigate(strings.SplitN(srv.PairLink, "/pair", 2)[0]+"/"))
	ph.poll("the ended card offers Resume", `!!document.querySelector('#board > [data-testid="card"][data-state="ended"] [data-testid="card-resume"]')`)
	ph.step("resume", chromedp.Click(`#board > [data-testid="card"][data-state="ended"] [data-testid="card-resume"]`))
	ph.pollFor("controls back", `!!document.querySelector('[data-testid="controls"]') && document.querySelector('[data-testid="state"]')?.textContent.trim() === "idle"`, 60*time.Second)
	ph.step("message after resume", chromedp.SetValue(`[data-testid="send-form"] textarea`, "back again"), chromedp.Click(`[data-testid="send"]`))
	ph.pollFor("delivered after resume", `document.querySelector('[data-testid="result-ok"]')?.textContent.includes("Delivered")`, 60*time.Second)
	shot(t, ph.ctx, "hosted-resumed")
}

// TestBrowserAllAgents puts the real recordings of five agents (testdata/,
// written by the real CLIs) in a HOME: the LIVE board lists every one of
// them under its own name, the filters narrow it by agent, project and
// liveness, and each agent's session opens with its conversation. (Cursor
// Agent CLI cannot be installed here, so there is no recording of it.)
func TestBrowserAllAgents(t *testing.T) {
	chrome := chromiumPath(t)
	home := t.TempDir()
	for src, dst := range map[string]string{
		"claude-2.1.328/claude/projects": ".claude/projects",
		"codex-0.169.0/codex":            ".codex",
		"kimi-2.1.0/kimi":                ".kimi-code",
		"opencode-1.18.33/opencode":      ".local/share/opencode",
		"pi-0.73.1/pi":                   ".pi/agent",
	} {
		copyTree(t, filepath.Join("..", "..", "testdata", src), filepath.Join(home, dst))
	}
	// The recordings ran in this directory; sessions whose directory is
	// gone are not listed.
	if err := os.MkdirAll("/tmp/paddock-fixtures-home/proj", 0o755); err != nil {
		t.Fatal(err)
	}
	srv := servetest.Start(t, home)
	api := newAPIClient(t, srv)
	var list struct{ Sessions []liveSession }
	until(t, 20*time.Second, "every agent listed", func() (bool, string) {
		if err := api.get("/api/v1/sessions?limit=1000", &list); err != nil {
			return false, err.Error()
		}
		seen := map[string]int{}
		for _, s := range list.Sessions {
			seen[s.Runtime]++
		}
		return seen["claude"] > 0 && seen["codex"] > 0 && seen["opencode"] > 0 && seen["kimi"] > 0 && seen["pi"] > 0, fmt.Sprint(seen)
	})

	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	ph.poll("five agents on the board", `new Set([...document.querySelectorAll('#board > [data-testid="card"] .agent')].map(e => e.textContent.trim())).size === 5`)
	labels, err := chromedp.Run(ph.ctx, chromedp.Evaluate[[]string](`[...new Set([...document.querySelectorAll('#board > [data-testid="card"] .agent')].map(e => e.textContent.trim()))].sort()`))
	if err != nil || strings.Join(labels, ",") != "Claude,Codex,Kimi,OpenCode,Pi" {
		t.Fatalf("agent labels %v %v", labels, err)
	}
	shot(t, ph.ctx, "all-agents")

	// Filter by agent: the board holds only Codex cards; the choice is in
	// the address, and the server filtered (nothing is merely hidden).
	// A choice is a change event, which loads the board it names.
	choose := func(js string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](`(() => { const f = document.querySelector('[data-filters]'); ` + js +
			`; f.querySelector('select').dispatchEvent(new Event("change", {bubbles: true})); })()`)
	}
	ph.step("filter codex", choose(`f.elements.agent.value = "codex"`))
	ph.poll("only codex", `(() => { const v = [...document.querySelectorAll('#board > [data-testid="card"]')];
		return v.length > 0 && v.every(c => c.dataset.runtime === "codex" && !c.hidden) && location.search === "?agent=codex" &&
			document.querySelector('[data-testid="filter-agent"]').value === "codex"; })()`)
	shot(t, ph.ctx, "filter-codex")
	// Live only: none of the recordings runs now.
	ph.step("filter live", choose(`f.elements.agent.value = ""; f.elements.live.value = "1"`))
	ph.poll("nothing live", `location.search === "?live=1" && document.querySelectorAll('#board > [data-testid="card"]').length === 0 &&
		document.querySelector('[data-testid="empty"]')?.textContent.includes("matches")`)
	// The filter survives a reload (it is in the address), and the
	// websocket's snapshot keeps it.
	ph.step("reload", chromedp.Reload())
	ph.poll("still filtered after reload", `document.querySelector('[data-testid="filter-live"]').value === "1" && document.getElementById("reconnecting").hidden &&
		document.querySelectorAll('#board > [data-testid="card"]').length === 0`)
	// The search box loads on Enter (the form's submit): the server's
	// matches, the same the API gives for the same words.
	var found struct{ Sessions []liveSession }
	if err := api.get("/api/v1/sessions?limit=1000&q=second+turn+please", &found); err != nil || len(found.Sessions) < 4 {
		t.Fatalf("the API's search: %d sessions, %v", len(found.Sessions), err)
	}
	ph.step("search", chromedp.Evaluate[chromedp.Void](`(() => { const f = document.querySelector('[data-filters]');
		f.elements.live.value = ""; f.elements.q.value = " second turn please "; f.requestSubmit(); })()`))
	ph.poll("found by search", fmt.Sprintf(`location.search === "?q=second+turn+please" && document.querySelector('[data-testid="filter-q"]').value === "second turn please" &&
		document.querySelectorAll('#board > [data-testid="card"]').length === %d`, len(found.Sessions)))

	// Each agent's chat session opens with the recorded conversation.
	for _, rt := range []string{"codex", "opencode", "kimi", "pi"} {
		var key string
		for _, s := range list.Sessions {
			if s.Runtime == rt && strings.Contains(s.LastPrompt+s.FirstPrompt, "second turn please") {
				key = s.ID
			}
		}
		if key == "" {
			t.Errorf("%s: no recorded chat session with its second prompt in %+v", rt, list.Sessions)
			continue
		}
		ph.step("open "+rt, chromedp.Navigate(strings.SplitN(srv.PairLink, "/pair", 2)[0]+"/s/"+rt+"/"+key))
		ph.poll(rt+" conversation", `(() => { const t = [...document.querySelectorAll('[data-testid="message"]')].map(m => m.textContent).join("\n");
			return t.includes("hello paddock one") && t.includes("second turn please") && t.includes("Mock reply"); })()`)
	}
}

// TestBrowserApprove: a real Claude Code asks to run a command; the paired
// phone (iPhone viewport) shows the approval card on the board with the
// command in full, the user taps Approve, the card says so, and the
// command runs. A second prompt is denied with a message from the card.
func TestBrowserApprove(t *testing.T) {
	chrome := chromiumPath(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	agent, srv, _ := hookedAgentServe(t, ctx, agenttest.Claude, nil, nil)
	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	term := agent.Start(t)
	term.Expect(ctx, agent.Ready)

	term.Type("please RUN the thing")
	ph.pollFor("approval card", `document.querySelector('[data-testid="needs-you"] [data-testid="approval-command"]')?.textContent.includes(`+strconv.Quote(mockmodel.RunCommand(1))+`)`, 30*time.Second)
	ph.poll("always spelled out", `document.querySelector('[data-testid="always-scope"]')?.textContent.includes("for this session")`)
	shot(t, ph.ctx, "approval")
	ph.step("approve", chromedp.Click(`[data-testid="needs-you"] [data-testid="approve"]`))
	ph.poll("approved", `document.querySelector('[data-testid="approval-resolved"]')?.textContent.includes("Approved")`)
	term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.ToolFinishedReply)))
	if b, _ := os.ReadFile(filepath.Join(agent.Cwd, "mock_out.txt")); !strings.Contains(string(b), "hello-from-mock-1") {
		t.Fatalf("the approved command did not run: %q", b)
	}
	// The strip empties once the board moves on.
	ph.pollFor("strip cleared", `!document.querySelector('[data-testid="needs-you"] [data-testid="approval"]:not(.resolved)')`, 20*time.Second)

	term.Type("RUN it again please")
	ph.pollFor("second card", `document.querySelector('[data-testid="needs-you"] [data-testid="approval"]:not(.resolved) [data-testid="approval-command"]')?.textContent.includes(`+strconv.Quote(mockmodel.RunCommand(2))+`)`, 30*time.Second)
	open := `[data-testid="needs-you"] [data-testid="approval"]:not(.resolved) `
	ph.step("type a reason", chromedp.SetValue(open+`[data-testid="deny-form"] input[name="message"]`, "not from the phone"))
	// A push of the board meanwhile (another session starts) keeps what
	// was typed.
	relayHook(t, srv, "UserPromptSubmit", `{"session_id":"another-session","hook_event_name":"UserPromptSubmit","cwd":"/tmp","prompt":"a push while typing"}`)
	ph.poll("pushed, reason kept", `[...document.querySelectorAll('#board [data-testid="card"] .title, #board [data-testid="card"] .prompt')].some(e => e.textContent.includes("a push while typing")) &&
		document.querySelector('`+open+`[data-testid="deny-form"] input[name="message"]').value === "not from the phone"`)
	ph.step("deny with the reason", chromedp.Click(open+`[data-testid="deny"]`))
	ph.poll("denied", `[...document.querySelectorAll('[data-testid="approval-resolved"]')].some(e => e.textContent.includes("Denied"))`)
	shot(t, ph.ctx, "denied")
	term.Expect(ctx, regexp.MustCompile(`not from the phone`))
}

// After a normal stop and start of paddock (SIGINT, as a restart does) the
// phone reconnects on its own: the banner says the page is stale and its
// buttons are off while paddock is away, a request made then is refused
// with a reason, and the snapshot of the new connection brings the board
// up to date and the controls back.
func TestBrowserReconnectsAfterRestart(t *testing.T) {
	chrome := chromiumPath(t)
	home := fixtureHome(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv := servetest.Start(t, home, "--addr", addr)
	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	ph.poll("live", `document.getElementById("reconnecting").hidden === true && document.querySelectorAll('[data-testid="card"]').length === 3`)
	ph.poll("controls on", `document.querySelectorAll('main button').length > 0 && [...document.querySelectorAll('main button')].every(b => !b.disabled)`)

	srv.Stop(t)
	ph.poll("stale", `document.getElementById("reconnecting").hidden === false && document.documentElement.hasAttribute("data-stale") &&
		[...document.querySelectorAll('main button')].every(b => b.disabled)`)
	shot(t, ph.ctx, "reconnect-stale")
	ph.step("a request while stale", chromedp.Evaluate[chromedp.Void](`htmx.ajax("POST", "/api/v1/sessions", {swap: "none"})`))
	ph.poll("refused", `document.getElementById("reconnecting").textContent.startsWith("Not sent")`)
	// The reason outlives the retries that go on meanwhile.
	time.Sleep(2 * time.Second)
	if still, err := chromedp.Run(ph.ctx, chromedp.Evaluate[bool](`document.getElementById("reconnecting").textContent.startsWith("Not sent")`)); err != nil || !still {
		t.Errorf("the refusal's reason was replaced by the next retry (%v)", err)
	}

	// A session started while paddock was down is on the board after.
	writeTranscript(t, filepath.Join(home, ".claude", "projects", "-tmp-fakehome1-proj"), "5b2a4e6c-0000-4000-8000-0000restart", "a session from while paddock was down")
	srv2 := servetest.StartAt(t, home, srv.DataDir, nil, "--addr", addr)
	// A device is paired and stdout is no terminal: no link in the output.
	if !srv.LinkPrinted || srv2.LinkPrinted {
		t.Errorf("pairing link printed: first start %v, restart with a device paired %v; want true, false", srv.LinkPrinted, srv2.LinkPrinted)
	}
	ph.pollFor("live again", `document.getElementById("reconnecting").hidden === true && !document.documentElement.hasAttribute("data-stale") &&
		[...document.querySelectorAll('[data-testid="card"] .title')].some(e => e.textContent.includes("while paddock was down")) &&
		[...document.querySelectorAll('main button')].every(b => !b.disabled)`, 30*time.Second)
	shot(t, ph.ctx, "reconnect-live")
}

// A question's choices stay legible at every phone width: the radio and
// check boxes keep their native size (not the text inputs' full width),
// each label reads on its own line beside its box, the page never scrolls
// sideways, and the answer chosen there reaches the agent.
func TestBrowserQuestionAtPhoneWidths(t *testing.T) {
	chrome := chromiumPath(t)
	home := fixtureHome(t)
	srv := servetest.Start(t, home)
	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	const id = "1e6fec4f-a6cb-42e2-ad9e-c92c9d1309d2"
	held := startRelayHook(t, srv, "PermissionRequest", `{"session_id":"`+id+`","hook_event_name":"PermissionRequest","cwd":"/tmp/fakehome1/proj","tool_name":"AskUserQuestion",
		"tool_input":{"questions":[{"question":"Which colour should the build badge be?","header":"Colour","multiSelect":false,
		"options":[{"label":"Red","description":"warm and loud"},{"label":"Blue","description":"calm"}]},
		{"question":"Which checks run before a merge?","header":"Checks","multiSelect":true,"options":[{"label":"Lint"},{"label":"Tests"}]}]}}`)
	q := `[data-testid="needs-you"] [data-testid="question-form"]`
	ph.poll("question card", `!!document.querySelector('`+q+`')`)
	for _, w := range []int64{320, 390, 412} {
		ph.step(fmt.Sprintf("viewport %d", w), chromedp.EmulateViewport(w, 800, chromedp.EmulateMobile, chromedp.EmulateScale(3)))
		bad, err := chromedp.Run(ph.ctx, chromedp.Evaluate[[]string](`(() => {
			const bad = [];
			if (document.documentElement.scrollWidth > window.innerWidth) bad.push("page scrolls sideways: " + document.documentElement.scrollWidth);
			for (const l of document.querySelectorAll('`+q+` label.choice')) {
				const box = l.querySelector('input').getBoundingClientRect(), text = l.querySelector('span');
				const tr = text.getBoundingClientRect(), lr = l.getBoundingClientRect();
				if (box.width > 32 || box.height > 32) bad.push(text.textContent + ": box " + box.width + "x" + box.height);
				if (tr.height > 2 * parseFloat(getComputedStyle(text).lineHeight || "20") || tr.width < 0.5 * lr.width) bad.push(text.textContent + ": label squeezed to " + tr.width + "x" + tr.height);
				if (lr.height < 44) bad.push(text.textContent + ": tap target " + lr.height + " px tall");
			}
			return bad;
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if len(bad) > 0 {
			shot(t, ph.ctx, fmt.Sprintf("question-%d", w))
			t.Fatalf("at %d px: %q", w, bad)
		}
		shot(t, ph.ctx, fmt.Sprintf("question-%d", w))
	}
	ph.step("choose", chromedp.Click(q+` label.choice:nth-of-type(1)`), chromedp.Click(`[data-testid="needs-you"] fieldset.question:nth-of-type(2) label.choice:nth-of-type(2)`),
		chromedp.Click(q+` [data-testid="answer"]`))
	out := held()
	var got struct {
		HookSpecificOutput struct {
			Decision struct {
				UpdatedInput struct {
					Answers map[string]string `json:"answers"`
				} `json:"updatedInput"`
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("the hook printed %q: %v", out, err)
	}
	want := map[string]string{"Which colour should the build badge be?": "Red", "Which checks run before a merge?": "Tests"}
	if a := got.HookSpecificOutput.Decision.UpdatedInput.Answers; !maps.Equal(a, want) {
		t.Fatalf("the agent was answered %q, want %q", a, want)
	}
}

// A long session that needs you opens on its approval card, not at the
// newest message below it; an ended one keeps Resume in its sticky bar,
// with deleting out of the thumb's way at the page's end.
func TestBrowserSessionOpensWhereNeeded(t *testing.T) {
	chrome := chromiumPath(t)
	home := fixtureHome(t)
	const id, ended = "5b2a4e6c-0000-4000-8000-00000000long", "5b2a4e6c-0000-4000-8000-0000000ended"
	dir := filepath.Join(home, ".claude", "projects", "-tmp-fakehome1-proj")
	writeLongTranscript(t, dir, id, 60)
	writeLongTranscript(t, dir, ended, 60)
	srv := servetest.Start(t, home)
	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	held := startRelayHook(t, srv, "PermissionRequest", `{"session_id":"`+id+`","hook_event_name":"PermissionRequest","cwd":"/tmp/fakehome1/proj","tool_name":"Bash","tool_input":{"command":"make long-build"}}`)
	ph.poll("needs you", `!!document.querySelector('[data-testid="needs-you"] [data-testid="approval"]')`)
	ph.step("open the session", chromedp.Navigate(strings.SplitN(srv.PairLink, "/pair", 2)[0]+"/s/claude/"+id))
	ph.poll("opens on the card", `(() => {
		const c = document.querySelector('#session-head [data-testid="approval"]:not(.resolved)');
		if (!c || document.querySelectorAll('[data-testid="message"]').length < 50) return false;
		const r = c.getBoundingClientRect();
		return r.top >= 0 && r.top < window.innerHeight / 2 && document.body.scrollHeight > 3 * window.innerHeight;
	})()`)
	shot(t, ph.ctx, "session-opens-on-card")
	ph.step("deny", chromedp.Click(`#session-head [data-testid="deny"]`))
	held()

	// An ended session: its sticky bar is Resume.
	ph.step("open an ended session", chromedp.Navigate(strings.SplitN(srv.PairLink, "/pair", 2)[0]+"/s/claude/"+ended))
	ph.poll("resume in the bar", `(() => {
		window.scrollTo(0, document.body.scrollHeight / 2);
		const el = document.elementFromPoint(window.innerWidth / 2, window.innerHeight - 30);
		return !!el && !!el.closest('[data-testid="resume-controls"]') && !!document.querySelector('[data-testid="delete"]');
	})()`)
	shot(t, ph.ctx, "session-ended-resume")
}

// writeLongTranscript writes a Claude Code transcript of n alternating
// prompts and answers, long enough to scroll on a phone.
func writeLongTranscript(t *testing.T, dir, id string, n int) {
	t.Helper()
	var b strings.Builder
	at := time.Now().Add(-time.Hour).UTC()
	parent := "null"
	for i := range n {
		role, content := "user", strconv.Quote(fmt.Sprintf("question %d about the long build", i))
		if i%2 == 1 {
			role, content = "assistant", fmt.Sprintf(`[{"type":"text","text":"answer %d: the build is long, and so is this reply, line after line."}]`, i)
		}
		uuid := fmt.Sprintf("22222222-0000-4000-8000-%012d", i)
		fmt.Fprintf(&b, `{"type":%q,"uuid":%q,"parentUuid":%s,"sessionId":%q,"cwd":"/tmp/fakehome1/proj","timestamp":%q,"message":{"id":"msg_%d","role":%q,"model":"claude-test","content":%s}}`+"\n",
			role, uuid, parent, id, at.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano), i, role, content)
		parent = strconv.Quote(uuid)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// phoneCheck lists what a page does wrong on a phone: sideways scroll,
// any visible control smaller than a 44 × 44 px tap target (a radio or
// check box counts as its label, which is what a finger taps; links inside
// rendered message text are prose, not controls), and a radio or check
// box blown up to a text field's size.
const phoneCheck = `(() => {
	const bad = [];
	if (document.documentElement.scrollWidth > window.innerWidth + 1) bad.push("scrolls sideways: " + document.documentElement.scrollWidth + " > " + window.innerWidth);
	for (const el of document.querySelectorAll('a[href], button, select, textarea, summary, input:not([type=hidden])')) {
		if (el.closest('.msg .md, [hidden]') || el.offsetParent === null) continue;
		if (el.matches('input[type=radio], input[type=checkbox]')) {
			const b = el.getBoundingClientRect();
			if (b.width > 32 || b.height > 32) bad.push("a " + el.type + " drawn " + Math.round(b.width) + "x" + Math.round(b.height));
		}
		const t = (el.matches('input[type=radio], input[type=checkbox]') && el.closest('label')) || el;
		const r = t.getBoundingClientRect();
		if (r.width < 44 - 0.5 || r.height < 44 - 0.5) bad.push((el.getAttribute('data-testid') || el.tagName.toLowerCase()) + " '" + (el.textContent || el.name || "").trim().slice(0, 30) + "' " + Math.round(r.width) + "x" + Math.round(r.height));
	}
	return bad;
})()`

// checkPhone runs phoneCheck at the narrowest phones, an ordinary one and
// one in landscape.
func (p *phone) checkPhone(name string) {
	p.t.Helper()
	// The narrowest phones, an ordinary one, and a phone held sideways.
	for _, vp := range [][2]int64{{320, 800}, {390, 800}, {412, 800}, {844, 390}} {
		w := vp[0]
		p.step(fmt.Sprintf("%s at %d px", name, w), chromedp.EmulateViewport(w, vp[1], chromedp.EmulateMobile, chromedp.EmulateScale(3)))
		bad, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]string](phoneCheck))
		if err != nil {
			p.t.Fatal(err)
		}
		if len(bad) > 0 {
			shot(p.t, p.ctx, fmt.Sprintf("failed-%s-%d", name, w))
			p.t.Errorf("%s at %d px: %q", name, w, bad)
		}
	}
	p.step(name+" back to the phone", chromedp.Emulate(device.IPhone13))
	p.checkAxe(name)
	p.checkFocus(name)
}

// focusables numbers the page's keyboard stops in document order (what
// Tab must follow): visible, enabled, not taken out of the order, one
// radio button per group (Tab enters a group once). It fails on a
// positive tabindex, which reorders the page for the keyboard.
const focusables = `(() => {
	if (document.querySelector('[tabindex]:not([tabindex="0"]):not([tabindex^="-"])')) return -1;
	const seen = new Set();
	const list = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')].filter(el => {
		// checkVisibility also sees the inside of a closed <details>, which
		// keeps its boxes but is skipped.
		if (el.disabled || el.tabIndex < 0 || !el.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true}) || el.closest("[inert]")) return false;
		if (el.type === "radio" && el.name) {
			const group = [...document.getElementsByName(el.name)];
			const stop = group.find(r => r.checked) || group[0];
			if (el !== stop || seen.has(el.name)) return false;
			seen.add(el.name);
		}
		return true;
	});
	list.forEach((el, i) => el.dataset.focusI = i);
	document.body.tabIndex = -1; document.body.focus(); document.body.removeAttribute("tabindex");
	return list.length;
})()`

// focused is where the keyboard is: the stop's number (-1 off the list),
// and whether the element shows that it has focus — a focus ring, or any
// look of it or inside it (the office view rings an agent's halo) that
// goes when it loses focus.
const focused = `(() => { const el = document.activeElement, cs = getComputedStyle(el);
	const look = () => [el, ...el.querySelectorAll("*")].map(e => { const c = getComputedStyle(e);
		return [c.outlineStyle, c.outlineWidth, c.boxShadow, c.stroke, c.strokeWidth, c.backgroundColor, c.borderColor, c.color, c.opacity].join(); }).join("|");
	let shown = cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0;
	if (!shown) { const on = look(); el.blur(); shown = look() !== on; el.focus(); }
	return [el.dataset.focusI === undefined ? -1 : +el.dataset.focusI, shown ? 1 : 0]; })()`

// checkFocus tabs through the first stops of the page: the keyboard goes
// through them in the order they are read, each showing its focus.
func (p *phone) checkFocus(name string) {
	p.t.Helper()
	// A keyboard: a tablet's or a desktop's, not a touch screen's.
	p.step(name+" with a keyboard", chromedp.EmulateViewport(834, 1112))
	defer p.step(name+" back to the phone", chromedp.Emulate(device.IPhone13))
	n, err := chromedp.Run(p.ctx, chromedp.Evaluate[int](focusables))
	if err != nil {
		p.t.Fatal(err)
	}
	if n < 0 {
		p.t.Errorf("%s: a positive tabindex reorders the page for the keyboard", name)
		return
	}
	var order []int
	for i := range min(n, 25) {
		if _, err := chromedp.Run(p.ctx, chromedp.KeyEvent("\t")); err != nil {
			p.t.Fatal(err)
		}
		at, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]int](focused))
		if err != nil {
			p.t.Fatal(err)
		}
		order = append(order, at[0])
		if at[0] != i || at[1] != 1 {
			what, _ := chromedp.Run(p.ctx, chromedp.Evaluate[[]string](fmt.Sprintf(`[%d, %d].map(i => { const el = document.querySelector('[data-focus-i="' + i + '"]');
				return el ? el.outerHTML.slice(0, 160) : "off the list: " + document.activeElement.outerHTML.slice(0, 160); })`, i, at[0])))
			shot(p.t, p.ctx, "failed-focus-"+name)
			p.t.Errorf("%s: Tab %d went to stop %d (visible focus %v), want stop %d in reading order (%q); so far %v", name, i+1, at[0], at[1] == 1, i, what, order)
			return
		}
	}
}

// axeRun lists axe-core's serious and critical violations on the page,
// each with the first elements it found them on.
const axeRun = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
	.filter(v => v.impact === "serious" || v.impact === "critical")
	.map(v => v.id + " (" + v.impact + "): " + v.help + " at " + v.nodes.slice(0, 3).map(n => n.target.join(" ") + ((n.any[0] && n.any[0].message) ? " [" + n.any[0].message + "]" : "")).join(", ")))`

// checkAxe runs axe-core (pinned with the agent CLIs) in the page: no
// serious or critical accessibility violation is allowed.
func (p *phone) checkAxe(name string) {
	p.t.Helper()
	script, err := agentenv.AxeScript()
	if err != nil {
		if os.Getenv("E2E_REQUIRED") != "" {
			p.t.Fatal(err)
		}
		p.t.Logf("%s: accessibility not checked: %v", name, err)
		return
	}
	loaded, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`typeof axe !== "undefined"`))
	if err != nil {
		p.t.Fatal(err)
	}
	if !loaded {
		if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](string(script)+";true")); err != nil {
			p.t.Fatalf("loading axe-core: %v", err)
		}
	}
	// Both themes: each has its own colours to keep readable.
	for _, scheme := range []string{"dark", "light"} {
		if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
			p.t.Fatal(err)
		}
		bad, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]string](axeRun, chromedp.EvalAwaitPromise))
		if err != nil {
			p.t.Fatalf("%s: axe-core: %v", name, err)
		}
		if len(bad) > 0 {
			shot(p.t, p.ctx, "failed-axe-"+name+"-"+scheme)
			p.t.Errorf("%s (%s): accessibility: %q", name, scheme, bad)
		}
	}
}

// Every page fits a 320 px phone without sideways scroll, and every
// control on it is a full tap target.
func TestBrowserEveryPageFitsAPhone(t *testing.T) {
	chrome := chromiumPath(t)
	home := fixtureHome(t)
	const long = "5b2a4e6c-0000-4000-8000-00000000long"
	writeLongTranscript(t, filepath.Join(home, ".claude", "projects", "-tmp-fakehome1-proj"), long, 40)
	srv := servetest.Start(t, home)
	base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
	ph := newPhone(t, chrome)
	ph.step("pairing page", chromedp.Navigate(srv.PairLink))
	ph.poll("pairing page", `!!document.querySelector('[data-testid="pair-submit"]')`)
	ph.checkPhone("pair")
	ph.step("CA page", chromedp.Navigate(base+"/ca"))
	ph.poll("CA page", `document.readyState === "complete"`)
	ph.checkPhone("ca")
	ph.pair(srv.PairLink)
	held := startRelayHook(t, srv, "PermissionRequest", `{"session_id":"`+long+`","hook_event_name":"PermissionRequest","cwd":"/tmp/fakehome1/proj","tool_name":"Bash","tool_input":{"command":"make a-very-long-command --with-flags --and-more-flags /tmp/fakehome1/proj/build/output/directory"}}`)
	ph.poll("needs you", `!!document.querySelector('[data-testid="needs-you"] [data-testid="approval"]')`)
	ph.checkPhone("board")
	ph.step("session", chromedp.Navigate(base+"/s/claude/"+long))
	ph.poll("session", `!!document.querySelector('#session-head [data-testid="approval"]')`)
	ph.checkPhone("session")
	ph.step("deny", chromedp.Click(`#session-head [data-testid="deny"]`))
	held()
	ph.step("ended session", chromedp.Navigate(base+"/s/claude/1e6fec4f-a6cb-42e2-ad9e-c92c9d1309d2"))
	ph.poll("ended session", `!!document.querySelector('[data-testid="message"]')`)
	ph.step("open its activity", chromedp.Click(`[data-testid="activity"] summary`))
	ph.poll("activity loaded", `!!document.querySelector('[data-testid="activity-list"], [data-testid="activity-empty"]')`)
	ph.checkPhone("ended-session")
	// A recorded session that ran a shell command: the call, its output.
	ph.step("a session with a tool call", chromedp.Navigate(base+"/s/claude/14d07547-4535-40bc-9800-7f7c499cfab7"))
	ph.step("open that activity", chromedp.Click(`[data-testid="activity"] summary`))
	ph.poll("the command and its output", `[...document.querySelectorAll('[data-testid="activity-item"]')].some(i => i.querySelector('.tool')?.textContent === "Bash" &&
		!!i.querySelector('[data-testid="tool-output"]'))`)
	ph.step("open the call", chromedp.Click(`[data-testid="activity-item"] summary`))
	ph.checkPhone("activity")
	shot(t, ph.ctx, "session-activity")
	ph.step("new session", chromedp.Navigate(base+"/new"))
	ph.poll("new session", `!!document.querySelector('[data-testid="new-session"]')`)
	ph.checkPhone("new")
	// Search inside the conversations; a hit opens its session on it.
	ph.step("search", chromedp.Navigate(base+"/search?q=mock"))
	ph.pollFor("search hits", `!!document.querySelector('[data-testid="search-hit"] mark')`, 20*time.Second)
	ph.checkPhone("search")
	shot(t, ph.ctx, "search")
	ph.step("open a hit", chromedp.Click(`[data-testid="search-hit"]`))
	// The live feed, once connected, must keep the reader at the hit.
	time.Sleep(2 * time.Second)
	ph.poll("the session at the hit", `!!document.querySelector('.msg:target')`)
	ph.checkPhone("session-at-hit")
	ph.step("a missing session", chromedp.Navigate(base+"/s/claude/0b5d4c2e-9999-4a2b-9c3d-000000000000"))
	ph.poll("error page", `!!document.querySelector('[data-testid="error"]')`)
	ph.checkPhone("error")
	ph.step("audit", chromedp.Navigate(base+"/audit"))
	ph.poll("audit", `document.readyState === "complete"`)
	ph.checkPhone("audit")
	// Usage: the recorded sessions' tokens and cost, a chart per day.
	ph.step("usage", chromedp.Navigate(base+"/usage?from=2026-11-01&to=2026-12-31"))
	ph.pollFor("usage", `!!document.querySelector('[data-testid="usage-agents"] [data-testid="usage-row"]')`, 20*time.Second)
	ph.checkPhone("usage")
	shot(t, ph.ctx, "usage")
	ph.step("settings", chromedp.Navigate(base+"/settings"))
	ph.poll("settings", `!!document.querySelector('[data-testid="push-settings"]') && document.querySelector('[data-testid="push-status"]').textContent.includes("no notifications yet")`)
	// Advanced: idle sleep on at 30 minutes; the saved value is what the
	// page shows after a reload.
	ph.step("open advanced", chromedp.Click(`[data-testid="advanced"] summary`))
	ph.step("idle sleep 30 min", chromedp.SetValue(`[data-testid="setting-sleep"]`, "30m0s"), chromedp.Click(`[data-testid="settings-save"]`))
	ph.poll("saved", `document.querySelector('[data-testid="settings-note"]')?.textContent === "Saved."`)
	ph.step("open advanced again", chromedp.Click(`[data-testid="advanced"] summary`))
	ph.checkPhone("settings")
	shot(t, ph.ctx, "settings")
	ph.step("reload settings", chromedp.Reload())
	ph.poll("idle sleep kept", `document.querySelector('[data-testid="setting-sleep"]').value === "30m0s"`)
	// A desktop pairs the phone from here: a QR code of a one-time link.
	ph.step("pair another device", chromedp.Click(`[data-testid="pair-another"]`))
	ph.poll("a QR code", `(() => { const i = document.querySelector('[data-testid="pair-offer"] img'); return !!i && i.complete && i.naturalWidth > 0 &&
		document.querySelector('[data-testid="pair-offer-link"]').textContent.includes("/pair?code="); })()`)
	ph.checkPhone("settings-pair")
	shot(t, ph.ctx, "settings-pair")
}

// The theme follows the phone's light or dark setting until the user
// picks one, and each live state has a colour of its own.
func TestBrowserThemeAndStateColours(t *testing.T) {
	chrome := chromiumPath(t)
	srv := servetest.Start(t, fixtureHome(t))
	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	bg := func() string {
		c, err := chromedp.Run(ph.ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	scheme := func(s string) {
		if _, err := chromedp.Call(ph.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}}); err != nil {
			t.Fatalf("prefers %s: %v", s, err)
		}
	}
	scheme("dark")
	dark := bg()
	scheme("light")
	light := bg()
	if dark == light {
		t.Fatalf("the page ignores the system theme: %s in both", dark)
	}
	// The user's choice wins over the system's: it is the device's, kept
	// by the server (the settings page renders it), so it survives a
	// reload; "follow the system" in the settings gives the system back.
	base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
	ph.step("choose dark", chromedp.Click(`[data-theme-toggle]`))
	if got := bg(); got != dark {
		t.Fatalf("after choosing dark under a light system: %s, want %s", got, dark)
	}
	ph.waitFor("the choice stored", 10*time.Second, func() bool {
		if _, err := chromedp.Run(ph.ctx, chromedp.Navigate(base+"/settings")); err != nil {
			return false
		}
		v, err := chromedp.Run(ph.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="theme-choice"]').value`))
		return err == nil && v == "dark"
	})
	if got := bg(); got != dark {
		t.Fatalf("the settings page, loaded after choosing dark: %s, want %s", got, dark)
	}
	ph.step("follow the system", chromedp.Evaluate[chromedp.Void](`(() => { const c = document.querySelector('[data-testid="theme-choice"]');
		c.value = ""; c.dispatchEvent(new Event("change", {bubbles: true})); })()`))
	if got := bg(); got != light {
		t.Fatalf("following a light system again: %s, want %s", got, light)
	}
	ph.waitFor("the system's theme stored", 10*time.Second, func() bool {
		if _, err := chromedp.Run(ph.ctx, chromedp.Navigate(base+"/")); err != nil {
			return false
		}
		v, err := chromedp.Run(ph.ctx, chromedp.Evaluate[bool](`document.documentElement.hasAttribute("data-theme")`))
		return err == nil && !v
	})
	for _, s := range []string{"light", "dark"} {
		ph.step("theme "+s, chromedp.Evaluate[chromedp.Void](`document.documentElement.setAttribute("data-theme", "`+s+`")`))
		colours, err := chromedp.Run(ph.ctx, chromedp.Evaluate[map[string]string](`(() => {
			const out = {};
			for (const st of ["working", "waiting", "approval", "input", "connecting", "ended"]) {
				const e = document.createElement("span");
				e.className = "state " + st;
				document.body.append(e);
				out[st] = getComputedStyle(e).color;
				e.remove();
			}
			return out;
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]string{}
		for st, c := range colours {
			if other, dup := seen[c]; dup {
				t.Errorf("%s theme: %s and %s share the colour %s", s, st, other, c)
			}
			seen[c] = st
		}
	}
}

// The app installs: its manifest names PNG icons of 192 and 512 px and a
// maskable one, and its service worker registers; with paddock stopped,
// the board opens as it was last seen, marked stale and with its controls
// off, and any other page says paddock cannot be reached.
func TestBrowserInstallableApp(t *testing.T) {
	chrome := chromiumPath(t)
	srv := servetest.Start(t, fixtureHome(t))
	base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	ph.step("check the manifest", chromedp.Evaluate[chromedp.Void](`(async () => {
		const m = await (await fetch(document.querySelector('link[rel="manifest"]').href)).json();
		const sizes = [];
		for (const i of m.icons.filter(i => i.type === "image/png")) {
			const img = new Image();
			img.src = i.src;
			await img.decode();
			sizes.push(i.purpose + ":" + i.sizes + "=" + img.naturalWidth + "x" + img.naturalHeight);
		}
		window.__manifest = [m.display, m.start_url, m.scope, m.theme_color ? "theme" : "", ...sizes].join(" ");
	})()`))
	ph.poll("manifest", `window.__manifest === "standalone / / theme any:192x192=192x192 any:512x512=512x512 maskable:512x512=512x512"`)
	ph.step("wait for the worker", chromedp.Evaluate[chromedp.Void](`navigator.serviceWorker.ready.then(r => { window.__sw = !!r.active; })`))
	ph.poll("worker active", `window.__sw === true`)
	// A load through the worker keeps the board for offline.
	ph.step("reload through the worker", chromedp.Reload())
	ph.poll("controlled", `!!navigator.serviceWorker.controller && document.querySelectorAll('#board > [data-testid="card"]').length === 3`)
	ph.step("let the worker keep the board", chromedp.Evaluate[chromedp.Void](`caches.open("paddock-pages").then(c => c.match("/")).then(r => { window.__kept = !!r; })`))
	ph.poll("board kept", `window.__kept === true`)

	srv.Stop(t)
	ph.step("open the board offline", chromedp.Navigate(base+"/"))
	ph.poll("the board as last seen", `document.documentElement.hasAttribute("data-offline") && document.querySelectorAll('#board > [data-testid="card"]').length === 3 &&
		document.getElementById("reconnecting").hidden === false && document.getElementById("reconnecting").textContent.includes("Offline") &&
		[...document.querySelectorAll('main button')].every(b => b.disabled)`)
	shot(t, ph.ctx, "offline-board")
	ph.checkAxe("offline-board")
	ph.step("open another page offline", chromedp.Navigate(base+"/audit"))
	ph.poll("offline page", `document.body.textContent.includes("cannot reach paddock")`)
	shot(t, ph.ctx, "offline-page")
	ph.checkPhone("offline-page")
}

// The inbox lists what waits across agents with one-tap answers; the
// count is in the title and on the top bar, and goes when it is answered.
func TestBrowserInbox(t *testing.T) {
	chrome := chromiumPath(t)
	srv := servetest.Start(t, fixtureHome(t))
	base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	ph.step("open the inbox", chromedp.Navigate(base+"/inbox"))
	ph.poll("empty inbox", `getComputedStyle(document.querySelector('[data-testid="inbox-empty"]')).display !== "none" && !document.title.startsWith("(")`)
	held := startRelayHook(t, srv, "PermissionRequest", `{"session_id":"1e6fec4f-a6cb-42e2-ad9e-c92c9d1309d2","hook_event_name":"PermissionRequest","cwd":"/tmp/fakehome1/proj","tool_name":"Bash","tool_input":{"command":"make release"}}`)
	ph.poll("the prompt in the inbox", `[...document.querySelectorAll('#needs-you [data-testid="approval-command"]')].some(e => e.textContent.includes("make release")) &&
		document.title.startsWith("(1) ") && document.querySelector('[data-inbox-count]').textContent === "1" &&
		getComputedStyle(document.querySelector('[data-testid="inbox-empty"]')).display === "none"`)
	shot(t, ph.ctx, "inbox")
	ph.checkPhone("inbox")
	ph.step("approve", chromedp.Click(`#needs-you [data-testid="approve"]`))
	if out := held(); !strings.Contains(out, `"behavior":"allow"`) {
		t.Fatalf("the hook printed %q, want an allow", out)
	}
	// The agent runs the tool it was allowed.
	relayHook(t, srv, "PostToolUse", `{"session_id":"1e6fec4f-a6cb-42e2-ad9e-c92c9d1309d2","hook_event_name":"PostToolUse","cwd":"/tmp/fakehome1/proj","tool_name":"Bash","tool_input":{"command":"make release"}}`)
	ph.poll("count gone", `!document.title.startsWith("(") && document.querySelector('[data-inbox-count]').textContent === ""`)
}

// From the phone: an agent's hooks are reviewed as a diff, then
// installed into its configuration (with a backup), running this
// paddock's binary.
func TestBrowserInstallsHooksFromSettings(t *testing.T) {
	chrome := chromiumPath(t)
	home := fixtureHome(t)
	srv := servetest.Start(t, home)
	ph := newPhone(t, chrome)
	ph.acceptDialogs()
	ph.pair(srv.PairLink)
	base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
	ph.step("settings", chromedp.Navigate(base+"/settings"))
	ph.poll("claude not hooked", `document.querySelector('[data-testid="hook-agent"][data-runtime="claude"] [data-testid="hook-state"]')?.textContent === "not installed"`)
	ph.step("review", chromedp.Click(`[data-testid="hook-agent"][data-runtime="claude"] [data-testid="hook-review"]`))
	ph.poll("the diff", `[...document.querySelectorAll('[data-testid="hook-plan"] .dl.add')].some(l => l.textContent.includes("hook --runtime claude"))`)
	ph.checkPhone("settings-hooks")
	shot(t, ph.ctx, "settings-hooks")
	settings := filepath.Join(home, ".claude", "settings.json")
	if _, err := os.Stat(settings); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("reviewing wrote %s: %v", settings, err)
	}
	ph.step("install", chromedp.Click(`[data-testid="hook-install"]`))
	ph.poll("installed", `document.querySelector('[data-testid="hooks-note"]')?.textContent.includes("hooks installed") &&
		document.querySelector('[data-testid="hook-agent"][data-runtime="claude"] [data-testid="hook-state"]').textContent === "installed"`)
	b, err := os.ReadFile(settings)
	if err != nil || !strings.Contains(string(b), servetest.Binary(t)) || !strings.Contains(string(b), "hook --runtime claude") {
		t.Fatalf("%s after install: %s %v", settings, b, err)
	}
}

// The office view, turned on from the settings: a session asking for
// approval sits at a desk and pulses, unless the phone asks for reduced
// motion; the floor fits a phone.
func TestBrowserOfficeView(t *testing.T) {
	chrome := chromiumPath(t)
	home := fixtureHome(t)
	const id = "5b2a4e6c-0000-4000-8000-0000000office"
	writeLongTranscript(t, filepath.Join(home, ".claude", "projects", "-tmp-fakehome1-proj"), id, 4)
	srv := servetest.Start(t, home)
	base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	ph.poll("no office by default", `!document.getElementById("office")`)
	ph.step("settings", chromedp.Navigate(base+"/settings"))
	ph.step("office on", chromedp.Click(`[data-testid="setting-office"]`), chromedp.Click(`[data-testid="settings-save"]`))
	ph.poll("saved", `document.querySelector('[data-testid="settings-note"]')?.textContent === "Saved."`)
	ph.step("board", chromedp.Navigate(base+"/"))
	ph.poll("the office", `!!document.getElementById("office")`)
	held := startRelayHook(t, srv, "PermissionRequest", `{"session_id":"`+id+`","hook_event_name":"PermissionRequest","cwd":"/tmp/fakehome1/proj","tool_name":"Bash","tool_input":{"command":"make deploy"}}`)
	ph.poll("at a desk, asking", `(() => { const a = document.querySelector('[data-testid="office-agent"][data-state="approval"]');
		return !!a && a.textContent.includes("needs approval") && a.getAttribute("href") === "/s/claude/`+id+`"; })()`)
	halo := `getComputedStyle(document.querySelector('[data-testid="office-agent"][data-state="approval"] .halo')).animationName`
	ph.poll("it pulses", halo+` === "office-ask"`)
	if _, err := chromedp.Call(ph.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}}); err != nil {
		t.Fatal(err)
	}
	ph.poll("still under reduced motion", halo+` === "none"`)
	ph.checkPhone("office")
	shot(t, ph.ctx, "office")
	ph.step("deny", chromedp.Click(`[data-testid="needs-you"] [data-testid="deny"]`))
	held()
}

// Review from the phone, with the real Claude Code: the agent writes a
// file (the mock's EDIT), the session page shows the write as a diff, a
// tap on one of its lines takes a comment, and Send review delivers every
// comment — file:line, the line quoted, the text — as one message the
// agent answers.
func TestBrowserReviewsADiff(t *testing.T) {
	chrome := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	agent, srv, api := hostingServe(t, ctx)
	file := filepath.Join(agent.Cwd, "notes.md")
	var created struct{ ID string }
	if status, err := api.post("/api/v1/sessions", map[string]any{"runtime": "claude", "workdir": agent.Cwd,
		"prompt": "please EDIT " + file, "permission_mode": "acceptEdits"}, &created); err != nil || status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, err)
	}
	until(t, 60*time.Second, "the file written", func() (bool, string) {
		b, err := os.ReadFile(file)
		return err == nil && string(b) == mockmodel.EditContent(1), fmt.Sprint(string(b), err)
	})
	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
	ph.step("session", chromedp.Navigate(base+"/s/claude/"+created.ID))
	ph.poll("the reply", `[...document.querySelectorAll('[data-testid="message"]')].some(m => m.textContent.includes(`+strconv.Quote(mockmodel.ToolFinishedReply)+`))`)
	ph.step("open the activity", chromedp.Click(`[data-testid="activity"] summary`))
	line := `pre.diff[data-review] .dl.add[data-ref="` + file + `:1"]`
	ph.poll("the write as a reviewable diff", `document.querySelector('`+line+`')?.textContent.startsWith("+edited-by-mock-1")`)
	ph.step("open the write", chromedp.Click(`[data-testid="activity-item"] summary`))
	ph.step("tap the line", chromedp.Click(line))
	ph.step("comment", chromedp.SendKeys(`[data-testid="review-comment"]`, "Say which mock wrote this."))
	ph.poll("one comment ready", `!document.querySelector('[data-testid="review-form"]').hidden &&
		document.querySelector('[data-review-count]').textContent === "1 comment"`)
	ph.checkPhone("review")
	shot(t, ph.ctx, "session-review")
	ph.step("send the review", chromedp.Click(`[data-testid="review-send"]`))
	ph.pollFor("review delivered", `document.querySelector('[data-testid="review-result"] [data-testid="result-ok"]')?.textContent.startsWith("Review sent")`, 60*time.Second)
	ph.poll("the comments cleared", `!document.querySelector('[data-testid="review-comment"]') && document.querySelector('[data-testid="review-form"]').hidden`)
	// A refused request says why: an empty review (the page never sends
	// one; a stale form could) gets the server's reason in the flash.
	ph.step("send an empty review", chromedp.Evaluate[chromedp.Void](`(() => { const f = document.querySelector('[data-testid="review-form"]');
		f.hidden = false; htmx.trigger(f, "submit"); })()`))
	ph.poll("the reason shown", `!document.getElementById("flash").hidden && document.getElementById("flash").textContent.startsWith("A review needs at least one comment")`)
	want := "1. " + file + ":1\n   > edited-by-mock-1\n   Say which mock wrote this."
	until(t, 60*time.Second, "the agent got the review and answered", func() (bool, string) {
		var page struct{ Messages []struct{ Role, Text string } }
		if err := api.get("/api/v1/sessions/claude/"+created.ID+"/messages", &page); err != nil {
			return false, err.Error()
		}
		got := false
		for i, m := range page.Messages {
			if m.Role == "user" && strings.Contains(m.Text, want) {
				got = i+1 < len(page.Messages) && page.Messages[i+1].Text == mockmodel.PlainReply(2)
			}
		}
		return got, fmt.Sprintf("%+v", page.Messages)
	})
}

// Images on the phone, with the real Claude Code: the agent reads a PNG
// (the mock's VIEW) and the activity panel shows it, loaded from
// paddock, under the call that returned it, in a box that does not move
// the page when it loads.
func TestBrowserShowsImages(t *testing.T) {
	chrome := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	agent, srv, api := hostingServe(t, ctx)
	png := filepath.Join(agent.Cwd, "blue.png")
	if err := os.WriteFile(png, imagetest.PNG(8, 6, color.RGBA{0, 90, 255, 255}), 0o644); err != nil {
		t.Fatal(err)
	}
	var created struct{ ID string }
	if status, err := api.post("/api/v1/sessions", map[string]any{"runtime": "claude", "workdir": agent.Cwd,
		"prompt": "VIEW " + png}, &created); err != nil || status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, err)
	}
	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
	ph.step("session", chromedp.Navigate(base+"/s/claude/"+created.ID))
	ph.pollFor("the reply", `[...document.querySelectorAll('[data-testid="message"]')].some(m => m.textContent.includes(`+strconv.Quote(mockmodel.ToolFinishedReply)+`))`, 60*time.Second)
	ph.step("open the activity", chromedp.Click(`[data-testid="activity"] summary`))
	ph.poll("the read with its image", `[...document.querySelectorAll('[data-testid="activity-item"]')].some(i => i.querySelector('.tool')?.textContent === "Read" &&
		!!i.querySelector('[data-testid="activity-image"] img'))`)
	ph.step("open the read", chromedp.Click(`[data-testid="activity-item"] summary`))
	const boxJS = `(() => { const r = document.querySelector('[data-testid="activity-image"] img').getBoundingClientRect(); return [r.width, r.height]; })()`
	box, err := chromedp.Run(ph.ctx, chromedp.Evaluate[[]float64](boxJS))
	if err != nil {
		t.Fatal(err)
	}
	ph.poll("the image loaded from paddock", `(() => { const i = document.querySelector('[data-testid="activity-image"] img'); return i.complete && i.naturalWidth === 8 && i.naturalHeight === 6; })()`)
	after, err := chromedp.Run(ph.ctx, chromedp.Evaluate[[]float64](boxJS))
	if err != nil {
		t.Fatal(err)
	}
	if len(box) != 2 || len(after) != 2 || box[0] != after[0] || box[1] != after[1] || box[0] == 0 {
		t.Errorf("the image's box moved as it loaded: %v → %v", box, after)
	}
	ph.checkPhone("image")
	// The composer is sticky at the foot of the screen: the shot is of
	// the call with its image, scrolled up clear of it.
	ph.step("scroll the call up", chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="activity-item"]').scrollIntoView({block: "start"})`))
	item, err := chromedp.Run(ph.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(artifactDir(t), "browser-session-image.png")
	if err := os.WriteFile(p, item, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// The certificate page, opened over plain HTTP as a new phone does, shows
// the steps for the phone it is opened on first, and says whether the
// phone trusts paddock yet: a phone that does not gets "not yet", one that
// does (here: a browser that accepts paddock's certificate) "trusts".
func TestBrowserCAPageChecksTrust(t *testing.T) {
	chrome := chromiumPath(t)
	srv := servetest.Start(t, fixtureHome(t))
	st, err := app.ReadState(srv.DataDir)
	if err != nil || st.HTTPPort == 0 {
		t.Fatalf("serve's state: %+v %v", st, err)
	}
	ca := fmt.Sprintf("http://127.0.0.1:%d/ca", st.HTTPPort)
	untrusting := startPhone(t, chrome)
	untrusting.step("CA page, untrusted", chromedp.Navigate(ca))
	untrusting.poll("not trusted yet", `document.querySelector('[data-testid="trust-status"]')?.dataset.trusted === "no"`)
	untrusting.poll("iPhone steps first", `document.querySelector('main h2:nth-of-type(2)')?.textContent === "This device (iPhone and iPad)" &&
		!!document.querySelector('[data-testid="other-devices"] [data-platform="android"]') && !document.querySelector('[data-testid="other-devices"] [data-platform="ios"]')`)
	untrusting.checkPhone("ca-untrusted")
	shot(t, untrusting.ctx, "ca-untrusted")
	trusting := newPhone(t, chrome)
	trusting.step("CA page, trusted", chromedp.Navigate(ca))
	trusting.poll("trusted", `document.querySelector('[data-testid="trust-status"]')?.dataset.trusted === "yes"`)
	shot(t, trusting.ctx, "ca-trusted")
}

// The service worker shows paddock's push as a notification — the title,
// the body, one per item (its tag) with Approve and Deny where a
// capability rides along — and closes it when paddock says the item was
// resolved. The push is delivered to the worker by the browser's own
// push path (DevTools' deliverPushMessage), as a push service's would be.
func TestBrowserServiceWorkerShowsAndClosesPushes(t *testing.T) {
	chrome := chromiumPath(t)
	srv := servetest.Start(t, fixtureHome(t))
	base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
	ph := newPhone(t, chrome)
	regs := make(chan serviceworker.RegistrationID, 8)
	go func() {
		for ev, err := range chromedp.Events(ph.ctx, serviceworker.WorkerRegistrationUpdated) {
			if err != nil {
				return
			}
			for _, r := range ev.Registrations {
				if !r.IsDeleted && strings.HasPrefix(r.ScopeURL, base) {
					select {
					case regs <- r.RegistrationID:
					default:
					}
				}
			}
		}
	}()
	if _, err := chromedp.Call(ph.ctx, serviceworker.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ph.ctx, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: "notifications"}, Setting: browser.PermissionSettingGranted, Origin: base}); err != nil {
		t.Fatal(err)
	}
	ph.pair(srv.PairLink)
	ph.pollFor("the worker active", `navigator.serviceWorker.ready.then(r => !!r.active)`, 40*time.Second, chromedp.EvalAwaitPromise)
	var reg serviceworker.RegistrationID
	select {
	case reg = <-regs:
	case <-time.After(20 * time.Second):
		t.Fatal("no service worker registration reported")
	}
	push := func(m map[string]any) {
		t.Helper()
		b, _ := json.Marshal(m)
		if _, err := chromedp.Call(ph.ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{Origin: base, RegistrationID: reg, Data: string(b)}); err != nil {
			t.Fatal(err)
		}
	}
	shown := `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => JSON.stringify(ns.map(n => ({title: n.title, body: n.body, tag: n.tag,
		actions: (n.actions || []).map(a => a.action), url: n.data && n.data.url}))))`
	// pushUntil delivers m until the worker shows what want says: a push
	// reaching a worker that is still starting may be dropped, as a push
	// service's may, and the same push again replaces its notification
	// (one per tag) rather than adding one.
	pushUntil := func(what string, m map[string]any, want func(string) bool) {
		t.Helper()
		got := ""
		for range 5 {
			push(m)
			for range 20 {
				if got, _ = chromedp.Run(ph.ctx, chromedp.Evaluate[string](shown, chromedp.EvalAwaitPromise)); want(got) {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		t.Fatalf("%s: notifications shown %s", what, got)
	}
	item := `{"title":"Claude Code needs approval · proj","body":"Bash: make deploy","tag":"itm_0123","actions":["allow","deny"],"url":"/s/claude/abc#item-itm_0123"}`
	turn := `{"title":"Claude Code finished · proj","body":"Your turn.","tag":"turn-abc","actions":[],"url":"/s/claude/abc"}`
	pushUntil("an approval", map[string]any{"type": "item", "tag": "itm_0123", "title": "Claude Code needs approval · proj", "body": "Bash: make deploy",
		"url": "/s/claude/abc#item-itm_0123", "item": "itm_0123", "device": "dev1", "cap": "c4p",
		"actions": []map[string]string{{"action": "allow", "title": "Approve"}, {"action": "deny", "title": "Deny"}}},
		func(got string) bool { return got == "["+item+"]" })
	// A turn: no capability, no actions; its own tag.
	pushUntil("a finished turn", map[string]any{"type": "turn", "tag": "turn-abc", "title": "Claude Code finished · proj", "body": "Your turn.", "url": "/s/claude/abc"},
		func(got string) bool {
			return strings.Contains(got, item) && strings.Contains(got, turn) && strings.Count(got, `"tag"`) == 2
		})
	pushUntil("the resolved one closed", map[string]any{"type": "close", "tag": "itm_0123"},
		func(got string) bool { return got == "["+turn+"]" })
}
