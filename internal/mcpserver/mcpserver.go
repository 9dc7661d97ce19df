// Package mcpserver is `paddock mcp`: an MCP server, over stdio, that
// lets an agent find, read, export, start and hand off the other sessions
// on this machine, with the tools and parameters of the session-management
// skill (sessions_list, session_keyword_search, session_task_search,
// sessions_history, session_status, sessions_export, sessions_create,
// sessions_handoff).
//
// Reading is local: the agents' histories (through a catalog) and the
// search index paddock serve keeps. Starting a session and handing off
// need the running paddock serve, reached over its API with a token.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"paddock/internal/board"
	"paddock/internal/catalog"
	"paddock/internal/export"
	"paddock/internal/search"
	"paddock/internal/session"
)

// Options configure the server.
type Options struct {
	// Catalog lists the sessions (scanned once, swept before each call).
	Catalog *catalog.Catalog
	// IndexPath is paddock serve's search index.
	IndexPath string
	// Workspace is where a relative export path lands (the calling
	// agent's directory).
	Workspace string
	// Forbidden are the directories an export never writes into (the
	// agents' own, paddock's data).
	Forbidden []string
	// API reaches the running paddock serve; nil: creating and handing
	// off are refused, saying why.
	API API
	// Self is the calling agent's own session, when known: it is never a
	// hand-off's target.
	Self string
	// DefaultAgent is the agent sessions_create starts when none is named.
	DefaultAgent string
	// Agents are the agents' names: a hand-off target naming one alone
	// starts a new session of it.
	Agents  []string
	Version string
	Now     func() time.Time
}

// API is what the tools ask of paddock serve.
type API interface {
	Post(ctx context.Context, path string, body, out any) error
}

// ErrNoServe is creating or handing off without a paddock serve to ask.
var ErrNoServe = errors.New("this needs paddock serve running and an API token in PADDOCK_TOKEN (paddock token create mcp)")

// New is the MCP server with its eight tools.
func New(o Options) *mcp.Server {
	if o.Now == nil {
		o.Now = time.Now
	}
	t := &tools{o: o}
	s := mcp.NewServer(&mcp.Implementation{Name: "paddock", Version: o.Version}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "sessions_list", Description: "List this machine's coding-agent sessions (every agent), newest activity first."}, t.list)
	mcp.AddTool(s, &mcp.Tool{Name: "session_keyword_search", Description: "Find the sessions, or the messages inside one session, that mention words (\"quoted words\" as a phrase)."}, t.keyword)
	mcp.AddTool(s, &mcp.Tool{Name: "session_task_search", Description: "List sessions of one kind: subagent, github, gateway (hosted by paddock), background, untitled, recent (7 days) or all."}, t.task)
	mcp.AddTool(s, &mcp.Tool{Name: "sessions_history", Description: "Read a session's conversation: its newest user and assistant messages."}, t.history)
	mcp.AddTool(s, &mcp.Tool{Name: "session_status", Description: "Say whether a session is running, where, and when it was last active."}, t.status)
	mcp.AddTool(s, &mcp.Tool{Name: "sessions_export", Description: "Write a session's transcript to a file: markdown (default), json, jsonl or text."}, t.export)
	mcp.AddTool(s, &mcp.Tool{Name: "sessions_create", Description: "Start a new agent session in paddock's terminal, in a workspace directory."}, t.create)
	mcp.AddTool(s, &mcp.Tool{Name: "sessions_handoff", Description: "Hand a session's work (its context and a task) to another running session, or to a new one of an agent."}, t.handoff)
	return s
}

type tools struct{ o Options }

// Session is one session as the tools report it.
type Session struct {
	SessionID string    `json:"session_id" jsonschema:"the session's id as runtime:id"`
	Agent     string    `json:"agent"`
	Title     string    `json:"title,omitempty"`
	Workspace string    `json:"workspace,omitempty"`
	Running   bool      `json:"running"`
	Updated   time.Time `json:"updated"`
	Messages  int       `json:"prompts,omitempty"`
}

func sessionOf(i session.Info) Session {
	return Session{SessionID: i.Key().String(), Agent: i.Runtime, Title: i.Title, Workspace: i.Cwd, Running: i.Live, Updated: i.Updated.UTC(), Messages: i.PromptCount}
}

