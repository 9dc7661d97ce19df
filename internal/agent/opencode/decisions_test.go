package opencode

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/decisions"
	"paddock/internal/decisions/hold"
	"paddock/internal/hookstate"
)

// fakeOpenCode is the TUI's HTTP server as 1.18.33 answers it: it lists
// the pending request and records the replies.
type fakeOpenCode struct {
	mu      sync.Mutex
	pending []string
	replies []string // "path body"
	gets    int
}

func (f *fakeOpenCode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && (r.URL.Path == "/permission" || r.URL.Path == "/question"):
		f.gets++
		var list []map[string]string
		for _, id := range f.pending {
			list = append(list, map[string]string{"id": id})
		}
		_ = json.NewEncoder(w).Encode(list)
	case r.Method == http.MethodPost:
		b, _ := io.ReadAll(r.Body)
		f.replies = append(f.replies, r.URL.Path+" "+string(b))
		io.WriteString(w, "true")
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeOpenCode) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.replies...)
}

// openCodeEvent is the recorded plugin event with its server URL replaced.
func openCodeEvent(t *testing.T, name, serverURL string) (hookstate.Event, []byte, string) {
	t.Helper()
	for _, p := range recorded(t, "opencode-1.18.33", name) {
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			t.Fatal(err)
		}
		m["server_url"] = serverURL
		b, _ := json.Marshal(m)
		ev, err := decode("opencode", name, b)
		if err != nil {
			t.Fatal(err)
		}
		props := m["event"].(map[string]any)["properties"].(map[string]any)
		id, _ := props["id"].(string)
		if id == "" {
			id, _ = props["requestID"].(string)
		}
		return ev, b, id
	}
	t.Fatalf("no %s recorded", name)
	return hookstate.Event{}, nil, ""
}

