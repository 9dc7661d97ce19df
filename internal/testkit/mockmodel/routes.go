package mockmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// routes lists every endpoint. Each is served with and without the /v1
// prefix because base URLs differ per CLI (Claude appends /v1 itself, the
// OpenAI clients are given a base URL that already ends in /v1).
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	for _, p := range []string{"/v1", ""} {
		mux.HandleFunc(p+"/messages", s.only(http.MethodPost, s.anthropicMessages))
		mux.HandleFunc(p+"/messages/count_tokens", s.only(http.MethodPost, s.anthropicCountTokens))
		mux.HandleFunc(p+"/responses", s.only(http.MethodPost, s.openaiResponses))
		mux.HandleFunc(p+"/chat/completions", s.only(http.MethodPost, s.openaiChat))
		mux.HandleFunc(p+"/models", s.only(http.MethodGet, s.models))
	}
	mux.HandleFunc("/", s.notFound)
	return mux
}

// only answers other methods with the API's own error shape (the mux's
// method patterns would answer a plain-text 405 instead).
func (s *Server) only(method string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == method {
			h(w, r)
			return
		}
		c, _ := s.begin(r, APINotFound)
		s.finish(c, http.StatusMethodNotAllowed, nil)
		w.Header().Set("Allow", method)
		msg := fmt.Sprintf("mock: %s %s is not supported; use %s", r.Method, r.URL.Path, method)
		if isAnthropic(r) {
			anthropicError(w, http.StatusMethodNotAllowed, "invalid_request_error", msg)
			return
		}
		openaiError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", msg)
	}
}

// call is one request on its way through a handler.
type call struct {
	req  Request
	body []byte
}

// begin reads the body and fills the log entry; it does not record it yet.
func (s *Server) begin(r *http.Request, api string) (*call, error) {
	c := &call{req: Request{
		Seq:    s.nextSeq(),
		Time:   time.Now(),
		Method: r.Method,
		Path:   r.URL.Path,
		Query:  r.URL.RawQuery,
		Header: loggedHeaders(r.Header),
		API:    api,
	}}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return c, fmt.Errorf("reading body: %w", err)
	}
	if len(body) > maxBody {
		return c, fmt.Errorf("body larger than %d bytes", maxBody)
	}
	c.body = body
	switch {
	case len(bytes.TrimSpace(body)) == 0:
	case json.Valid(body):
		var buf bytes.Buffer
		if json.Compact(&buf, body) == nil {
			c.req.Body = buf.Bytes()
		}
	default:
		c.req.Body, _ = json.Marshal(string(body))
	}
	return c, nil
}

// finish records the request with its status and reply.
func (s *Server) finish(c *call, status int, reply *Reply) {
	c.req.Status = status
	c.req.Reply = reply
	s.record(c.req)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client going away is not our error
}

// sse writes server-sent events, flushing each so the CLI renders the reply
// as it streams.
type sse struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func startSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w, rc: http.NewResponseController(w)}
}

// event writes one event; name "" omits the event: line (Chat Completions
// chunks have none).
func (e *sse) event(name string, data any) {
	var b []byte
	switch d := data.(type) {
	case string:
		b = []byte(d)
	default:
		b, _ = json.Marshal(d)
	}
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	_ = e.rc.Flush()
}

// chunks splits a reply into a few deltas so clients exercise their
// concatenation; joining them gives back text exactly.
func chunks(text string) []string {
	words := strings.SplitAfter(text, " ")
	var out []string
	for i := 0; i < len(words); i += 2 {
		end := min(i+2, len(words))
		out = append(out, strings.Join(words[i:end], ""))
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

// hold delays a SLOW reply; it reports false when the client left or the
// server is closing, in which case nothing more should be written.
func (s *Server) hold(r *http.Request, reply Reply) bool {
	if !reply.Slow {
		return true
	}
	t := time.NewTimer(s.opts.SlowDelay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}

// estimateTokens is a rough count (4 bytes a token) for count_tokens.
func estimateTokens(body []byte) int { return len(body)/4 + 1 }

// models answers GET /v1/models with a list both SDK families parse: OpenAI's
// {"object":"list","data":[{"id","object":"model",…}]} and Anthropic's
// {"data":[{"type":"model","id","display_name",…}],"has_more":false}.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	c, _ := s.begin(r, APIModels)
	s.finish(c, http.StatusOK, nil)
	m := map[string]any{
		"id": MockModel, "object": "model", "type": "model", "display_name": "Mock Model",
		"created": 1767225600, "created_at": "2026-01-01T00:00:00Z", "owned_by": "paddock-mock",
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list", "data": []any{m}, "has_more": false, "first_id": MockModel, "last_id": MockModel,
	})
}

// MockModel is the model id listed by /v1/models; any model name is accepted.
const MockModel = "mock-model"

// notFound answers unknown paths in the shape of the API the client speaks.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	c, _ := s.begin(r, APINotFound)
	s.finish(c, http.StatusNotFound, nil)
	msg := fmt.Sprintf("mock: no route for %s %s", r.Method, r.URL.Path)
	if isAnthropic(r) {
		anthropicError(w, http.StatusNotFound, "not_found_error", msg)
		return
	}
	openaiError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", msg)
}

func isAnthropic(r *http.Request) bool {
	return r.Header.Get("anthropic-version") != "" || strings.Contains(r.URL.Path, "/messages")
}
