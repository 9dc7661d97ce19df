package e2e

import (
	"bytes"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/app"
	"paddock/internal/hookchannel"
	"paddock/internal/hookstate"
)

// TestHookStartLinksNoChromaRegistries guards the hook's start-up: `paddock
// hook` runs the initialisation of every package in the binary, and
// chroma's lexers and styles packages parse ≈300 lexers and ≈70 styles in
// theirs (≈12 ms of the 20 ms budget). internal/markdown embeds the
// lexers and stylesheet it needs instead (internal/markdown/chromagen).
func TestHookStartLinksNoChromaRegistries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, pkg := range []string{"github.com/alecthomas/chroma/v2/lexers", "github.com/alecthomas/chroma/v2/styles"} {
		if slices.Contains(deps, pkg) {
			t.Errorf("paddock links %s: its package initialisation runs at every `paddock hook`", pkg)
		}
	}
}

// BenchmarkHookRelay runs the real `paddock hook` binary, built as `make
// build` builds it, b.N times per case and reports its wall time (start to
// exit, as the agent waits for it) at p50 and p99; with the listener up
// also the time from the process start to the event reaching the listener's
// sink. The budget is p99 ≤ 20 ms for the latter. Use -benchtime=200x for
// stable percentiles; PADDOCK_BENCH_BINARY=path measures another build
// (an older one, for a before/after under the same load).
func BenchmarkHookRelay(b *testing.B) {
	bin := hookBenchBinary(b)
	payload := fmt.Sprintf(claudeSessionStart, "bench-1")

	b.Run("listener=up", func(b *testing.B) {
		dir := b.TempDir()
		secret, _, err := hookchannel.LoadOrCreateSecret(dir)
		if err != nil {
			b.Fatal(err)
		}
		arrived := make(chan time.Time, 1)
		intake := hookchannel.NewHandler(hookchannel.HandlerOptions{Secret: secret, Decoders: registry.Default().Decoders(), Sink: sinkFunc(func(hookstate.Event) {
			arrived <- time.Now()
		})})
		srv := httptest.NewServer(intake)
		defer srv.Close()
		port := srv.Listener.Addr().(*net.TCPAddr).Port
		if err := app.WriteState(dir, app.State{PID: os.Getpid(), HookPort: port, HookAddr: fmt.Sprintf("127.0.0.1:%d", port)}); err != nil {
			b.Fatal(err)
		}
		wall := make([]time.Duration, 0, b.N)
		delivered := make([]time.Duration, 0, b.N)
		for b.Loop() {
			start, took := runHookOnce(b, bin, dir, payload)
			select {
			case at := <-arrived:
				delivered = append(delivered, at.Sub(start))
			default:
				b.Fatal("the event did not reach the listener")
			}
			wall = append(wall, took)
		}
		reportPercentiles(b, "wall", wall)
		reportPercentiles(b, "delivered", delivered)
	})

	// Down as after a clean stop: serve removed its serve.json.
	b.Run("listener=down", func(b *testing.B) {
		dir := b.TempDir()
		if _, _, err := hookchannel.LoadOrCreateSecret(dir); err != nil {
			b.Fatal(err)
		}
		wall := make([]time.Duration, 0, b.N)
		for b.Loop() {
			_, took := runHookOnce(b, bin, dir, payload)
			wall = append(wall, took)
		}
		reportPercentiles(b, "wall", wall)
	})
}

// runHookOnce runs `paddock hook --runtime claude SessionStart` with the
// payload on stdin, as an agent would, and says when it started and how
// long it took to exit.
func runHookOnce(b *testing.B, bin, dataDir, payload string) (time.Time, time.Duration) {
	cmd := exec.Command(bin, "hook", "--runtime", "claude", "--data-dir", dataDir, "SessionStart")
	cmd.Env = append(os.Environ(), "PADDOCK_HOOK_DEBUG=")
	cmd.Stdin = strings.NewReader(payload)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		b.Fatalf("paddock hook: %v, output %q", err, out.String())
	}
	return start, time.Since(start)
}

