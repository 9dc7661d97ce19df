package tmux

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// These tests need no tmux: the checks that keep input from becoming tmux
// commands, and the parser of tmux's answers.

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"a", true},
		{"claude-3f2a_01", true},
		{"0abc", true},
		{strings.Repeat("x", MaxNameLen), true},
		{"", false},
		{strings.Repeat("x", MaxNameLen+1), false},
		{"-a", false},
		{"_a", false},
		{"a b", false},
		{"a;b", false},
		{"a;", false},
		{"a:b", false},
		{"a.b", false},
		{"=a", false},
		{"a#{pane_id}", false},
		{"a\n", false},
		{"ü", false},
		{"$HOME", false},
	} {
		err := CheckName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadName) {
			t.Errorf("CheckName(%q) = %v, not ErrBadName", tc.name, err)
		}
	}
}

func TestPaneTarget(t *testing.T) {
	good := Pane{Session: "a1", Window: "@3", ID: "%12"}
	if tg, err := good.target(); err != nil || tg != "=a1:@3.%12" {
		t.Fatalf("target = %q, %v", tg, err)
	}
	for _, p := range []Pane{
		{Session: "a1", Window: "3", ID: "%1"},
		{Session: "a1", Window: "@3", ID: "1"},
		{Session: "a1", Window: "@3;", ID: "%1"},
		{Session: "a1", Window: "@3", ID: "%1;kill-server"},
		{Session: "a1", Window: "@", ID: "%1"},
		{Session: "a;", Window: "@3", ID: "%1"},
		{Session: "", Window: "@3", ID: "%1"},
		{Session: "a1", Window: "@3", ID: "%1.%2"},
	} {
		if _, err := p.target(); !errors.Is(err, ErrBadName) {
			t.Errorf("target of %#v = %v, want ErrBadName", p, err)
		}
	}
}

func TestAllowedKey(t *testing.T) {
	for _, k := range []string{"Enter", "Escape", "Tab", "BTab", "C-c", "C-d", "Up", "Down", "Left", "Right",
		"1", "4", "y", "N", "Space", "BSpace", "M-Enter", "PageUp"} {
		if !allowedKey(k) {
			t.Errorf("%q refused", k)
		}
	}
	for _, k := range []string{"", ";", "\\;", "Enter;", "kill-server", "send-keys", "C-c;", "C-C", "C-",
		"enter", "F1", "M-x", "0x41", "ab", "-l", "--", "#{pane_id}", "{", "Enter Enter", "\n", "é", "C-é"} {
		if allowedKey(k) {
			t.Errorf("%q allowed", k)
		}
	}
}

func TestCheckText(t *testing.T) {
	for _, tc := range []struct {
		text      string
		multiline bool
		want      error
	}{
		{"plain", false, nil},
		{"-x ; C-c $HOME 'q' \"q\" #{pane_id} 日本 ❯", false, nil},
		{"tab\there", false, nil},
		{"", false, nil},
		{"two\nlines", false, ErrBadText},
		{"cr\r", false, ErrBadText},
		{"two\nlines\r\nthree\rfour", true, nil},
		{"esc\x1b[201~", true, ErrBadText},
		{"bell\a", false, ErrBadText},
		{"etx\x03", true, ErrBadText},
		{"del\x7f", false, ErrBadText},
		{"c1\u009b", false, ErrBadText},
		{"nul\x00", true, ErrBadText},
		{"bad\xff", false, ErrBadText},
		{strings.Repeat("a", MaxText), false, nil},
		{strings.Repeat("a", MaxText+1), false, ErrTooLong},
		{strings.Repeat("a", 100_000), true, ErrTooLong},
	} {
		err := checkText(tc.text, tc.multiline)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("checkText(%.20q, %v) = %v, want %v", tc.text, tc.multiline, err, tc.want)
		}
		// The message never carries the text.
		if err != nil && len(tc.text) > 3 && strings.Contains(err.Error(), tc.text) {
			t.Errorf("error %q repeats the text", err)
		}
	}
}