// all is every session, swept first so it is current.
func (t *tools) all(ctx context.Context) []session.Info {
	t.o.Catalog.Sweep(ctx)
	return t.o.Catalog.All()
}

// resolve finds a session by "runtime:id" or by its id alone.
func (t *tools) resolve(ctx context.Context, id string) (session.Info, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return session.Info{}, errors.New("session_id is empty: give the session's id (runtime:id, as sessions_list shows it)")
	}
	if rt, rest, ok := strings.Cut(id, ":"); ok {
		return t.o.Catalog.Get(ctx, session.Key{Runtime: rt, ID: rest})
	}
	for _, i := range t.all(ctx) {
		if i.ID == id {
			return i, nil
		}
	}
	return session.Info{}, fmt.Errorf("no session %q", id)
}

func clampLimit(n, def int) int {
	if n <= 0 {
		return def
	}
	return min(n, 200)
}

type listIn struct {
	RunningOnly bool `json:"running_only,omitempty" jsonschema:"only sessions running now"`
	Limit       int  `json:"limit,omitempty" jsonschema:"at most this many (default 50)"`
}

type sessionsOut struct {
	Sessions []Session `json:"sessions"`
	Total    int       `json:"total"`
}

func (t *tools) list(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, sessionsOut, error) {
	var out sessionsOut
	for _, i := range t.all(ctx) {
		if in.RunningOnly && !i.Live {
			continue
		}
		out.Total++
		if len(out.Sessions) < clampLimit(in.Limit, 50) {
			out.Sessions = append(out.Sessions, sessionOf(i))
		}
	}
	return nil, out, nil
}

type keywordIn struct {
	Query     string `json:"query" jsonschema:"the words to find; \"quoted words\" as a phrase"`
	SessionID string `json:"session_id,omitempty" jsonschema:"only inside this session"`
	Limit     int    `json:"limit,omitempty" jsonschema:"at most this many hits (default 10)"`
}

// Hit is one matching message.
type Hit struct {
	SessionID string    `json:"session_id"`
	Title     string    `json:"title,omitempty"`
	Role      string    `json:"role"`
	Index     int       `json:"message_index"`
	Time      time.Time `json:"time"`
	Excerpt   string    `json:"excerpt" jsonschema:"the message around the match, the matched words in [brackets]"`
}

type hitsOut struct {
	Hits []Hit `json:"hits"`
}

func (t *tools) keyword(ctx context.Context, _ *mcp.CallToolRequest, in keywordIn) (*mcp.CallToolResult, hitsOut, error) {
	var out hitsOut
	q := search.Query{Text: in.Query, Limit: clampLimit(in.Limit, 10)}
	if in.SessionID != "" {
		i, err := t.resolve(ctx, in.SessionID)
		if err != nil {
			return nil, out, err
		}
		q.Session = i.Key()
	}
	ix, err := search.OpenReader(ctx, t.o.IndexPath)
	if err != nil {
		return nil, out, err
	}
	defer ix.Close()
	hits, err := ix.Search(ctx, q)
	if errors.Is(err, search.ErrEmptyQuery) {
		return nil, out, errors.New("query has no word to search for")
	}
	if err != nil {
		return nil, out, err
	}
	for _, h := range hits {
		out.Hits = append(out.Hits, Hit{SessionID: h.Key.String(), Title: h.Title, Role: h.Role, Index: h.Seq, Time: h.At.UTC(), Excerpt: h.Marked()})
	}
	return nil, out, nil
}

type taskIn struct {
	Category string `json:"category" jsonschema:"subagent, github, gateway, background, untitled, recent or all"`
	Limit    int    `json:"limit,omitempty" jsonschema:"at most this many (default 20)"`
}

func (t *tools) task(ctx context.Context, _ *mcp.CallToolRequest, in taskIn) (*mcp.CallToolResult, sessionsOut, error) {
	var out sessionsOut
	cat := in.Category
	if cat == "gateway" { // the skill's name for sessions paddock hosts
		cat = "hosted"
	}
	var entries []board.Entry
	for _, i := range t.all(ctx) {
		entries = append(entries, board.Entry{Info: i})
	}
	if cat == "hosted" {
		return nil, out, errors.New("which sessions paddock hosts only paddock serve knows: ask it (GET /api/v1/search?category=hosted)")
	}
	kept, err := board.InCategory(entries, cat, t.o.Now())
	if err != nil {
		return nil, out, err
	}
	out.Total = len(kept)
	for _, e := range kept[:min(len(kept), clampLimit(in.Limit, 20))] {
		out.Sessions = append(out.Sessions, sessionOf(e.Info))
	}
	return nil, out, nil
}

