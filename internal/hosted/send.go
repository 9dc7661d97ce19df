package hosted

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/tmux"
)

// MaxText is the most text sent in one message: it must fit, JSON-encoded,
// in the dashboard's 64 KiB request limit. A larger text belongs in a file
// the agent reads.
const MaxText = 48 << 10

// Delivery says whether a message reached the agent.
type Delivery struct {
	Delivered bool   `json:"delivered"`
	Attempts  int    `json:"attempts"`
	By        string `json:"by,omitempty"`          // "hook" or "screen"
	Reason    string `json:"reason,omitempty"`      // why not, when not
	Screen    string `json:"screen_tail,omitempty"` // the pane's last lines, when not delivered
	Queued    bool   `json:"queued,omitempty"`      // the agent was busy: it takes the text after its turn
}

// checkText accepts what can be typed into an agent: valid UTF-8, at most
// MaxText bytes, no control characters but newline and tab.
func checkText(s string) error {
	if len(s) > MaxText {
		return invalid("the text is %d KB; at most %d KB go in one message", len(s)>>10, MaxText>>10)
	}
	if !utf8.ValidString(s) {
		return invalid("the text is not valid UTF-8")
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return invalid("the text holds a control character (%U); only newlines and tabs are allowed", r)
		}
	}
	return nil
}

// sendInitial sends a new session's first prompt once its input is ready.
func (m *Manager) sendInitial(ctx context.Context, t *terminal, text string) (Delivery, error) {
	if err := m.waitReady(ctx, t); err != nil {
		return Delivery{Reason: err.Error(), Screen: m.tail(ctx, t)}, nil
	}
	return m.deliver(ctx, t, text)
}

// blockers are start-up questions an agent asks before its input is
// ready, by the words of the pinned CLIs.
var blockers = []struct {
	re   *regexp.Regexp
	what string
}{
	// Claude: "Do you trust the files in this folder?" / "Is this a
	// project you … trust?"; Kimi 2.1.0: "Trust this folder?"; Codex:
	// "Do you trust the contents of this directory?".
	{regexp.MustCompile(`(?i)do you trust|trust this folder\?|trust (the files|the authors|the contents)|project you .*trust`), "whether to trust this folder"},
	{regexp.MustCompile(`(?i)select login method|sign in with|log ?in to|paste (your )?(api )?key`), "to log in"},
	// Codex 0.169.0: "Hooks need review … 1. Review hooks 2. Trust all and
	// continue" — trusting hooks is the user's call, once.
	{regexp.MustCompile(`(?i)hooks need review`), "whether to trust the hooks installed for it (review or trust them once, in its terminal)"},
	{regexp.MustCompile(`(?i)choose the text style|select a theme`), "its first-run setup"},
}

func blocker(screen string) string {
	for _, b := range blockers {
		if b.re.MatchString(screen) {
			return b.what
		}
	}
	return ""
}

// stableFor is how long the screen must stay unchanged to count as a TUI
// waiting for input.
const stableFor = 600 * time.Millisecond

