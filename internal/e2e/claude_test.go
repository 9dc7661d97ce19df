package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
	"paddock/internal/testkit/servetest"
)

// apiClient talks to a running paddock over HTTPS, trusting only its CA,
// with an API token made by `paddock token create` — the way a script would.
type apiClient struct {
	t     testing.TB
	base  string
	token string
	http  *http.Client
}

func newAPIClient(t testing.TB, srv *servetest.Server) *apiClient {
	t.Helper()
	out, err := exec.Command(servetest.Binary(t), "token", "create", "--data-dir", srv.DataDir, "e2e").Output()
	if err != nil {
		t.Fatalf("paddock token create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	pem, err := os.ReadFile(filepath.Join(srv.DataDir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &apiClient{
		t:     t,
		base:  strings.SplitN(srv.PairLink, "/pair", 2)[0],
		token: lines[len(lines)-1],
		http:  &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}},
	}
}

// post sends body as JSON and decodes the answer into v; it returns the
// status, and an error only when the request itself failed.
func (c *apiClient) post(path string, body, v any) (int, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequest(http.MethodPost, c.base+path, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	hc := *c.http
	hc.Timeout = 3 * time.Minute // a first prompt waits for the agent to start
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if v != nil {
		_ = json.NewDecoder(resp.Body).Decode(v)
	}
	return resp.StatusCode, nil
}

func (c *apiClient) get(path string, v any) error {
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

type apiSession struct {
	ID, Runtime, Cwd, Title, State string
	Live                           bool
}

func (c *apiClient) sessions() []apiSession {
	c.t.Helper()
	var out struct{ Sessions []apiSession }
	if err := c.get("/api/v1/sessions?runtime=claude", &out); err != nil {
		c.t.Fatal(err)
	}
	return out.Sessions
}

// until polls cond every 50 ms until it holds or the deadline passes.
func until(t *testing.T, within time.Duration, what string, cond func() (bool, string)) time.Duration {
	t.Helper()
	start := time.Now()
	last := ""
	for time.Since(start) < within {
		ok, state := cond()
		if ok {
			return time.Since(start)
		}
		last = state
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s; last seen: %s", what, within, last)
	return 0
}

// TestClaudeEndToEnd drives the real Claude Code CLI (pinned version,
// against the mock model) through two turns while paddock serve watches
// its HOME, and checks what paddock's own API reports. Later capabilities
// (live state, approvals, questions, hosted sessions) add their assertions
// as more tests over the same harness: startServe, agenttest, mockmodel.
func TestClaudeEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	started := time.Now()
	mock, err := mockmodel.Start(ctx, mockmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	agent := agenttest.NewClaude(t, mock.URL())

	const sweep = 500 * time.Millisecond
	srv := servetest.Start(t, agent.Home, "--sweep", sweep.String())
	api := newAPIClient(t, srv)

	term := agent.Start(t)
	term.Expect(ctx, agent.Ready)

	prompts := []string{"hello paddock one", "second turn please"}
	term.Type(prompts[0])
	term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(1))))
	var id string
	// Listed within about 100 ms of the write on a quiet machine (the
	// time is logged below); the bound is for a loaded one running the
	// whole suite, where 2 s was once not enough.
	listed := until(t, 10*time.Second, "session listed after its first reply", func() (bool, string) {
		list := api.sessions()
		if len(list) != 1 {
			return false, fmt.Sprintf("%d sessions", len(list))
		}
		id = list[0].ID
		return list[0].Cwd == agent.Cwd && list[0].Title == prompts[0] && list[0].Live,
			fmt.Sprintf("%+v", list[0])
	})

	term.Type(prompts[1])
	term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(2))))
	want := []string{
		"user: " + prompts[0], "assistant: " + mockmodel.PlainReply(1),
		"user: " + prompts[1], "assistant: " + mockmodel.PlainReply(2),
	}
	until(t, 10*time.Second, "conversation complete", func() (bool, string) {
		var page struct {
			Messages []struct{ Role, Text string }
		}
		if err := api.get("/api/v1/sessions/claude/"+id+"/messages", &page); err != nil {
			return false, err.Error()
		}
		got := make([]string, 0, len(page.Messages))
		for _, m := range page.Messages {
			got = append(got, m.Role+": "+m.Text)
		}
		return strings.Join(got, "\n") == strings.Join(want, "\n"), strings.Join(got, " | ")
	})

	if _, err := agent.Quit(ctx, term); err != nil {
		t.Fatal(err)
	}
	ended := until(t, sweep+2*time.Second, "session not live after the CLI exits", func() (bool, string) {
		list := api.sessions()
		return len(list) == 1 && !list[0].Live, fmt.Sprintf("%+v", list)
	})
	t.Logf("claude e2e: listed %s after the first reply; not live %s after exit; total %s",
		listed.Round(time.Millisecond), ended.Round(time.Millisecond), time.Since(started).Round(100*time.Millisecond))
}
