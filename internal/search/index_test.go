package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/session"
)

var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// fakeSource is a catalog in memory: sessions, their conversations, and
// the changes a test announces.
type fakeSource struct {
	mu    sync.Mutex
	infos map[session.Key]session.Info
	convs map[session.Key][]session.Message
	reads map[session.Key]int
	subs  []chan session.Change
}

func newSource() *fakeSource {
	return &fakeSource{infos: map[session.Key]session.Info{}, convs: map[session.Key][]session.Message{}, reads: map[session.Key]int{}}
}

func (f *fakeSource) WaitComplete(ctx context.Context) error { return nil }

func (f *fakeSource) All() []session.Info {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []session.Info
	for _, i := range f.infos {
		out = append(out, i)
	}
	slices.SortFunc(out, func(a, b session.Info) int { return b.Updated.Compare(a.Updated) })
	return out
}

func (f *fakeSource) Get(ctx context.Context, k session.Key) (session.Info, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, ok := f.infos[k]
	if !ok {
		return i, session.ErrNotFound
	}
	return i, nil
}

func (f *fakeSource) Subscribe() (<-chan session.Change, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan session.Change, 16)
	f.subs = append(f.subs, ch)
	return ch, func() {}
}

func (f *fakeSource) ReadConversation(ctx context.Context, k session.Key) ([]session.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads[k]++
	c, ok := f.convs[k]
	if !ok {
		return nil, session.ErrNotFound
	}
	return slices.Clone(c), nil
}

// set puts a session with its conversation, at minute min, and tells the
// subscribers.
func (f *fakeSource) set(k session.Key, cwd, title string, min int, texts ...string) {
	f.mu.Lock()
	var msgs []session.Message
	for i, t := range texts {
		role := session.RoleUser
		if i%2 == 1 {
			role = session.RoleAssistant
		}
		msgs = append(msgs, session.Message{Role: role, Text: t, Time: t0.Add(time.Duration(min)*time.Minute + time.Duration(i)*time.Second)})
	}
	f.infos[k] = session.Info{Runtime: k.Runtime, ID: k.ID, Cwd: cwd, Title: title, Updated: t0.Add(time.Duration(min) * time.Minute)}
	f.convs[k] = msgs
	subs := slices.Clone(f.subs)
	f.mu.Unlock()
	for _, ch := range subs {
		ch <- session.Change{Updated: []session.Key{k}}
	}
}

func (f *fakeSource) remove(k session.Key) {
	f.mu.Lock()
	delete(f.infos, k)
	delete(f.convs, k)
	subs := slices.Clone(f.subs)
	f.mu.Unlock()
	for _, ch := range subs {
		ch <- session.Change{Removed: []session.Key{k}}
	}
}

func (f *fakeSource) readsOf(k session.Key) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads[k]
}

// run opens the index at path over src and runs it until the test ends;
// it returns once the first build is done.
func run(t *testing.T, path string, src Source) *Index {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ix, err := Open(ctx, Options{Path: path, Source: src, Batch: 2})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = ix.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; ix.Close() })
	waitUntil(t, "the first build", func() bool { return ix.Progress().Ready })
	return ix
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func keys(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s#%d", h.Key, h.Seq))
	}
	return out
}

func search(t *testing.T, ix *Index, q Query) []string {
	t.Helper()
	hits, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return keys(hits)
}

var (
	kA = session.Key{Runtime: "claude", ID: "a"}
	kB = session.Key{Runtime: "codex", ID: "b"}
	kC = session.Key{Runtime: "claude", ID: "c"}
)

