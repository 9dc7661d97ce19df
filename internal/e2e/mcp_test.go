package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"paddock/internal/testkit/servetest"
)

// TestMCPServer runs the real `paddock mcp` as an agent would, on stdio,
// beside a running paddock serve: an MCP client lists exactly the eight
// tools, finds a recorded session by its words in serve's index, reads
// its history, and hands off through serve (refused here: nothing is
// hosted, and the refusal says so).
func TestMCPServer(t *testing.T) {
	home := fixtureHome(t)
	srv := servetest.Start(t, home)
	api := newAPIClient(t, srv)
	until(t, 30*time.Second, "serve's index built", func() (bool, string) {
		var out struct{ Index struct{ Ready bool } }
		err := api.get("/api/v1/search?q=mock", &out)
		return err == nil && out.Index.Ready, ""
	})
	cmd := exec.Command(servetest.Binary(t), "mcp", "--data-dir", srv.DataDir)
	cmd.Dir = home
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(servetest.AgentDirVars, name)
	}), "HOME="+home, "PADDOCK_TOKEN="+api.token)
	ctx := t.Context()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 8 {
		t.Errorf("%d tools, want the skill's 8", len(tools.Tools))
	}
	structured := func(name string, args map[string]any, out any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if out != nil && !res.IsError {
			raw, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(raw, out)
		}
		return res
	}
	var hits struct {
		Hits []struct {
			SessionID string `json:"session_id"`
		}
	}
	if res := structured("session_keyword_search", map[string]any{"query": `"please RUN the thing"`}, &hits); res.IsError || len(hits.Hits) == 0 {
		t.Fatalf("keyword search: %+v %+v", res, hits)
	}
	var hist struct{ Total int }
	if res := structured("sessions_history", map[string]any{"session_id": hits.Hits[0].SessionID}, &hist); res.IsError || hist.Total == 0 {
		t.Errorf("history: %+v %+v", res.Content, hist)
	}
	res := structured("sessions_handoff", map[string]any{"source_session_id": hits.Hits[0].SessionID, "target_session_id": "claude:nope", "task": "x"}, nil)
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if !res.IsError || !strings.Contains(text, "tmux") && !strings.Contains(text, "not_found") && !strings.Contains(text, "hosting_unavailable") {
		t.Errorf("a hand-off to a session that does not exist: %q", text)
	}
}
