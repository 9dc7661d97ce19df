package screendialog_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "paddock/internal/screendialog"
	"paddock/internal/testkit/fuzzseed"
)

// checkScreen is the property every screen must keep, whatever it holds:
// nothing panics, a dialog read from it matches it, and every key Keys
// returns is on the allowlist.
func checkScreen(t *testing.T, screen string) {
	t.Helper()
	for _, rt := range runtimes {
		d, ok := Detect(rt, screen)
		if !ok {
			if !Matches(Dialog{Runtime: rt}, screen) {
				continue
			}
			t.Fatalf("%s: an empty dialog matches", rt)
		}
		if !Matches(d, screen) {
			t.Fatalf("%s: dialog %+v does not match its own screen", rt, d)
		}
		for _, verb := range []string{VerbAllow, VerbDeny, VerbAlways, VerbAnswer, "", "answer "} {
			for choice := -1; choice <= 10; choice++ {
				keys, ok := Keys(d, verb, choice)
				if ok && len(keys) == 0 {
					t.Fatalf("%s %s %d: ok with no keys", rt, verb, choice)
				}
				for _, k := range keys {
					if !AllowedKey(k) {
						t.Fatalf("%s %s %d: key %q is not allowed", rt, verb, choice, k)
					}
				}
			}
		}
	}
}

// recordedScreens are this package's recorded screens (seeds).
func recordedScreens(tb testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.txt"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no recorded screens: %v", err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func FuzzDetect(f *testing.F) {
	for _, s := range recordedScreens(f) {
		f.Add(s)
	}
	// Every agent's screens recorded with the real CLIs, Kimi's and Pi's
	// included (fuzzseed says so when ../shared is not there).
	for _, file := range fuzzseed.Files(f, func(rel string) bool {
		return strings.HasPrefix(rel, "shared/fixtures/real/") && strings.Contains(rel, "/screens/") && strings.HasSuffix(rel, ".txt")
	}) {
		f.Add(string(file.Data))
	}
	f.Add("")
	f.Add("\n\n\n")
	f.Add(" ❯ 1. Yes\n   2. No\n Esc to cancel")
	f.Add("  ┃   Allow once   Allow always   Reject   enter confirm")
	f.Fuzz(func(t *testing.T, screen string) { checkScreen(t, screen) })
}

// TestRandomScreens runs the fuzz property over screens shuffled together
// from the recorded ones' lines (with some lines cut, doubled or dropped),
// so the ordinary test run covers more than the seeds.
func TestRandomScreens(t *testing.T) {
	var lines []string
	for _, s := range recordedScreens(t) {
		lines = append(lines, strings.Split(s, "\n")...)
	}
	seeds := recordedScreens(t)
	rng := rand.New(rand.NewPCG(6, 7))
	for range 3000 {
		var b strings.Builder
		switch rng.IntN(3) {
		case 0: // random lines
			for range rng.IntN(40) {
				b.WriteString(lines[rng.IntN(len(lines))])
				b.WriteByte('\n')
			}
		case 1: // a recorded screen with lines dropped, repeated or cut
			for _, l := range strings.Split(seeds[rng.IntN(len(seeds))], "\n") {
				switch rng.IntN(12) {
				case 0:
					continue
				case 1:
					b.WriteString(l + "\n")
				case 2:
					l = l[:rng.IntN(len(l)+1)]
				}
				b.WriteString(l + "\n")
			}
		default: // random bytes and glyphs
			glyphs := []string{"❯", "›", "▶", "→", "┃", "─", "╌", "☐", " ", "  ", "1. ", "[2] ", "$ ", "\n", "Yes", "No", "\xff", "\r", "\t"}
			for range rng.IntN(200) {
				b.WriteString(glyphs[rng.IntN(len(glyphs))])
			}
		}
		checkScreen(t, b.String())
	}
}
