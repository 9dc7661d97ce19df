package decisions_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/decisions"
	"paddock/internal/session"
	"paddock/internal/store"
)

// wait is the generous deadline for anything that should happen at once.
const wait = 10 * time.Second

var (
	sessA = session.Key{Runtime: "claude", ID: "sess-a"}
	sessB = session.Key{Runtime: "claude", ID: "sess-b"}
)

func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "paddock.db")
	}
	s, err := store.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// run starts b.Run for the test's duration and checks it returns nil.
func run(t *testing.T, b *decisions.Broker) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(wait):
			t.Error("Run did not return after cancel")
		}
	})
}

func approval(k session.Key, toolUseID string) decisions.Item {
	return decisions.Item{
		Kind: decisions.KindApproval, Key: k, Tool: "Bash", ToolUseID: toolUseID,
		Input:       json.RawMessage(`{"command":"rm -rf build","description":"Clean <build> & go"}`),
		Suggestions: json.RawMessage(`[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"rm:*"}],"behavior":"allow","destination":"localSettings"}]`),
		Reason:      "Clean the build",
		Cwd:         "/home/u/api",
		Can:         []string{decisions.VerbAllow, decisions.VerbDeny, decisions.VerbAlways},
	}
}

func question(k session.Key) decisions.Item {
	return decisions.Item{
		Kind: decisions.KindQuestion, Key: k, Tool: "AskUserQuestion", ToolUseID: "toolu_q",
		Input: json.RawMessage(`{"questions":[]}`),
		Questions: []decisions.Question{
			{Question: "Which database?", Header: "DB", Options: []decisions.Option{{Label: "Postgres"}, {Label: "SQLite", Description: "embedded"}}},
			{Question: "Which extras?", Header: "Extras", MultiSelect: true, Options: []decisions.Option{{Label: "Auth"}, {Label: "Cache, LRU"}, {Label: "Metrics"}}},
		},
		Can: []string{decisions.VerbAnswer, decisions.VerbDeny},
	}
}

func open(t *testing.T, b *decisions.Broker, it decisions.Item) (decisions.Item, <-chan decisions.Outcome) {
	t.Helper()
	got, ch, err := b.Open(context.Background(), it)
	if err != nil {
		t.Fatal(err)
	}
	return got, ch
}

