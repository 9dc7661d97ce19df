package registry

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"paddock/internal/launch"
)

// port stands for the free port internal/hosted picks for a CLI that
// serves its own API.
const port = 54321

// argvOf is runtime rt's command line, new (with id when the CLI takes a
// chosen one) or resuming id.
func argvOf(t *testing.T, rt string, resume bool, id, transcript string, o launch.Options) []string {
	rc, ok := Default().Recipes()[rt]
	if !ok {
		t.Fatalf("no recipe for %s", rt)
	}
	base := rc.Fresh(id)
	if resume {
		base = rc.Resume(id, transcript)
	}
	return rc.Argv("/b", base, port, o)
}

// TestArgvPinned pins the exact command line of every runtime, new and
// resumed, with and without options: the rows were written against the
// recipe table internal/hosted had before the recipes moved into the
// runtime packages, and passed there unchanged. "M" stands for any mode:
// the recipes pass it through (internal/hosted checks it against Modes).
func TestArgvPinned(t *testing.T) {
	all := launch.Options{Name: "api work", PermissionMode: "M", Model: "sonnet", Effort: "high"}
	for _, tc := range []struct {
		rt     string
		resume bool
		id, tr string
		o      launch.Options
		want   string
	}{
		{"claude", false, "u-1", "", launch.Options{}, "/b --session-id u-1"},
		{"claude", false, "u-1", "", all, "/b --session-id u-1 --permission-mode M --model sonnet --effort high --name api work"},
		{"claude", true, "u-1", "/t.jsonl", launch.Options{}, "/b --resume u-1"},
		{"claude", true, "u-1", "/t.jsonl", all, "/b --resume u-1 --permission-mode M --model sonnet --effort high --name api work"},
		{"claude", true, "u-1", "", launch.Options{Name: "n"}, "/b --resume u-1 --name n"},
		{"codex", false, "", "", launch.Options{}, "/b"},
		{"codex", false, "", "", all, `/b --ask-for-approval M --model sonnet --config model_reasoning_effort="high"`},
		{"codex", true, "th-1", "/r.jsonl", launch.Options{}, "/b resume th-1"},
		{"codex", true, "th-1", "/r.jsonl", all, `/b resume th-1 --ask-for-approval M --model sonnet --config model_reasoning_effort="high"`},
		{"codex", true, "th-1", "", launch.Options{Effort: "low"}, `/b resume th-1 --config model_reasoning_effort="low"`},
		{"opencode", false, "", "", launch.Options{}, "/b --port PORT"},
		{"opencode", false, "", "", all, "/b --port PORT --model sonnet"},
		{"opencode", true, "ses_1", "/db", launch.Options{}, "/b --session ses_1 --port PORT"},
		{"opencode", true, "ses_1", "/db", all, "/b --session ses_1 --port PORT --model sonnet"},
		{"kimi", false, "", "", launch.Options{}, "/b"},
		{"kimi", false, "", "", all, "/b --model sonnet"},
		{"kimi", true, "k1", "/w.jsonl", launch.Options{}, "/b --session k1"},
		{"kimi", true, "k1", "/w.jsonl", all, "/b --session k1 --model sonnet"},
		{"cursor", false, "", "", launch.Options{}, "/b"},
		{"cursor", false, "", "", all, "/b --model sonnet"},
		{"cursor", true, "c1", "/s.db", launch.Options{}, "/b --resume c1"},
		{"cursor", true, "c1", "/s.db", all, "/b --resume c1 --model sonnet"},
		{"pi", false, "", "", launch.Options{}, "/b"},
		{"pi", false, "", "", all, "/b --model sonnet --thinking high"},
		{"pi", true, "p1", "/s/p1.jsonl", launch.Options{}, "/b --session /s/p1.jsonl"},
		{"pi", true, "p1", "/s/p1.jsonl", all, "/b --session /s/p1.jsonl --model sonnet --thinking high"},
		{"pi", true, "p1", "", launch.Options{Effort: "off"}, "/b --session p1 --thinking off"},
	} {
		op := "new"
		if tc.resume {
			op = "resume"
		}
		t.Run(tc.rt+" "+op+" "+tc.want, func(t *testing.T) {
			a := argvOf(t, tc.rt, tc.resume, tc.id, tc.tr, tc.o)
			if i := slices.Index(a, "--port"); i >= 0 && i+1 < len(a) && a[i+1] == "54321" {
				a[i+1] = "PORT"
			}
			if got := strings.Join(a, " "); got != tc.want {
				t.Fatalf("argv %q\nwant %s", got, tc.want)
			}
		})
	}
}

