package web

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"paddock/internal/board"
	"paddock/internal/session"
)

// mostProblems is how many problem lines the board shows; the rest are
// counted in one more line.
const mostProblems = 5

// problemLines are the board's lines naming what of the agents' histories
// cannot be read or watched: "Claude Code: ~/.claude/projects/x cannot be
// read: permission denied".
func (s *Server) problemLines(probs []session.SourceProblem) []string {
	home, _ := os.UserHomeDir()
	var out []string
	for i, p := range probs {
		if i == mostProblems {
			out = append(out, fmt.Sprintf("… and %d more; paddock's log names them.", len(probs)-i))
			break
		}
		who := "paddock"
		if p.Runtime != "" {
			who = s.opts.Agents.Label(p.Runtime)
		}
		line := who + ": "
		if p.Source != "" {
			line += tildePath(p.Source, home) + " "
		}
		out = append(out, line+p.Reason+".")
	}
	return out
}

// tildePath is path with the home directory written "~".
func tildePath(path, home string) string {
	if home == "" || home == "/" {
		return path
	}
	if rest, ok := strings.CutPrefix(path, home); ok && (rest == "" || rest[0] == filepath.Separator) {
		return "~" + rest
	}
	return path
}

// unreadable is what the session page says when reading e's conversation
// failed with err because its history cannot be read; "" when err is
// nil, or is no such failure (the session is gone, the request ended).
func unreadable(ctx context.Context, e board.Entry, err error) string {
	switch {
	case err == nil || ctx.Err() != nil:
		return ""
	case e.Info.Error != "":
		// The listing saw why already; a pipe or a link loop is never
		// opened, and reads as "not found".
		return "This session's history cannot be read (" + e.Info.Error + ")."
	case errors.Is(err, session.ErrNotFound):
		return ""
	}
	return "This session's conversation could not be read; paddock's log has the details."
}

// sourceJSON is a problem as /api/v1/health names it: the agent and why,
// never the path (the health check is public).
type sourceJSON struct {
	Agent   string `json:"agent,omitempty"`
	Problem string `json:"problem"`
}

func sourcesJSON(probs []session.SourceProblem) []sourceJSON {
	out := make([]sourceJSON, 0, len(probs))
	for _, p := range probs {
		out = append(out, sourceJSON{Agent: p.Runtime, Problem: p.Reason})
	}
	return out
}
