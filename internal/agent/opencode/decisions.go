package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"paddock/internal/decisions"
	"paddock/internal/decisions/hold"
	"paddock/internal/hookstate"
	"paddock/internal/session"
)

// OpenCode asks through its own bus, not a hook that waits: paddock's
// plugin reports permission.asked and question.asked (with the URL of the
// TUI's HTTP server), and the answer goes back through that server's
// POST /permission/{id}/reply {"reply":"once"|"always"|"reject"} and
// POST /question/{id}/reply {"answers":[[labels…]…]} (1.18.33's OpenAPI).
// When the user answers in the TUI instead, permission.replied or
// question.replied releases the item as answered at the desk.

// openCodeHold bounds an OpenCode item: OpenCode waits for ever, the card
// should not.
const openCodeHold = time.Hour

func policy() hold.Policy { return hold.Policy{Observe: observe} }

// openCodeAsk is the plugin's report of a permission or question request.
type openCodeAsk struct {
	ServerURL string `json:"server_url"`
	Event     struct {
		Type       string `json:"type"`
		Properties struct {
			ID         string   `json:"id"`
			SessionID  string   `json:"sessionID"`
			RequestID  string   `json:"requestID"`
			Permission string   `json:"permission"`
			Patterns   []string `json:"patterns"`
			Always     []string `json:"always"`
			Metadata   map[string]any
			Questions  []struct {
				Question string `json:"question"`
				Header   string `json:"header"`
				Multiple bool   `json:"multiple"`
				Custom   *bool  `json:"custom"`
				Options  []struct {
					Label       string `json:"label"`
					Description string `json:"description"`
				} `json:"options"`
			} `json:"questions"`
		} `json:"properties"`
	} `json:"event"`
}

// observe handles OpenCode's plugin events: asks open items (watched on
// one of the Service's goroutines), replies at the desk release them.
func observe(ctx context.Context, ev hookstate.Event, payload []byte, h hold.Host) {
	var a openCodeAsk
	if json.Unmarshal(payload, &a) != nil {
		return
	}
	p := a.Event.Properties
	switch a.Event.Type {
	case "permission.replied", "question.replied", "question.rejected":
		if p.RequestID != "" && p.SessionID != "" {
			k := session.Key{Runtime: runtimeName, ID: p.SessionID}
			if got := h.Broker.ReleaseSession(ctx, k, p.RequestID, decisions.Desk, "desk"); len(got) > 0 {
				h.Log.Info("answered at the desk", "session", k.String(), "request", p.RequestID)
			}
		}
	case "permission.asked", "question.asked":
		base, err := loopbackURL(a.ServerURL)
		if err != nil || p.ID == "" || p.SessionID == "" {
			h.Log.Debug("OpenCode request not offered: no server paddock can answer through", "request", p.ID, "error", err)
			return
		}
		if !h.Go(func(ctx context.Context) { watch(ctx, h, base, a) }) {
			h.Log.Warn("OpenCode request not offered: too many at once", "request", p.ID)
		}
	}
}

