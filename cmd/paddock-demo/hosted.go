package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"paddock/internal/app"
	"paddock/internal/testkit/agentenv"
	"paddock/internal/testkit/mockmodel"
)

// api is paddock's HTTP API as the demo drives it: an API token of its
// own, over HTTPS checked against paddock's own CA.
type api struct {
	base  string // https://127.0.0.1:PORT
	token string
	c     *http.Client
}

// newAPI makes an API token with paddock's own command (the way a script
// of the user's would) and trusts the CA in paddock's data dir.
func newAPI(ctx context.Context, bin, dataDir string, env []string, base string) (*api, error) {
	cmd := exec.CommandContext(ctx, bin, "token", "create", "paddock-demo")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("paddock token create: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	tok := strings.TrimSpace(lines[len(lines)-1])
	pem, err := os.ReadFile(filepath.Join(dataDir, "ca.pem"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("paddock's ca.pem holds no certificate")
	}
	return &api{base: strings.TrimSuffix(base, "/"), token: tok,
		c: &http.Client{Timeout: 90 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}}, nil
}

// do sends body (JSON, when not nil) and decodes the answer into out.
func (a *api) do(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, bytes.TrimSpace(b))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// delivery is paddock's answer to a message sent to a hosted session.
type delivery struct {
	Delivered, Queued bool
	Reason            string
}

// check says why a message did not reach the agent (nil: it did, or it
// waits for the agent's turn to end; no prompt at all is nothing to check).
func (d *delivery) check() error {
	if d == nil || d.Delivered || d.Queued {
		return nil
	}
	return fmt.Errorf("the message did not reach the agent: %s", d.Reason)
}

// hostedSession is one scenario's session, as paddock hosts it. Its id
// may be paddock's provisional one until the agent names its session
// (its first hook): resolve follows the terminal to the real one.
type hostedSession struct {
	runtime, id, terminal string
}

// resolve updates h's id to the session its terminal runs now.
func (a *api) resolve(ctx context.Context, h *hostedSession) {
	var list struct {
		Sessions []struct {
			ID         string `json:"id"`
			Runtime    string `json:"runtime"`
			TerminalID string `json:"terminal_id"`
		} `json:"sessions"`
	}
	if err := a.do(ctx, http.MethodGet, "/api/v1/sessions?live=1&limit=1000", nil, &list); err != nil {
		return
	}
	for _, s := range list.Sessions {
		if s.TerminalID == h.terminal && s.Runtime == h.runtime {
			h.id = s.ID
			return
		}
	}
}

func (h hostedSession) path() string {
	return "/api/v1/sessions/" + url.PathEscape(h.runtime) + "/" + url.PathEscape(h.id)
}

// waitScreen polls the session's terminal until re shows on it.
func (a *api) waitScreen(ctx context.Context, h *hostedSession, re *regexp.Regexp) error {
	last := ""
	for {
		var sc struct{ Screen string }
		if err := a.do(ctx, http.MethodGet, h.path()+"/screen", nil, &sc); err == nil {
			if re.MatchString(sc.Screen) {
				return nil
			}
			last = sc.Screen
		} else {
			a.resolve(ctx, h)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %q on the screen: %w; it shows:\n%s", re, ctx.Err(), lastLines(last, 8))
		case <-time.After(300 * time.Millisecond):
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// playHosted has paddock start the scenario's agent in its own tmux with
// the first prompt (as + New session does), types the others as the
// composer does, each after the answer to the one before, and waits
// until the session shows what the scenario leaves it with.
func (s scenario) playHosted(ctx context.Context, a *api, setup *agentenv.Setup, workdir string) (*hostedSession, error) {
	final, err := s.screenFor(setup)
	if err != nil {
		return nil, err
	}
	prompts := append([]string(nil), s.Chat...)
	if s.Leave != nothing {
		prompts = append(prompts, s.Then)
	}
	var created struct {
		ID         string    `json:"id"`
		TerminalID string    `json:"terminal_id"`
		Prompt     *delivery `json:"prompt"`
	}
	req := map[string]any{"runtime": string(s.CLI), "workdir": workdir, "name": s.Name}
	if s.CLI == agentenv.Claude {
		// Claude Code 2.1 starts in auto mode, which runs the command
		// without asking; its default mode asks.
		req["permission_mode"] = "default"
	}
	// Codex first asks a person to review the hooks paddock installed;
	// the demo, in its throw-away HOME, trusts them before the first
	// prompt is typed.
	trustFirst := s.CLI == agentenv.Codex
	if len(prompts) > 0 && !trustFirst {
		req["prompt"] = prompts[0]
	}
	if err := a.do(ctx, http.MethodPost, "/api/v1/sessions", req, &created); err != nil {
		return nil, err
	}
	h := &hostedSession{runtime: string(s.CLI), id: created.ID, terminal: created.TerminalID}
	if err := created.Prompt.check(); err != nil {
		return h, err
	}
	first := 1
	if trustFirst {
		if err := a.trustCodexHooks(ctx, h, setup.Ready); err != nil {
			return h, err
		}
		first = 0
	}
	for i := first; i < len(prompts); i++ {
		if i > 0 {
			if err := a.waitScreen(ctx, h, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(i)))); err != nil {
				return h, err
			}
		}
		var d delivery
		if err := a.do(ctx, http.MethodPost, h.path()+"/message", map[string]string{"text": prompts[i]}, &d); err != nil {
			return h, err
		}
		if err := d.check(); err != nil {
			return h, err
		}
	}
	if s.Leave == nothing {
		return h, a.waitScreen(ctx, h, final)
	}
	return h, a.waitNeeds(ctx, h, final)
}

// codexTrustMenu is Codex's hook review on start: "1. Review hooks /
// 2. Trust all and continue / 3. Continue without trusting".
var codexTrustMenu = regexp.MustCompile(`Trust all and continue`)

// trustCodexHooks picks "Trust all and continue" when Codex asks, and
// waits for its prompt.
func (a *api) trustCodexHooks(ctx context.Context, h *hostedSession, ready *regexp.Regexp) error {
	either := regexp.MustCompile(codexTrustMenu.String() + "|" + ready.String())
	if err := a.waitScreen(ctx, h, either); err != nil {
		return err
	}
	var sc struct{ Screen string }
	if err := a.do(ctx, http.MethodGet, h.path()+"/screen", nil, &sc); err != nil {
		return err
	}
	if codexTrustMenu.MatchString(sc.Screen) {
		if err := a.do(ctx, http.MethodPost, h.path()+"/keys", map[string][]string{"keys": {"Down", "Enter"}}, nil); err != nil {
			return err
		}
	}
	return a.waitScreen(ctx, h, ready)
}

// waitNeeds waits until the session waits for the user: paddock holds its
// prompt for the phone (a pending item of that session), or the agent
// asks in its terminal (its dialog on the screen, which paddock reads and
// answers with keys).
func (a *api) waitNeeds(ctx context.Context, h *hostedSession, dialog *regexp.Regexp) error {
	for {
		a.resolve(ctx, h)
		key := h.runtime + ":" + h.id
		for _, kind := range []string{"approvals", "questions"} {
			var list map[string][]struct{ Session string }
			if err := a.do(ctx, http.MethodGet, "/api/v1/"+kind, nil, &list); err == nil {
				for _, it := range list[kind] {
					if it.Session == key {
						return nil
					}
				}
			}
		}
		var sc struct{ Screen string }
		if err := a.do(ctx, http.MethodGet, h.path()+"/screen", nil, &sc); err == nil && dialog.MatchString(sc.Screen) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s to ask: %w; it shows:\n%s", h.runtime+":"+h.id, ctx.Err(), lastLines(sc.Screen, 8))
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// httpsPort is the port paddock serves HTTPS on, from the state it
// writes into its data dir for its other commands.
func httpsPort(dataDir string) (int, error) {
	st, err := app.ReadState(dataDir)
	if err != nil {
		return 0, err
	}
	if st.HTTPSPort == 0 {
		return 0, fmt.Errorf("paddock's state in %s names no HTTPS port", dataDir)
	}
	return st.HTTPSPort, nil
}
