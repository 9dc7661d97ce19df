package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"paddock/internal/catalog"
	"paddock/internal/live"
	"paddock/internal/session"
	"paddock/views"
)

var errNoSubagents = newError(http.StatusNotFound, "subagents_unsupported",
	"This agent's subagents keep no conversations of their own for paddock to show.")

// subagentKey reads and validates the {runtime}/{id}/agents/{agent} path
// parameters. The agent id names a file below the session's directory, so
// it is held to letters, digits, '-' and '_' (the scanner checks again).
func subagentKey(c *echo.Context) (session.Key, string, error) {
	k, err := sessionKey(c)
	if err != nil {
		return k, "", err
	}
	agent := c.Param("agent")
	if !validAgentID(agent) {
		return k, "", newError(http.StatusBadRequest, "bad_agent_id",
			"A subagent address is /s/<runtime>/<id>/agents/<agent>, the agent id with letters, digits, '-' or '_'.")
	}
	return k, agent, nil
}

func validAgentID(id string) bool { return validToken(id, 128) && !strings.Contains(id, ".") }

// subagentURL is the page of a subagent's conversation, or "" where there
// is none to open.
func (s *Server) subagentURL(k session.Key, agentID string) string {
	if !s.opts.Board.HasSubagents(k.Runtime) || !validAgentID(agentID) {
		return ""
	}
	return sessionURL(k) + "/agents/" + url.PathEscape(agentID)
}

// subagentMessages is the subagent's conversation from its own transcript.
func (s *Server) subagentMessages(ctx context.Context, k session.Key, agent string) ([]session.Message, error) {
	msgs, err := s.opts.Board.SubagentConversation(ctx, k, agent)
	if errors.Is(err, catalog.ErrUnsupported) {
		return nil, errNoSubagents
	}
	if errors.Is(err, session.ErrNotFound) {
		return nil, newError(http.StatusNotFound, "not_found", "No conversation was found for this subagent.")
	}
	return msgs, err
}

// subagentPage shows a subagent's conversation: the task it was given,
// then its answers. With ?before=N it is the htmx fragment of the page of
// messages before N, as the session page's /messages is.
func (s *Server) subagentPage(c *echo.Context) error {
	k, agent, err := subagentKey(c)
	if err != nil {
		return err
	}
	to := -1
	if v := c.QueryParam("before"); v != "" {
		if to, err = strconv.Atoi(v); err != nil || to < 0 {
			return newError(http.StatusBadRequest, "bad_cursor", "before must be a message index (a whole number ≥ 0).")
		}
	}
	ctx := c.Request().Context()
	msgs, err := s.subagentMessages(ctx, k, agent)
	if err != nil {
		return err
	}
	if to >= 0 {
		return s.render(c, http.StatusOK, views.OlderPage(s.subagentConversation(k, agent, msgs, to)))
	}
	v := s.subagentView(ctx, k, agent, msgs)
	return s.render(c, http.StatusOK, views.SessionPage(s.page(c, v.Card.Title), v))
}

// subagentConversation is messages[:to] a page at a time, like
// conversationPage, with the older pages loaded from the subagent's page.
func (s *Server) subagentConversation(k session.Key, agent string, msgs []session.Message, to int) views.Conversation {
	to = min(to, len(msgs))
	conv := s.conversationPage(k, msgs, to)
	if conv.OlderURL != "" {
		conv.OlderURL = s.subagentURL(k, agent) + "?before=" + strconv.Itoa(max(to-pageSize, 0))
	}
	return conv
}

// subagentView is the session page's view of a subagent: its parent's
// project and directory, and what the hooks said of it while the parent's
// live card knows it (type, task, whether it still runs).
func (s *Server) subagentView(ctx context.Context, k session.Key, agent string, msgs []session.Message) views.Session {
	a := live.Subagent{ID: agent}
	known := false
	card := views.Card{Runtime: k.Runtime, ID: k.ID}
	// The parent only decorates the page; the conversation is already read.
	if e, err := s.opts.Board.Get(ctx, k); err == nil {
		card = s.card(e)
		if e.Card != nil {
			for _, x := range e.Card.Subagents {
				if x.ID == agent {
					a, known = x, true
				}
			}
		}
	}
	task := a.Task
	if task == "" && len(msgs) > 0 && msgs[0].Role == session.RoleUser {
		task = firstLine(msgs[0].Text, 80)
	}
	card.DOMID = domID(k) + "-agent-" + agent
	card.URL = s.subagentURL(k, agent)
	card.Title = subagentTitle(a.Type, task)
	card.Prompt = task
	card.Live = known && a.Running
	card.State, card.StateLabel = "", ""
	if known {
		card.State, card.StateLabel = "ended", "finished"
		if a.Running {
			card.State, card.StateLabel = "working", "running"
		}
	}
	// The parent's dialog, terminal and memory are not the subagent's.
	card.Attention, card.Terminal, card.External, card.Memory = "", "", false, ""
	card.DialogTool, card.DialogSummary, card.Subagents = "", "", 0
	return views.Session{
		Card:         card,
		Conversation: s.subagentConversation(k, agent, msgs, len(msgs)),
		Total:        len(msgs),
	}
}

// subagentTitle is "<type> subagent · <task>".
func subagentTitle(typ, task string) string {
	t := strings.TrimSpace(typ + " subagent")
	if task != "" {
		t += " · " + task
	}
	return t
}

// firstLine is the first line of s, cut to n runes.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// apiSubagentMessages returns one page of a subagent's conversation, oldest
// first, in the shape of apiMessages.
func (s *Server) apiSubagentMessages(c *echo.Context) error {
	k, agent, err := subagentKey(c)
	if err != nil {
		return err
	}
	msgs, err := s.subagentMessages(c.Request().Context(), k, agent)
	if err != nil {
		return err
	}
	return messagesPage(c, msgs)
}
