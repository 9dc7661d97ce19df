package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v5"

	"paddock/internal/board"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/markdown"
	"paddock/internal/search"
	"paddock/internal/session"
	"paddock/static"
	"paddock/views"
)

const pageSize = 50

// chromaAsset serves the code-highlighting stylesheet under a content hash
// like the embedded assets.
func chromaAsset(md *markdown.Renderer) *static.Asset {
	body := []byte(md.CSS())
	sum := sha256.Sum256(body)
	return &static.Asset{
		Name:        "chroma.css",
		URL:         "/static/" + hex.EncodeToString(sum[:6]) + "/chroma.css",
		ContentType: "text/css; charset=utf-8",
		Body:        body,
	}
}

func (s *Server) page(c *echo.Context, title string) views.Page {
	return views.Page{
		Title: title,
		Assets: views.Assets{
			CSS:       s.assets.URL("app.css"),
			ChromaCSS: s.chroma.URL,
			AppJS:     s.assets.URL("app.js"),
			HTMX:      s.assets.URL("vendor/htmx-2.0.11.min.js"),
			HTMXWS:    s.assets.URL("vendor/htmx-ext-ws-2.0.4.min.js"),
			Icon:      s.assets.URL("icon.svg"),
			Manifest:  s.assets.URL("manifest.webmanifest"),
			TouchIcon: s.assets.URL("icons/icon-192.png"),
		},
		CSRF:  s.csrfToken(c),
		Theme: themeOf(c),
	}
}

// themeOf is the theme the request's device chose ("" without one).
func themeOf(c *echo.Context) string {
	if p := principalOf(c); p != nil {
		return p.Theme
	}
	return ""
}

func (s *Server) render(c *echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTMLBlob(status, buf.Bytes())
}

func renderBytes(ctx context.Context, comp templ.Component) ([]byte, error) {
	var buf bytes.Buffer
	err := comp.Render(ctx, &buf)
	return buf.Bytes(), err
}

func sessionURL(k session.Key) string {
	return "/s/" + url.PathEscape(k.Runtime) + "/" + url.PathEscape(k.ID)
}

// domID is a session's card's element id: "card-", the runtime, "-" and
// the id, every character but [A-Za-z0-9_-] written as "_".
func domID(k session.Key) string {
	var b strings.Builder
	b.WriteString("card-")
	for _, r := range k.Runtime + "-" + k.ID {
		b.WriteRune(domRune(r))
	}
	return b.String()
}

func domRune(r rune) rune {
	if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
		return r
	}
	return '_'
}

// isDomID reports whether id is domID(k), without building it: the board
// asks it of every card before the one a page continues from.
func isDomID(k session.Key, id string) bool {
	rest, ok := strings.CutPrefix(id, "card-")
	if !ok {
		return false
	}
	for _, part := range []string{k.Runtime, "-", k.ID} {
		for _, r := range part {
			c, size := utf8.DecodeRuneInString(rest)
			if size == 0 || c != domRune(r) {
				return false
			}
			rest = rest[size:]
		}
	}
	return rest == ""
}

func relTime(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < 45*time.Second:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Round(time.Minute)/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Round(time.Hour)/time.Hour))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%d d ago", int(d/(24*time.Hour)))
	}
	return t.Format("2 Jan 2006")
}

func isoTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func (s *Server) card(e board.Entry) views.Card {
	in := e.Info
	class, label := e.State()
	title := in.Title
	if title == "" {
		title = "(untitled session)"
	}
	v := views.Card{
		DOMID:       domID(in.Key()),
		URL:         sessionURL(in.Key()),
		Runtime:     in.Runtime,
		Agent:       s.opts.Agents.Label(in.Runtime),
		ID:          in.ID,
		Project:     in.Project,
		Cwd:         in.Cwd,
		Title:       title,
		Prompt:      in.LastPrompt,
		UpdatedISO:  isoTime(e.SortTime()),
		UpdatedText: relTime(s.opts.Now(), e.SortTime()),
		State:       class,
		StateLabel:  label,
		Error:       in.Error,
	}
	if t, ok := s.handedOffTo(in.Key()); ok {
		v.HandedOff = s.opts.Agents.Label(t.Runtime)
	}
	v.Context = s.contextFill(in.Key())
	if c := e.Card; c != nil {
		v.Attention = string(c.Attention)
		v.Terminal = c.Terminal
		v.External = c.External
		if c.Memory.RSS > 0 {
			v.Memory = humanBytes(c.Memory.RSS)
		}
		if c.Dialog != nil {
			v.DialogTool, v.DialogSummary = c.Dialog.Tool, c.Dialog.Summary
		}
		if c.LastPrompt != "" {
			v.Prompt = c.LastPrompt
		}
		if running := runningSubagents(c.Subagents); running > 0 {
			v.Subagents = running
		}
		if c.Name != "" {
			v.Title = c.Name
		}
	}
	v.Live = !e.Over()
	v.CanResume = e.CanResume()
	return v
}

