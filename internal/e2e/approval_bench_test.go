package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"paddock/internal/testkit/servetest"
	"strings"
	"testing"
	"time"
)

// BenchmarkPermissionRoundTrip is an approval from the phone, both legs,
// with the real `paddock hook` process and a real `paddock serve` with 5
// open boards: (1) Claude's PermissionRequest hook starts → the approval
// card's frame at the last board; (2) the decision is posted (the tap) →
// the relay has printed the allow and exited. Each iteration is a new
// prompt with its own command. Target: p99 ≤ 30 ms for each leg. Run with
// -benchtime=500x.
func BenchmarkPermissionRoundTrip(b *testing.B) {
	home := b.TempDir()
	srv := servetest.Start(b, home)
	api := newAPIClient(b, srv)
	boards := openBoards(b, srv, api, 5)
	bin := servetest.Binary(b)
	var toCard, toDecision []time.Duration
	i := 0
	for b.Loop() {
		payload := fmt.Sprintf(`{"session_id":"bench-session","hook_event_name":"PermissionRequest","cwd":%q,"permission_mode":"default",`+
			`"tool_name":"Bash","tool_input":{"command":"echo benchmark-prompt-%d","description":"bench"}}`, home, i)
		cmd := exec.Command(bin, "hook", "--runtime", "claude", "--data-dir", srv.DataDir, "PermissionRequest")
		cmd.Env = append(os.Environ(), "TMUX_PANE=%9")
		cmd.Stdin = strings.NewReader(payload)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		at, ok := boards.waitAll(i, 5*time.Second)
		if !ok {
			b.Fatalf("approval %d never reached all boards", i)
		}
		toCard = append(toCard, at.Sub(start))

		var list struct {
			Approvals []struct {
				ID    string
				Input struct{ Command string }
			}
		}
		if err := api.get("/api/v1/approvals", &list); err != nil {
			b.Fatal(err)
		}
		id := ""
		for _, it := range list.Approvals {
			if it.Input.Command == fmt.Sprintf("echo benchmark-prompt-%d", i) {
				id = it.ID
			}
		}
		if id == "" {
			b.Fatalf("approval %d not listed: %+v", i, list)
		}
		tap := time.Now()
		if status, err := api.post("/api/v1/approvals/"+id, map[string]any{"decision": "allow"}, nil); err != nil || status != http.StatusOK {
			b.Fatalf("decide: %d %v", status, err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		toDecision = append(toDecision, time.Since(tap))
		if !strings.Contains(out.String(), `"behavior":"allow"`) {
			b.Fatalf("the relay printed %q", out.String())
		}
		i++
	}
	reportPercentiles(b, "hook-to-card", toCard)
	reportPercentiles(b, "tap-to-decision", toDecision)
}
