package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"paddock/internal/agent"
	"paddock/internal/decisions"
	"paddock/internal/session"
	"paddock/views"
)

// Approvals is what the web layer needs of the pending items
// (internal/decisions' Broker).
type Approvals interface {
	List(f decisions.Filter) []decisions.Item
	Get(id string) (decisions.Item, bool)
	Decide(ctx context.Context, id string, d decisions.Decision) (decisions.Item, error)
	Subscribe() (<-chan decisions.Item, func())
}

var errNoApprovals = newError(http.StatusNotImplemented, "approvals_unavailable", "This paddock does not take decisions from the phone.")

// by names who decides: the paired device or the API token.
func by(c *echo.Context) string {
	p := principalOf(c)
	if p == nil {
		return "unknown"
	}
	if strings.HasPrefix(p.DeviceID, "token:") {
		return p.DeviceID
	}
	return "device:" + p.DeviceID
}

// itemJSON is the API's view of a pending item.
type itemJSON struct {
	ID          string               `json:"id"`
	Kind        decisions.Kind       `json:"kind"`
	Key         string               `json:"session"`
	URL         string               `json:"url"`
	Tool        string               `json:"tool"`
	Input       json.RawMessage      `json:"input"`
	Suggestions json.RawMessage      `json:"permission_suggestions,omitempty"`
	Scope       string               `json:"always_scope,omitempty"`
	Questions   []decisions.Question `json:"questions,omitempty"`
	FreeText    bool                 `json:"free_text,omitempty"`
	Reason      string               `json:"reason,omitempty"`
	Cwd         string               `json:"cwd,omitempty"`
	Can         []string             `json:"can"`
	Created     time.Time            `json:"created"`
	Expires     time.Time            `json:"expires"`
	Resolution  decisions.Resolution `json:"resolution"`
	ResolvedBy  string               `json:"resolved_by,omitempty"`
	ResolvedAt  *time.Time           `json:"resolved_at,omitempty"`
	Message     string               `json:"message,omitempty"`
	Answers     map[string]string    `json:"answers,omitempty"`
}

func (s *Server) toItemJSON(it decisions.Item) itemJSON {
	j := itemJSON{ID: it.ID, Kind: it.Kind, Key: it.Key.String(), URL: sessionURL(it.Key), Tool: it.Tool, Input: it.Input,
		Suggestions: it.Suggestions, Scope: s.opts.Agents.Scope(it.Key.Runtime, it.Suggestions), Questions: it.Questions, FreeText: it.FreeText,
		Reason: it.Reason, Cwd: it.Cwd, Can: it.Can, Created: it.Created, Expires: it.Expires, Resolution: it.Resolution,
		ResolvedBy: it.ResolvedBy, ResolvedAt: timePtr(it.ResolvedAt), Message: it.Message, Answers: it.Answers}
	if j.Can == nil {
		j.Can = []string{}
	}
	return j
}

// listItems answers GET /api/v1/approvals and /questions: pending ones by
// default, ?all=1 for the recent resolved ones too.
func (s *Server) listItems(c *echo.Context, kinds ...decisions.Kind) error {
	if s.opts.Approvals == nil {
		return errNoApprovals
	}
	all := c.QueryParam("all") == "1" || c.QueryParam("all") == "true"
	out := []itemJSON{}
	for _, k := range kinds {
		for _, it := range s.opts.Approvals.List(decisions.Filter{Kind: k, PendingOnly: !all}) {
			out = append(out, s.toItemJSON(it))
		}
	}
	key := "approvals"
	if len(kinds) == 1 && kinds[0] == decisions.KindQuestion {
		key = "questions"
	}
	return c.JSON(http.StatusOK, map[string]any{key: out})
}

func (s *Server) apiApprovals(c *echo.Context) error {
	return s.listItems(c, decisions.KindApproval, decisions.KindPlan)
}

func (s *Server) apiQuestions(c *echo.Context) error { return s.listItems(c, decisions.KindQuestion) }

