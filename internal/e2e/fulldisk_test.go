package e2e

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/fulldisk"
	"paddock/internal/testkit/servetest"
)

// TestDecisionOnAFullDisk runs paddock serve with its data dir on a small
// disk, holds a real relay's PermissionRequest, then fills the disk: the
// phone's answer is refused with a 503 that says why and what to do,
// nothing reaches the agent (its hook still waits), health says degraded
// and the board carries a banner. Once there is room again health
// recovers, the same answer goes through, and it is in the audit log.
func TestDecisionOnAFullDisk(t *testing.T) {
	disk := fulldisk.Mount(t, 64<<20)
	srv := servetest.StartAt(t, t.TempDir(), filepath.Join(disk, "data"), nil)
	api := newAPIClient(t, srv)
	held := startRelayHook(t, srv, "PermissionRequest", `{"session_id":"7d1f2c3b-0000-4000-8000-00000000d15c","hook_event_name":"PermissionRequest","cwd":"/tmp/fakehome1/proj","tool_name":"Bash","tool_input":{"command":"make release"}}`)
	it := waitItem(t, api, "approvals", func(it approvalItem) bool { return it.Input.Command == "make release" })

	free := fulldisk.Fill(t, disk)
	status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "allow"})
	if status != http.StatusServiceUnavailable || !strings.Contains(msg, "full") || !strings.Contains(msg, "still waits") {
		t.Fatalf("deciding on a full disk: %d %q, want 503 saying the disk is full and the agent still waits", status, msg)
	}
	var health struct{ Status, Reason string }
	if err := api.get("/api/v1/health", &health); err != nil {
		t.Fatal(err)
	}
	if health.Status != "degraded" || !strings.Contains(health.Reason, "full") {
		t.Fatalf("health on a full disk: %+v", health)
	}
	page, _ := api.getBytes(t, "/")
	if !bytes.Contains(page, []byte(`data-testid="store-banner"`)) || !bytes.Contains(page, []byte("full")) {
		t.Fatalf("the board has no banner about the full disk:\n%s", page)
	}
	var pending map[string][]approvalItem
	if err := api.get("/api/v1/approvals", &pending); err != nil || len(pending["approvals"]) != 1 || pending["approvals"][0].ID != it.ID {
		t.Fatalf("after the refusal: %+v %v, want the prompt still waiting", pending, err)
	}

	free()
	until(t, 20*time.Second, "health back to ok", func() (bool, string) {
		var h struct{ Status, Reason string }
		err := api.get("/api/v1/health", &h)
		return err == nil && h.Status == "ok", h.Status + " " + h.Reason
	})
	if status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "allow"}); status != http.StatusOK {
		t.Fatalf("deciding once there is room: %d %s", status, msg)
	}
	if out := held(); !strings.Contains(out, `"behavior":"allow"`) {
		t.Fatalf("the hook printed %q, want the approval", out)
	}
	var audit struct {
		Entries []struct{ Action, Detail string }
	}
	if err := api.get("/api/v1/audit", &audit); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range audit.Entries {
		if strings.Contains(e.Detail, "item="+it.ID) {
			n++
			if e.Action != "approval.allowed" {
				t.Errorf("audit entry %+v", e)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d audit entries for the item, want 1: %+v", n, audit.Entries)
	}
}

// TestServeOnAFullDisk starts paddock serve with a new data dir on a full
// disk: it exits at once saying the disk is full, and leaves no empty
// database behind.
func TestServeOnAFullDisk(t *testing.T) {
	disk := fulldisk.Mount(t, 8<<20)
	data := filepath.Join(disk, "data")
	fulldisk.Fill(t, disk)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, servetest.Binary(t), "serve", "--addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--hook-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "PADDOCK_HOME="+data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("serve on a full disk: %v, want exit status 1; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "is full") || !strings.Contains(stderr.String(), "free some space") {
		t.Errorf("serve on a full disk said:\n%s\nwant that the disk is full and what to do", stderr.String())
	}
	for _, name := range []string{"paddock.db", "paddock.db-wal", "paddock.db-shm"} {
		if _, err := os.Stat(filepath.Join(data, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left in the data dir (%v)", name, err)
		}
	}
}