// TestSearch: every session is indexed; hits are the matching messages,
// best first, with the match marked; the filters narrow them.
func TestSearch(t *testing.T) {
	src := newSource()
	src.set(kA, "/home/u/api", "fix login", 10, "the login page fails with a 500", "I found the bug in the session middleware", "zanzibar is the code word")
	src.set(kB, "/home/u/web", "", 20, "deploy the web app", "Deployed; the login works now")
	src.set(kC, "/home/u/api", "docs", 30, "write the docs for login and logout")
	ix := run(t, filepath.Join(t.TempDir(), "search.db"), src)
	if p := ix.Progress(); p.Indexed != 3 || p.Total != 3 {
		t.Errorf("progress %+v", p)
	}
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{"a rare word", Query{Text: "zanzibar"}, []string{"claude:a#2"}},
		{"every word, any order", Query{Text: "middleware bug"}, []string{"claude:a#1"}},
		{"a phrase", Query{Text: `"login works"`}, []string{"codex:b#1"}},
		{"a phrase is not its words apart", Query{Text: `"works login"`}, nil},
		{"case and accents do not matter", Query{Text: "ZÁNZIBAR"}, []string{"claude:a#2"}},
		{"by agent", Query{Text: "login", Runtime: "codex"}, []string{"codex:b#1"}},
		{"by project name", Query{Text: "login", Project: "web"}, []string{"codex:b#1"}},
		{"by project path", Query{Text: "login", Project: "/home/u/api"}, nil}, // filled below
		{"inside one session", Query{Text: "login", Session: kC}, []string{"claude:c#0"}},
		{"since", Query{Text: "login", Since: t0.Add(25 * time.Minute)}, []string{"claude:c#0"}},
		{"until", Query{Text: "login", Until: t0.Add(15 * time.Minute)}, []string{"claude:a#0"}},
		{"only these sessions", Query{Text: "login", Only: []session.Key{kB}}, []string{"codex:b#1"}},
		{"only none", Query{Text: "login", Only: []session.Key{}}, nil},
		{"limit", Query{Text: "login", Limit: 1}, nil},                 // one hit, checked below
		{"every hit", Query{Text: "the"}, nil},                         // six, checked below
		{"one per session", Query{Text: "the", PerSession: true}, nil}, // three, checked below
		{"no match", Query{Text: "xylophone"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := search(t, ix, tc.q)
			switch tc.name {
			case "by project path":
				slices.Sort(got)
				tc.want = []string{"claude:a#0", "claude:c#0"}
			case "limit":
				if len(got) != 1 {
					t.Errorf("%d hits, want 1", len(got))
				}
				return
			case "every hit":
				if len(got) != 6 {
					t.Errorf("%d hits %q, want 6", len(got), got)
				}
				return
			case "one per session":
				var ks []string
				for _, g := range got {
					ks = append(ks, g[:strings.IndexByte(g, '#')])
				}
				slices.Sort(ks)
				if !slices.Equal(ks, []string{"claude:a", "claude:c", "codex:b"}) {
					t.Errorf("got %q, want one hit in each session", got)
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	hits, err := ix.Search(context.Background(), Query{Text: "middleware"})
	if err != nil || len(hits) != 1 {
		t.Fatalf("%v %v", hits, err)
	}
	h := hits[0]
	if h.Title != "fix login" || h.Cwd != "/home/u/api" || h.Role != session.RoleAssistant || !h.At.Equal(t0.Add(10*time.Minute+time.Second)) {
		t.Errorf("hit %+v", h)
	}
	var marked []string
	var whole strings.Builder
	for _, p := range h.Snippet {
		whole.WriteString(p.Text)
		if p.Match {
			marked = append(marked, p.Text)
		}
	}
	if whole.String() != "I found the bug in the session middleware" || !slices.Equal(marked, []string{"middleware"}) {
		t.Errorf("snippet %+v", h.Snippet)
	}
}

// TestSearchIsLiteral: nothing a user types is query syntax; a query with
// no word is a clear error, never a failure of the database.
func TestSearchIsLiteral(t *testing.T) {
	src := newSource()
	src.set(kA, "/p", "", 1, `run "make test" AND then NOT deploy: (carefully) *now* ^x -y col:val`)
	ix := run(t, filepath.Join(t.TempDir(), "search.db"), src)
	for _, q := range []string{`AND`, `NOT deploy`, `(carefully)`, `*now*`, `^x`, `-y`, `col:val`, `"make test"`, `"make test`, `deploy OR nothing`, `NEAR(a b)`, `'; DROP TABLE sessions; --`} {
		hits, err := ix.Search(context.Background(), Query{Text: q})
		if err != nil {
			t.Errorf("%q: %v", q, err)
			continue
		}
		want := 1
		if q == `deploy OR nothing` || q == `NEAR(a b)` || q == `'; DROP TABLE sessions; --` {
			want = 0 // every word must be there
		}
		if len(hits) != want {
			t.Errorf("%q: %d hits, want %d", q, len(hits), want)
		}
	}
	for _, q := range []string{"", "   ", `""`, `*`, `( )`, `-`} {
		if _, err := ix.Search(context.Background(), Query{Text: q}); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("%q: %v, want ErrEmptyQuery", q, err)
		}
	}
}

// TestIndexFollows: a grown session gets only its new messages; one whose
// beginning changed (a rewritten history) is indexed again whole; a
// removed one leaves; a session whose time did not change is not read.
func TestIndexFollows(t *testing.T) {
	src := newSource()
	src.set(kA, "/p", "", 1, "first prompt", "first answer")
	src.set(kB, "/p", "", 2, "other session")
	ix := run(t, filepath.Join(t.TempDir(), "search.db"), src)
	if ix.written.Load() != 3 {
		t.Fatalf("%d messages written by the build, want 3", ix.written.Load())
	}

	src.set(kA, "/p", "", 3, "first prompt", "first answer", "second prompt about kiwis", "second answer")
	waitUntil(t, "the appended turn", func() bool { return len(search(t, ix, Query{Text: "kiwis"})) == 1 })
	if got := search(t, ix, Query{Text: "kiwis"}); !slices.Equal(got, []string{"claude:a#2"}) {
		t.Errorf("got %q", got)
	}
	if w := ix.written.Load(); w != 5 {
		t.Errorf("%d messages written in all, want 5: the append wrote more than its 2", w)
	}
	if got := search(t, ix, Query{Text: "first"}); len(got) != 2 {
		t.Errorf("the first turn is there %d times, want twice (prompt, answer): %q", len(got), got)
	}

	src.set(kA, "/p", "", 4, "a rewritten start", "first answer")
	waitUntil(t, "the rewritten start", func() bool { return len(search(t, ix, Query{Text: "rewritten"})) == 1 })
	if got := search(t, ix, Query{Text: "kiwis"}); got != nil {
		t.Errorf("what the rewrite dropped is still found: %q", got)
	}

	src.remove(kB)
	waitUntil(t, "the removed session gone", func() bool { return len(search(t, ix, Query{Text: "other"})) == 0 })

	// Opened again over the same sessions, nothing is read.
	reads := src.readsOf(kA)
	path := ix.o.Path
	ix2 := run(t, path, src)
	if src.readsOf(kA) != reads || ix2.written.Load() != 0 {
		t.Errorf("reopened: %d more reads, %d messages written; want none", src.readsOf(kA)-reads, ix2.written.Load())
	}
	if got := search(t, ix2, Query{Text: "rewritten"}); !slices.Equal(got, []string{"claude:a#0"}) {
		t.Errorf("reopened: %q", got)
	}
}

// TestIndexOfAnotherVersion: a file of another schema is replaced, and
// built again.
func TestIndexOfAnotherVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "search.db")
	src := newSource()
	src.set(kA, "/p", "", 1, "hello kiwi")
	ix := run(t, path, src)
	if _, err := ix.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	ix2 := run(t, path, src)
	if got := search(t, ix2, Query{Text: "kiwi"}); !slices.Equal(got, []string{"claude:a#0"}) || ix2.written.Load() != 1 {
		t.Errorf("rebuilt: %q, %d written", got, ix2.written.Load())
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("index file %v %v, want mode 0600", fi, err)
	}
}

// TestSearchRanksACommonWordAmongTheNewest: a word in more messages than
// the window is ranked among the newest sessions' (sessions are numbered
// oldest first, also by the first build, which reads the newest first).
func TestSearchRanksACommonWordAmongTheNewest(t *testing.T) {
	src := newSource()
	var ks []session.Key
	for i := range 6 {
		k := session.Key{Runtime: "claude", ID: fmt.Sprintf("s%d", i)}
		ks = append(ks, k)
		// The oldest has the word most often: it would rank first.
		texts := []string{"common"}
		if i == 0 {
			texts = []string{"common common common", "common common"}
		}
		src.set(k, "/p", "", i, texts...)
	}
	ctx := context.Background()
	ix, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "search.db"), Source: src, Batch: 2, RankWindow: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	got := search(t, ix, Query{Text: "common"})
	slices.Sort(got)
	if want := []string{"claude:s3#0", "claude:s4#0", "claude:s5#0"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want the 3 newest sessions' %q", got, want)
	}
	// A later session takes the next number: it is the newest.
	src.set(session.Key{Runtime: "claude", ID: "s6"}, "/p", "", 9, "common")
	if _, err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	got = search(t, ix, Query{Text: "common"})
	slices.Sort(got)
	if want := []string{"claude:s4#0", "claude:s5#0", "claude:s6#0"}; !slices.Equal(got, want) {
		t.Errorf("after a new session: got %q, want %q", got, want)
	}
	// Under the window everything is ranked: the oldest's is best.
	if got := search(t, ix, Query{Text: "common", Session: ks[0]}); len(got) != 2 || got[0] != "claude:s0#0" {
		t.Errorf("inside one session: %q", got)
	}
}