func runningSubagents(ss []live.Subagent) int {
	n := 0
	for _, s := range ss {
		if s.Running {
			n++
		}
	}
	return n
}

// humanBytes is a memory size for people: "312 MB", "1.4 GB".
func humanBytes(b uint64) string {
	const mb = 1 << 20
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%d MB", (b+mb/2)/mb)
}

// boardPageSize is how many cards a board page holds: the first page of a
// 10,000-session machine stays a light page, and "Show more" pages on.
const boardPageSize = 60

// board is one page of the board under filter f: the cards after the one
// whose DOM id is after ("" for the first page), the "needs you" strip
// (never filtered) and what the board says about itself. A team's members
// follow their lead, so a page is counted in cards, not entries.
func (s *Server) board(f views.BoardFilter, after string) (views.Board, error) {
	if !s.opts.Board.Loaded() {
		return views.Board{}, nil
	}
	es := s.opts.Board.List(board.Filter{})
	b := views.Board{Loaded: true, Filter: f, Filtered: f != views.BoardFilter{}}
	if s.opts.Search != nil {
		b.Indexing = indexingNote(s.opts.Search.Progress())
	}
	shown := es
	var found map[session.Key]search.Hit
	if b.Filtered {
		q := board.LowerQuery(f.Query)
		found = s.foundInConversations(f)
		shown = nil
		for i := range es {
			e := &es[i]
			if !boardKeeps(f, e) {
				continue
			}
			if e.Matches(q) {
				delete(found, e.Key()) // its own lines say why it is here
			} else if _, ok := found[e.Key()]; !ok {
				continue
			}
			shown = append(shown, *e)
		}
	}
	slots := board.Teams(shown, s.opts.Now())
	if s.opts.Settings != nil && s.opts.Settings.Get().Office {
		b.Office = s.office(shown, slots)
	}
	from := 0
	if after != "" {
		i := slices.IndexFunc(slots, func(sl board.Slot) bool { return isDomID(shown[sl.Index].Key(), after) })
		if i < 0 {
			return views.Board{}, errBoardMoved
		}
		from = i + 1
	}
	to := min(from+boardPageSize, len(slots))
	b.Cards = make([]views.Card, 0, to-from)
	for _, sl := range slots[from:to] {
		c := s.card(shown[sl.Index])
		c.TeamSize, c.Member = sl.Team, sl.Member
		if h, ok := found[shown[sl.Index].Key()]; ok {
			c.Found, c.FoundURL = marked(h.Snippet), hitURL(h)
		}
		b.Cards = append(b.Cards, c)
	}
	if to < len(slots) {
		b.More = views.More{URL: "/board/more?" + boardQuery(f, domID(shown[slots[to-1].Index].Key())), Label: fmt.Sprintf("Show more (%d)", len(slots)-to)}
	}
	b.Pending = s.pendingViews(session.Key{})
	asked := askedIn(b.Pending)
	for _, e := range board.NeedsYou(es) {
		c := s.card(e)
		if asked[c.URL] {
			continue
		}
		c.DOMID = "need-" + c.DOMID // the same session also has its place in the list
		c.DeskOnly = s.deskOnly(e.Info.Runtime)
		b.NeedsYou = append(b.NeedsYou, c)
	}
	b.CanHost = s.opts.Hosting != nil
	b.Unsaved = s.storeProblem()
	b.Errors = s.problemLines(s.opts.Board.Problems())
	if m := s.opts.Board.Machine(); m.Total > 0 {
		b.Memory = humanBytes(m.Used) + " of " + humanBytes(m.Total) + " in use"
	}
	return b, nil
}

