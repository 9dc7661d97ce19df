package web

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/certs"
	"paddock/internal/agent/claude"
	"paddock/internal/agent/registry"
	"paddock/internal/auth"
	"paddock/internal/board"
	"paddock/internal/catalog"
	"paddock/internal/decisions"
	"paddock/internal/live"
	"paddock/internal/push"
	"paddock/internal/search"
	"paddock/internal/settings"
	"paddock/internal/store"
)

// rig is a real paddock web server over a real store, real certificates and
// a real Claude scanner reading a temp history tree written in Claude Code's
// own format.
type rig struct {
	t         testing.TB
	srv       *Server
	auth      *auth.Service
	cat       *catalog.Catalog
	live      *live.Service
	items     *decisions.Broker
	board     *board.Board
	certs     *certs.Manager
	push      *push.Notifier
	store     *store.Store
	settings  *settings.Service
	index     *search.Index
	claudeDir string
	// stopServer stops the web server's hub alone, as a shutdown does.
	stopServer context.CancelFunc
	now        time.Time
	clock      func() time.Time
}

const (
	testHost    = "127.0.0.1:7443"
	sessionA    = "0b5d4c2e-1111-4a2b-9c3d-aaaaaaaaaaaa"
	sessionB    = "0b5d4c2e-2222-4a2b-9c3d-bbbbbbbbbbbb"
	projectPath = "/work/demo-project"
)

func newRig(t testing.TB) *rig {
	t.Helper()
	return newRigIn(t, t.TempDir())
}

// newRigIn is newRig keeping its data (the store, the certificates, the
// history tree) in dir.
func newRigIn(t testing.TB, dir string) *rig {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := store.Open(ctx, filepath.Join(dir, "paddock.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := &rig{t: t, now: time.Now()}
	r.clock = func() time.Time { return r.now }
	r.auth = auth.New(auth.Options{Store: st, Now: func() time.Time { return r.clock() }})

	r.claudeDir = filepath.Join(dir, "claude")
	writeClaudeSession(t, r.claudeDir, sessionA, "first question about the build", "**Bold** answer with `code`", "<script>alert(1)</script> second prompt", "second answer")

	// projectPath is not a directory here; a default scanner would drop
	// the sessions that ran in it.
	r.cat = catalog.New(catalog.Options{SweepInterval: 200 * time.Millisecond}, claude.New(claude.Options{Dir: r.claudeDir, KeepMissingCwd: true}))
	go r.cat.Run(ctx)
	if err := r.cat.WaitComplete(ctx); err != nil {
		t.Fatal(err)
	}
	r.live = live.New(live.Options{})
	go r.live.Run(ctx)
	r.items = decisions.New(decisions.Options{Persist: st})
	go r.items.Run(ctx)
	r.board = board.New(board.Options{History: r.cat, Live: r.live, Items: r.items})
	go r.board.Run(ctx)
	keys, err := push.LoadKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.push, err = push.New(push.Options{Keys: keys, Store: st, Items: r.items, Cards: r.live, Agents: registry.Default().Names()}); err != nil {
		t.Fatal(err)
	}
	r.store = st
	if r.settings, err = settings.Load(ctx, st, settings.Values{Density: "medium", ProcessCheck: 15 * time.Second}, nil); err != nil {
		t.Fatal(err)
	}
	r.certs, err = certs.Load(certs.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if r.index, err = search.Open(ctx, search.Options{Path: filepath.Join(dir, "search.db"), Source: r.cat}); err != nil {
		t.Fatal(err)
	}
	indexCtx, stopIndex := context.WithCancel(ctx)
	indexDone := make(chan struct{})
	go func() { defer close(indexDone); _ = r.index.Run(indexCtx) }()
	t.Cleanup(func() { stopIndex(); <-indexDone; r.index.Close() })
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	r.srv, err = New(Options{
		Agents:       registry.Default(),
		Board:        r.board,
		Auth:         r.auth,
		CSRFKey:      key,
		CA:           r.certs,
		AllowedHosts: func() []string { return []string{"127.0.0.1", "localhost", "::1", "paddock.test"} },
		HTTPSPort:    7443,
		Approvals:    r.items,
		Push:         r.push,
		Settings:     r.settings,
		Search:       r.index,
		Audit:        st,
		Store:        st,
	})
	if err != nil {
		t.Fatal(err)
	}
	srvCtx, stop := context.WithCancel(ctx)
	r.stopServer = stop
	go r.srv.Run(srvCtx)
	return r
}

// writeClaudeSession writes a transcript the way Claude Code 2.1 does:
// metadata records around user/assistant turns chained by parentUuid.
func writeClaudeSession(t testing.TB, root, id string, turns ...string) string {
	t.Helper()
	dir := filepath.Join(root, "projects", "-work-demo-project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	ts := time.Now().Add(-time.Hour).UTC()
	b.WriteString(`{"type":"permission-mode","permissionMode":"default","sessionId":"` + id + `"}` + "\n")
	parent := "null"
	for i, text := range turns {
		uuid := fmt.Sprintf("%08d-0000-4000-8000-%012d", i, i)
		stamp := ts.Add(time.Duration(i) * time.Minute).Format(time.RFC3339Nano)
		var line map[string]any
		if i%2 == 0 {
			line = map[string]any{"type": "user", "uuid": uuid, "sessionId": id, "cwd": projectPath, "timestamp": stamp,
				"message": map[string]any{"role": "user", "content": text}}
		} else {
			line = map[string]any{"type": "assistant", "uuid": uuid, "sessionId": id, "cwd": projectPath, "timestamp": stamp,
				"message": map[string]any{"id": "msg_" + uuid, "role": "assistant", "model": "claude-test",
					"content": []map[string]any{{"type": "text", "text": text}}}}
		}
		if parent != "null" {
			line["parentUuid"] = parent
		} else {
			line["parentUuid"] = nil
		}
		parent = uuid
		j, _ := json.Marshal(line)
		b.Write(j)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// pair returns a device session token, as a browser would hold it.
func (r *rig) pair() string {
	r.t.Helper()
	ctx := context.Background()
	code, _, err := r.auth.NewPairingCode(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	tok, _, err := r.auth.Pair(ctx, code, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Safari/604.1", "192.0.2.10")
	if err != nil {
		r.t.Fatal(err)
	}
	return tok
}

type reqOpt func(*http.Request)

func withCookie(tok string) reqOpt {
	return func(q *http.Request) { q.AddCookie(&http.Cookie{Name: cookieName, Value: tok}) }
}
func withHeader(k, v string) reqOpt { return func(q *http.Request) { q.Header.Set(k, v) } }
func withHost(h string) reqOpt      { return func(q *http.Request) { q.Host = h } }
func withForm(v url.Values) reqOpt {
	return func(q *http.Request) {
		q.Body = io.NopCloser(strings.NewReader(v.Encode()))
		q.ContentLength = int64(len(v.Encode()))
		q.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
}

// do sends a request as if over TLS to testHost.
func (r *rig) do(h http.Handler, method, target string, opts ...reqOpt) *httptest.ResponseRecorder {
	r.t.Helper()
	q := httptest.NewRequest(method, target, nil)
	q.Host = testHost
	q.TLS = &tls.ConnectionState{}
	q.RemoteAddr = "192.0.2.10:5555"
	for _, o := range opts {
		o(q)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, q)
	return w
}

func (r *rig) csrf(tok string) string { return auth.CSRFToken(tok, r.srv.opts.CSRFKey) }

func decodeError(t *testing.T, body []byte) (code string) {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("not an error JSON: %q (%v)", body, err)
	}
	return e.Error.Code
}