// reportPercentiles reports p50 and p99 of d in milliseconds.
func reportPercentiles(b *testing.B, name string, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(p float64) float64 {
		i := min(len(s)-1, max(0, int(math.Ceil(p*float64(len(s))))-1))
		return float64(s[i]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.50), name+"-p50-ms")
	b.ReportMetric(at(0.99), name+"-p99-ms")
}

// hookBenchBinary builds paddock with the Makefile's flags (-trimpath), or
// returns $PADDOCK_BENCH_BINARY.
func hookBenchBinary(b *testing.B) string {
	b.Helper()
	if bin := os.Getenv("PADDOCK_BENCH_BINARY"); bin != "" {
		return bin
	}
	bin := filepath.Join(b.TempDir(), "paddock")
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/paddock")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building paddock: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkHookFailOpen: the real `paddock hook` against a listener that
// accepts and never answers (hung) and one that answers after a second
// (slow), per Claude event kind: every event paddock will not hold must
// cost the agent ≤ 100 ms; only a permission prompt and a question paddock
// may answer from the phone wait longer (up to 2 s for the listener to say
// it holds them). Wall time p50/p99 per event; -benchtime=50x.
func BenchmarkHookFailOpen(b *testing.B) {
	bin := hookBenchBinary(b)
	events := []struct{ name, event, payload string }{
		{"SessionStart", "SessionStart", fmt.Sprintf(claudeSessionStart, "bench-1")},
		{"UserPromptSubmit", "UserPromptSubmit", `{"session_id":"bench-1","hook_event_name":"UserPromptSubmit","prompt":"hello","permission_mode":"default"}`},
		{"PreToolUse-Bash", "PreToolUse", `{"session_id":"bench-1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"permission_mode":"default"}`},
		{"PostToolUse", "PostToolUse", `{"session_id":"bench-1","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"x"}}`},
		{"Stop", "Stop", `{"session_id":"bench-1","hook_event_name":"Stop"}`},
		{"PreToolUse-question-auto", "PreToolUse", `{"session_id":"bench-1","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_input":{},"permission_mode":"auto"}`},
		{"PermissionRequest", "PermissionRequest", `{"session_id":"bench-1","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf x"}}`},
	}
	for _, name := range []string{"hung", "slow"} {
		dir := b.TempDir()
		if _, _, err := hookchannel.LoadOrCreateSecret(dir); err != nil {
			b.Fatal(err)
		}
		var port int
		if name == "hung" {
			port = hungPort(b)
		} else {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(time.Second)
				w.WriteHeader(http.StatusNoContent)
			}))
			defer srv.Close()
			port = srv.Listener.Addr().(*net.TCPAddr).Port
		}
		if err := app.WriteState(dir, app.State{PID: os.Getpid(), HookPort: port, HookAddr: fmt.Sprintf("127.0.0.1:%d", port)}); err != nil {
			b.Fatal(err)
		}
		for _, ev := range events {
			b.Run("listener="+name+"/"+ev.name, func(b *testing.B) {
				wall := make([]time.Duration, 0, b.N)
				for b.Loop() {
					cmd := exec.Command(bin, "hook", "--runtime", "claude", "--data-dir", dir, ev.event)
					cmd.Env = append(os.Environ(), "PADDOCK_HOOK_DEBUG=")
					cmd.Stdin = strings.NewReader(ev.payload)
					var out bytes.Buffer
					cmd.Stdout, cmd.Stderr = &out, &out
					start := time.Now()
					if err := cmd.Run(); err != nil || out.Len() > 0 {
						b.Fatalf("paddock hook: %v, output %q", err, out.String())
					}
					wall = append(wall, time.Since(start))
				}
				reportPercentiles(b, "wall", wall)
			})
		}
	}
}