var errBoardMoved = newError(http.StatusConflict, "board_moved", "The card this page continues from has left the board; reload the board.")

// boardKeeps applies the board's agent, project and live filters to one
// entry (the words are matched by the caller).
func boardKeeps(f views.BoardFilter, e *board.Entry) bool {
	return (f.Agent == "" || e.Info.Runtime == f.Agent) && (f.Project == "" || e.Info.Project == f.Project) &&
		(!f.Live || !e.Over())
}

// boardFound is how many sessions the board's search box finds by their
// conversations, besides those whose own lines match: the search page
// lists every hit.
const boardFound = 100

// foundInConversations is, for a board searched by words, each session
// whose conversation holds them, with its best message. Without an index,
// or words it cannot search, the board matches the sessions' own lines
// only.
func (s *Server) foundInConversations(f views.BoardFilter) map[session.Key]search.Hit {
	if s.opts.Search == nil || strings.TrimSpace(f.Query) == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	hits, err := s.opts.Search.Search(ctx, search.Query{Text: f.Query, Runtime: f.Agent, PerSession: true, Limit: boardFound})
	if err != nil {
		if !errors.Is(err, search.ErrEmptyQuery) {
			s.log.Warn("board search inside conversations failed", "error", err)
		}
		return nil
	}
	out := make(map[session.Key]search.Hit, len(hits))
	for _, h := range hits {
		out[h.Key] = h
	}
	return out
}

// boardQuery is f (and the page's last card) as a query string.
func boardQuery(f views.BoardFilter, after string) string {
	q := url.Values{}
	if f.Agent != "" {
		q.Set("agent", f.Agent)
	}
	if f.Project != "" {
		q.Set("project", f.Project)
	}
	if f.Live {
		q.Set("live", "1")
	}
	if f.Query != "" {
		q.Set("q", f.Query)
	}
	if after != "" {
		q.Set("after", after)
	}
	return q.Encode()
}

func (s *Server) message(m session.Message) views.Message {
	v := views.Message{Role: m.Role, TimeISO: isoTime(m.Time), TimeText: relTime(s.opts.Now(), m.Time)}
	if m.Role == session.RoleAssistant {
		v.HTML = s.opts.Markdown.Render(m.Text)
	} else {
		v.Text = m.Text
	}
	return v
}

// conversationPage renders messages[from:to] with a link to the page before.
func (s *Server) conversationPage(k session.Key, msgs []session.Message, to int) views.Conversation {
	to = min(max(to, 0), len(msgs))
	from := max(to-pageSize, 0)
	c := views.Conversation{Messages: make([]views.Message, 0, to-from)}
	for i, m := range msgs[from:to] {
		c.Messages = append(c.Messages, s.numbered(m, from+i))
	}
	if from > 0 {
		c.OlderURL = fmt.Sprintf("%s/messages?before=%d", sessionURL(k), from)
	}
	return c
}

// atPage is the page a link to message at opens (a search hit): a few
// messages before it, and those after it up to atPageMax, then a link to
// the newest page when there are more.
func (s *Server) atPage(k session.Key, msgs []session.Message, at int) views.Conversation {
	at = min(max(at, 0), max(len(msgs)-1, 0))
	from := max(at-atPageBefore, 0)
	to := min(len(msgs), at+atPageMax)
	c := views.Conversation{Messages: make([]views.Message, 0, to-from)}
	for i, m := range msgs[from:to] {
		c.Messages = append(c.Messages, s.numbered(m, from+i))
	}
	if from > 0 {
		c.OlderURL = fmt.Sprintf("%s/messages?before=%d", sessionURL(k), from)
	}
	if to < len(msgs) {
		c.NewerURL, c.Newer = sessionURL(k), len(msgs)-to
	}
	return c
}

// A page opened at a message shows atPageBefore messages before it and
// at most atPageMax from it on.
const (
	atPageBefore = 10
	atPageMax    = 500
)

// numbered is message m, the i-th of its conversation.
func (s *Server) numbered(m session.Message, i int) views.Message {
	v := s.message(m)
	v.ID = "m-" + strconv.Itoa(i)
	return v
}

