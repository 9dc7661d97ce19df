package tmux

import (
	"context"
	"strconv"
	"strings"
)

// CaptureOptions choose what Capture reads.
type CaptureOptions struct {
	// ScrollBack is how many lines of history above the visible screen to
	// include; 0 reads the screen alone. It is capped at the history limit.
	ScrollBack int
	// Join joins lines the terminal wrapped back into one (capture-pane
	// -J), as the program wrote them.
	Join bool
}

// Capture reads the pane's text (capture-pane -p): no colours, each line's
// trailing spaces and the trailing blank lines trimmed. A dead pane (kept
// by remain-on-exit) still shows its last screen — except output written
// in the instant before the program exited, which tmux 3.3a can drop (it
// closes the pane as soon as it reaps the program; seen for about one in
// ten programs that print and exit at once, under load). Programs on the
// alternate screen (full-screen TUIs) have no scroll-back there.
func (s *Server) Capture(ctx context.Context, p Pane, opts CaptureOptions) (string, error) {
	t, err := p.target()
	if err != nil {
		return "", err
	}
	args := command{"capture-pane", "-p", "-t", t}
	if opts.Join {
		args = append(args, "-J")
	}
	if n := min(opts.ScrollBack, s.historyLimit); n > 0 {
		args = append(args, "-S", "-"+strconv.Itoa(n))
	}
	out, err := s.run(ctx, call{cmds: []command{args}})
	if err != nil {
		return "", err
	}
	return trimScreen(out), nil
}

// trimScreen trims each line's trailing spaces and the trailing empty
// lines.
func trimScreen(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	end := len(lines)
	for end > 0 && lines[end-1] == "" {
		end--
	}
	return strings.Join(lines[:end], "\n")
}
