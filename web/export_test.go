package web

import (
	"io"
	"net/http/httptest"

	"github.com/labstack/echo/v5"

	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestExport: a session's page offers the export; GET …/export answers
// the file in each format, named after the session, with its message
// count; a bad format is refused.
func TestExport(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	h := r.srv.Handler()
	base := "/s/claude/" + sessionA
	if w := r.do(h, http.MethodGet, base, withCookie(tok)); !strings.Contains(w.Body.String(), `action="`+base+`/export"`) {
		t.Fatal("the session page offers no export")
	}
	w := r.do(h, http.MethodGet, base+"/export", withCookie(tok))
	want := "### User\n\nfirst question about the build\n\n### Assistant\n\n**Bold** answer with `code`\n\n### User\n\n<script>alert(1)</script> second prompt\n\n### Assistant\n\nsecond answer\n"
	if w.Code != http.StatusOK || w.Body.String() != want || w.Header().Get("X-Paddock-Messages") != "4" ||
		!strings.HasPrefix(w.Header().Get("Content-Type"), "text/markdown") ||
		!strings.HasPrefix(w.Header().Get("Content-Disposition"), `attachment; filename=`) {
		t.Errorf("markdown: %d %v\n%q", w.Code, w.Header(), w.Body.String())
	}
	w = r.do(h, http.MethodGet, "/api/v1/sessions/claude/"+sessionA+"/export?format=json&tools=1", withCookie(tok))
	var doc struct {
		Session struct{ Runtime, ID string }
		Events  []struct{ Kind, Role, Text string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || w.Code != http.StatusOK || doc.Session.ID != sessionA || len(doc.Events) != 4 || doc.Events[0].Kind != "message" {
		t.Errorf("json with tools: %d %v %s", w.Code, err, w.Body)
	}
	for _, f := range []string{"jsonl", "text"} {
		if w := r.do(h, http.MethodGet, base+"/export?format="+f, withCookie(tok)); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "second answer") {
			t.Errorf("%s: %d %q", f, w.Code, w.Body)
		}
	}
	w = r.do(h, http.MethodGet, "/api/v1/sessions/claude/"+sessionA+"/export?format=pdf", withCookie(tok))
	if w.Code != http.StatusBadRequest || decodeError(t, w.Body.Bytes()) != "bad_format" {
		t.Errorf("pdf: %d %s", w.Code, w.Body)
	}
	if w := r.do(h, http.MethodGet, base+"/export"); w.Code == http.StatusOK {
		t.Error("an export without a device session")
	}
}

// TestRecoverPanics: a handler's panic is the generic 500, logged; a
// response cut short on purpose (http.ErrAbortHandler, as an export that
// fails midway) drops the connection, so no client takes it as whole.
func TestRecoverPanics(t *testing.T) {
	r := newRig(t)
	e := echo.New()
	e.Use(r.srv.recoverPanics)
	e.GET("/boom", func(c *echo.Context) error { panic("boom") })
	e.GET("/cut", func(c *echo.Context) error {
		c.Response().WriteHeader(http.StatusOK)
		c.Response().Write([]byte("half a fi"))
		panic(http.ErrAbortHandler)
	})
	srv := httptest.NewServer(e)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/boom")
	if err != nil || resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("a panic: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = http.Get(srv.URL + "/cut")
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Error("a response cut short read as complete")
	}
}
