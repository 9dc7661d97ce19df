package hookstate_test

import (
	"bufio"
	"bytes"
	"os"
	. "paddock/internal/hookstate"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
)

// A recordedLine is one hook call from a recording under ../shared.
type recordedLine struct {
	file    string
	lineNo  int
	name    string // the event name the logger was installed under ("" when the line is bare JSON)
	payload []byte
	at      time.Time // the logger's timestamp; zero when the log has none
}

// readRecording parses the recorders' formats: "EVENT\tjson" (Claude),
// "ts\tEVENT\tjson" (Codex, Kimi, Codex notify) and bare JSON lines
// (OpenCode plugin, Pi extension).
func readRecording(t *testing.T, path string) []recordedLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []recordedLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), MaxPayloadSize+1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		r := recordedLine{file: filepath.Base(path), lineNo: n}
		parts := strings.SplitN(line, "\t", 3)
		switch len(parts) {
		case 1:
			r.payload = []byte(parts[0])
		case 2:
			r.name, r.payload = parts[0], []byte(parts[1])
		case 3:
			sec, err := strconv.ParseFloat(parts[0], 64)
			if err != nil {
				t.Fatalf("%s:%d: bad timestamp %q", path, n, parts[0])
			}
			r.at = UnixTime(sec)
			r.name, r.payload = parts[1], []byte(parts[2])
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// replayer feeds recorded lines, in order, into a Tracker the way the
// owner would: arrival is the recording's own time (the logger's stamp,
// else the payload's), or step after the previous event when there is
// none, and before each event the timers that fall due are fired at their
// deadlines.
type replayer struct {
	t       *testing.T
	runtime string
	step    time.Duration
	now     time.Time
	tracker *Tracker
	seq     map[session.Key][]State // each session's states in order, repeats collapsed
	ignored int                     // events of sessions the Tracker would not open
}

func newReplayer(t *testing.T, runtime string, cfg Config, step time.Duration) *replayer {
	return &replayer{t: t, runtime: runtime, step: step, now: t0,
		tracker: NewTracker(withRules(cfg)), seq: map[session.Key][]State{}}
}

func (r *replayer) record(k session.Key) {
	s := r.tracker.Get(k).State()
	if seq := r.seq[k]; len(seq) == 0 || seq[len(seq)-1] != s {
		r.seq[k] = append(seq, s)
	}
}

// advance fires every timer due up to now.
func (r *replayer) advance(now time.Time) {
	for i := 0; ; i++ {
		d := r.tracker.NextDeadline()
		if d.IsZero() || d.After(now) {
			break
		}
		if i > 1000 {
			r.t.Fatalf("timers do not settle (deadline %v)", d)
		}
		for _, k := range r.tracker.Tick(d, nil) {
			r.record(k)
		}
	}
	r.now = now
}

// tick delivers the owner's facts at now.
func (r *replayer) tick(now time.Time, facts map[session.Key]Facts) {
	r.advance(now)
	for _, k := range r.tracker.Tick(now, facts) {
		r.record(k)
	}
}

func (r *replayer) feed(lines []recordedLine) {
	r.t.Helper()
	for _, l := range lines {
		ev, err := Decode(r.runtime, l.name, l.payload)
		if err != nil {
			r.t.Fatalf("%s:%d: %v", l.file, l.lineNo, err)
		}
		now := r.now.Add(r.step)
		switch {
		case !l.at.IsZero():
			ev.Time = l.at
			now = l.at
		case !ev.Time.IsZero():
			now = ev.Time
		}
		r.advance(now)
		if ev.SessionID == "" {
			continue
		}
		if _, tracked := r.tracker.Apply(ev.Key(), ev, now); !tracked {
			r.ignored++
			continue
		}
		r.record(ev.Key())
	}
}

func fixtureLines(t *testing.T, elem ...string) []recordedLine {
	return readRecording(t, sharedtest.Fixtures(t, append([]string{"real"}, elem...)...))
}

func keyWithPrefix(t *testing.T, r *replayer, prefix string) session.Key {
	t.Helper()
	var found []session.Key
	for k := range r.seq {
		if strings.HasPrefix(k.ID, prefix) {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		t.Fatalf("sessions with prefix %q: %v (all: %v)", prefix, found, r.tracker.Keys())
	}
	return found[0]
}

func states(s string) []State {
	var out []State
	for _, f := range strings.Fields(s) {
		out = append(out, State(f))
	}
	return out
}

func checkSequences(t *testing.T, r *replayer, want map[string]string) {
	t.Helper()
	if len(r.seq) != len(want) {
		t.Errorf("replay produced %d sessions, want %d: %v", len(r.seq), len(want), r.tracker.Keys())
	}
	for prefix, w := range want {
		k := keyWithPrefix(t, r, prefix)
		if got := r.seq[k]; !slices.Equal(got, states(w)) {
			t.Errorf("%s:\n got  %v\n want %v", k, got, states(w))
		}
	}
}

// TestReplayClaude feeds claude-2.1.328/hooks.log (no timestamps: one
// second apart). Session 14d07547: a plain turn, a Bash approved at the
// desk, a Bash whose dialog was open when the user quit. Session b26ff492:
// the same with a PermissionRequest hook deciding, then two
// AskUserQuestion turns answered by the hook.
func TestReplayClaude(t *testing.T) {
	r := newReplayer(t, "claude", Config{}, time.Second)
	r.feed(fixtureLines(t, "claude-2.1.328", "hooks.log"))
	checkSequences(t, r, map[string]string{
		"14d07547": `idle prompting waiting
			prompting working approval working waiting
			prompting working approval ended`,
		"b26ff492": `idle prompting waiting
			prompting working approval working waiting
			prompting working input working waiting
			prompting working input working waiting`,
	})
	m := r.tracker.Get(keyWithPrefix(t, r, "b26ff492"))
	if m.Attention() != AttentionUnread || m.PermissionMode() != "default" {
		t.Errorf("b26ff492 attention %q mode %q", m.Attention(), m.PermissionMode())
	}
	// Three dialogs, answered one line (1 s) after the request, except the
	// first question: the Notification line sits in between.
	if p := m.Metrics().PermissionResponse; p.Count != 3 || p.Last != time.Second || p.Max != 2*time.Second {
		t.Errorf("b26ff492 permission response %+v", p)
	}
}

// TestReplayClaudeInferenceOnly drops every PermissionRequest and
// Notification line and spaces the rest 10 s apart: permission inference
// alone finds the same dialogs (Bash after 8 s, AskUserQuestion after 3 s).
func TestReplayClaudeInferenceOnly(t *testing.T) {
	var lines []recordedLine
	for _, l := range fixtureLines(t, "claude-2.1.328", "hooks.log") {
		if !strings.HasPrefix(l.name, "PermissionRequest") && l.name != "Notification" {
			lines = append(lines, l)
		}
	}
	r := newReplayer(t, "claude", Config{Density: DensityLow}, 10*time.Second)
	r.feed(lines)
	checkSequences(t, r, map[string]string{
		"14d07547": `idle prompting waiting
			prompting working approval working waiting
			prompting working approval ended`,
		"b26ff492": `idle prompting waiting
			prompting working approval working waiting
			prompting working input working waiting
			prompting working input working waiting`,
	})
	if d := r.tracker.Get(keyWithPrefix(t, r, "b26ff492")).Metrics().Detection; d.Max != 0 {
		t.Errorf("detection %+v: the replay ticks exactly at the deadlines", d)
	}
}

// TestReplayClaudeSlow spaces the full log 10 s apart: the inferred dialog
// comes first and the real PermissionRequest confirms it, with no flicker.
func TestReplayClaudeSlow(t *testing.T) {
	r := newReplayer(t, "claude", Config{Density: DensityHigh}, 10*time.Second)
	r.feed(fixtureLines(t, "claude-2.1.328", "hooks.log"))
	checkSequences(t, r, map[string]string{
		"14d07547": `idle prompting waiting
			prompting working approval working waiting
			prompting working approval ended`,
		"b26ff492": `idle prompting waiting
			prompting working approval working waiting
			prompting working input working waiting
			prompting working input working waiting`,
	})
}

// TestReplayCodex feeds codex-0.169.0/hooks.log and notify.log merged by
// their timestamps. The notify lines of the TUI's title-generation threads
// name threads no hook knows and are ignored.
func TestReplayCodex(t *testing.T) {
	lines := append(fixtureLines(t, "codex-0.169.0", "hooks.log"), fixtureLines(t, "codex-0.169.0", "notify.log")...)
	slices.SortStableFunc(lines, func(a, b recordedLine) int { return a.at.Compare(b.at) })
	r := newReplayer(t, "codex", Config{}, 0)
	r.feed(lines)
	checkSequences(t, r, map[string]string{
		// codex exec (bypassPermissions), then `codex exec resume`.
		"01a2285e-d86f": `idle prompting waiting ended idle prompting waiting ended`,
		// codex exec RUN: the escalation is refused without asking, no PostToolUse;
		// bypassPermissions keeps inference off.
		"01a2285e-f2f5": `idle prompting working waiting ended`,
		// TUI: plain turn; RUN approved (y); RUN denied (Esc → Interrupt); plain
		// turn; /quit; `codex resume`: RUN approved (Enter); Ctrl-C.
		"01a2285f-15d0": `idle prompting waiting
			prompting working approval working waiting
			prompting working approval waiting
			prompting waiting ended
			idle prompting working approval working waiting ended`,
		"01a22860-7639": `idle prompting waiting ended`,
		// RUN denied with ↓↓ Enter (an Interrupt), then quit.
		"01a22860-866a": `idle prompting working approval waiting ended`,
		// A PermissionRequest hook allows, then denies (Stop follows the denial).
		"01a22860-cb24": `idle prompting working approval working waiting
			prompting working approval waiting ended`,
	})
	if r.ignored != 8 {
		t.Errorf("ignored %d events, want the 8 title-thread notifies", r.ignored)
	}
	m := r.tracker.Get(keyWithPrefix(t, r, "01a2285f-15d0"))
	p := m.Metrics().PermissionResponse
	if p.Count != 3 || p.Max < 5600*time.Millisecond || p.Max > 5700*time.Millisecond {
		t.Errorf("01a2285f-15d0 permission response %+v", p) // 5.64 s approve, 1.95 s Esc, 1.93 s approve
	}
	if h := m.Metrics().HookLatency; h.Count == 0 || h.Max != 0 {
		t.Errorf("hook latency %+v (replayed at the recorded times)", h)
	}
}

// TestReplayKimi feeds kimi-code-2.1.0/hooks.log with its timestamps.
func TestReplayKimi(t *testing.T) {
	r := newReplayer(t, "kimi", Config{}, 0)
	r.feed(fixtureLines(t, "kimi-code-2.1.0", "hooks.log"))
	checkSequences(t, r, map[string]string{
		// kimi -p runs (auto mode, no dialogs); -c and -S resume them.
		"session_98773d9a": `idle prompting waiting idle prompting waiting`,
		"session_7a52a54f": `idle prompting working waiting idle prompting waiting`,
		"session_d444c856": `idle prompting working waiting`, // PostToolUse lost (fire-and-forget)
		"session_0de55f1a": `idle prompting working waiting`, // AskUserQuestion disabled in auto mode
		// TUI A: plain; RUN approved; rejected (3); rejected (Esc); ASK answered
		// within 1.75 s (under the 3 s timer); SLOW interrupted; /exit; resume:
		// approved for the session; rejected with feedback; Ctrl-C Ctrl-C.
		"session_181828f0": `idle prompting waiting
			prompting working approval working waiting
			prompting working approval working waiting
			prompting working approval working waiting
			prompting working waiting
			prompting waiting ended
			idle prompting working approval working waiting
			prompting working approval working waiting ended`,
		// TUI B: hook deny, hook exit 2, hook allow (ignored: prompt shown,
		// approved); AGENT: the subagent's approval, its Stop not taken for the
		// session's; RUN pending when the process is killed; `kimi -c`; exit.
		"session_07c807cc": `idle prompting working waiting
			prompting working waiting
			prompting working approval working waiting
			prompting working approval working waiting
			prompting working approval idle ended`,
	})
}

// TestReplayKimiKilled replays session B up to the kill and delivers the
// process check that follows: the pending approval ends with the process.
func TestReplayKimiKilled(t *testing.T) {
	var before, after []recordedLine
	kill := UnixTime(1795977572) // between the last PermissionRequest and `kimi -c`
	for _, l := range fixtureLines(t, "kimi-code-2.1.0", "hooks.log") {
		if !strings.Contains(string(l.payload), "session_07c807cc") {
			continue
		}
		if l.at.Before(kill) {
			before = append(before, l)
		} else {
			after = append(after, l)
		}
	}
	r := newReplayer(t, "kimi", Config{}, 0)
	r.feed(before)
	k := keyWithPrefix(t, r, "session_07c807cc")
	if s := r.tracker.Get(k).State(); s != StateApproval {
		t.Fatalf("before the kill: %s", s)
	}
	r.tick(kill, map[session.Key]Facts{k: {Process: ProcessGone}})
	r.feed(after)
	seq := r.seq[k]
	if want := states("approval ended idle ended"); !slices.Equal(seq[len(seq)-4:], want) {
		t.Fatalf("tail %v, want %v", seq[len(seq)-4:], want)
	}
}

// TestReplayOpenCode feeds opencode-1.18.33/plugin-events.log (timestamps
// from the records).
func TestReplayOpenCode(t *testing.T) {
	r := newReplayer(t, "opencode", Config{}, 0)
	r.feed(fixtureLines(t, "opencode-1.18.33", "plugin-events.log"))
	checkSequences(t, r, map[string]string{
		// opencode run (a plain turn), opencode run RUN (auto-rejected).
		"ses_dd79b8af": `idle prompting waiting`,
		"ses_dd79b66d": `idle prompting working approval working waiting`,
		// TUI: plain; RUN "Allow once"; RUN reject; `opencode -s`: RUN
		// "Allow always"; RUN auto-allowed; ASK answered; plain.
		"ses_dd79b297": `idle prompting waiting
			prompting working approval working waiting
			prompting working approval working waiting
			prompting working approval working waiting
			prompting working waiting
			prompting working input working waiting
			prompting waiting`,
		"ses_dd799ecc": `idle prompting waiting`,
		// opencode serve driven over HTTP: allowed, then rejected.
		"ses_dd799978": `idle prompting working approval working waiting
			prompting working approval working waiting`,
		// TUI with --port: allowed over HTTP, then rejected with Esc.
		"ses_dd799530": `idle prompting working approval working waiting
			prompting working approval working waiting`,
	})
}

// TestReplayPi feeds pi-0.73.1/extension-events.log (timestamps from the
// records; the permission gate's records included).
func TestReplayPi(t *testing.T) {
	r := newReplayer(t, "pi", Config{}, 0)
	r.feed(fixtureLines(t, "pi-0.73.1", "extension-events.log"))
	checkSequences(t, r, map[string]string{
		// pi -p, then `pi --session 01a22861-8754`: approved.
		"01a22861-8754": `idle prompting waiting ended
			idle prompting waiting prompting working approval working waiting ended`,
		// pi -p RUN: the gate blocks (no UI); `pi -p -c`.
		"01a22861-95ad": `idle prompting working approval working waiting ended idle prompting waiting ended`,
		"01a22861-9e2c": `idle prompting waiting ended`,
		// TUI: plain; approve; deny (↓ Enter); deny (Esc); Ctrl-D; `pi --continue`: approve.
		"01a22861-ac0c": `idle prompting waiting
			prompting working approval working waiting
			prompting working approval working waiting
			prompting working approval working waiting ended
			idle prompting working approval working waiting ended`,
		"01a22862-c424": `idle prompting waiting ended`,
		// pi --mode rpc: "Yes", then the process stops with the dialog open.
		"01a22863-1f53": `idle prompting working approval working waiting prompting working approval ended`,
		"01a22863-38ec": `idle prompting working approval working waiting
			prompting working approval working waiting ended`,
	})
}
