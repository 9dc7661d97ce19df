package app_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/agent"
	"paddock/internal/app"
	"paddock/internal/catalog"
	"paddock/internal/config"
	"paddock/internal/decisions"
	"paddock/internal/decisions/hold"
	"paddock/internal/hookchannel"
	"paddock/internal/hookinstall"
	"paddock/internal/hookinstall/jsonedit"
	"paddock/internal/hookstate"
	"paddock/internal/session"
)

// zed is a seventh agent, made up for this test, built only from what an
// agent's own package provides: it keeps one JSON-lines file per session
// in its directory, reports "ask" hook events that wait for a decision,
// and takes its hooks in a JSON file. Nothing outside this file knows it.
func zed() agent.Agent {
	return agent.Agent{
		Name:    "zed",
		Label:   "Zed",
		Product: "Zed Agent",
		DirFlag: &agent.DirFlag{Name: "zed-dir", Usage: "Zed's directory", Default: func(getenv func(string) string) (string, error) {
			return filepath.Join(getenv("HOME"), ".zed"), nil
		}},
		NewScanner: func(e agent.Env) catalog.Scanner { return &zedScanner{dir: e.Dir} },
		DecodeHook: func(installed string, f hookstate.Fields) (hookstate.Event, error) {
			sid, fe := hookstate.RequireStr(f, installed, "session")
			if fe != nil {
				return hookstate.Event{}, fe
			}
			ev := hookstate.Event{SessionID: sid, Name: installed, Kind: hookstate.KindActivity, Cwd: f.Str("cwd"), ToolName: f.Str("tool_name")}
			if installed == "ask" {
				ev.Kind, ev.ToolSummary = hookstate.KindPermission, hookstate.Summarize(f["tool_input"])
			}
			return ev, nil
		},
		HookRules: hookstate.Rules{InferPermissions: true},
		Decisions: hold.Policy{
			Events:    []string{"ask"},
			Hold:      time.Minute,
			Unwatched: true,
			Item:      hold.AllowOrDeny,
			Encode: func(_ hold.Request, out decisions.Outcome) []byte {
				return fmt.Appendf(nil, `{"zed":%q}`, out.Item.Resolution)
			},
		},
		Install: hookinstall.Spec{
			Dir: func(e *hookinstall.Env) string { return filepath.Join(e.Home(), ".zed") },
			Targets: func(e *hookinstall.Env, dir string, _ bool) []hookinstall.Target {
				h := &jsonedit.Hooks{Nested: false, Ours: e.IsOurJSONHandler, Events: []jsonedit.Event{
					{Name: "ask", Handler: jsonedit.Obj("command", e.Command("zed", "ask"))},
				}}
				return []hookinstall.Target{{Path: filepath.Join(dir, "hooks.json"), Base: []byte("{}\n"), Mode: 0o600,
					Edit: func(src []byte, _, install bool) (hookinstall.Edit, error) {
						return hookinstall.JSONEdit(h, src, install)
					}}}
			},
			Notes: func(*hookinstall.Env) []string { return []string{"Restart Zed."} },
		},
		UI: agent.UI{DeskOnly: "Answer in Zed's window."},
	}
}

// zedScanner lists dir/*.jsonl: one session each, named by the file.
type zedScanner struct{ dir string }

type zedLine struct {
	Role, Text, Cwd string
}

func (s *zedScanner) Runtime() string     { return "zed" }
func (s *zedScanner) WatchDirs() []string { return []string{s.dir} }

func (s *zedScanner) Scan(ctx context.Context, limit int, _ []string) ([]session.Info, error) {
	files, _ := filepath.Glob(filepath.Join(s.dir, "*.jsonl"))
	var out []session.Info
	for _, f := range files {
		if in, err := s.Session(ctx, strings.TrimSuffix(filepath.Base(f), ".jsonl")); err == nil {
			out = append(out, in)
		}
	}
	return out, nil
}

func (s *zedScanner) Session(_ context.Context, id string) (session.Info, error) {
	path := filepath.Join(s.dir, id+".jsonl")
	st, err := os.Stat(path)
	if err != nil {
		return session.Info{}, session.ErrNotFound
	}
	lines, err := readZed(path)
	if err != nil || len(lines) == 0 {
		return session.Info{}, session.ErrNotFound
	}
	return session.Info{Runtime: "zed", ID: id, Cwd: lines[0].Cwd, Project: filepath.Base(lines[0].Cwd),
		Title: lines[0].Text, FirstPrompt: lines[0].Text, Updated: st.ModTime(), Path: path}, nil
}

func (s *zedScanner) Conversation(_ context.Context, id string) ([]session.Message, error) {
	lines, err := readZed(filepath.Join(s.dir, id+".jsonl"))
	if err != nil {
		return nil, session.ErrNotFound
	}
	var out []session.Message
	for _, l := range lines {
		out = append(out, session.Message{Role: l.Role, Text: l.Text})
	}
	return out, nil
}

