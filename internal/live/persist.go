package live

import (
	"context"
	"encoding/json"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/session"
	"paddock/internal/store"
)

// Persister keeps cards across restarts (the store).
type Persister interface {
	SaveLiveCards(ctx context.Context, cards []store.LiveCard, gone [][2]string) error
	LiveCards(ctx context.Context) ([]store.LiveCard, error)
	PruneLiveCards(ctx context.Context, before time.Time) (int64, error)
}

// Persistence timings.
const (
	saveEvery = 2 * time.Second
	// keepEnded is how long an ended or asleep card is kept (in memory and
	// on disk) after it ended; its history stays readable in the catalog.
	keepEnded = 24 * time.Hour
	// keepSaved drops saved cards not touched for this long at start-up.
	keepSaved = 7 * 24 * time.Hour
)

// savedCard is a card as persisted: the machine's own snapshot plus what
// live keeps beside it.
type savedCard struct {
	Machine    hookstate.Snapshot `json:"machine"`
	Cwd        string             `json:"cwd,omitempty"`
	Transcript string             `json:"transcript,omitempty"`
	Model      string             `json:"model,omitempty"`
	Prompt     string             `json:"prompt,omitempty"`
	PID        int                `json:"pid,omitempty"`
	PPID       int                `json:"ppid,omitempty"`
	TTY        string             `json:"tty,omitempty"`
	Terminal   string             `json:"terminal,omitempty"`
	TmuxPane   string             `json:"tmux_pane,omitempty"`
	TerminalID string             `json:"terminal_id,omitempty"`
	Parent     session.Key        `json:"parent,omitzero"`
	LastEvent  time.Time          `json:"last_event,omitzero"`
	Subagents  []Subagent         `json:"subagents,omitempty"`
	History    []Transition       `json:"history,omitempty"`
	Launch     json.RawMessage    `json:"launch,omitempty"`
	Name       string             `json:"name,omitempty"`
	Note       string             `json:"note,omitempty"`
	Freed      uint64             `json:"freed,omitempty"`
	Runs       []Run              `json:"runs,omitempty"`
}

// save encodes the cards of keys (those still tracked) and lists the gone
// ones, for the persister.
func (o *owner) save(keys map[session.Key]bool, now time.Time) (cards []store.LiveCard, gone [][2]string) {
	for k := range keys {
		mc, m := o.tracker.Get(k), o.meta[k]
		if mc == nil || m == nil || len(k.ID) > len(provisionalStart) && k.ID[:len(provisionalStart)] == provisionalStart {
			if mc == nil {
				gone = append(gone, [2]string{k.Runtime, k.ID})
			}
			continue
		}
		b, err := json.Marshal(savedCard{Machine: mc.Snapshot(), Cwd: m.cwd, Transcript: m.transcript, Model: m.model,
			Prompt: m.prompt, PID: m.pid, PPID: m.ppid, TTY: m.tty, Terminal: m.termKind, TmuxPane: m.tmuxPane,
			TerminalID: m.terminalID, Parent: m.parent, LastEvent: m.lastEvent, Subagents: m.subagents, History: m.history,
			Launch: m.launch, Name: m.name, Note: m.note, Freed: m.freed, Runs: m.runs})
		if err != nil {
			continue
		}
		cards = append(cards, store.LiveCard{Runtime: k.Runtime, ID: k.ID, Data: b, Saved: now})
	}
	return cards, gone
}

// restore brings back saved cards; a card that does not decode is skipped
// (and overwritten by the next save of that session).
func (o *owner) restore(cfg hookstate.Config, cards []store.LiveCard) (restored int) {
	for _, c := range cards {
		var sc savedCard
		if json.Unmarshal(c.Data, &sc) != nil {
			continue
		}
		m, err := hookstate.Restore(cfg, sc.Machine)
		if err != nil {
			continue
		}
		k := session.Key{Runtime: c.Runtime, ID: c.ID}
		if !o.tracker.Put(k, m) {
			continue
		}
		o.meta[k] = &meta{cwd: sc.Cwd, transcript: sc.Transcript, model: sc.Model, prompt: sc.Prompt,
			pid: sc.PID, ppid: sc.PPID, tty: sc.TTY, termKind: sc.Terminal, tmuxPane: sc.TmuxPane,
			terminalID: sc.TerminalID, parent: sc.Parent, lastEvent: sc.LastEvent,
			subagents: sc.Subagents, history: sc.History,
			launch: sc.Launch, name: sc.Name, note: sc.Note, freed: sc.Freed, runs: sc.Runs}
		restored++
	}
	return restored
}

// prune forgets cards that ended more than keepEnded ago.
func (o *owner) prune(now time.Time, u *update) {
	for _, k := range o.tracker.Keys() {
		mc := o.tracker.Get(k)
		if mc.State().Over() && now.Sub(mc.Since()) > keepEnded {
			o.tracker.Remove(k)
			delete(o.meta, k)
			u.drop(k)
		}
	}
}
