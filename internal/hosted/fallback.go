package hosted

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"paddock/internal/decisions"
	"paddock/internal/live"
	"paddock/internal/screendialog"
	"paddock/internal/session"
	"paddock/internal/tmux"
)

// Items is what the screen fallback needs of the pending items (the
// broker): it opens an item for a dialog read off a hosted terminal's
// screen, and releases it when the dialog goes away on its own.
type Items interface {
	Open(ctx context.Context, it decisions.Item) (decisions.Item, <-chan decisions.Outcome, error)
	Release(ctx context.Context, id string, res decisions.Resolution, by string) (decisions.Item, bool)
	List(f decisions.Filter) []decisions.Item
}

// screenItem is a dialog being offered on the phone.
type screenItem struct {
	id     string
	dialog screendialog.Dialog
}

// fallback holds the dialogs offered per terminal id; guarded by its mutex.
type fallback struct {
	mu      sync.Mutex
	offered map[string]screenItem
}

// DefaultScreenEvery is how often the fallback reads the hosted screens.
const DefaultScreenEvery = time.Second

// screenHold bounds a dialog offered from the screen: the agent waits for
// ever, the card should not.
const screenHold = time.Hour

// WatchScreens is the fallback for hosted sessions paddock cannot answer
// through a hook: every interval it reads the screen of each hosted
// terminal whose agent has no hook channel for decisions — its recipe
// says its hooks cannot answer them (Recipe.ScreenApprovals), or its
// hooks never reported — and when it shows a dialog that agent's reader
// recognises (Options.Screens) and no hook item is waiting for that
// session, it offers the dialog on the phone. The answer is typed as keys
// only after a fresh capture shows the very same dialog; a dialog that
// went away is released as answered at the desk. It runs until ctx ends.
func (m *Manager) WatchScreens(ctx context.Context, items Items, interval time.Duration) error {
	if interval <= 0 {
		interval = DefaultScreenEvery
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			m.screensOnce(ctx, items, &wg)
		}
	}
}

// screenFallback reports whether a card's dialogs are read off its
// screen: its runtime's hooks cannot answer them (Recipe.ScreenApprovals),
// its hooks never reported at all, or they say it asks the user while
// nothing of it waits on the phone — the hook was not held (no device
// was watching) or its hold ran out, and the dialog went to the terminal.
// (While a hook's item is pending, screensOnce offers nothing.)
func (m *Manager) screenFallback(c live.Card) bool {
	return m.opts.Recipes[c.Key.Runtime].ScreenApprovals || c.LastEvent.IsZero() || c.State.NeedsUser()
}

func (m *Manager) screensOnce(ctx context.Context, items Items, wg *sync.WaitGroup) {
	m.mu.Lock()
	terms := make([]*terminal, 0, len(m.terms))
	for _, t := range m.terms {
		if !t.closing {
			terms = append(terms, t)
		}
	}
	m.mu.Unlock()
	for _, t := range terms {
		c, ok := m.opts.Live.ByTerminal(t.id)
		if !ok || !m.screenFallback(c) || c.State.Over() {
			continue
		}
		screen, err := m.opts.Terminals.Capture(ctx, t.pane, tmux.CaptureOptions{})
		if err != nil {
			continue
		}
		d, shown := m.opts.Screens.Detect(t.runtime, screen)
		m.fallback.mu.Lock()
		prev, offered := m.fallback.offered[t.id]
		m.fallback.mu.Unlock()
		if offered && (!shown || d.Fingerprint != prev.dialog.Fingerprint) {
			// Answered at the desk (or by the keys paddock sent).
			if _, ok := items.Release(ctx, prev.id, decisions.Desk, "desk"); ok {
				m.log.Info("screen dialog answered at the desk", "terminal", t.id, "item", prev.id)
			}
			m.fallback.mu.Lock()
			delete(m.fallback.offered, t.id)
			m.fallback.mu.Unlock()
			offered = false
		}
		if !shown || offered || len(items.List(decisions.Filter{Key: c.Key, PendingOnly: true})) > 0 {
			continue
		}
		it, outcome, err := items.Open(ctx, m.screenDialogItem(c.Key, c.Cwd, d))
		if err != nil {
			m.log.Warn("screen dialog not offered", "terminal", t.id, "error", err)
			continue
		}
		m.fallback.mu.Lock()
		if m.fallback.offered == nil {
			m.fallback.offered = map[string]screenItem{}
		}
		m.fallback.offered[t.id] = screenItem{id: it.ID, dialog: d}
		m.fallback.mu.Unlock()
		m.log.Info("screen dialog offered on the phone", "terminal", t.id, "item", it.ID, "kind", d.Kind)
		wg.Go(func() { m.answerScreen(ctx, t, it, d, outcome) })
	}
}

