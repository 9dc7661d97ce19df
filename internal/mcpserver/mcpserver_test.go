package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"paddock/internal/agent/claude"
	"paddock/internal/catalog"
	"paddock/internal/search"
)

// fakeAPI records what the tools ask paddock serve.
type fakeAPI struct{ calls []string }

func (f *fakeAPI) Post(_ context.Context, path string, body, out any) error {
	b, _ := json.Marshal(body)
	f.calls = append(f.calls, path+" "+string(b))
	switch path {
	case "/api/v1/sessions":
		return json.Unmarshal([]byte(`{"id":"new-one","runtime":"claude"}`), out)
	case "/api/v1/handoff":
		return json.Unmarshal([]byte(`{"source":"claude:s1","target":"claude:t1","delivered":true,"reply":"on it"}`), out)
	}
	return fmt.Errorf("no route %s", path)
}

const sessionID = "0b5d4c2e-8888-4a2b-9c3d-aaaaaaaaaaaa"

// fixture is a Claude home with one session, its catalog, and the
// search index built over it.
func fixture(t *testing.T) (*catalog.Catalog, string, string) {
	t.Helper()
	home := t.TempDir()
	cwd := filepath.Join(home, "proj")
	dir := filepath.Join(home, ".claude", "projects", "-proj")
	os.MkdirAll(cwd, 0o755)
	os.MkdirAll(dir, 0o755)
	var lines []string
	at := time.Now().Add(-time.Hour).UTC()
	for i, text := range []string{"review PR #305: the kiwi cache", "The kiwi cache leaks on reload", "fix it", "Fixed in cache.go"} {
		typ := "user"
		if i%2 == 1 {
			typ = "assistant"
		}
		m := map[string]any{"type": typ, "uuid": fmt.Sprintf("%08d-0000-4000-8000-000000000000", i), "sessionId": sessionID, "cwd": cwd,
			"timestamp": at.Add(time.Duration(i) * time.Minute).Format(time.RFC3339Nano), "message": map[string]any{"role": typ, "content": text}}
		if i > 0 {
			m["parentUuid"] = fmt.Sprintf("%08d-0000-4000-8000-000000000000", i-1)
		}
		b, _ := json.Marshal(m)
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(filepath.Join(dir, sessionID+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := catalog.New(catalog.Options{DisableWatch: true}, claude.New(claude.Options{Dir: filepath.Join(home, ".claude")}))
	c.Rescan(context.Background())
	index := filepath.Join(home, "data", "search.db")
	ix, err := search.Open(context.Background(), search.Options{Path: index, Source: c})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	return c, index, home
}

func connect(t *testing.T, o Options) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := New(o).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured answer into out; it
// returns the error text when the tool failed.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	if out != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, raw)
		}
	}
	return ""
}

