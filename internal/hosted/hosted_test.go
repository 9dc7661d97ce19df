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
	args, err := recipes["claude"].args(Request{PermissionMode: "default", Model: "sonnet"}, "0b5d4c2e-1111-4a2b-9c3d-aaaaaaaaaaaa")
	if err != nil || strings.Join(args, " ") != "--session-id 0b5d4c2e-1111-4a2b-9c3d-aaaaaaaaaaaa --permission-mode default --model sonnet" {
		t.Fatalf("claude args %q %v", args, err)
	}
	args, err = recipes["opencode"].args(Request{}, "")
	if err != nil || len(args) != 2 || args[0] != "--port" || args[1] == "0" {
		t.Fatalf("opencode args %q %v", args, err)
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
