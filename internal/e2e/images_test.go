package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/imagetest"
)

// TestImagesThroughAPI gives each real agent an image twice — attached
// to a prompt in its own one-shot mode, and read by its own image tool
// (the mock's VIEW) — and reads both back through paddock's API: listed
// among the session's events, attached by the user or returned by the
// call, and served byte for byte. Kimi Code's one-shot mode takes no
// attachment, so it is given only the read.
func TestImagesThroughAPI(t *testing.T) {
	for _, cli := range []agenttest.CLI{agenttest.Claude, agenttest.Codex, agenttest.OpenCode, agenttest.Pi, agenttest.Kimi} {
		t.Run(string(cli), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			agent, api := hookedAgent(t, ctx, cli, nil, nil)
			png := filepath.Join(agent.Cwd, "red.png")
			if err := os.WriteFile(png, imagetest.RedPNGBytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			const ask = "what is in this picture"
			run := func(stdin string, args ...string) {
				cmd := exec.CommandContext(ctx, agent.Argv[0], args...)
				cmd.Env, cmd.Dir, cmd.Stdin = agent.Env, agent.Cwd, strings.NewReader(stdin)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s %q: %v\n%s", cli, args, err, out)
				}
			}
			view := "VIEW " + png
			wantAttached := 1
			switch cli {
			case agenttest.Claude:
				run(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"`+ask+`"},`+
					`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+imagetest.RedPNG+`"}}]}}`+"\n",
					"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
				run("", "-p", view)
			case agenttest.Codex:
				run("", "exec", "--skip-git-repo-check", ask, "-i", png)
				run("", "exec", "--skip-git-repo-check", view)
			case agenttest.OpenCode:
				run("", "run", ask, "-f", png)
				run("", "run", view)
			case agenttest.Pi:
				run("", "-p", "@"+png, ask)
				run("", "-p", view)
			case agenttest.Kimi:
				run("", "-p", view)
				wantAttached = 0
			}
			type event struct {
				Kind, Role, Tool, URL string
				ToolID                string `json:"tool_id"`
				MediaType             string `json:"media_type"`
			}
			var attached, returned []event
			until(t, 30*time.Second, "both images among the sessions' events", func() (bool, string) {
				attached, returned = nil, nil
				var list struct{ Sessions []struct{ ID string } }
				if err := api.get("/api/v1/sessions?runtime="+url.QueryEscape(string(cli)), &list); err != nil {
					return false, err.Error()
				}
				for _, s := range list.Sessions {
					var page struct{ Events []event }
					if err := api.get("/api/v1/sessions/"+string(cli)+"/"+url.PathEscape(s.ID)+"/events", &page); err != nil {
						return false, err.Error()
					}
					tools := map[string]string{}
					for _, e := range page.Events {
						switch {
						case e.Kind == "tool_call":
							tools[e.ToolID] = e.Tool
						case e.Kind == "image" && e.Role == "user":
							attached = append(attached, e)
						case e.Kind == "image" && tools[e.ToolID] != "":
							e.Tool = tools[e.ToolID]
							returned = append(returned, e)
						}
					}
				}
				return len(attached) == wantAttached && len(returned) == 1, fmt.Sprintf("%d sessions %+v: attached %+v, returned %+v", len(list.Sessions), list.Sessions, attached, returned)
			})
			if !slices.Contains([]string{"Read", "view_image", "read", "ReadMediaFile"}, returned[0].Tool) {
				t.Errorf("the image was returned by %q", returned[0].Tool)
			}
			for _, e := range append(attached, returned...) {
				body, typ := api.getBytes(t, e.URL)
				if e.MediaType != "image/png" || typ != "image/png" || string(body) != string(imagetest.RedPNGBytes()) {
					t.Errorf("%s: %s declared %s, served as %s, %d bytes; want the %d-byte PNG", cli, e.URL, e.MediaType, typ, len(body), len(imagetest.RedPNGBytes()))
				}
			}
		})
	}
}

// getBytes GETs path and returns the body and its Content-Type; anything
// but 200 fails the test.
func (c *apiClient) getBytes(t *testing.T, path string) ([]byte, string) {
	t.Helper()
	if path == "" {
		t.Fatal("no URL to get")
	}
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", path, resp.Status, err)
	}
	return body, resp.Header.Get("Content-Type")
}