// TestTools: exactly the skill's eight tools, each answering from the
// histories and the index, or asking paddock serve.
func TestTools(t *testing.T) {
	c, index, home := fixture(t)
	api := &fakeAPI{}
	cs := connect(t, Options{Catalog: c, IndexPath: index, Workspace: home, Forbidden: c.WatchDirs(), API: api, Self: "claude:me", DefaultAgent: "claude", Agents: []string{"claude", "codex"}})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := []string{"session_keyword_search", "session_status", "session_task_search", "sessions_create", "sessions_export",
		"sessions_handoff", "sessions_history", "sessions_list"}; !slices.Equal(names, want) {
		t.Errorf("tools %q, want %q", names, want)
	}
	key := "claude:" + sessionID

	var list struct {
		Sessions []struct {
			SessionID string `json:"session_id"`
		}
		Total int
	}
	if e := call(t, cs, "sessions_list", nil, &list); e != "" || list.Total != 1 || list.Sessions[0].SessionID != key {
		t.Errorf("sessions_list: %q %+v", e, list)
	}
	var hits struct {
		Hits []struct {
			SessionID string `json:"session_id"`
			Index     int    `json:"message_index"`
			Excerpt   string
		}
	}
	if e := call(t, cs, "session_keyword_search", map[string]any{"query": "leaks"}, &hits); e != "" || len(hits.Hits) != 1 ||
		hits.Hits[0].SessionID != key || hits.Hits[0].Index != 1 || !strings.Contains(hits.Hits[0].Excerpt, "[leaks]") {
		t.Errorf("session_keyword_search: %q %+v", e, hits)
	}
	if e := call(t, cs, "session_keyword_search", map[string]any{"query": "cache", "session_id": sessionID}, &hits); e != "" || len(hits.Hits) != 3 {
		t.Errorf("inside one session, by its bare id: %q %+v", e, hits)
	}
	if e := call(t, cs, "session_task_search", map[string]any{"category": "github"}, &list); e != "" || list.Total != 1 {
		t.Errorf("session_task_search github: %q %+v", e, list)
	}
	if e := call(t, cs, "session_task_search", map[string]any{"category": "nope"}, nil); !strings.Contains(e, "no category") {
		t.Errorf("an unknown category: %q", e)
	}
	var hist struct {
		Messages []struct {
			Index      int
			Role, Text string
		}
		Total int
	}
	if e := call(t, cs, "sessions_history", map[string]any{"session_id": key, "limit": 2}, &hist); e != "" || hist.Total != 4 ||
		len(hist.Messages) != 2 || hist.Messages[1].Text != "Fixed in cache.go" || hist.Messages[0].Index != 2 {
		t.Errorf("sessions_history: %q %+v", e, hist)
	}
	var st struct {
		SessionID string `json:"session_id"`
		Running   bool
		Workspace string
	}
	if e := call(t, cs, "session_status", map[string]any{"session_id": key}, &st); e != "" || st.SessionID != key || st.Running || st.Workspace != filepath.Join(home, "proj") {
		t.Errorf("session_status: %q %+v", e, st)
	}
	if e := call(t, cs, "session_status", map[string]any{"session_id": "claude:nope"}, nil); e == "" {
		t.Error("an unknown session has a status")
	}
	var ex struct {
		Path     string
		Messages int
	}
	if e := call(t, cs, "sessions_export", map[string]any{"session_id": key, "output_path": "out/kiwi.md"}, nil); e == "" {
		t.Error("an export into a missing directory succeeded")
	}
	os.MkdirAll(filepath.Join(home, "out"), 0o755)
	if e := call(t, cs, "sessions_export", map[string]any{"session_id": key, "output_path": "out/kiwi.md"}, &ex); e != "" || ex.Messages != 4 || ex.Path != filepath.Join(home, "out", "kiwi.md") {
		t.Errorf("sessions_export: %q %+v", e, ex)
	}
	if b, _ := os.ReadFile(ex.Path); !strings.HasPrefix(string(b), "### User\n\nreview PR #305") {
		t.Errorf("exported %q", b)
	}
	if e := call(t, cs, "sessions_export", map[string]any{"session_id": key, "output_path": "out/kiwi.md"}, nil); !strings.Contains(e, "exists") {
		t.Errorf("over the file: %q", e)
	}
	if e := call(t, cs, "sessions_export", map[string]any{"session_id": key, "output_path": filepath.Join(home, ".claude", "x.md")}, nil); !strings.Contains(e, "never writes") {
		t.Errorf("into the agent's directory: %q", e)
	}
	var created struct {
		SessionID string `json:"session_id"`
	}
	if e := call(t, cs, "sessions_create", map[string]any{"workspace": home, "prompt": "hi"}, &created); e != "" || created.SessionID != "claude:new-one" {
		t.Errorf("sessions_create: %q %+v", e, created)
	}
	var ho struct {
		Delivered bool
		ReplyText string `json:"reply_text"`
	}
	if e := call(t, cs, "sessions_handoff", map[string]any{"target_session_id": "claude:t1", "task": "carry on", "wait": true}, &ho); e != "" || !ho.Delivered || ho.ReplyText != "on it" {
		t.Errorf("sessions_handoff: %q %+v", e, ho)
	}
	if e := call(t, cs, "sessions_handoff", map[string]any{"target_session_id": "claude:me", "task": "x"}, nil); !strings.Contains(e, "this session itself") {
		t.Errorf("to itself: %q", e)
	}
	if len(api.calls) != 2 || !strings.Contains(api.calls[1], `"source":"claude:me"`) || !strings.Contains(api.calls[0], `"runtime":"claude"`) {
		t.Errorf("asked of paddock serve: %q", api.calls)
	}
	// An agent's name alone starts a new session of it; a bare id is
	// looked up.
	if e := call(t, cs, "sessions_handoff", map[string]any{"target_session_id": "codex", "task": "carry on"}, &ho); e != "" {
		t.Errorf("to a new session: %q", e)
	}
	if e := call(t, cs, "sessions_handoff", map[string]any{"target_session_id": sessionID, "task": "carry on"}, &ho); e != "" {
		t.Errorf("to a bare id: %q", e)
	}
	if len(api.calls) != 4 || !strings.Contains(api.calls[2], `"start":{"runtime":"codex"}`) || strings.Contains(api.calls[2], `"target"`) ||
		!strings.Contains(api.calls[3], `"target":"claude:`+sessionID+`"`) {
		t.Errorf("asked of paddock serve: %q", api.calls[2:])
	}

	// Without paddock serve, starting and handing off say what they need.
	cs2 := connect(t, Options{Catalog: c, IndexPath: index, Workspace: home})
	for name, args := range map[string]map[string]any{
		"sessions_create":  {"workspace": home},
		"sessions_handoff": {"target_session_id": "claude:t1", "task": "x"},
	} {
		if e := call(t, cs2, name, args, nil); !strings.Contains(e, "PADDOCK_TOKEN") {
			t.Errorf("%s without serve: %q", name, e)
		}
	}
	// Arguments a tool does not take are refused by its schema.
	if e := call(t, cs2, "sessions_list", map[string]any{"bogus": 1}, nil); !strings.Contains(e, "bogus") {
		t.Errorf("an unknown argument: %q", e)
	}
}
