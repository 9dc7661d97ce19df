// Package mockmodel is a scripted stand-in for the model APIs that the real
// coding-agent CLIs call: the Anthropic Messages API (Claude Code), the OpenAI
// Responses API (Codex) and the OpenAI Chat Completions API (OpenCode, Pi,
// Kimi, Qwen). It lets the proving ground and `make demo` run the real,
// unmodified CLIs without any account or network.
//
// Endpoints (each also without the /v1 prefix): POST /v1/messages (SSE when
// "stream":true, else JSON), POST /v1/messages/count_tokens, POST
// /v1/responses, POST /v1/chat/completions, GET /v1/models. Malformed
// requests get the API's own error shape and status.
//
// Replies are deterministic and depend only on the request. With "prompt"
// the last text the user typed (texts starting with "<", which the CLIs
// inject as <system-reminder> and the like, are skipped) and "turn" the
// number of typed prompts in the conversation:
//
//	last item is a tool result          → "Mock reply: tool finished."
//	a CLI's title side call             → "Mock title: <prompt>" (≤ 36 chars; {"title":…} for Codex)
//	prompt has the word ERROR           → 400, the API's invalid_request_error
//	prompt has RUN, a shell tool offered → "I'll run a command." + one call running
//	                                      "echo hello-from-mock-<turn> >> mock_out.txt && cat mock_out.txt"
//	                                      (Bash, exec_command escalated, bash, shell_command, shell, run_shell_command)
//	prompt has ASK, a question tool     → "I'll ask you a question." + AskUserQuestion / request_user_input /
//	                                      question asking "Which color do you prefer?" (Red: warm, Blue: cool)
//	prompt has EDIT, a write tool       → "I'll write a file." + one Write / write call writing
//	                                      "edited-by-mock-<turn>\n…" to the prompt's first absolute
//	                                      path, else mock_edit.txt (Codex offers none: plain reply)
//	prompt has VIEW and a path, an      → "I'll look at the image." + one call reading that path
//	image-reading tool                    (ReadMediaFile, view_image, Read, read)
//	prompt has SLOW                     → "Mock reply: done (turn <turn>)." after Options.SlowDelay
//	anything else (or no tool offered)  → "Mock reply: done (turn <turn>)."
//
// Tool-call arguments are fitted to the JSON Schema the request offers for
// that tool (schema.go): the CLIs validate calls against it at every level,
// and one tool name can have different schemas (Claude's AskUserQuestion
// takes multiSelect, Kimi's multi_select).
//
// PlainReply, RunCommand, TitleReply and the constants in script.go give the
// exact texts to assert on. Every request is logged (Requests, WaitFor).
//
// It binds 127.0.0.1 only and must never forward anything to a real model.
package mockmodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Port to listen on (127.0.0.1 only); 0 picks a free port.
	Port int
	// Logger receives one debug line per request; nil discards.
	Logger *slog.Logger
	// Log, when set, receives every Request as one JSON line (the JSONL
	// request log kept beside recordings). Writes are serialized.
	Log io.Writer
	// SlowDelay is how long a reply to a prompt containing SLOW is held
	// back before it streams, so tests can observe a busy agent and
	// interrupt it. Default 30s; the wait ends early when the client goes
	// away or the server closes.
	SlowDelay time.Duration
}

// Request is one logged HTTP request and what the mock decided to answer.
type Request struct {
	Seq    int         `json:"seq"`
	Time   time.Time   `json:"time"`
	Method string      `json:"method"`
	Path   string      `json:"path"`
	Query  string      `json:"query,omitempty"`
	Header http.Header `json:"headers,omitempty"`
	// Body is the request body when it is JSON, else a JSON string of it.
	Body json.RawMessage `json:"body,omitempty"`
	// API names the endpoint family: see the API* constants.
	API    string `json:"api,omitempty"`
	Status int    `json:"status"`
	Reply  *Reply `json:"reply,omitempty"`
}

// Endpoint families recorded in Request.API.
const (
	APIAnthropicMessages    = "anthropic.messages"
	APIAnthropicCountTokens = "anthropic.count_tokens"
	APIOpenAIResponses      = "openai.responses"
	APIOpenAIChat           = "openai.chat"
	APIModels               = "models"
	APINotFound             = "not_found"
)

// Server is a running (or mountable) mock model.
type Server struct {
	opts Options
	log  *slog.Logger
	mux  *http.ServeMux

	// done is closed by Close: it ends SLOW waits so shutdown never hangs
	// on a held-back reply.
	done      chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	reqs     []Request
	changed  chan struct{} // closed and replaced on every append (broadcast)
	seq      int           // request counter, also used to mint unique ids
	logErr   error         // first error writing opts.Log
	listener net.Listener
	httpSrv  *http.Server
	serveErr chan error
}