// outcome receives the one Outcome and checks the channel closes after it.
func outcome(t *testing.T, ch <-chan decisions.Outcome) decisions.Outcome {
	t.Helper()
	var o decisions.Outcome
	select {
	case got, ok := <-ch:
		if !ok {
			t.Fatal("outcome channel closed without an outcome")
		}
		o = got
	case <-time.After(wait):
		t.Fatal("no outcome")
	}
	select {
	case extra, ok := <-ch:
		if ok {
			t.Fatalf("second outcome %+v", extra)
		}
	case <-time.After(wait):
		t.Fatal("outcome channel not closed after its outcome")
	}
	return o
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met before the deadline")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// noOutcome checks that nothing has been delivered yet.
func noOutcome(t *testing.T, ch <-chan decisions.Outcome) {
	t.Helper()
	select {
	case o := <-ch:
		t.Fatalf("unexpected outcome %+v", o)
	default:
	}
}

func storedRow(t *testing.T, s *store.Store, id string) store.PendingItem {
	t.Helper()
	rows, err := s.PendingItems(context.Background(), time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("item %s not stored", id)
	return store.PendingItem{}
}

func auditFor(t *testing.T, s *store.Store, id string) []store.AuditEntry {
	t.Helper()
	all, err := s.AuditLog(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.AuditEntry
	for _, e := range all {
		if strings.Contains(e.Detail, "item="+id) {
			out = append(out, e)
		}
	}
	return out
}

func TestDecideEachVerb(t *testing.T) {
	tests := []struct {
		name     string
		item     decisions.Item
		decision decisions.Decision
		want     decisions.Resolution
		action   string
		message  string
		answers  map[string]string
	}{
		{name: "allow", item: approval(sessA, "t1"), decision: decisions.Decision{Verb: decisions.VerbAllow, Message: "ignored", By: "device:d1"},
			want: decisions.Allowed, action: "approval.allowed"},
		{name: "always", item: approval(sessA, "t1"), decision: decisions.Decision{Verb: decisions.VerbAlways, By: "token:k1"},
			want: decisions.Always, action: "approval.always"},
		{name: "deny with message", item: approval(sessA, "t1"), decision: decisions.Decision{Verb: decisions.VerbDeny, Message: "not on main", By: "device:d1"},
			want: decisions.Denied, action: "approval.denied", message: "not on main"},
		{name: "approve plan", item: decisions.Item{Kind: decisions.KindPlan, Key: sessA, Tool: "ExitPlanMode", Input: json.RawMessage(`{"plan":"# Plan"}`), Can: []string{"allow", "deny"}},
			decision: decisions.Decision{Verb: decisions.VerbAllow, By: "device:d1"}, want: decisions.Allowed, action: "plan.allowed"},
		{name: "answer options", item: question(sessA),
			decision: decisions.Decision{Verb: decisions.VerbAnswer, By: "device:d1", Answers: map[string]string{"Which database?": "SQLite", "Which extras?": "Metrics, Cache, LRU"}},
			want:     decisions.Answered, action: "question.answered", answers: map[string]string{"Which database?": "SQLite", "Which extras?": "Metrics, Cache, LRU"}},
		{name: "answer free text", item: func() decisions.Item { q := question(sessA); q.FreeText = true; return q }(),
			decision: decisions.Decision{Verb: decisions.VerbAnswer, By: "device:d1", Answers: map[string]string{"Which database?": "DuckDB,\nplease", "Which extras?": "none"}},
			want:     decisions.Answered, action: "question.answered", answers: map[string]string{"Which database?": "DuckDB,\nplease", "Which extras?": "none"}},
		{name: "deny a question", item: question(sessA), decision: decisions.Decision{Verb: decisions.VerbDeny, Message: "ask later", By: "device:d1"},
			want: decisions.Denied, action: "question.denied", message: "ask later"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, "")
			b := decisions.New(decisions.Options{Persist: s})
			it, ch := open(t, b, tc.item)
			if !strings.HasPrefix(it.ID, "itm_") || len(it.ID) != 36 || it.Created.IsZero() || !it.Waiting() {
				t.Fatalf("opened %+v", it)
			}
			if r := storedRow(t, s, it.ID); r.Resolution != "" || r.Kind != string(tc.item.Kind) || r.SessionID != sessA.ID {
				t.Fatalf("stored on open: %+v", r)
			}
			noOutcome(t, ch)

			got, err := b.Decide(context.Background(), it.ID, tc.decision)
			if err != nil {
				t.Fatal(err)
			}
			if got.Resolution != tc.want || got.ResolvedBy != tc.decision.By || got.ResolvedAt.IsZero() || got.Message != tc.message || !equalMaps(got.Answers, tc.answers) {
				t.Fatalf("decided %+v", got)
			}
			o := outcome(t, ch)
			if o.Item.Resolution != tc.want || o.Decision.Verb != tc.decision.Verb || o.Decision.By != tc.decision.By ||
				o.Decision.Message != tc.message || !equalMaps(o.Decision.Answers, tc.answers) {
				t.Fatalf("outcome %+v", o)
			}
			if !bytes.Equal(o.Item.Input, tc.item.Input) {
				t.Fatalf("outcome input %s, want %s", o.Item.Input, tc.item.Input)
			}
			if r := storedRow(t, s, it.ID); r.Resolution != string(tc.want) || r.ResolvedBy != tc.decision.By {
				t.Fatalf("stored after decision: %+v", r)
			}
			audit := auditFor(t, s, it.ID)
			if len(audit) != 1 || audit[0].Action != tc.action || audit[0].Actor != tc.decision.By {
				t.Fatalf("audit %+v, want one %s by %s", audit, tc.action, tc.decision.By)
			}
			if d := audit[0].Detail; strings.Contains(d, "rm -rf") || strings.Contains(d, "DuckDB") || !strings.Contains(d, "session="+sessA.String()) {
				t.Fatalf("audit detail %q: must name the session and never the input or answers", d)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

func TestDecideInvalid(t *testing.T) {
	long := strings.Repeat("x", decisions.MaxText+1)
	good := map[string]string{"Which database?": "Postgres", "Which extras?": "Auth"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for kk, vv := range good {
			m[kk] = vv
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name string
		item decisions.Item
		d    decisions.Decision
		want string
	}{
		{"verb not in Can", question(sessA), decisions.Decision{Verb: decisions.VerbAllow, By: "device:d1"}, "cannot take"},
		{"unknown verb", approval(sessA, "t1"), decisions.Decision{Verb: "maybe", By: "device:d1"}, "cannot take"},
		{"no decider", approval(sessA, "t1"), decisions.Decision{Verb: decisions.VerbAllow}, "who made it"},
		{"over-long message", approval(sessA, "t1"), decisions.Decision{Verb: decisions.VerbDeny, Message: long, By: "device:d1"}, "message is"},
		{"unknown question", question(sessA), decisions.Decision{Verb: decisions.VerbAnswer, By: "device:d1", Answers: with("Which colour?", "red")}, "does not ask"},
		{"missing answer", question(sessA), decisions.Decision{Verb: decisions.VerbAnswer, By: "device:d1", Answers: with("Which extras?", "")}, "question 2 is not answered"},
		{"blank answer", question(sessA), decisions.Decision{Verb: decisions.VerbAnswer, By: "device:d1", Answers: with("Which database?", "  ")}, "question 1 is not answered"},
		{"no answers", question(sessA), decisions.Decision{Verb: decisions.VerbAnswer, By: "device:d1"}, "not answered"},
		{"label not an option", question(sessA), decisions.Decision{Verb: decisions.VerbAnswer, By: "device:d1", Answers: with("Which database?", "DuckDB")}, "not one of"},
		{"multi-select label not an option", question(sessA), decisions.Decision{Verb: decisions.VerbAnswer, By: "device:d1", Answers: with("Which extras?", "Auth, Cache")}, "not one of"},
		{"multi-select bad separator", question(sessA), decisions.Decision{Verb: decisions.VerbAnswer, By: "device:d1", Answers: with("Which extras?", "Auth,Metrics")}, "not one of"},
		{"multi-select labels on single-select", question(sessA), decisions.Decision{Verb: decisions.VerbAnswer, By: "device:d1", Answers: with("Which database?", "Postgres, SQLite")}, "not one of"},
		{"over-long answer", func() decisions.Item { q := question(sessA); q.FreeText = true; return q }(), decisions.Decision{Verb: decisions.VerbAnswer, By: "device:d1", Answers: with("Which database?", long)}, "answer 1 is"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := decisions.New(decisions.Options{})
			it, ch := open(t, b, tc.item)
			_, err := b.Decide(context.Background(), it.ID, tc.d)
			if !errors.Is(err, decisions.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalid mentioning %q", err, tc.want)
			}
			if strings.Contains(err.Error(), long) {
				t.Fatal("error echoes the over-long value")
			}
			noOutcome(t, ch)
			if got, _ := b.Get(it.ID); !got.Waiting() {
				t.Fatalf("an invalid decision resolved the item: %+v", got)
			}
		})
	}
	b := decisions.New(decisions.Options{})
	if _, err := b.Decide(context.Background(), "itm_nope", decisions.Decision{Verb: "allow", By: "x"}); !errors.Is(err, decisions.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestOpenInvalid(t *testing.T) {
	edit := func(base decisions.Item, f func(*decisions.Item)) decisions.Item { f(&base); return base }
	manyOptions := make([]decisions.Option, decisions.MaxOptions+1)
	for i := range manyOptions {
		manyOptions[i].Label = fmt.Sprint("o", i)
	}
	manyQuestions := make([]decisions.Question, decisions.MaxQuestions+1)
	for i := range manyQuestions {
		manyQuestions[i] = decisions.Question{Question: fmt.Sprint("q", i), Options: []decisions.Option{{Label: "a"}}}
	}
	tests := []struct {
		name string
		item decisions.Item
		want string
	}{
		{"unknown kind", edit(approval(sessA, ""), func(it *decisions.Item) { it.Kind = "poll" }), "unknown kind"},
		{"no session", edit(approval(sessA, ""), func(it *decisions.Item) { it.Key = session.Key{Runtime: "claude"} }), "no session"},
		{"input too big", edit(approval(sessA, ""), func(it *decisions.Item) {
			it.Input = json.RawMessage(`"` + strings.Repeat("a", decisions.MaxInput) + `"`)
		}), "input is"},
		{"input not JSON", edit(approval(sessA, ""), func(it *decisions.Item) { it.Input = json.RawMessage(`{"command":`) }), "not valid JSON"},
		{"no verbs", edit(approval(sessA, ""), func(it *decisions.Item) { it.Can = nil }), "accepts no verb"},
		{"unknown verb", edit(approval(sessA, ""), func(it *decisions.Item) { it.Can = []string{"allow", "snooze"} }), "unknown verb"},
		{"answer on approval", edit(approval(sessA, ""), func(it *decisions.Item) { it.Can = []string{"answer"} }), "only a question"},
		{"already resolved", edit(approval(sessA, ""), func(it *decisions.Item) { it.Resolution = decisions.Allowed }), "must be pending"},
		{"question without questions", edit(question(sessA), func(it *decisions.Item) { it.Questions = nil }), "no questions"},
		{"too many questions", edit(question(sessA), func(it *decisions.Item) { it.Questions = manyQuestions }), "over the limit"},
		{"too many options", edit(question(sessA), func(it *decisions.Item) { it.Questions[0].Options = manyOptions }), "over the limit"},
		{"repeated question", edit(question(sessA), func(it *decisions.Item) {
			it.Questions = append(it.Questions, decisions.Question{Question: "Which database?", Options: []decisions.Option{{Label: "x"}}})
		}), "repeats"},
		{"no options, no free text", edit(question(sessA), func(it *decisions.Item) { it.Questions[0].Options = nil }), "no options"},
		{"over-long label", edit(question(sessA), func(it *decisions.Item) {
			it.Questions[0].Options = []decisions.Option{{Label: strings.Repeat("l", decisions.MaxText+1)}}
		}), "label is"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := decisions.New(decisions.Options{})
			_, ch, err := b.Open(context.Background(), tc.item)
			if !errors.Is(err, decisions.ErrInvalid) || !strings.Contains(err.Error(), tc.want) || ch != nil {
				t.Fatalf("err = %v, want ErrInvalid mentioning %q", err, tc.want)
			}
			if n := len(b.List(decisions.Filter{})); n != 0 {
				t.Fatalf("an invalid item was listed (%d)", n)
			}
		})
	}

	b := decisions.New(decisions.Options{})
	it, _ := open(t, b, approval(sessA, ""))
	dup := approval(sessA, "")
	dup.ID = it.ID
	if _, _, err := b.Open(context.Background(), dup); !errors.Is(err, decisions.ErrInvalid) {
		t.Fatalf("duplicate id: %v", err)
	}
}

// Fifty devices decide at once: one wins, every other learns it lost and
// how, and the hook hears exactly once.
func TestConcurrentDecisionsExactlyOnce(t *testing.T) {
	s := openStore(t, "")
	b := decisions.New(decisions.Options{Persist: s})
	it, ch := open(t, b, approval(sessA, "t1"))

	const n = 50
	type result struct {
		d   decisions.Decision
		it  decisions.Item
		err error
	}
	results := make([]result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		d := decisions.Decision{Verb: []string{"allow", "deny", "always"}[i%3], Message: "no", By: fmt.Sprintf("device:d%d", i)}
		wg.Go(func() {
			<-start
			got, err := b.Decide(context.Background(), it.ID, d)
			results[i] = result{d, got, err}
		})
	}
	close(start)
	wg.Wait()

	var winner *result
	for i := range results {
		if results[i].err == nil {
			if winner != nil {
				t.Fatalf("two winners: %s and %s", winner.d.By, results[i].d.By)
			}
			winner = &results[i]
		}
	}
	if winner == nil {
		t.Fatal("no decision won")
	}
	for _, r := range results {
		if r.err == nil {
			continue
		}
		var re *decisions.ResolvedError
		if !errors.As(r.err, &re) {
			t.Fatalf("loser %s got %v, want *ResolvedError", r.d.By, r.err)
		}
		if re.Item.Resolution != winner.it.Resolution || re.Item.ResolvedBy != winner.d.By {
			t.Fatalf("loser told %s by %s, winner was %s by %s", re.Item.Resolution, re.Item.ResolvedBy, winner.it.Resolution, winner.d.By)
		}
		if !strings.HasPrefix(r.err.Error(), "already answered here") {
			t.Fatalf("loser's message %q", r.err)
		}
	}
	o := outcome(t, ch)
	if o.Decision.By != winner.d.By || o.Item.Resolution != winner.it.Resolution {
		t.Fatalf("hook heard %+v, winner %+v", o, winner.it)
	}
	if r := storedRow(t, s, it.ID); r.Resolution != string(winner.it.Resolution) || r.ResolvedBy != winner.d.By {
		t.Fatalf("stored %+v", r)
	}
	if a := auditFor(t, s, it.ID); len(a) != 1 {
		t.Fatalf("%d audit entries, want 1", len(a))
	}
}

// The user answers at the desk while the phone decides: one or the other,
// never both, and the hook hears once.
func TestDeskRacesPhone(t *testing.T) {
	s := openStore(t, "")
	b := decisions.New(decisions.Options{Persist: s})
	for round := range 20 {
		it, ch := open(t, b, approval(sessA, fmt.Sprint("t", round)))
		start := make(chan struct{})
		var (
			wg       sync.WaitGroup
			decided  decisions.Item
			phoneErr error
			desk     []decisions.Item
		)
		wg.Go(func() {
			<-start
			decided, phoneErr = b.Decide(context.Background(), it.ID, decisions.Decision{Verb: "allow", By: "device:d1"})
		})
		wg.Go(func() {
			<-start
			desk = b.ReleaseSession(context.Background(), sessA, it.ToolUseID, decisions.Desk, "")
		})
		close(start)
		wg.Wait()

		o := outcome(t, ch)
		var re *decisions.ResolvedError
		switch {
		case phoneErr == nil && len(desk) == 0:
			if o.Item.Resolution != decisions.Allowed || decided.Resolution != decisions.Allowed {
				t.Fatalf("round %d: phone won but hook heard %s", round, o.Item.Resolution)
			}
		case errors.As(phoneErr, &re) && len(desk) == 1:
			if o.Item.Resolution != decisions.Desk || desk[0].ResolvedBy != "desk" || re.Error() != "answered at the desk" {
				t.Fatalf("round %d: desk won but hook heard %s, phone told %q", round, o.Item.Resolution, re)
			}
		default:
			t.Fatalf("round %d: phone err %v, desk released %d", round, phoneErr, len(desk))
		}
		if r := storedRow(t, s, it.ID); r.Resolution != string(o.Item.Resolution) {
			t.Fatalf("round %d: stored %s, hook heard %s", round, r.Resolution, o.Item.Resolution)
		}
	}
}

func TestExpiryViaRun(t *testing.T) {
	s := openStore(t, "")
	b := decisions.New(decisions.Options{Persist: s})
	run(t, b)
	it := approval(sessA, "t1")
	it.Expires = time.Now().Add(50 * time.Millisecond)
	it, ch := open(t, b, it)
	// Another item without expiry stays pending.
	other, otherCh := open(t, b, approval(sessB, "t2"))

	o := outcome(t, ch)
	if o.Item.Resolution != decisions.Expired || o.Item.ResolvedBy != "paddock" || o.Decision.Verb != "" {
		t.Fatalf("outcome %+v", o)
	}
	_, err := b.Decide(context.Background(), it.ID, decisions.Decision{Verb: "allow", By: "device:d1"})
	var re *decisions.ResolvedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("decide after expiry: %v", err)
	}
	// Run records the expiry just after the hook hears it.
	eventually(t, func() bool {
		a := auditFor(t, s, it.ID)
		return storedRow(t, s, it.ID).Resolution == "expired" && len(a) == 1 && a[0].Action == "approval.expired" && a[0].Actor == "paddock"
	})
	noOutcome(t, otherCh)
	if got, _ := b.Get(other.ID); !got.Waiting() {
		t.Fatalf("item without expiry resolved: %+v", got)
	}
}

// paddock dies with items pending; the next run expires them (their hooks
// are gone) and keeps what was decided.
func TestRestoreAfterCrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paddock.db")
	s1 := openStore(t, path)
	b1 := decisions.New(decisions.Options{Persist: s1})
	left, _ := open(t, b1, approval(sessA, "t1"))
	q, _ := open(t, b1, question(sessA))
	if _, err := b1.Decide(context.Background(), q.ID, decisions.Decision{Verb: "answer", By: "device:d1",
		Answers: map[string]string{"Which database?": "Postgres", "Which extras?": "Auth, Metrics"}}); err != nil {
		t.Fatal(err)
	}
	s1.Close() // the crash: b1 is never heard from again

	s2 := openStore(t, path)
	b2 := decisions.New(decisions.Options{Persist: s2})
	updates, stop := b2.Subscribe()
	defer stop()
	if err := b2.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}

	got, ok := b2.Get(left.ID)
	if !ok || got.Resolution != decisions.Expired || got.ResolvedBy != "paddock" {
		t.Fatalf("left pending, after restore: %+v", got)
	}
	if !bytes.Equal(got.Input, left.Input) || got.Key != left.Key || got.Tool != left.Tool || !got.Created.Equal(left.Created) || got.Reason != left.Reason {
		t.Fatalf("restored item lost its fields: %+v", got)
	}
	select {
	case u := <-updates:
		if u.ID != left.ID || u.Resolution != decisions.Expired {
			t.Fatalf("published %+v", u)
		}
	case <-time.After(wait):
		t.Fatal("restore published nothing")
	}
	if _, err := b2.Decide(context.Background(), left.ID, decisions.Decision{Verb: "allow", By: "device:d1"}); !strings.Contains(fmt.Sprint(err), "expired") {
		t.Fatalf("decide after restart: %v", err)
	}
	if r := storedRow(t, s2, left.ID); r.Resolution != "expired" {
		t.Fatalf("stored %+v", r)
	}

	// A new broker again: the expiry and the answer are both remembered.
	b3 := decisions.New(decisions.Options{Persist: s2})
	if err := b3.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	list := b3.List(decisions.Filter{Key: sessA})
	if len(list) != 2 || list[0].ID != q.ID || list[1].ID != left.ID {
		t.Fatalf("list after restart %+v", list)
	}
	ans := list[0]
	if ans.Resolution != decisions.Answered || ans.ResolvedBy != "device:d1" || ans.Answers["Which extras?"] != "Auth, Metrics" ||
		len(ans.Questions) != 2 || ans.Questions[1].Options[1].Label != "Cache, LRU" || !ans.Questions[1].MultiSelect {
		t.Fatalf("answered question after restart %+v", ans)
	}
	if list[1].Resolution != decisions.Expired {
		t.Fatalf("expired item after restart %+v", list[1])
	}
	if len(b3.List(decisions.Filter{PendingOnly: true})) != 0 {
		t.Fatal("pending items after restart")
	}
	if a := auditFor(t, s2, left.ID); len(a) != 1 {
		t.Fatalf("expiry audited %d times, want once", len(a))
	}
}

func TestSubscribeSeesOpenAndResolve(t *testing.T) {
	b := decisions.New(decisions.Options{})
	ch, stop := b.Subscribe()
	defer stop()
	it, _ := open(t, b, approval(sessA, "t1"))
	if _, err := b.Decide(context.Background(), it.ID, decisions.Decision{Verb: "deny", Message: "no", By: "device:d1"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []decisions.Resolution{decisions.Pending, decisions.Denied} {
		select {
		case got := <-ch:
			if got.ID != it.ID || got.Resolution != want {
				t.Fatalf("got %s %q, want %s %q", got.ID, got.Resolution, it.ID, want)
			}
		case <-time.After(wait):
			t.Fatalf("no update for %q", want)
		}
	}
}

func TestReleaseSessionScope(t *testing.T) {
	b := decisions.New(decisions.Options{})
	a1, a1ch := open(t, b, approval(sessA, "t1"))
	a2, _ := open(t, b, approval(sessA, "t2"))
	aq, _ := open(t, b, question(sessA))
	b1, b1ch := open(t, b, approval(sessB, "t1"))
	otherRuntime, _ := open(t, b, approval(session.Key{Runtime: "codex", ID: sessA.ID}, "t1"))

	got := b.ReleaseSession(context.Background(), sessA, "t1", decisions.Desk, "")
	if len(got) != 1 || got[0].ID != a1.ID || got[0].Resolution != decisions.Desk || got[0].ResolvedBy != "desk" {
		t.Fatalf("released %+v, want only %s", got, a1.ID)
	}
	if o := outcome(t, a1ch); o.Item.Resolution != decisions.Desk {
		t.Fatalf("outcome %+v", o)
	}

	got = b.ReleaseSession(context.Background(), sessA, "", decisions.Withdrawn, "")
	if len(got) != 2 || got[0].ID != a2.ID || got[1].ID != aq.ID || got[0].Resolution != decisions.Withdrawn || got[0].ResolvedBy != "paddock" {
		t.Fatalf("released %+v, want %s and %s", got, a2.ID, aq.ID)
	}
	for _, id := range []string{b1.ID, otherRuntime.ID} {
		if it, _ := b.Get(id); !it.Waiting() {
			t.Fatalf("another session's item was released: %+v", it)
		}
	}
	noOutcome(t, b1ch)
	if got := b.ReleaseSession(context.Background(), sessA, "", decisions.Desk, ""); len(got) != 0 {
		t.Fatalf("released twice: %+v", got)
	}
	if got := b.ReleaseSession(context.Background(), sessB, "", decisions.Allowed, "x"); len(got) != 0 {
		t.Fatal("ReleaseSession took a resolution only a decision makes")
	}
}

func TestReleaseOnce(t *testing.T) {
	s := openStore(t, "")
	b := decisions.New(decisions.Options{Persist: s})
	it, ch := open(t, b, approval(sessA, "t1"))
	if _, ok := b.Release(context.Background(), it.ID, decisions.Allowed, "device:d1"); ok {
		t.Fatal("Release took Allowed")
	}
	got, ok := b.Release(context.Background(), it.ID, decisions.Withdrawn, "")
	if !ok || got.Resolution != decisions.Withdrawn || got.ResolvedBy != "paddock" {
		t.Fatalf("release %+v %v", got, ok)
	}
	if o := outcome(t, ch); o.Item.Resolution != decisions.Withdrawn {
		t.Fatalf("outcome %+v", o)
	}
	again, ok := b.Release(context.Background(), it.ID, decisions.Desk, "")
	if ok || again.Resolution != decisions.Withdrawn {
		t.Fatalf("second release %+v %v", again, ok)
	}
	if _, ok := b.Release(context.Background(), "itm_nope", decisions.Desk, ""); ok {
		t.Fatal("released an unknown item")
	}
	_, err := b.Decide(context.Background(), it.ID, decisions.Decision{Verb: "allow", By: "device:d1"})
	if err == nil || err.Error() != "withdrawn: the agent stopped waiting" {
		t.Fatalf("decide after withdrawal: %v", err)
	}
	if a := auditFor(t, s, it.ID); len(a) != 1 || a[0].Action != "approval.withdrawn" {
		t.Fatalf("audit %+v", a)
	}
}

// A store that cannot write refuses the decision rather than tell the
// agent what no record will show: the hook hears nothing, the item waits
// on, and no item is opened that could not be decided.
func TestStoreFailureRefusesDecision(t *testing.T) {
	s := openStore(t, "")
	b := decisions.New(decisions.Options{Persist: s})
	it, ch := open(t, b, approval(sessA, "t1"))
	s.Close()
	got, err := b.Decide(context.Background(), it.ID, decisions.Decision{Verb: "allow", By: "device:d1"})
	if !errors.Is(err, decisions.ErrNotRecorded) {
		t.Fatalf("decide with a closed store: %s %v, want ErrNotRecorded", got.Resolution, err)
	}
	noOutcome(t, ch)
	if now, ok := b.Get(it.ID); !ok || !now.Waiting() {
		t.Fatalf("after the refusal the item is %q, want it waiting", now.Resolution)
	}
	if _, _, err := b.Open(context.Background(), approval(sessA, "t2")); !errors.Is(err, decisions.ErrNotRecorded) {
		t.Fatalf("open with a closed store: %v, want ErrNotRecorded", err)
	}
	// A release needs no record to be delivered: no decision is what the
	// agent's own prompt takes anyway.
	if _, ok := b.Release(context.Background(), it.ID, decisions.Withdrawn, ""); !ok {
		t.Fatal("release with a closed store")
	}
	if o := outcome(t, ch); o.Item.Resolution != decisions.Withdrawn {
		t.Fatalf("outcome %s", o.Item.Resolution)
	}
}

// A cancelled request still records its decision.
func TestDecisionRecordedDespiteCancelledRequest(t *testing.T) {
	s := openStore(t, "")
	b := decisions.New(decisions.Options{Persist: s})
	it, _ := open(t, b, approval(sessA, "t1"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Decide(ctx, it.ID, decisions.Decision{Verb: "deny", By: "device:d1"}); err != nil {
		t.Fatal(err)
	}
	if r := storedRow(t, s, it.ID); r.Resolution != "denied" {
		t.Fatalf("stored %+v", r)
	}
}

func TestCopiesAreIndependent(t *testing.T) {
	b := decisions.New(decisions.Options{})
	in := question(sessA)
	it, ch := open(t, b, in)
	in.Input[0] = 'X'
	in.Questions[0].Options[0].Label = "changed"
	it.Input[1] = 'Y'
	it.Questions[0].Question = "changed"
	it.Can[0] = "deny"

	answers := map[string]string{"Which database?": "Postgres", "Which extras?": "Auth"}
	if _, err := b.Decide(context.Background(), it.ID, decisions.Decision{Verb: "answer", Answers: answers, By: "device:d1"}); err != nil {
		t.Fatal(err)
	}
	answers["Which database?"] = "changed"
	o := outcome(t, ch)
	o.Item.Answers["Which extras?"] = "changed"
	o.Decision.Answers["Which extras?"] = "changed"

	got, _ := b.Get(it.ID)
	if string(got.Input) != `{"questions":[]}` || got.Questions[0].Question != "Which database?" ||
		got.Questions[0].Options[0].Label != "Postgres" || got.Can[0] != "answer" ||
		got.Answers["Which database?"] != "Postgres" || got.Answers["Which extras?"] != "Auth" {
		t.Fatalf("stored item was changed through a copy: %+v", got)
	}
	list := b.List(decisions.Filter{})
	list[0].Answers["Which database?"] = "changed"
	if got, _ := b.Get(it.ID); got.Answers["Which database?"] != "Postgres" {
		t.Fatal("List handed out shared answers")
	}
}

func TestListFilterAndOrder(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); now = now.Add(time.Second); return now }
	b := decisions.New(decisions.Options{Now: clock})
	a1, _ := open(t, b, approval(sessA, "t1"))
	q, _ := open(t, b, question(sessA))
	b1, _ := open(t, b, approval(sessB, "t1"))
	a1, err := b.Decide(context.Background(), a1.ID, decisions.Decision{Verb: "allow", By: "device:d1"})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(items []decisions.Item) string {
		var s []string
		for _, it := range items {
			s = append(s, it.ID)
		}
		return strings.Join(s, " ")
	}
	tests := []struct {
		name string
		f    decisions.Filter
		want []string
	}{
		{"all, newest first", decisions.Filter{}, []string{b1.ID, q.ID, a1.ID}},
		{"pending only", decisions.Filter{PendingOnly: true}, []string{b1.ID, q.ID}},
		{"questions", decisions.Filter{Kind: decisions.KindQuestion}, []string{q.ID}},
		{"approvals of session A", decisions.Filter{Kind: decisions.KindApproval, Key: sessA}, []string{a1.ID}},
		{"runtime only", decisions.Filter{Key: session.Key{Runtime: "claude"}, Limit: 2}, []string{b1.ID, q.ID}},
		{"limit", decisions.Filter{Limit: 1}, []string{b1.ID}},
		{"resolved at the bound", decisions.Filter{ResolvedSince: a1.ResolvedAt}, []string{b1.ID, q.ID, a1.ID}},
		// b1 and q were created before the bound: waiting items pass whatever their age.
		{"resolved before the bound", decisions.Filter{ResolvedSince: a1.ResolvedAt.Add(time.Second)}, []string{b1.ID, q.ID}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(b.List(tc.f)); got != strings.Join(tc.want, " ") {
				t.Fatalf("got %s\nwant %s", got, strings.Join(tc.want, " "))
			}
		})
	}
}
