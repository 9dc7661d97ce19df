package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"paddock/internal/session"
)

func keysOf(infos []session.Info) []session.Key {
	out := make([]session.Key, 0, len(infos))
	for _, i := range infos {
		out = append(out, i.Key())
	}
	return out
}

func TestList(t *testing.T) {
	yes, no := true, false
	claude := newListScanner("claude",
		session.Info{ID: "c1", Title: "Fix the Login bug", Updated: t0.Add(3 * time.Minute), Live: true},
		session.Info{ID: "c2", Project: "~/api", Cwd: "/home/u/api", Updated: t0.Add(1 * time.Minute)},
		session.Info{ID: "c3", FirstPrompt: "Explain ÜBER parsing", Updated: t0}, // tie with codex x1
	)
	codex := newListScanner("codex",
		session.Info{ID: "x1", Title: "refactor", LastPrompt: "login", Updated: t0},
		session.Info{ID: "x2", Cwd: "/srv/LOGIN-service", Updated: t0.Add(2 * time.Minute), Live: true},
	)
	c := New(Options{}, claude, codex)
	c.Rescan(context.Background())

	tests := []struct {
		name   string
		filter Filter
		want   []session.Key
	}{
		{"all newest first, ties by key", Filter{},
			[]session.Key{key("claude", "c1"), key("codex", "x2"), key("claude", "c2"), key("claude", "c3"), key("codex", "x1")}},
		{"runtime", Filter{Runtime: "codex"}, []session.Key{key("codex", "x2"), key("codex", "x1")}},
		{"unknown runtime", Filter{Runtime: "pi"}, nil},
		{"live", Filter{Live: &yes}, []session.Key{key("claude", "c1"), key("codex", "x2")}},
		{"not live", Filter{Live: &no}, []session.Key{key("claude", "c2"), key("claude", "c3"), key("codex", "x1")}},
		// LastPrompt is not searched: x1 must not match "login".
		{"query title and cwd, any case", Filter{Query: "LoGiN"}, []session.Key{key("claude", "c1"), key("codex", "x2")}},
		{"query project", Filter{Query: "~/api"}, []session.Key{key("claude", "c2")}},
		{"query first prompt, non-ASCII case", Filter{Query: "über"}, []session.Key{key("claude", "c3")}},
		{"query surrounding space ignored", Filter{Query: "  refactor "}, []session.Key{key("codex", "x1")}},
		{"query does not span fields", Filter{Query: "api/home"}, nil}, // project "~/api" + cwd "/home/u/api"
		{"limit", Filter{Limit: 2}, []session.Key{key("claude", "c1"), key("codex", "x2")}},
		{"filters combine", Filter{Runtime: "claude", Live: &no, Limit: 1}, []session.Key{key("claude", "c2")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := keysOf(c.List(tt.filter))
			if !slices.Equal(got, tt.want) {
				t.Errorf("List(%+v) = %v, want %v", tt.filter, got, tt.want)
			}
		})
	}
}

func TestListReturnsCopies(t *testing.T) {
	c := New(Options{}, newListScanner("claude", info("claude", "a", t0)))
	c.Rescan(context.Background())
	got := c.List(Filter{})
	got[0].Title = "changed by a caller"
	if title := c.List(Filter{})[0].Title; title != "title a" {
		t.Fatalf("caller's edit leaked into the catalog: %q", title)
	}
}

func TestGet(t *testing.T) {
	var sessionCalls int
	old := session.Info{ID: "old", Title: "bookmarked", Updated: t0.Add(-24 * time.Hour)}
	fs := &fakeScanner{
		name: "claude",
		scanFn: func(context.Context, int, []string) ([]session.Info, error) {
			return []session.Info{info("claude", "new", t0)}, nil
		},
		sessionFn: func(_ context.Context, id string) (session.Info, error) {
			sessionCalls++
			if id == "old" {
				return old, nil // Runtime left empty: the catalog fills it
			}
			return session.Info{}, fmt.Errorf("lookup %s: %w", id, session.ErrNotFound)
		},
	}
	c := New(Options{}, fs)
	c.Rescan(context.Background())
	ctx := context.Background()

	tests := []struct {
		name      string
		key       session.Key
		wantTitle string
		wantErr   error
		wantCalls int // Session calls made by this Get
	}{
		{"listed: from the list", key("claude", "new"), "title new", nil, 0},
		{"not listed: from the scanner", key("claude", "old"), "bookmarked", nil, 1},
		{"scanner does not know it", key("claude", "nope"), "", session.ErrNotFound, 1},
		{"unknown runtime", key("pi", "new"), "", session.ErrNotFound, 0},
		{"empty id", key("claude", ""), "", session.ErrNotFound, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := sessionCalls
			got, err := c.Get(ctx, tt.key)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && (got.Title != tt.wantTitle || got.Key() != tt.key) {
				t.Errorf("got %v %q, want %v %q", got.Key(), got.Title, tt.key, tt.wantTitle)
			}
			if n := sessionCalls - before; n != tt.wantCalls {
				t.Errorf("Session called %d times, want %d", n, tt.wantCalls)
			}
		})
	}
}

// BenchmarkList measures a filtered List over a board of 1,000 sessions:
// the web layer calls it on every render, so it must stay cheap.
func BenchmarkList(b *testing.B) {
	var scanners []Scanner
	for r := range 5 {
		infos := make([]session.Info, 0, 200)
		for i := range 200 {
			infos = append(infos, session.Info{
				ID:          fmt.Sprintf("s%03d", i),
				Title:       fmt.Sprintf("Session %d about refactoring module %d", i, i%17),
				Project:     fmt.Sprintf("~/proj%d", i%13),
				Cwd:         fmt.Sprintf("/home/user/proj%d", i%13),
				FirstPrompt: fmt.Sprintf("please look at the failing test number %d in the parser", i),
				Updated:     t0.Add(time.Duration(r*200+i) * time.Second),
			})
		}
		scanners = append(scanners, newListScanner(fmt.Sprintf("rt%d", r), infos...))
	}
	c := New(Options{}, scanners...)
	c.Rescan(context.Background())
	if n := len(c.List(Filter{})); n != 1000 {
		b.Fatalf("listed %d, want 1000", n)
	}
	f := Filter{Query: "Module 3", Limit: 50}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.List(f)
	}
}