// waitReady waits until the agent has started (its first hook moved the
// card out of connecting, or for an agent without hooks installed, the
// screen has content) and its screen has settled.
func (m *Manager) waitReady(ctx context.Context, t *terminal) error {
	ctx, cancel := context.WithTimeout(ctx, m.opts.Ready)
	defer cancel()
	var last string
	var since time.Time
	for {
		if alive, err := m.opts.Terminals.Alive(ctx, t.pane); err == nil && !alive {
			return fmt.Errorf("%s exited before its input was ready", t.runtime)
		}
		screen, _ := m.opts.Terminals.Capture(ctx, t.pane, tmux.CaptureOptions{})
		hooked := false
		if c, ok := m.opts.Live.ByTerminal(t.id); ok && !c.LastEvent.IsZero() {
			hooked = true
		}
		if screen != last {
			last, since = screen, time.Now()
		}
		// A question of the agent's own (trust this folder? log in?) must
		// be answered by the user: a prompt typed now would answer it.
		if q := blocker(screen); q != "" && time.Since(since) >= stableFor {
			return fmt.Errorf("%s is asking %s; answer it in its terminal first", t.runtime, q)
		}
		// Without a hook, wait longer on the screen alone: the CLI may not
		// have paddock's hooks installed.
		settle := stableFor
		if !hooked {
			settle = 4 * stableFor
		}
		if strings.TrimSpace(screen) != "" && time.Since(since) >= settle && (hooked || time.Since(t.started) > 5*time.Second) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s's input was not ready within %s", t.runtime, m.opts.Ready)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Send types a message into a hosted session and verifies it arrived.
func (m *Manager) Send(ctx context.Context, c live.Card, text string) (Delivery, error) {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return Delivery{}, err
	}
	if strings.TrimSpace(text) == "" {
		return Delivery{}, invalid("the message is empty")
	}
	if err := checkText(text); err != nil {
		return Delivery{}, err
	}
	if alive, err := m.opts.Terminals.Alive(ctx, t.pane); err != nil || !alive {
		return Delivery{}, ErrGone
	}
	d, err := m.deliver(ctx, t, text)
	if err == nil && !d.Delivered && (c.State == hookstate.StateWorking || c.State == hookstate.StatePrompting) {
		// The agent queues what is typed during a turn and takes it
		// after (Claude Code, Codex): it has the text, unconfirmed.
		d.Queued = true
	}
	return d, err
}

// deliver types text into the pane and presses Enter, then waits for the
// agent to confirm (its prompt hook with this text, or the card leaving
// its idle states); each retry waits 1.5× longer, so an agent slow to take
// input gets more time.
func (m *Manager) deliver(ctx context.Context, t *terminal, text string) (Delivery, error) {
	t.sending.Lock()
	defer t.sending.Unlock()
	before, _ := m.opts.Live.ByTerminal(t.id)
	wait := m.opts.Deliver
	var d Delivery
	typed := false
	for d.Attempts < m.opts.Attempts {
		d.Attempts++
		screen, _ := m.opts.Terminals.Capture(ctx, t.pane, tmux.CaptureOptions{})
		// Type the text unless a previous attempt left it in the input
		// line (then only Enter is missing).
		if !typed || !strings.Contains(screen, firstLine(text)) {
			if err := m.typeText(ctx, t, text); err != nil {
				return d, err
			}
			typed = true
			// TUIs debounce input; Enter right after the text can be
			// taken as part of a paste.
			if err := sleep(ctx, 300*time.Millisecond); err != nil {
				return d, err
			}
		}
		pre, _ := m.opts.Terminals.Capture(ctx, t.pane, tmux.CaptureOptions{})
		// A question of the agent's own that came up meanwhile (a slow
		// start): Enter would answer it. Leave it to the user.
		if q := blocker(pre); q != "" {
			d.Reason = fmt.Sprintf("%s is asking %s; answer it in its terminal first", t.runtime, q)
			d.Screen = m.tail(ctx, t)
			return d, nil
		}
		if err := m.opts.Terminals.SendKeys(ctx, t.pane, "Enter"); err != nil {
			return d, fmt.Errorf("hosted: %w", err)
		}
		if by, ok := m.confirm(ctx, t, text, before, pre, wait); ok {
			d.Delivered, d.By = true, by
			return d, nil
		}
		wait = wait * 3 / 2
	}
	d.Reason = fmt.Sprintf("no sign of the message in %s after %d attempts", t.runtime, d.Attempts)
	d.Screen = m.tail(ctx, t)
	return d, nil
}

func (m *Manager) typeText(ctx context.Context, t *terminal, text string) error {
	var err error
	if strings.ContainsAny(text, "\n") {
		err = m.opts.Terminals.Paste(ctx, t.pane, text)
	} else {
		err = m.opts.Terminals.SendText(ctx, t.pane, text)
	}
	if err != nil {
		return fmt.Errorf("hosted: %w", err)
	}
	return nil
}

// confirm waits up to wait for evidence the agent took the text: its
// prompt hook carrying it, or a card that moved from an idle state into a
// turn since before.
//
// An agent whose hooks never reported (its card still connecting: hooks
// not installed for it) is judged by its screen instead: it changed after
// Enter and shows the text.
func (m *Manager) confirm(ctx context.Context, t *terminal, text string, before live.Card, pre string, wait time.Duration) (string, bool) {
	deadline := time.Now().Add(wait)
	want := clipCompare(text)
	for time.Now().Before(deadline) {
		c, ok := m.opts.Live.ByTerminal(t.id)
		if ok && c.LastEvent.After(before.LastEvent) && (c.LastPrompt != "" && strings.HasPrefix(want, clipCompare(c.LastPrompt)) ||
			c.State == hookstate.StatePrompting || c.State == hookstate.StateWorking) {
			return "hook", true
		}
		if !ok || c.LastEvent.IsZero() { // no hook ever came: hooks not installed
			if s, err := m.opts.Terminals.Capture(ctx, t.pane, tmux.CaptureOptions{}); err == nil && s != pre && strings.Contains(s, firstLine(text)) {
				return "screen", true
			}
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return "", false
		}
	}
	return "", false
}

// clipCompare normalises text for comparison with a hook's (clipped,
// whitespace-trimmed) prompt.
func clipCompare(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "…")
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(line) > 40 {
		line = line[:40]
		for !utf8.ValidString(line) {
			line = line[:len(line)-1]
		}
	}
	return line
}

// tailLines is how much of the screen a failed delivery shows.
const tailLines = 15

func (m *Manager) tail(ctx context.Context, t *terminal) string {
	s, err := m.opts.Terminals.Capture(context.WithoutCancel(ctx), t.pane, tmux.CaptureOptions{})
	if err != nil {
		return ""
	}
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-tailLines):], "\n")
}

// Keys presses keys in a hosted session: interrupt (C-c), Escape, and the
// key bar's keys (tmux's allowlist decides).
func (m *Manager) Keys(ctx context.Context, c live.Card, keys ...string) error {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return err
	}
	if err := m.opts.Terminals.SendKeys(ctx, t.pane, keys...); err != nil {
		if errors.Is(err, tmux.ErrBadKey) {
			return invalid("%v", err)
		}
		if errors.Is(err, tmux.ErrNoPane) || errors.Is(err, tmux.ErrNoServer) {
			return ErrGone
		}
		return err
	}
	return nil
}