// screenDialogItem is the pending item of a dialog read off a screen.
func (m *Manager) screenDialogItem(k session.Key, cwd string, d screendialog.Dialog) decisions.Item {
	now := time.Now()
	it := decisions.Item{Kind: decisions.KindApproval, Key: k, Cwd: cwd, Tool: d.Tool, ToolUseID: "screen:" + d.Fingerprint,
		Created: now, Expires: now.Add(screenHold), Reason: "Read from its terminal: paddock answers by pressing the keys, after checking the dialog is still on screen."}
	if it.Tool == "" {
		it.Tool = "command"
	}
	if d.Kind == screendialog.Question {
		it.Kind, it.Tool, it.Can = decisions.KindQuestion, "question", []string{decisions.VerbAnswer, decisions.VerbDeny}
		q := decisions.Question{Question: d.Question}
		for i, o := range d.Options {
			if _, ok := m.opts.Screens.Keys(d, screendialog.VerbAnswer, i); ok {
				q.Options = append(q.Options, decisions.Option{Label: o})
			}
		}
		it.Questions = []decisions.Question{q}
		it.Input, _ = json.Marshal(map[string]any{"question": d.Question, "options": d.Options})
		return it
	}
	it.Input, _ = json.Marshal(map[string]any{"command": d.Command, "options": d.Options})
	for _, verb := range []string{decisions.VerbAllow, decisions.VerbDeny, decisions.VerbAlways} {
		if _, ok := m.opts.Screens.Keys(d, verb, 0); ok {
			it.Can = append(it.Can, verb)
		}
	}
	return it
}

// answerScreen waits for the phone's answer and types it — only into the
// very dialog the item describes.
func (m *Manager) answerScreen(ctx context.Context, t *terminal, it decisions.Item, d screendialog.Dialog, outcome <-chan decisions.Outcome) {
	var out decisions.Outcome
	select {
	case out = <-outcome:
	case <-ctx.Done():
		return
	}
	verb, choice := "", 0
	switch out.Item.Resolution {
	case decisions.Allowed:
		verb = screendialog.VerbAllow
	case decisions.Always:
		verb = screendialog.VerbAlways
	case decisions.Denied:
		verb = screendialog.VerbDeny
	case decisions.Answered:
		verb = screendialog.VerbAnswer
		if len(it.Questions) == 1 {
			choice = slices.Index(d.Options, out.Item.Answers[it.Questions[0].Question])
		}
	default:
		return // answered at the desk, expired
	}
	keys, ok := m.opts.Screens.Keys(d, verb, choice)
	if !ok {
		m.log.Warn("screen dialog answer has no keys", "item", it.ID, "verb", verb)
		return
	}
	screen, err := m.opts.Terminals.Capture(ctx, t.pane, tmux.CaptureOptions{})
	if err != nil || !m.opts.Screens.Matches(d, screen) {
		m.log.Warn("the dialog on screen changed; no keys sent", "item", it.ID, "terminal", t.id)
		return
	}
	if err := m.opts.Terminals.SendKeys(ctx, t.pane, keys...); err != nil {
		m.log.Warn("screen dialog answer not typed", "item", it.ID, "error", err)
		return
	}
	m.log.Info("screen dialog answered with keys", "item", it.ID, "terminal", t.id, "resolution", out.Item.Resolution)
}