// newestPage renders the newest page, with a link to the page before it:
// by index when the conversation was counted, else by an anchor on its
// first message (see cursor).
func (s *Server) newestPage(k session.Key, r board.Recent) views.Conversation {
	c := views.Conversation{Messages: make([]views.Message, 0, len(r.Msgs))}
	for i, m := range r.Msgs {
		if r.Total >= 0 {
			c.Messages = append(c.Messages, s.numbered(m, r.Total-len(r.Msgs)+i))
		} else {
			c.Messages = append(c.Messages, s.message(m))
		}
	}
	switch from := r.Total - len(r.Msgs); {
	case r.Total < 0 && len(r.Msgs) > 0:
		c.OlderURL = sessionURL(k) + "/messages?before=" + anchorCursor(r.Msgs)
	case r.Total >= 0 && from > 0:
		c.OlderURL = fmt.Sprintf("%s/messages?before=%d", sessionURL(k), from)
	}
	return c
}

// askedIn is the set of session URLs with a card waiting to be answered:
// such a card asks what the session's own dialog line says, so the board
// drops the session's needs-you board.Entry and the session page its dialog
// line, or the prompt would show twice.
func askedIn(cards []views.Approval) map[string]bool {
	asked := map[string]bool{}
	for _, a := range cards {
		if a.Resolved == "" {
			asked[a.URL] = true
		}
	}
	return asked
}

func (s *Server) sessionView(ctx context.Context, e board.Entry, r board.Recent) views.Session {
	v := views.Session{
		Card:         s.card(e),
		Model:        e.Info.Model,
		Conversation: s.newestPage(e.Key(), r),
		Total:        r.Total,
	}
	if e.Info.Error != "" {
		v.HistoryError = "Part or all of this session's history could not be read (" + e.Info.Error + "); the conversation shows what could be read."
	}
	v.CanResume = v.Card.CanResume
	// In every render of the head, the page's and the live updates'.
	v.HandedOff = s.handedOff(ctx, e.Key())
	v.Usage, v.HasUsage = s.sessionUsage(ctx, e.Key())
	v.CanDelete = e.Over() && e.Info.Path != ""
	v.Pending = s.pendingViews(e.Key())
	if askedIn(v.Pending)[v.Card.URL] {
		v.Card.DialogTool, v.Card.DialogSummary = "", ""
	}
	if s.opts.Hosting != nil && s.opts.Board != nil {
		for _, o := range s.opts.Board.List(board.Filter{}) {
			if o.Key() != e.Key() && o.Card != nil && o.Card.TerminalID != "" && !o.Over() {
				title := o.Info.Title
				if title == "" {
					title = o.Key().ID
				}
				v.HandoffTargets = append(v.HandoffTargets, views.Option{Value: o.Key().String(), Label: s.opts.Agents.Label(o.Info.Runtime) + " · " + title})
			}
		}
		// No running target needed: the hand-off can start one, in this
		// session's directory.
		if e.Dir() != "" {
			for _, rt := range s.opts.Hosting.Installed() {
				v.HandoffStarts = append(v.HandoffStarts, views.Option{Value: newTargetPrefix + rt, Label: "A new " + s.opts.Agents.Label(rt) + " session here"})
			}
		}
	}
	if s.opts.Hosting != nil && e.Info.Cwd != "" {
		v.NewHereURL = "/new?" + url.Values{"runtime": {e.Info.Runtime}, "workdir": {e.Info.Cwd}, "parent": {e.Key().String()}}.Encode()
	}
	if c := e.Card; c != nil {
		if c.Model != "" {
			v.Model = c.Model
		}
		v.HasLive = true
		v.Hosted = s.opts.Hosting != nil && hostedLive(c.State, c.TerminalID)
		v.PermissionMode = c.PermissionMode
		v.Since = relTime(s.opts.Now(), c.Since)
		v.SinceISO = isoTime(c.Since)
		v.HookLatency = sampleText(c.Metrics.HookLatency)
		v.Detection = sampleText(c.Metrics.Detection)
		v.PermissionResponse = sampleText(c.Metrics.PermissionResponse)
		if c.Parent.ID != "" {
			v.ParentURL = sessionURL(c.Parent)
		}
		for _, a := range c.Subagents {
			v.Subagents = append(v.Subagents, views.Subagent{
				ID: a.ID, Type: a.Type, Task: a.Task, URL: s.subagentURL(e.Key(), a.ID), Running: a.Running, ToolCalls: a.ToolCalls,
				StartedISO: isoTime(a.Started), StartedText: relTime(s.opts.Now(), a.Started),
			})
		}
		s.hostedView(ctx, &v, *c)
	}
	return v
}

