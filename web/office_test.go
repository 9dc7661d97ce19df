package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"paddock/internal/board"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

// The floor: sessions at work (and those asking mid-turn) at desks, the
// rest in the lounge, a session that ended long ago gone, a team member
// joined to its lead.
func TestOfficeLaysOutTheFloor(t *testing.T) {
	r := newRig(t)
	now := r.now
	entry := func(id string, st hookstate.State, at time.Time, parent string) board.Entry {
		c := live.Card{Key: session.Key{Runtime: "claude", ID: id}, State: st, Since: at, LastEvent: at}
		if parent != "" {
			c.Parent = session.Key{Runtime: "claude", ID: parent}
		}
		return board.Entry{Info: session.Info{Runtime: "claude", ID: id, Project: "p-" + id, Updated: at}, Card: &c}
	}
	es := []board.Entry{
		entry("lead", hookstate.StateWorking, now, ""),
		entry("member", hookstate.StateWorking, now.Add(-time.Second), "lead"),
		entry("asks", hookstate.StateApproval, now.Add(-2*time.Second), ""),
		entry("question", hookstate.StateInput, now.Add(-3*time.Second), ""),
		entry("yourturn", hookstate.StateWaiting, now.Add(-4*time.Second), ""),
		entry("justended", hookstate.StateEnded, now.Add(-5*time.Minute), ""),
		entry("longgone", hookstate.StateEnded, now.Add(-2*time.Hour), ""),
	}
	o := r.srv.office(es, board.Teams(es, now))
	where := map[string]string{}
	for _, a := range o.Agents {
		zone := "lounge"
		if a.Y < o.LoungeY {
			zone = "desk"
		}
		where[strings.TrimPrefix(a.Name, "p-")] = zone + ":" + a.State
		if !strings.Contains(a.Title, a.StateLabel) || a.StateLabel == "" {
			t.Errorf("%s: its state is not in words (%q, %q)", a.Name, a.Title, a.StateLabel)
		}
	}
	want := map[string]string{"lead": "desk:working", "member": "desk:working", "asks": "desk:approval", "question": "desk:input",
		"yourturn": "lounge:waiting", "justended": "lounge:ended"}
	if len(where) != len(want) {
		t.Fatalf("on the floor: %v, want %v", where, want)
	}
	for k, v := range want {
		if where[k] != v {
			t.Errorf("%s is %q, want %q", k, where[k], v)
		}
	}
	if len(o.Links) != 1 || len(o.Desks) != 4 {
		t.Fatalf("links %v, desks %d: want one team line and four desks", o.Links, len(o.Desks))
	}
}

// The office view is off by default; turned on in the settings, every
// open board gets it at once, and a state change then updates it along
// with the card.
func TestOfficeFollowsTheSettingLive(t *testing.T) {
	r := newRig(t)
	ts := r.tlsServer()
	tok := r.pair()
	if page := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(tok)).Body.String(); strings.Contains(page, `id="office"`) {
		t.Fatal("the office view is on by default")
	}
	ws, _, err := dialWS(t, ts, "/ws?view=board", ts.URL, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	readUntil(t, ws, `id="board"`)
	v := r.settings.Get()
	v.Office = true
	if err := r.settings.Set(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	frame := readUntil(t, ws, `id="office"`)
	if !strings.Contains(frame, `id="board"`) {
		t.Fatal("turning the office on did not send the whole board")
	}
	r.live.HookEvent(context.Background(), hookstate.Event{Runtime: "claude", SessionID: sessionA, Name: "UserPromptSubmit", Kind: hookstate.KindPrompt,
		Prompt: "to the desk", Cwd: projectPath, Relay: relay()})
	frame = readUntil(t, ws, `data-testid="office-agent" data-state="prompting"`)
	if strings.Contains(frame, `id="board" `) {
		t.Fatal("a state change sent the whole board")
	}
	if page := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(tok)).Body.String(); !strings.Contains(page, `id="office"`) {
		t.Fatal("the board page has no office view once it is on")
	}
}