// apiDecide is POST /api/v1/approvals/{id} {"decision","message"} and
// POST /api/v1/questions/{id} {"answers"} (or {"decision":"deny"}).
func (s *Server) apiDecide(c *echo.Context) error {
	if s.opts.Approvals == nil {
		return errNoApprovals
	}
	var req struct {
		Decision string            `json:"decision"`
		Message  string            `json:"message"`
		Answers  map[string]string `json:"answers"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	d := decisions.Decision{Verb: req.Decision, Message: req.Message, Answers: req.Answers, By: by(c)}
	if d.Verb == "" && len(d.Answers) > 0 {
		d.Verb = decisions.VerbAnswer
	}
	it, err := s.decide(c.Request().Context(), c.Param("id"), d)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"item": s.toItemJSON(it)})
}

// decide records a decision; the errors map to 404, 400, 409, and 503
// when paddock could not save it (then nothing reached the agent).
func (s *Server) decide(ctx context.Context, id string, d decisions.Decision) (decisions.Item, error) {
	it, err := s.opts.Approvals.Decide(ctx, id, d)
	if err != nil {
		if re, ok := errors.AsType[*decisions.ResolvedError](err); ok {
			return re.Item, newError(http.StatusConflict, "already_resolved", re.Error())
		}
		return it, err
	}
	s.log.Info("decision", "item", it.ID, "kind", it.Kind, "session", it.Key.String(), "resolution", it.Resolution, "by", it.ResolvedBy)
	return it, nil
}

// decideFromPage is a card's form (htmx): the card comes back with what
// became of it, "already answered" included.
func (s *Server) decideFromPage(c *echo.Context) error {
	if s.opts.Approvals == nil {
		return errNoApprovals
	}
	r := c.Request()
	if err := r.ParseForm(); err != nil {
		return newError(http.StatusBadRequest, "bad_form", "The form could not be read.")
	}
	id := c.Param("id")
	it, ok := s.opts.Approvals.Get(id)
	if !ok {
		return newError(http.StatusNotFound, "not_found", "No such approval or question.")
	}
	d := decisions.Decision{Verb: r.PostForm.Get("verb"), Message: strings.TrimSpace(r.PostForm.Get("message")), By: by(c)}
	if d.Verb == decisions.VerbAnswer {
		d.Answers = formAnswers(it, r.PostForm)
	}
	got, err := s.decide(r.Context(), id, d)
	v := s.approvalView(got)
	if err != nil {
		ae := classify(err)
		if ae.Status >= 500 {
			return err
		}
		if ae.Status != http.StatusConflict {
			v = s.approvalView(it)
		}
		v.Error = ae.Msg
	}
	return s.render(c, http.StatusOK, views.ApprovalCard(v))
}

// formAnswers reads a question card's form: q<i> holds the chosen
// label(s), q<i>-text free text (which wins when given).
func formAnswers(it decisions.Item, f map[string][]string) map[string]string {
	out := map[string]string{}
	for i, q := range it.Questions {
		n := strconv.Itoa(i)
		if t := strings.TrimSpace(first(f["q"+n+"-text"])); t != "" {
			out[q.Question] = t
			continue
		}
		if labels := f["q"+n]; len(labels) > 0 {
			out[q.Question] = strings.Join(labels, ", ")
		}
	}
	return out
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// approvalView is a card of an item.
func (s *Server) approvalView(it decisions.Item) views.Approval {
	v := views.Approval{ID: it.ID, DOMID: "item-" + it.ID, Kind: string(it.Kind), Agent: s.opts.Agents.Label(it.Key.Runtime),
		URL: sessionURL(it.Key), Project: session.ShortProject(it.Cwd, ""), Tool: it.Tool, Reason: it.Reason,
		DecideURL: "/approvals/" + it.ID, FreeText: it.FreeText, ExpiresISO: isoTime(it.Expires),
		ExpiresText: relTime(s.opts.Now(), it.Expires)}
	v.Command, v.Input = inputText(it)
	for _, verb := range it.Can {
		switch verb {
		case decisions.VerbAllow:
			v.CanAllow = true
		case decisions.VerbDeny:
			v.CanDeny = true
		case decisions.VerbAlways:
			v.CanAlways = true
			v.AlwaysScope = s.opts.Agents.Scope(it.Key.Runtime, it.Suggestions)
		}
	}
	for i, q := range it.Questions {
		vq := views.Question{Name: "q" + strconv.Itoa(i), Question: q.Question, Header: q.Header, Multi: q.MultiSelect}
		for _, o := range q.Options {
			vq.Options = append(vq.Options, views.Option{Value: o.Label, Label: o.Label, Description: o.Description})
		}
		v.Questions = append(v.Questions, vq)
	}
	if it.Kind == decisions.KindPlan {
		var in struct {
			Plan string `json:"plan"`
		}
		if json.Unmarshal(it.Input, &in) == nil && in.Plan != "" {
			v.PlanHTML = s.opts.Markdown.Render(in.Plan)
			v.Command, v.Input = "", ""
		}
	}
	ui := s.opts.Agents.UIOf(it.Key.Runtime)
	if ui.AllowLabel != "" {
		v.AllowLabel = ui.AllowLabel
	}
	if ui.ApprovalNote != nil {
		v.Note = ui.ApprovalNote(relTime(s.opts.Now(), it.Expires))
	}
	v.Resolved = resolvedText(it, ui)
	switch it.Resolution {
	case decisions.Allowed, decisions.Always, decisions.Answered:
		v.ResolvedClass = "ok"
	case decisions.Denied:
		v.ResolvedClass = "error"
	default:
		v.ResolvedClass = "muted"
	}
	return v
}

// inputText is a tool input as the card shows it: the command or path on
// its own line, and the whole input as indented JSON.
func inputText(it decisions.Item) (command, full string) {
	var m map[string]any
	if json.Unmarshal(it.Input, &m) != nil {
		return "", string(it.Input)
	}
	return it.Command(), indentJSON(m, string(it.Input))
}

// resolvedText says what became of an item; "" while it waits.
func resolvedText(it decisions.Item, ui agent.UI) string {
	switch it.Resolution {
	case decisions.Allowed:
		if ui.Allowed != "" {
			return ui.Allowed
		}
		return "Approved ✓"
	case decisions.Always:
		return "Always allowed ✓"
	case decisions.Denied:
		return "Denied"
	case decisions.Answered:
		var parts []string
		for _, q := range it.Questions {
			if a, ok := it.Answers[q.Question]; ok {
				parts = append(parts, a)
			}
		}
		return "Answered: " + strings.Join(parts, " · ")
	case decisions.Desk:
		return "Answered at the desk"
	case decisions.Expired:
		return "Expired: the agent's own prompt took over"
	case decisions.Withdrawn:
		return "Withdrawn: the agent stopped waiting"
	}
	return ""
}

// showResolved is how long an answered item stays on the board and its
// session's page, greyed, so every open view sees what became of it
// (approved, denied, answered at the desk, expired).
const showResolved = 30 * time.Second

// maxResolvedShown bounds the answered cards shown beside the waiting
// ones: enough to see what became of the last taps, few enough that a
// burst of prompts cannot make every board push heavy.
const maxResolvedShown = 5

// pendingViews are the cards of the items waiting now, and of the last
// few answered in the last showResolved, oldest first; for one session
// when key is set.
func (s *Server) pendingViews(key session.Key) []views.Approval {
	if s.opts.Approvals == nil {
		return nil
	}
	items := s.opts.Approvals.List(decisions.Filter{Key: key, ResolvedSince: s.opts.Now().Add(-showResolved)})
	// Newest first: skip all but the newest maxResolvedShown answered ones.
	skip := -maxResolvedShown
	for _, it := range items {
		if !it.Waiting() {
			skip++
		}
	}
	out := make([]views.Approval, 0, len(items))
	for i := len(items) - 1; i >= 0; i-- {
		if !items[i].Waiting() && skip > 0 {
			skip--
			continue
		}
		out = append(out, s.approvalView(items[i]))
	}
	return out
}