// hostedView adds what paddock's hosting knows of a card: earlier runs,
// the note and memory freed, Reconnect, and the health of its terminal.
func (s *Server) hostedView(ctx context.Context, v *views.Session, c live.Card) {
	v.Note = c.Note
	if c.Freed > 0 && c.State == hookstate.StateAsleep {
		v.Freed = humanBytes(c.Freed)
	}
	for i := len(c.Runs) - 1; i >= 0; i-- {
		r := c.Runs[i]
		v.Runs = append(v.Runs, views.Run{URL: sessionURL(r.Key), Label: r.Key.Runtime + " " + shortID(r.Key.ID),
			EndedISO: isoTime(r.Ended), EndedText: relTime(s.opts.Now(), r.Ended)})
	}
	if s.opts.Hosting == nil {
		return
	}
	launched := len(c.Launch) > 0
	v.CanReconnect = v.CanResume && launched
	v.AutoResume = v.CanResume && launched && c.State == hookstate.StateAsleep
	if v.Hosted && (c.State == hookstate.StateWorking || c.State == hookstate.StatePrompting) {
		v.Busy = s.busyHint(c.Key.Runtime)
	}
	if c.TerminalID == "" {
		return
	}
	hctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	h, err := s.opts.Hosting.Health(hctx, c, s.opts.Now())
	if err != nil {
		return
	}
	v.Health = &views.Health{Alive: h.Alive, Window: h.Window, AgentRunning: h.AgentRunning, Transcript: h.Transcript, Stalled: h.Stalled,
		Command: h.Command, Age: h.Age, Hint: h.Hint,
		LastActivityISO: isoTime(h.LastActivity), LastActivityText: relTime(s.opts.Now(), h.LastActivity)}
	if t := h.Tmux; t.Crashes+t.Orphaned > 0 {
		v.Health.Tmux = fmt.Sprintf("server lost %d× · %d recovered · %d lost", t.Crashes, t.Recovered, t.Orphaned)
	}
}

// deskOnly says why a prompt on the strip has no card to answer from
// here: what paddock cannot do remotely for that agent, and what would let
// it.
func (s *Server) deskOnly(runtime string) string {
	if t := s.opts.Agents.UIOf(runtime).DeskOnly; t != "" {
		return t
	}
	return "Answer in " + s.opts.Agents.Label(runtime) + "'s terminal: this prompt did not reach paddock through a hook (paddock hooks install)."
}

// busyHint says how each agent takes a message typed during its turn
// (its own queueing; paddock types it in at once either way).
func (s *Server) busyHint(runtime string) string {
	const stop = " Ctrl-C or Esc interrupts it first."
	if t := s.opts.Agents.UIOf(runtime).Busy; t != "" {
		return t + stop
	}
	return "The agent is working: " + runtime + " decides whether what you send now steers this turn or waits for the next." + stop
}

// shortID is the first eight characters of a session id, for display.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// sampleText shows a latency sample as "last 12 ms · max 40 ms (n=31)".
func sampleText(x hookstate.Sample) string {
	if !x.Valid() {
		return ""
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
	return fmt.Sprintf("last %s · mean %s · max %s (n=%d)", ms(x.Last), ms(x.Mean()), ms(x.Max), x.Count)
}

// indexingNote says how far the search index's first build is; "" once
// it is done.
func indexingNote(p search.Progress) string {
	if p.Ready {
		return ""
	}
	return fmt.Sprintf("(indexing: %d of %d sessions)", p.Indexed, p.Total)
}

// marked is a snippet as a view's Marked text; a mark inside the
// conversation's own text is dropped so it cannot open a false match.
func marked(ps []search.Part) views.Marked {
	var b strings.Builder
	for _, p := range ps {
		t := strings.NewReplacer(views.MarkOpen, "", views.MarkClose, "").Replace(p.Text)
		if p.Match {
			b.WriteString(views.MarkOpen + t + views.MarkClose)
		} else {
			b.WriteString(t)
		}
	}
	return views.Marked(b.String())
}