func TestEscapeArg(t *testing.T) {
	// tmux's rule (cmd_parse_from_arguments): a final ';' ends the
	// command; a final "\;" is a literal ';'. unescape is that rule.
	unescape := func(a string) (string, bool) {
		if !strings.HasSuffix(a, ";") {
			return a, false
		}
		a = a[:len(a)-1]
		if strings.HasSuffix(a, `\`) {
			return a[:len(a)-1] + ";", false
		}
		return a, true
	}
	for _, a := range []string{"", ";", "a;", `\;`, `a\;`, `\\;`, ";;", "a;b", "-", "--", `\`} {
		got, ends := unescape(escapeArg(a))
		if ends || got != a {
			t.Errorf("escapeArg(%q) reaches tmux as %q (ends command: %v)", a, got, ends)
		}
	}
}

func TestCut(t *testing.T) {
	s := strings.Repeat("日", 10) // 3 bytes each
	for n := 1; n <= len(s); n++ {
		c := cut(s, n)
		if !utf8.ValidString(c) || len(c) > n || n >= 3 && len(c) < n-2 {
			t.Errorf("cut(%d) = %q", n, c)
		}
	}
	if cut("abc", 10) != "abc" {
		t.Error("short string cut")
	}
}

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in     string
		atLeas bool // 3.2
	}{
		{"tmux 3.3a", true},
		{"tmux 3.2", true},
		{"tmux 3.1c", false},
		{"tmux 2.9a", false},
		{"tmux next-3.4", true},
		{"tmux 10.0", true},
		{"tmux master", true},
	} {
		if got := parseVersion(tc.in).atLeast(3, 2); got != tc.atLeas {
			t.Errorf("%q at least 3.2: %v", tc.in, got)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		stderr string
		want   error
	}{
		{"no server running on /x/paddock.sock", ErrNoServer},
		{"error connecting to /x/paddock.sock (No such file or directory)", ErrNoServer},
		{"can't find pane: %3", ErrNoPane},
		{"can't find window: @2", ErrNoPane},
		{"can't find session: a1", ErrNoPane},
		{"duplicate session: a1", ErrExists},
		{"command too long", ErrTooLong},
		{"unknown command: x", nil},
	} {
		if got := classify(tc.stderr); got != tc.want {
			t.Errorf("classify(%q) = %v, want %v", tc.stderr, got, tc.want)
		}
	}
}

func TestScrub(t *testing.T) {
	if got := scrub("  oops: my-secret-token here\n", "my-secret-token"); strings.Contains(got, "secret") {
		t.Errorf("scrub kept the text: %q", got)
	}
	if got := scrub(strings.Repeat("x", 2000), ""); len(got) > maxStderr+4 {
		t.Errorf("scrub kept %d bytes", len(got))
	}
}

// record builds one line as tmux prints recordFormat.
func record(serverPID, session, window, pane, pid, dead, status, signal, created, activity, cmd, dir string) string {
	n := func(s string) string { return strconv.Itoa(len(s)) }
	return strings.Join([]string{serverPID, n(session), session, window, pane, pid, dead, status, signal,
		created, activity, n(cmd), cmd, n(dir), dir}, "\x1f") + "\n"
}

func TestParseRecords(t *testing.T) {
	odd := "/tmp/odd dir\twith\x1fsep\nand newline/日本 é"
	out := record("100", "a1", "@1", "%1", "200", "0", "", "", "1795990700", "1795990702", "claude", "/home/u/proj") +
		record("100", "odd\x1fname\nx", "@2", "%2", "201", "1", "3", "", "1795990700", "1795990701", "sh\x1f\n", odd) +
		record("100", "sig", "@3", "%3", "202", "1", "", "15", "0", "", "", "")
	infos, err := parseRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 3 {
		t.Fatalf("%d records", len(infos))
	}
	a, b, c := infos[0], infos[1], infos[2]
	if a.Pane != (Pane{Session: "a1", Window: "@1", ID: "%1", PID: 200}) || a.Dead || a.Exit.Known ||
		a.Command != "claude" || a.Dir != "/home/u/proj" || a.serverPID != 100 ||
		!a.Created.Equal(time.Unix(1795990700, 0)) || !a.Activity.Equal(time.Unix(1795990702, 0)) {
		t.Errorf("first record %+v", a)
	}
	if b.Session != "odd\x1fname\nx" || b.Dir != odd || b.Command != "sh\x1f\n" || !b.Dead ||
		b.Exit != (Exit{Known: true, Code: 3}) {
		t.Errorf("odd record %+v", b)
	}
	if c.Exit != (Exit{Known: true, Code: -1, Signal: 15}) || !c.Created.IsZero() || !c.Activity.IsZero() {
		t.Errorf("signalled record %+v", c)
	}
	if s := c.Exit.String(); s != "signal 15" {
		t.Errorf("exit string %q", s)
	}

	for _, bad := range []string{
		"garbage\n",
		record("100", "a", "@1", "%1", "x", "0", "", "", "", "", "", ""),
		record("100", "a", "1", "%1", "5", "0", "", "", "", "", "", ""),
		// A value that changed length while tmux printed it.
		strings.Replace(record("100", "a", "@1", "%1", "5", "0", "", "", "", "", "cat", "/d"), "\x1fcat\x1f", "\x1fcats\x1f", 1),
		strings.TrimSuffix(record("100", "a", "@1", "%1", "5", "0", "", "", "", "", "cat", "/d"), "\n"),
	} {
		if _, err := parseRecords(bad); !errors.Is(err, errRecord) {
			t.Errorf("parseRecords(%q) = %v, want errRecord", bad, err)
		}
	}
	if infos, err := parseRecords(""); err != nil || len(infos) != 0 {
		t.Errorf("empty output: %v, %v", infos, err)
	}
}

// FuzzParseRecords: any output parses or fails cleanly, and any field
// values survive a round trip.
func FuzzParseRecords(f *testing.F) {
	f.Add("a1", "claude", "/home/u/p", "garbage\x1f1\x1f\n")
	f.Add("odd\x1fname", "sh\n", "/t\x1f\n/x", "")
	f.Fuzz(func(t *testing.T, session, cmd, dir, junk string) {
		_, _ = parseRecords(junk)
		out := record("9", session, "@1", "%2", "3", "1", "0", "", "1", "2", cmd, dir)
		infos, err := parseRecords(out)
		if err != nil || len(infos) != 1 {
			t.Fatalf("round trip: %v, %d records", err, len(infos))
		}
		if in := infos[0]; in.Session != session || in.Command != cmd || in.Dir != dir {
			t.Fatalf("round trip changed values: %+v", in)
		}
	})
}
