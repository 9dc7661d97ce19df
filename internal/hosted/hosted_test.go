package hosted

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestCheckRequests(t *testing.T) {
	dir := t.TempDir()
	m := &Manager{opts: Options{LookPath: func(name string) (string, error) {
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

func TestRecipesBuildArgs(t *testing.T) {
	sid := "0b5d4c2e-1111-4a2b-9c3d-aaaaaaaaaaaa"
	l := Launch{Runtime: "claude", PermissionMode: "default", Model: "sonnet", Effort: "high", Name: "api work"}
	for _, tc := range []struct {
		name string
		rc   recipe
		base []string
		l    Launch
		want string
	}{
		{"claude new", recipes["claude"], recipes["claude"].fresh(sid), l,
			"/b --session-id " + sid + " --permission-mode default --model sonnet --effort high --name api work"},
		{"claude resume", recipes["claude"], recipes["claude"].resume(sid, "/t.jsonl"), l,
			"/b --resume " + sid + " --permission-mode default --model sonnet --effort high --name api work"},
		{"codex resume", recipes["codex"], recipes["codex"].resume("th-1", ""), Launch{PermissionMode: "never", Effort: "low"},
			`/b resume th-1 --ask-for-approval never --config model_reasoning_effort="low"`},
		{"pi by file", recipes["pi"], recipes["pi"].resume("p1", "/s/p1.jsonl"), Launch{Model: "m", Effort: "high"},
			"/b --session /s/p1.jsonl --model m --thinking high"},
		{"kimi", recipes["kimi"], recipes["kimi"].resume("k1", ""), Launch{}, "/b --session k1"},
		{"cursor", recipes["cursor"], recipes["cursor"].resume("c1", ""), Launch{Model: "gpt"}, "/b --resume c1 --model gpt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			argv, err := tc.rc.argv("/b", tc.base, tc.l)
			if err != nil || strings.Join(argv, " ") != tc.want {
				t.Fatalf("argv %q %v\nwant %s", argv, err, tc.want)
			}
		})
	}
	argv, err := recipes["opencode"].argv("/b", recipes["opencode"].resume("ses_1", ""), Launch{})
	if err != nil || len(argv) != 5 || argv[3] != "--port" || argv[4] == "0" {
		t.Fatalf("opencode argv %q %v", argv, err)
	}
	if id := newUUID(); len(id) != 36 || id[14] != '4' {
		t.Fatalf("uuid %q", id)
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