// watch offers one OpenCode request on the phone and sends the answer to
// the TUI's server. It first checks that the server lists the request: an
// answer that cannot land is never offered.
func watch(ctx context.Context, h hold.Host, base *url.URL, a openCodeAsk) {
	p := a.Event.Properties
	question := a.Event.Type == "question.asked"
	list := "/permission"
	if question {
		list = "/question"
	}
	if ok, err := serverLists(ctx, base, list, p.ID); !ok {
		h.Log.Info("OpenCode request not offered: its server does not list it", "request", p.ID, "error", err)
		return
	}
	now := h.Now()
	it := decisions.Item{Kind: decisions.KindApproval, Key: session.Key{Runtime: runtimeName, ID: p.SessionID},
		Tool: p.Permission, ToolUseID: p.ID, Created: now, Expires: now.Add(openCodeHold)}
	if question {
		it.Kind, it.Tool, it.Can, it.FreeText = decisions.KindQuestion, "question", []string{decisions.VerbAnswer, decisions.VerbDeny}, true
		for _, q := range p.Questions {
			pq := decisions.Question{Question: q.Question, Header: q.Header, MultiSelect: q.Multiple}
			for _, o := range q.Options {
				pq.Options = append(pq.Options, decisions.Option{Label: o.Label, Description: o.Description})
			}
			it.Questions = append(it.Questions, pq)
			if q.Custom != nil && !*q.Custom {
				it.FreeText = false
			}
		}
		it.Input, _ = json.Marshal(map[string]any{"questions": p.Questions})
	} else {
		it.Can = []string{decisions.VerbAllow, decisions.VerbDeny}
		if len(p.Always) > 0 {
			it.Can = append(it.Can, decisions.VerbAlways)
			it.Suggestions, _ = json.Marshal(p.Always)
		}
		in := map[string]any{"patterns": p.Patterns}
		for k, v := range p.Metadata {
			in[k] = v
		}
		it.Input, _ = json.Marshal(in)
	}
	it, outcome, err := h.Broker.Open(ctx, it)
	if err != nil {
		h.Log.Warn("OpenCode request not offered", "request", p.ID, "error", err)
		return
	}
	var out decisions.Outcome
	select {
	case out = <-outcome:
	case <-ctx.Done():
		return
	}
	var path string
	var body any
	switch res := out.Item.Resolution; {
	case question && res == decisions.Answered:
		answers := make([][]string, 0, len(it.Questions))
		for _, q := range it.Questions {
			a := out.Item.Answers[q.Question]
			labels, ok := decisions.SplitLabels(a, q)
			if !ok {
				labels = []string{a} // free text
			}
			answers = append(answers, labels)
		}
		path, body = "/question/"+url.PathEscape(p.ID)+"/reply", map[string]any{"answers": answers}
	case question && res == decisions.Denied:
		path, body = "/question/"+url.PathEscape(p.ID)+"/reject", map[string]any{}
	case res == decisions.Allowed:
		path, body = "/permission/"+url.PathEscape(p.ID)+"/reply", map[string]any{"reply": "once"}
	case res == decisions.Always:
		path, body = "/permission/"+url.PathEscape(p.ID)+"/reply", map[string]any{"reply": "always"}
	case res == decisions.Denied:
		reply := map[string]any{"reply": "reject"}
		if out.Item.Message != "" {
			reply["message"] = out.Item.Message
		}
		path, body = "/permission/"+url.PathEscape(p.ID)+"/reply", reply
	default:
		return // answered in the TUI, expired: nothing to send
	}
	if err := post(ctx, base, path, body); err != nil {
		h.Log.Warn("OpenCode did not take the answer", "request", p.ID, "resolution", out.Item.Resolution, "error", err)
		return
	}
	h.Log.Info("decision sent to OpenCode", "item", it.ID, "request", p.ID, "resolution", out.Item.Resolution)
}

// loopbackURL accepts only an http URL on a loopback address: the URL
// comes from a hook payload, and paddock must never be made to post
// elsewhere.
func loopbackURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.User != nil {
		return nil, fmt.Errorf("not an http URL: %q", raw)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("not a loopback address: %q", host)
	}
	u.Path, u.RawQuery, u.Fragment = strings.TrimSuffix(u.Path, "/"), "", ""
	return u, nil
}

// openCodeClient talks to OpenCode servers on loopback only: no proxy, no
// redirects, short timeouts.
var openCodeClient = &http.Client{
	Timeout:       5 * time.Second,
	Transport:     &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: 2 * time.Second}).DialContext},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// serverLists reports whether GET base+path lists an object with id.
func serverLists(ctx context.Context, base *url.URL, path, id string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.String()+path, nil)
	if err != nil {
		return false, err
	}
	resp, err := openCodeClient.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("%s answered %s", path, resp.Status)
	}
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&list); err != nil {
		return false, err
	}
	for _, x := range list {
		if x.ID == id {
			return true, nil
		}
	}
	return false, nil
}

func post(ctx context.Context, base *url.URL, path string, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ctx = context.WithoutCancel(ctx) // a decision made must be sent
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base.String()+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := openCodeClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(out)) == "false" {
		return fmt.Errorf("%s answered %s %s", path, resp.Status, bytes.TrimSpace(out))
	}
	return nil
}