// New returns a Server that is not listening: mount Handler() anywhere
// (make demo does). Close still ends pending SLOW replies.
func New(opts Options) *Server {
	if opts.SlowDelay <= 0 {
		opts.SlowDelay = 30 * time.Second
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opts:    opts,
		log:     logger.With("component", "mockmodel"),
		done:    make(chan struct{}),
		changed: make(chan struct{}),
	}
	s.mux = s.routes()
	return s
}

// Start listens on 127.0.0.1:opts.Port and serves until ctx ends or Close.
func Start(ctx context.Context, opts Options) (*Server, error) {
	s := New(opts)
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port)))
	if err != nil {
		return nil, fmt.Errorf("mockmodel: listen: %w", err)
	}
	s.listener = ln
	s.httpSrv = &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: 10 * time.Second,
		// Handlers must not see ctx's cancellation as a client hang-up
		// mid-stream; shutdown goes through Close, which ends held replies
		// and drains the rest.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	s.serveErr = make(chan error, 1)
	go func() { s.serveErr <- s.httpSrv.Serve(ln) }()
	// The server's lifetime is tied to ctx as well as to Close; this
	// goroutine exits on whichever comes first.
	go func() {
		select {
		case <-ctx.Done():
			s.Close()
		case <-s.done:
		}
	}()
	s.log.Info("mock model listening", "url", s.URL())
	return s, nil
}

// URL is the base URL, e.g. "http://127.0.0.1:41234" (no /v1); "" when the
// server was made with New.
func (s *Server) URL() string {
	if s.listener == nil {
		return ""
	}
	return "http://" + s.listener.Addr().String()
}

// Handler serves every mock endpoint; see routes for the list.
func (s *Server) Handler() http.Handler { return s.mux }

// Close stops the listener (if any) and ends pending SLOW replies. It is
// safe to call more than once and returns the first error writing the
// request log, if any.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.done)
		if s.httpSrv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := s.httpSrv.Shutdown(ctx); err != nil {
				s.httpSrv.Close()
			}
			if err := <-s.serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.log.Warn("mock model serve", "err", err)
			}
		}
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logErr
}

// Requests returns a copy of every request logged so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// WaitFor blocks until cond holds for the logged requests, and returns them;
// on ctx's end it returns the requests seen so far with ctx's error.
func (s *Server) WaitFor(ctx context.Context, cond func([]Request) bool) ([]Request, error) {
	for {
		s.mu.Lock()
		reqs := append([]Request(nil), s.reqs...)
		changed := s.changed
		s.mu.Unlock()
		if cond(reqs) {
			return reqs, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return reqs, fmt.Errorf("mockmodel: waiting for requests (have %d): %w", len(reqs), ctx.Err())
		}
	}
}

// WaitRequests blocks until at least n requests were logged.
func (s *Server) WaitRequests(ctx context.Context, n int) ([]Request, error) {
	return s.WaitFor(ctx, func(r []Request) bool { return len(r) >= n })
}

// Replies returns the replies the mock gave to model calls (not to
// /v1/models or count_tokens), in order: handy for "did the CLI get both
// turns" assertions.
func Replies(reqs []Request) []Reply {
	var out []Reply
	for _, r := range reqs {
		if r.Reply != nil {
			out = append(out, *r.Reply)
		}
	}
	return out
}

// nextSeq reserves a request number; ids minted from it stay unique for the
// server's life, which the CLIs need for tool-call ids across turns.
func (s *Server) nextSeq() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

// record appends a request to the log, writes it to opts.Log and wakes
// waiters. It is called once the reply is decided, before it is streamed, so
// a waiter sees a SLOW request while its reply is still held back.
func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	close(s.changed)
	s.changed = make(chan struct{})
	if s.opts.Log != nil && s.logErr == nil {
		line, err := json.Marshal(r)
		if err == nil {
			_, err = s.opts.Log.Write(append(line, '\n'))
		}
		s.logErr = err
	}
	attrs := []any{"seq", r.Seq, "method", r.Method, "path", r.Path, "status", r.Status}
	if r.Reply != nil {
		attrs = append(attrs, "reply", r.Reply.Kind, "tool", r.Reply.Tool, "turn", r.Reply.Turn)
	}
	s.log.Debug("mock model request", attrs...)
}

// loggedHeaders is the subset of request headers kept in the log: secrets
// are dropped (only their presence is noted), the rest helps tell the CLIs'
// main, title and side requests apart.
func loggedHeaders(h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		switch strings.ToLower(k) {
		case "authorization", "x-api-key", "cookie", "proxy-authorization":
			out[k] = []string{"[redacted]"}
		case "content-length", "connection", "accept-encoding":
		default:
			out[k] = v
		}
	}
	return out
}

// maxBody bounds a request body; the largest seen (Kimi with 25 tools) is
// under 100 KB, Claude's a few hundred KB.
const maxBody = 32 << 20