func readZed(path string) ([]zedLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []zedLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l zedLine
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

// TestASeventhAgent registers zed in a registry of its own and follows it
// through everything paddock does with an agent: its session is listed
// and opens, a hook event reaches its card, a decision is held for the
// phone and answered in zed's words, the hooks installer plans zed's
// file, and the board shows zed's card under its label — with no code
// outside zed() naming it.
func TestASeventhAgent(t *testing.T) {
	home := t.TempDir()
	zedDir := filepath.Join(home, ".zed")
	if err := os.MkdirAll(zedDir, 0o700); err != nil {
		t.Fatal(err)
	}
	history := `{"role":"user","text":"port the parser to zed","cwd":"/work/zedproj"}` + "\n" +
		`{"role":"assistant","text":"Parser ported."}` + "\n"
	if err := os.WriteFile(filepath.Join(zedDir, "z-1.jsonl"), []byte(history), 0o600); err != nil {
		t.Fatal(err)
	}
	reg := agent.MustRegistry(zed())

	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	cfg, err := config.Default(getenv)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.Addr, cfg.HTTPAddr, cfg.HookAddr = "127.0.0.1:0", "", "127.0.0.1:0"
	cfg.SweepInterval = 200 * time.Millisecond
	cfg.AgentDirs["zed-dir"] = zedDir

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := app.New(ctx, cfg, app.Options{Agents: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()

	// A device and an API token, as pairing and `paddock token create`
	// make them.
	data, err := app.OpenData(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	code, _, err := data.Auth.NewPairingCode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	device, _, err := data.Auth.Pair(ctx, code, "Mozilla/5.0 (iPhone) Safari", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := data.Auth.CreateToken(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	client := httpsClient(t, cfg.DataDir)
	base := a.State().URLs[0]
	api := func(method, path string, body any) (int, []byte) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, strings.TrimSuffix(base, "/")+path, rd)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	eventually := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 20 s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	// Listing and opening: zed's session comes from zed's own scanner.
	eventually("zed's session listed", func() bool {
		status, b := api(http.MethodGet, "/api/v1/sessions?runtime=zed", nil)
		return status == http.StatusOK && bytes.Contains(b, []byte(`"key":"zed:z-1"`)) && bytes.Contains(b, []byte("port the parser to zed"))
	})
	if status, b := api(http.MethodGet, "/api/v1/sessions/zed/z-1/messages", nil); status != http.StatusOK || !bytes.Contains(b, []byte("Parser ported.")) {
		t.Fatalf("zed's conversation: %d %s", status, b)
	}

	// A hook event that waits for a decision, relayed as `paddock hook
	// --runtime zed ask` would relay it.
	relayed := make(chan hookchannel.Result, 1)
	go func() {
		relayed <- hookchannel.Relay(ctx, hookchannel.RelayOptions{
			Args:      hookchannel.Args{Runtime: "zed", Event: "ask", DataDir: cfg.DataDir, Payload: []byte(`{"session":"z-1","cwd":"/work/zedproj","tool_name":"Shell","tool_input":{"command":"make zed"}}`)},
			MayDecide: reg.MayDecide, AcceptDecision: true,
			// zed runs in a terminal: runs without one (CI, scripts) open no card.
			Process: func() hookchannel.Process { return hookchannel.Process{PID: os.Getpid(), TTY: "/dev/pts/9"} },
		})
	}()
	var item struct {
		Approvals []struct {
			ID      string `json:"id"`
			Session string `json:"session"`
		} `json:"approvals"`
	}
	eventually("zed's prompt waiting on the phone", func() bool {
		select {
		case res := <-relayed:
			t.Fatalf("the relay returned before a decision: %+v", res)
		default:
		}
		status, b := api(http.MethodGet, "/api/v1/approvals", nil)
		return status == http.StatusOK && json.Unmarshal(b, &item) == nil && len(item.Approvals) == 1 && item.Approvals[0].Session == "zed:z-1"
	})
	eventually("zed's card needs approval", func() bool {
		_, b := api(http.MethodGet, "/api/v1/sessions/zed/z-1", nil)
		return bytes.Contains(b, []byte(`"state":"approval"`))
	})

	// The board: zed's card under its label, its prompt on the strip.
	req, _ := http.NewRequest(http.MethodGet, base, nil)
	req.AddCookie(&http.Cookie{Name: "__Host-paddock", Value: device})
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"Zed", "port the parser to zed", "make zed"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the board lacks %q", want)
		}
	}

	// The decision, answered in zed's words.
	if status, b := api(http.MethodPost, "/api/v1/approvals/"+item.Approvals[0].ID, map[string]string{"decision": "allow"}); status != http.StatusOK {
		t.Fatalf("decide: %d %s", status, b)
	}
	select {
	case res := <-relayed:
		if !res.Delivered || string(res.Output) != `{"zed":"allowed"}` {
			t.Fatalf("the relay printed %q (%+v)", res.Output, res)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the held hook never got its answer")
	}

	// The hooks installer's dry run plans zed's own file, and only it.
	res, err := hookinstall.Install(hookinstall.Options{Specs: reg.InstallSpecs(), Binary: "/opt/paddock/bin/paddock", Home: home, Env: getenv}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Runtime != "zed" || len(res[0].Files) != 1 ||
		res[0].Files[0].Path != filepath.Join(zedDir, "hooks.json") || !strings.Contains(res[0].Files[0].Diff, "/opt/paddock/bin/paddock hook --runtime zed ask") ||
		!slices.Contains(res[0].Notes, "Restart Zed.") {
		t.Fatalf("dry run: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(zedDir, "hooks.json")); err == nil {
		t.Fatal("the dry run wrote zed's hooks file")
	}
}

// httpsClient trusts the CA the app created in dataDir.
func httpsClient(t *testing.T, dataDir string) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(filepath.Join(dataDir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("no CA in ca.pem")
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}