type historyIn struct {
	SessionID string `json:"session_id" jsonschema:"the session to read"`
	Limit     int    `json:"limit,omitempty" jsonschema:"its newest messages, at most this many (default 30)"`
}

// Message is one message of a conversation.
type Message struct {
	Index int       `json:"index"`
	Role  string    `json:"role"`
	Text  string    `json:"text"`
	Time  time.Time `json:"time,omitzero"`
}

type historyOut struct {
	Session  Session   `json:"session"`
	Messages []Message `json:"messages"`
	Total    int       `json:"total"`
}

func (t *tools) history(ctx context.Context, _ *mcp.CallToolRequest, in historyIn) (*mcp.CallToolResult, historyOut, error) {
	var out historyOut
	i, err := t.resolve(ctx, in.SessionID)
	if err != nil {
		return nil, out, err
	}
	msgs, err := t.o.Catalog.Messages(ctx, i.Key())
	if err != nil {
		return nil, out, err
	}
	out.Session, out.Total = sessionOf(i), len(msgs)
	from := max(0, len(msgs)-clampLimit(in.Limit, 30))
	for n, m := range msgs[from:] {
		out.Messages = append(out.Messages, Message{Index: from + n, Role: m.Role, Text: m.Text, Time: m.Time.UTC()})
	}
	return nil, out, nil
}

type statusIn struct {
	SessionID string `json:"session_id" jsonschema:"the session"`
}

func (t *tools) status(ctx context.Context, _ *mcp.CallToolRequest, in statusIn) (*mcp.CallToolResult, Session, error) {
	i, err := t.resolve(ctx, in.SessionID)
	if err != nil {
		return nil, Session{}, err
	}
	return nil, sessionOf(i), nil
}

type exportIn struct {
	SessionID           string `json:"session_id" jsonschema:"the session to export"`
	OutputPath          string `json:"output_path" jsonschema:"the file to write; a relative path lands in the workspace"`
	ExportFormat        string `json:"export_format,omitempty" jsonschema:"markdown (default), json, jsonl or text"`
	IncludeToolMessages bool   `json:"include_tool_messages,omitempty" jsonschema:"also thinking, tool calls and results"`
	Overwrite           bool   `json:"overwrite,omitempty" jsonschema:"replace the file when it exists"`
}

type exportOut struct {
	Path     string `json:"path"`
	Messages int    `json:"messages"`
	Format   string `json:"format"`
}

func (t *tools) export(ctx context.Context, _ *mcp.CallToolRequest, in exportIn) (*mcp.CallToolResult, exportOut, error) {
	var out exportOut
	f, err := export.ParseFormat(in.ExportFormat)
	if err != nil {
		return nil, out, err
	}
	if strings.TrimSpace(in.OutputPath) == "" {
		return nil, out, errors.New("output_path is needed: the file to write")
	}
	i, err := t.resolve(ctx, in.SessionID)
	if err != nil {
		return nil, out, err
	}
	path := in.OutputPath
	if !filepath.IsAbs(path) {
		path = filepath.Join(t.o.Workspace, path)
	}
	path = filepath.Clean(path)
	if dir, bad := export.Forbidden(path, t.o.Forbidden); bad {
		return nil, out, fmt.Errorf("%s is inside %s, which paddock never writes: choose another place", path, dir)
	}
	if _, err := os.Lstat(path); err == nil && !in.Overwrite {
		return nil, out, fmt.Errorf("%s exists; set overwrite to replace it", path)
	}
	// Read as it is written, never held whole.
	record := func(fn func(session.Event) error) error { return t.o.Catalog.EachEvent(ctx, i.Key(), fn) }
	meta := export.Session{Runtime: i.Runtime, ID: i.ID, Title: i.Title, Cwd: i.Cwd, Model: i.Model, Created: i.Created, Updated: i.Updated}
	n, err := export.WriteFile(path, f, meta, record, in.IncludeToolMessages)
	if err != nil {
		return nil, out, err
	}
	return nil, exportOut{Path: path, Messages: n, Format: string(f)}, nil
}

