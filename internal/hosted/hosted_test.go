package hosted

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"paddock/internal/agent/registry"
	"paddock/internal/launch"
	"paddock/internal/live"
	"paddock/internal/session"
)

func TestCheckRequests(t *testing.T) {
	dir := t.TempDir()
	m := &Manager{opts: Options{Recipes: registry.Default().Recipes(), LookPath: func(name string) (string, error) {
		if name == "claude" || name == "codex" {
			return "/opt/agents/" + name, nil
		}
		return "", exec.ErrNotFound
	}}}
	for _, tc := range []struct {
		name string
		req  Request
		want error
		msg  string
	}{
		{"ok", Request{Runtime: "claude", Workdir: dir, Prompt: "line one\n\tline two", PermissionMode: "plan"}, nil, ""},
		{"unknown runtime", Request{Runtime: "emacs", Workdir: dir}, ErrInvalid, "unknown agent"},
		{"not installed", Request{Runtime: "opencode", Workdir: dir}, ErrNotInstalled, "opencode"},
		{"relative workdir", Request{Runtime: "claude", Workdir: "proj"}, ErrInvalid, "absolute"},
		{"missing workdir", Request{Runtime: "claude", Workdir: dir + "/nope"}, ErrInvalid, "not an existing directory"},
		{"control character", Request{Runtime: "claude", Workdir: dir, Prompt: "hi\x1b[2J"}, ErrInvalid, "control character"},
		{"invalid UTF-8", Request{Runtime: "claude", Workdir: dir, Prompt: "\xff"}, ErrInvalid, "UTF-8"},
		{"too long", Request{Runtime: "claude", Workdir: dir, Prompt: strings.Repeat("x", MaxText+1)}, ErrInvalid, "KB"},
		{"mode of another agent", Request{Runtime: "codex", Workdir: dir, PermissionMode: "plan"}, ErrInvalid, "on-request"},
		{"model that is a flag", Request{Runtime: "claude", Workdir: dir, Model: "--dangerously-skip-permissions"}, ErrInvalid, "model"},
		{"effort", Request{Runtime: "claude", Workdir: dir, Effort: "max", Name: "  fix the build  "}, nil, ""},
		{"unknown effort", Request{Runtime: "claude", Workdir: dir, Effort: "ultra"}, ErrInvalid, "low, medium"},
		{"effort of an agent without", Request{Runtime: "codex", Workdir: dir, Effort: "max"}, ErrInvalid, "minimal"},
		{"name on two lines", Request{Runtime: "claude", Workdir: dir, Name: "a\nb"}, ErrInvalid, "one line"},
		{"name that is a flag", Request{Runtime: "claude", Workdir: dir, Name: "--print"}, ErrInvalid, "one line"},
		{"name too long", Request{Runtime: "claude", Workdir: dir, Name: strings.Repeat("n", maxName+1)}, ErrInvalid, "one line"},
		{"parent", Request{Runtime: "claude", Workdir: dir, Parent: "codex:th-1"}, nil, ""},
		{"parent without runtime", Request{Runtime: "claude", Workdir: dir, Parent: "th-1"}, ErrInvalid, "runtime:id"},
		{"parent of an unknown runtime", Request{Runtime: "claude", Workdir: dir, Parent: "vim:1"}, ErrInvalid, "runtime:id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, bin, err := m.check(&tc.req)
			if tc.want == nil {
				if err != nil || bin != "/opt/agents/claude" {
					t.Fatalf("check: %q %v", bin, err)
				}
				return
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("check: %v, want %v mentioning %q", err, tc.want, tc.msg)
			}
		})
	}
}

// TestCommandLine: hosted adds to a recipe's arguments only a port of
// paddock's choosing, for the CLI that serves its own API (the exact
// arguments of every runtime are pinned in internal/runtimes).
func TestCommandLine(t *testing.T) {
	recipes := registry.Default().Recipes()
	l := Launch{Runtime: "claude", PermissionMode: "default", Model: "sonnet", Effort: "high", Name: "api work"}
	argv, err := commandLine(recipes["claude"], "/b", recipes["claude"].Resume("s1", "/t.jsonl"), l)
	if want := "/b --resume s1 --permission-mode default --model sonnet --effort high --name api work"; err != nil || strings.Join(argv, " ") != want {
		t.Fatalf("claude argv %q %v\nwant %s", argv, err, want)
	}
	argv, err = commandLine(recipes["opencode"], "/b", recipes["opencode"].Resume("ses_1", ""), Launch{Model: "m"})
	if err != nil || len(argv) != 7 || argv[3] != "--port" || argv[5] != "--model" {
		t.Fatalf("opencode argv %q %v", argv, err)
	}
	if port, err := strconv.Atoi(argv[4]); err != nil || port <= 0 || port > 65535 {
		t.Fatalf("opencode port %q", argv[4])
	}
	if id := newUUID(); len(id) != 36 || id[14] != '4' {
		t.Fatalf("uuid %q", id)
	}
}

// TestSavedLaunchDecodes: a card's launch is stored in SQLite, so the
// encoding written by earlier versions must still decode, and what is
// written must not change.
func TestSavedLaunchDecodes(t *testing.T) {
	const saved = `{"runtime":"claude","workdir":"/w","name":"api work","permission_mode":"plan","model":"sonnet","effort":"high"}`
	want := Launch{Runtime: "claude", Workdir: "/w", Name: "api work", PermissionMode: "plan", Model: "sonnet", Effort: "high"}
	for _, tc := range []struct {
		name    string
		card    live.Card
		want    Launch
		decoded bool
	}{
		{"saved", live.Card{Key: session.Key{Runtime: "claude", ID: "s1"}, Launch: []byte(saved)}, want, true},
		{"minimal", live.Card{Key: session.Key{Runtime: "pi", ID: "p1"}, Launch: []byte(`{"runtime":"pi","workdir":"/w"}`)}, Launch{Runtime: "pi", Workdir: "/w"}, true},
		{"another runtime's", live.Card{Key: session.Key{Runtime: "codex", ID: "s1"}, Launch: []byte(saved)}, Launch{}, false},
		{"not started by paddock", live.Card{Key: session.Key{Runtime: "claude", ID: "s1"}}, Launch{}, false},
		{"broken", live.Card{Key: session.Key{Runtime: "claude", ID: "s1"}, Launch: []byte(`{"runtime":`)}, Launch{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if l, ok := launchOf(tc.card); ok != tc.decoded || l != tc.want {
				t.Fatalf("launchOf = %+v %v, want %+v %v", l, ok, tc.want, tc.decoded)
			}
		})
	}
	if got := string(want.encode()); got != saved {
		t.Fatalf("encode = %s\nwant %s", got, saved)
	}
	if o := want.options(); o != (launch.Options{Name: "api work", PermissionMode: "plan", Model: "sonnet", Effort: "high"}) {
		t.Fatalf("options = %+v", o)
	}
}

func TestBlockersStopTheFirstPrompt(t *testing.T) {
	for screen, want := range map[string]string{
		" Do you trust the files in this folder?\n ❯ 1. Yes, proceed": "whether to trust this folder",
		"Select login method:\n 1. Claude account":                    "to log in",
		"Choose the text style that looks best":                       "its first-run setup",
		"❯ \n  ? for shortcuts":                                       "",
	} {
		if got := blocker(screen); got != want {
			t.Errorf("blocker(%q) = %q, want %q", screen, got, want)
		}
	}
}