// recordSource is a fakeSource that also reads records: each session's
// messages with the tool events set for it after them.
type recordSource struct {
	*fakeSource
	tools map[session.Key][]session.Event
}

func (r *recordSource) Events(ctx context.Context, k session.Key) ([]session.Event, error) {
	msgs, err := r.ReadConversation(ctx, k)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []session.Event
	for _, m := range msgs {
		out = append(out, session.Event{Kind: session.EventMessage, Role: m.Role, Text: m.Text, Time: m.Time})
	}
	return append(out, r.tools[k]...), nil
}

// TestIndexTools: with Tools, a tool's input and output are found too,
// as RoleTool hits opening the message they follow; more output appended
// writes only itself; opened without Tools, the index drops them; Tools
// over a source that reads no records is refused.
func TestIndexTools(t *testing.T) {
	src := &recordSource{fakeSource: newSource(), tools: map[session.Key][]session.Event{}}
	src.tools[kA] = []session.Event{
		{Kind: session.EventToolCall, Tool: "Bash", Input: `{"command":"make deploy-staging"}`},
		{Kind: session.EventToolResult, Text: "error: the zorblax certificate expired"},
	}
	src.set(kA, "/p", "", 1, "deploy it", "Deploying")
	path := filepath.Join(t.TempDir(), "search.db")
	ctx, cancel := context.WithCancel(context.Background())
	ix, err := Open(ctx, Options{Path: path, Source: src, Tools: true})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = ix.Run(ctx) }()
	waitUntil(t, "the first build", func() bool { return ix.Progress().Ready })
	hits, err := ix.Search(ctx, Query{Text: "zorblax"})
	if err != nil || len(hits) != 1 || hits[0].Role != RoleTool || hits[0].Seq != 1 || hits[0].Key != kA {
		t.Fatalf("tool output: %+v %v", hits, err)
	}
	if got := search(t, ix, Query{Text: "deploy-staging"}); len(got) != 1 {
		t.Errorf("the tool's input: %q", got)
	}
	written := ix.written.Load()
	src.mu.Lock()
	src.tools[kA] = append(src.tools[kA], session.Event{Kind: session.EventToolResult, Text: "renewed the quuxcert"})
	src.mu.Unlock()
	src.set(kA, "/p", "", 2, "deploy it", "Deploying")
	waitUntil(t, "the new output", func() bool { return len(search(t, ix, Query{Text: "quuxcert"})) == 1 })
	if w := ix.written.Load() - written; w != 1 {
		t.Errorf("the appended output wrote %d rows, want 1", w)
	}
	cancel()
	<-done
	ix.Close()

	plain := run(t, path, src)
	if got := search(t, plain, Query{Text: "zorblax"}); got != nil {
		t.Errorf("without Tools the tools' output is still found: %q", got)
	}
	if got := search(t, plain, Query{Text: "deploying"}); len(got) != 1 {
		t.Errorf("without Tools the messages: %q", got)
	}
	if _, err := Open(context.Background(), Options{Path: filepath.Join(t.TempDir(), "x.db"), Source: newSource(), Tools: true}); err == nil {
		t.Error("Tools over a source without records was accepted")
	}
}