type createIn struct {
	Workspace string `json:"workspace" jsonschema:"the project directory the agent works in"`
	AIID      string `json:"ai_id,omitempty" jsonschema:"the agent, by the name sessions_list shows (default: the first agent paddock knows)"`
	Prompt    string `json:"prompt,omitempty" jsonschema:"its first prompt"`
}

type createOut struct {
	SessionID string `json:"session_id"`
}

func (t *tools) create(ctx context.Context, _ *mcp.CallToolRequest, in createIn) (*mcp.CallToolResult, createOut, error) {
	var out createOut
	if t.o.API == nil {
		return nil, out, ErrNoServe
	}
	rt := in.AIID
	if rt == "" {
		rt = t.o.DefaultAgent
	}
	var res struct {
		ID      string `json:"id"`
		Runtime string `json:"runtime"`
	}
	if err := t.o.API.Post(ctx, "/api/v1/sessions", map[string]any{"runtime": rt, "workdir": in.Workspace, "prompt": in.Prompt}, &res); err != nil {
		return nil, out, err
	}
	return nil, createOut{SessionID: rt + ":" + res.ID}, nil
}

type handoffIn struct {
	TargetSessionID string `json:"target_session_id" jsonschema:"the running session that takes the work over (runtime:id); or an agent's name alone to start a new session of it, in the source's directory, with the hand-off as its first prompt"`
	SourceSessionID string `json:"source_session_id,omitempty" jsonschema:"the session whose work it is (else found by query, then category)"`
	Query           string `json:"query,omitempty" jsonschema:"find the source by these words, and keep only the messages naming them"`
	Category        string `json:"category,omitempty" jsonschema:"find the source as the newest of this kind"`
	Context         string `json:"context,omitempty" jsonschema:"the context as written (the source's history is then not read)"`
	Task            string `json:"task" jsonschema:"what the target should do"`
	HistoryLimit    int    `json:"history_limit,omitempty" jsonschema:"how many of the source's newest messages to read (default 20)"`
	Wait            bool   `json:"wait,omitempty" jsonschema:"wait for the target's first reply"`
	TimeoutSeconds  int    `json:"timeout_seconds,omitempty" jsonschema:"how long to wait (default and at most 600)"`
}

type handoffOut struct {
	Source    string `json:"source_session_id"`
	Target    string `json:"target_session_id"`
	Delivered bool   `json:"delivered"`
	ReplyText string `json:"reply_text,omitempty"`
}

func (t *tools) handoff(ctx context.Context, _ *mcp.CallToolRequest, in handoffIn) (*mcp.CallToolResult, handoffOut, error) {
	var out handoffOut
	if t.o.Self != "" && in.TargetSessionID == t.o.Self {
		return nil, out, errors.New("the target is this session itself: hand off to another one")
	}
	if t.o.API == nil {
		return nil, out, ErrNoServe
	}
	var res struct {
		Source, Target string
		Delivered      bool
		Reply          string
	}
	source := in.SourceSessionID
	if source == "" && in.Query == "" && in.Category == "" {
		source = t.o.Self // the skill's last resort: the calling session
	}
	body := map[string]any{"source": source, "query": in.Query,
		"category": in.Category, "context": in.Context, "task": in.Task, "history_limit": in.HistoryLimit, "wait": in.Wait,
		"timeout_seconds": in.TimeoutSeconds}
	target := strings.TrimSpace(in.TargetSessionID)
	switch {
	case slices.Contains(t.o.Agents, target):
		body["start"] = map[string]any{"runtime": target}
	case target != "" && !strings.Contains(target, ":"):
		i, err := t.resolve(ctx, target) // a bare id
		if err != nil {
			return nil, out, err
		}
		body["target"] = i.Key().String()
	default:
		body["target"] = target
	}
	err := t.o.API.Post(ctx, "/api/v1/handoff", body, &res)
	if err != nil {
		return nil, out, err
	}
	return nil, handoffOut{Source: res.Source, Target: res.Target, Delivered: res.Delivered, ReplyText: res.Reply}, nil
}