func TestOpenCodeAnswersThroughItsServer(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    decisions.Decision
		want string
	}{
		{"allow once", decisions.Decision{Verb: decisions.VerbAllow, By: "device:1"}, `{"reply":"once"}`},
		{"always", decisions.Decision{Verb: decisions.VerbAlways, By: "device:1"}, `{"reply":"always"}`},
		{"reject with a message", decisions.Decision{Verb: decisions.VerbDeny, Message: "no", By: "device:1"}, `{"message":"no","reply":"reject"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oc := &fakeOpenCode{}
			srv := httptest.NewServer(oc)
			defer srv.Close()
			ev, payload, id := openCodeEvent(t, "permission.asked", srv.URL+"/")
			oc.pending = []string{id}
			b := decisions.New(decisions.Options{})
			s := newService(b)
			go s.Run(t.Context())
			if _, _, held := s.Hold(t.Context(), ev, payload); held {
				t.Fatal("an OpenCode event held its relay")
			}
			var it decisions.Item
			for range 500 {
				if its := b.List(decisions.Filter{PendingOnly: true}); len(its) == 1 {
					it = its[0]
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if it.ToolUseID != id || it.Tool != "bash" || !strings.Contains(string(it.Input), "hello-from-mock-1") {
				t.Fatalf("item %+v", it)
			}
			if _, err := b.Decide(t.Context(), it.ID, tc.d); err != nil {
				t.Fatal(err)
			}
			want := "/permission/" + id + "/reply " + tc.want
			for range 500 {
				if got := oc.got(); len(got) == 1 {
					if got[0] != want {
						t.Fatalf("reply %q, want %q", got[0], want)
					}
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Fatalf("no reply reached OpenCode: %v", oc.got())
		})
	}
}

func TestOpenCodeDeskAndUnlistedRequests(t *testing.T) {
	oc := &fakeOpenCode{}
	srv := httptest.NewServer(oc)
	defer srv.Close()
	b := decisions.New(decisions.Options{})
	s := newService(b)
	go s.Run(t.Context())

	// A request its server does not list is never offered.
	ev, payload, _ := openCodeEvent(t, "permission.asked", srv.URL+"/")
	s.Hold(t.Context(), ev, payload)
	for range 500 {
		oc.mu.Lock()
		asked := oc.gets > 0
		oc.mu.Unlock()
		if asked {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The check is done once the server was asked; the item would be
	// opened right after it: give the broker's list a last look.
	time.Sleep(50 * time.Millisecond)
	if its := b.List(decisions.Filter{}); len(its) != 0 {
		t.Fatalf("an unlisted request was offered: %+v", its)
	}
	// Listed, then answered in the TUI: released as answered at the desk.
	ev, payload, id := openCodeEvent(t, "permission.asked", srv.URL+"/")
	oc.mu.Lock()
	oc.pending = []string{id}
	oc.mu.Unlock()
	s.Hold(t.Context(), ev, payload)
	for range 500 {
		if len(b.List(decisions.Filter{PendingOnly: true})) == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	rev, rpayload, _ := openCodeEvent(t, "permission.replied", srv.URL+"/")
	s.Hold(t.Context(), rev, rpayload)
	its := b.List(decisions.Filter{})
	if len(its) != 1 || its[0].Resolution != decisions.Desk {
		t.Fatalf("after the TUI's reply: %+v", its)
	}
	if got := oc.got(); len(got) != 0 {
		t.Fatalf("paddock answered a request answered at the desk: %v", got)
	}
}

func TestOpenCodeServerMustBeLoopback(t *testing.T) {
	for _, u := range []string{"http://192.0.2.1:4096/", "https://127.0.0.1:4096/", "http://user:pw@127.0.0.1:1/", "http://example.com/", "file:///etc/passwd", ""} {
		if _, err := loopbackURL(u); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
	for _, u := range []string{"http://127.0.0.1:42247/", "http://localhost:1", "http://[::1]:5/"} {
		if _, err := loopbackURL(u); err != nil {
			t.Errorf("%q refused: %v", u, err)
		}
	}
}

// TestOpenCodeMultiSelectReply: a multi-select answer goes back split into
// the labels it was validated as, even where a greedy split would name a
// label the question does not offer; free text goes back whole.
func TestOpenCodeMultiSelectReply(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels []string
		custom bool
		answer string
		want   string
	}{
		{"only the shorter label first fits", []string{"A", "A, B", "B, C"}, false, "A, B, C", `{"answers":[["A","B, C"]]}`},
		{"a label holding the separator", []string{"Red", "Blue", "Red, dark"}, false, "Red, dark, Blue", `{"answers":[["Red, dark","Blue"]]}`},
		{"the longest label where both fit", []string{"A", "B", "A, B"}, false, "A, B", `{"answers":[["A, B"]]}`},
		{"plain labels", []string{"Red", "Blue"}, false, "Blue, Red", `{"answers":[["Blue","Red"]]}`},
		{"free text naming a label", []string{"Red", "Blue"}, true, "Red, teal", `{"answers":[["Red, teal"]]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oc := &fakeOpenCode{}
			srv := httptest.NewServer(oc)
			defer srv.Close()
			ev, payload, id := openCodeEvent(t, "question.asked", srv.URL+"/")
			oc.pending = []string{id}
			var m map[string]any
			if err := json.Unmarshal(payload, &m); err != nil {
				t.Fatal(err)
			}
			var opts []map[string]string
			for _, l := range tc.labels {
				opts = append(opts, map[string]string{"label": l, "description": "d"})
			}
			const question = "Which ones?"
			m["event"].(map[string]any)["properties"].(map[string]any)["questions"] = []map[string]any{
				{"question": question, "header": "Pick", "multiple": true, "custom": tc.custom, "options": opts},
			}
			payload, _ = json.Marshal(m)
			b := decisions.New(decisions.Options{})
			s := newService(b)
			go s.Run(t.Context())
			s.Hold(t.Context(), ev, payload)
			var it decisions.Item
			for range 500 {
				if its := b.List(decisions.Filter{PendingOnly: true}); len(its) == 1 {
					it = its[0]
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if len(it.Questions) != 1 || !it.Questions[0].MultiSelect || it.FreeText != tc.custom {
				t.Fatalf("item %+v", it)
			}
			d := decisions.Decision{Verb: decisions.VerbAnswer, Answers: map[string]string{question: tc.answer}, By: "device:1"}
			if _, err := b.Decide(t.Context(), it.ID, d); err != nil {
				t.Fatal(err)
			}
			want := "/question/" + id + "/reply " + tc.want
			for range 500 {
				if got := oc.got(); len(got) == 1 {
					if got[0] != want {
						t.Fatalf("reply %q, want %q", got[0], want)
					}
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Fatal("no reply")
		})
	}
}

// TestOpenCodeQuestionThroughItsServer: the recorded question.asked is
// offered with its options, and the answer goes to POST
// /question/{id}/reply as {"answers":[[label]]}; a skipped question to
// /question/{id}/reject.
func TestOpenCodeQuestionThroughItsServer(t *testing.T) {
	for _, tc := range []struct {
		d    decisions.Decision
		path string
		body string
	}{
		{decisions.Decision{Verb: decisions.VerbAnswer, Answers: map[string]string{"Which color do you prefer?": "Blue"}, By: "device:1"}, "/reply", `{"answers":[["Blue"]]}`},
		{decisions.Decision{Verb: decisions.VerbDeny, By: "device:1"}, "/reject", `{}`},
	} {
		oc := &fakeOpenCode{}
		srv := httptest.NewServer(oc)
		ev, payload, id := openCodeEvent(t, "question.asked", srv.URL+"/")
		oc.pending = []string{id}
		b := decisions.New(decisions.Options{})
		s := newService(b)
		go s.Run(t.Context())
		s.Hold(t.Context(), ev, payload)
		var it decisions.Item
		for range 500 {
			if its := b.List(decisions.Filter{PendingOnly: true}); len(its) == 1 {
				it = its[0]
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if it.Kind != decisions.KindQuestion || len(it.Questions) != 1 || len(it.Questions[0].Options) != 2 {
			srv.Close()
			t.Fatalf("item %+v", it)
		}
		if _, err := b.Decide(t.Context(), it.ID, tc.d); err != nil {
			t.Fatal(err)
		}
		want := "/question/" + id + tc.path + " " + tc.body
		ok := false
		for range 500 {
			if got := oc.got(); len(got) == 1 {
				if got[0] != want {
					t.Fatalf("reply %q, want %q", got[0], want)
				}
				ok = true
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		srv.Close()
		if !ok {
			t.Fatalf("no reply for %s", tc.d.Verb)
		}
	}
}

// newService is the decision holder with OpenCode's policy, as serve
// builds it.
func newService(b hold.Broker) *hold.Service {
	return hold.New(hold.Options{Broker: b, Policies: map[string]hold.Policy{runtimeName: policy()}})
}

// decode reads a payload with OpenCode's decoder.
var decode = hookstate.Decoders{runtimeName: decodeOpenCode}.Decode

// recorded returns the payloads of one event from a recording of the real
// CLI (testdata/<cli>/hooks.jsonl, written by the proving ground).
func recorded(t *testing.T, cli, event string) [][]byte {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "testdata", cli, "hooks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var line struct {
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Event == event {
			out = append(out, line.Payload)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s in the %s recording", event, cli)
	}
	return out
}