// pinnedSpec is the part of a recipe that is not a command line.
type pinnedSpec struct {
	bins, modes, efforts, help, resumeHelp []string
	choosesID, server, named, screen       bool
}

func specOf(t *testing.T, rt string) pinnedSpec {
	rc, ok := Default().Recipes()[rt]
	if !ok {
		t.Fatalf("no recipe for %s", rt)
	}
	return pinnedSpec{rc.Bins, rc.Modes, rc.Efforts, rc.Help, rc.ResumeHelp, rc.ChoosesID, rc.Server, rc.Named, rc.ScreenApprovals}
}

// TestRecipeSpecPinned pins what internal/hosted checks requests and
// --help against, and that the registry holds exactly these runtimes.
func TestRecipeSpecPinned(t *testing.T) {
	specs := map[string]pinnedSpec{
		"claude": {bins: []string{"claude"}, choosesID: true, named: true,
			modes:   []string{"manual", "default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"},
			efforts: []string{"low", "medium", "high", "xhigh", "max"},
			help:    []string{"--session-id", "--permission-mode", "--model", "--effort", "--name"}, resumeHelp: []string{"--resume"}},
		"codex": {bins: []string{"codex"}, modes: []string{"on-request", "never"},
			efforts: []string{"minimal", "low", "medium", "high", "xhigh"},
			help:    []string{"--ask-for-approval", "--model", "--config"}, resumeHelp: []string{"resume"}},
		"opencode": {bins: []string{"opencode"}, server: true, help: []string{"--port", "--model"}, resumeHelp: []string{"--session"}},
		"pi": {bins: []string{"pi"}, efforts: []string{"off", "minimal", "low", "medium", "high", "xhigh"},
			help: []string{"--model", "--thinking"}, resumeHelp: []string{"--session"}},
		"kimi":   {bins: []string{"kimi"}, help: []string{"--model"}, resumeHelp: []string{"--session"}, screen: true},
		"cursor": {bins: []string{"cursor-agent"}, help: []string{"--model"}, resumeHelp: []string{"--resume"}},
	}
	if got, want := slices.Sorted(maps.Keys(Default().Recipes())), slices.Sorted(maps.Keys(specs)); !slices.Equal(got, want) {
		t.Fatalf("registry holds %q, want %q", got, want)
	}
	for rt, want := range specs {
		got := specOf(t, rt)
		for _, f := range []struct {
			name      string
			got, want []string
		}{{"bins", got.bins, want.bins}, {"modes", got.modes, want.modes}, {"efforts", got.efforts, want.efforts},
			{"help", got.help, want.help}, {"resumeHelp", got.resumeHelp, want.resumeHelp}} {
			if !slices.Equal(f.got, f.want) {
				t.Errorf("%s %s = %q, want %q", rt, f.name, f.got, f.want)
			}
		}
		if got.choosesID != want.choosesID || got.server != want.server || got.named != want.named || got.screen != want.screen {
			t.Errorf("%s: choosesID, server, named, screen approvals = %v %v %v %v, want %v %v %v %v", rt,
				got.choosesID, got.server, got.named, got.screen, want.choosesID, want.server, want.named, want.screen)
		}
	}
}

// TestRecipesCheckEveryFlag: Probe trusts a CLI only for the flags listed
// in Help and ResumeHelp, so a flag a recipe passes but does not list
// would reach a CLI that may no longer know it.
func TestRecipesCheckEveryFlag(t *testing.T) {
	all := launch.Options{Name: "n", PermissionMode: "m", Model: "x", Effort: "e"}
	for rt, rc := range Default().Recipes() {
		listed := append(slices.Clone(rc.Help), rc.ResumeHelp...)
		for _, base := range [][]string{rc.Fresh("id"), rc.Resume("id", "/t")} {
			for _, a := range rc.Argv("/b", base, port, all)[1:] {
				if strings.HasPrefix(a, "-") && !slices.Contains(listed, a) {
					t.Errorf("%s passes %s, which its --help check does not list (%q)", rt, a, listed)
				}
			}
		}
		if !slices.Contains(listed, rc.Resume("id", "/t")[0]) {
			t.Errorf("%s resumes with %q, which its --help check does not list", rt, rc.Resume("id", "/t")[0])
		}
	}
}
