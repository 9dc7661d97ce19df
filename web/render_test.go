package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/board"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/markdown"
	"paddock/internal/session"
)

// panicHosting stands in for tmux: rendering a card or page must not call
// it (none of these cards has a terminal), so a call panics the test.
type panicHosting struct{ Hosting }

// TestEndedOneRule holds the board card, the session page and Delete to
// one verdict on whether a session is over, where the hooks and the
// process scan disagree.
func TestEndedOneRule(t *testing.T) {
	const cwd, path = "/work/demo-project", "/home/u/.claude/projects/x.jsonl"
	key := session.Key{Runtime: "claude", ID: sessionA}
	withCard := func(st hookstate.State, cardCwd string) *live.Card {
		return &live.Card{Key: key, State: st, Cwd: cardCwd}
	}
	tests := []struct {
		name       string
		info       session.Info
		card       *live.Card
		hosting    bool
		wantEnded  bool
		wantResume bool
		wantDelete bool
	}{
		{name: "scan only, ended", info: session.Info{Cwd: cwd, Path: path},
			hosting: true, wantEnded: true, wantResume: true, wantDelete: true},
		{name: "scan only, running", info: session.Info{Cwd: cwd, Path: path, Live: true},
			hosting: true},
		// SessionEnd has arrived; the scan still sees the exiting agent.
		{name: "hooks ended, scan live", info: session.Info{Cwd: cwd, Path: path, Live: true}, card: withCard(hookstate.StateEnded, cwd),
			hosting: true, wantEnded: true, wantResume: true, wantDelete: true},
		{name: "hooks asleep, scan live", info: session.Info{Cwd: cwd, Path: path, Live: true}, card: withCard(hookstate.StateAsleep, cwd),
			hosting: true, wantEnded: true, wantResume: true, wantDelete: true},
		// The hooks report a turn; the scan's snapshot has not caught up.
		{name: "hooks working, scan ended", info: session.Info{Cwd: cwd, Path: path}, card: withCard(hookstate.StateWorking, cwd),
			hosting: true},
		{name: "no directory to resume in", info: session.Info{Path: path},
			hosting: true, wantEnded: true, wantDelete: true},
		{name: "directory from the hooks", info: session.Info{Path: path}, card: withCard(hookstate.StateEnded, cwd),
			hosting: true, wantEnded: true, wantResume: true, wantDelete: true},
		{name: "no history file", info: session.Info{Cwd: cwd},
			hosting: true, wantEnded: true, wantResume: true},
		{name: "no hosting", info: session.Info{Cwd: cwd, Path: path},
			wantEnded: true, wantDelete: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Server{opts: Options{Agents: registry.Default(), Now: time.Now, Markdown: markdown.New()}}
			if tt.hosting {
				s.opts.Hosting = panicHosting{}
			}
			in := tt.info
			in.Runtime, in.ID = key.Runtime, key.ID
			e := board.Entry{Info: in, Card: tt.card, Hostable: tt.hosting}
			if got := e.Over(); got != tt.wantEnded {
				t.Errorf("ended = %v, want %v", got, tt.wantEnded)
			}
			c := s.card(e)
			if c.Live == tt.wantEnded || c.CanResume != tt.wantResume {
				t.Errorf("board card: Live %v CanResume %v, want Live %v CanResume %v", c.Live, c.CanResume, !tt.wantEnded, tt.wantResume)
			}
			v := s.sessionView(context.Background(), e, board.Recent{})
			if v.CanResume != tt.wantResume || v.CanDelete != tt.wantDelete {
				t.Errorf("page: CanResume %v CanDelete %v, want %v %v", v.CanResume, v.CanDelete, tt.wantResume, tt.wantDelete)
			}
		})
	}
}

func TestIsDomIDAgreesWithDomID(t *testing.T) {
	keys := []session.Key{
		{Runtime: "claude", ID: "0b5d4c2e-1111-4a2b-9c3d-aaaaaaaaaaaa"},
		{Runtime: "opencode", ID: "ses_01.JX/é"},
		{Runtime: "pi", ID: ""},
	}
	for _, k := range keys {
		for _, other := range keys {
			if got, want := isDomID(k, domID(other)), domID(k) == domID(other); got != want {
				t.Errorf("isDomID(%v, %q) = %v, want %v", k, domID(other), got, want)
			}
		}
		for _, bad := range []string{"", "card-", domID(k) + "x", strings.TrimSuffix(domID(k), domID(k)[len(domID(k))-1:]), "x" + domID(k)} {
			if isDomID(k, bad) {
				t.Errorf("isDomID(%v, %q) = true", k, bad)
			}
		}
	}
}
