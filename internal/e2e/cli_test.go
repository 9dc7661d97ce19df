package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/servetest"
)

// paddockCLI runs the paddock binary with args in home, against serve's
// data dir, and returns its exit code and output.
func paddockCLI(t *testing.T, home, dataDir string, extraEnv []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(servetest.Binary(t), args...)
	cmd.Dir = home
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(servetest.AgentDirVars, name) || name == "PADDOCK_TOKEN" || name == "PADDOCK_HOME"
	}), append([]string{"HOME=" + home, "PADDOCK_HOME=" + dataDir}, extraEnv...)...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("paddock %v: %v", args, err)
	}
	return code, out.String(), errs.String()
}

// TestCLIAsksServe: with paddock serve running, `paddock sessions list`,
// `status` and `show` answer what the API answers (serve's board, with
// the states hooks report), using the command line's own token, made on
// first use (mode 0600) and made again once revoked; without serve they
// read the histories and say the live state is unknown; `create` and
// `handoff` need serve and say so.
func TestCLIAsksServe(t *testing.T) {
	home := fixtureHome(t)
	srv := servetest.Start(t, home)
	api := newAPIClient(t, srv)
	cli := func(args ...string) (int, string, string) { return paddockCLI(t, home, srv.DataDir, nil, args...) }

	var fromAPI struct{ Sessions []map[string]any }
	var fromCLI []map[string]any
	until(t, 30*time.Second, "list: the CLI's JSON is the API's", func() (bool, string) {
		if err := api.get("/api/v1/sessions?limit=50", &fromAPI); err != nil {
			return false, err.Error()
		}
		code, out, errs := cli("sessions", "list", "--json")
		if code != 0 || json.Unmarshal([]byte(out), &fromCLI) != nil {
			return false, errs
		}
		return len(fromAPI.Sessions) > 0 && reflect.DeepEqual(fromCLI, fromAPI.Sessions), out
	})
	fi, err := os.Stat(filepath.Join(srv.DataDir, "cli-token"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the command line's token: %v %v", fi, err)
	}
	first := fromAPI.Sessions[0]
	key := first["runtime"].(string) + ":" + first["id"].(string)
	var one struct{ Session map[string]any }
	until(t, 30*time.Second, "status: the CLI's JSON is the API's", func() (bool, string) {
		if err := api.get("/api/v1/sessions/"+strings.Replace(key, ":", "/", 1), &one); err != nil {
			return false, err.Error()
		}
		var got map[string]any
		code, out, errs := cli("sessions", "status", "--json", key)
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
			return false, errs
		}
		return reflect.DeepEqual(got, one.Session), out
	})
	var page struct{ Messages []map[string]any }
	if err := api.get("/api/v1/sessions/"+strings.Replace(key, ":", "/", 1)+"/messages?limit=3", &page); err != nil {
		t.Fatal(err)
	}
	var shown struct{ Messages []map[string]any }
	if code, out, errs := cli("sessions", "show", "--json", "--limit", "3", key); code != 0 || json.Unmarshal([]byte(out), &shown) != nil ||
		len(page.Messages) == 0 || !reflect.DeepEqual(shown.Messages, page.Messages) {
		t.Errorf("show: %d %s %s, want the API's %v", code, out, errs, page.Messages)
	}
	if code, out, _ := cli("sessions", "list"); code != 0 || !strings.HasPrefix(out, "SESSION") || !strings.Contains(out, key) || !strings.Contains(out, first["state"].(string)) {
		t.Errorf("list as text: %d %s", code, out)
	}

	// A revoked token is made again, once.
	code, out, errs := cli("token", "list", "--data-dir", srv.DataDir)
	var id string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "command line") {
			id = strings.Fields(l)[0]
		}
	}
	if code != 0 || id == "" {
		t.Fatalf("token list: %d %s %s", code, out, errs)
	}
	if code, _, errs := cli("token", "revoke", "--data-dir", srv.DataDir, id); code != 0 {
		t.Fatalf("revoke: %s", errs)
	}
	if code, out, errs := cli("sessions", "status", key); code != 0 || !strings.Contains(out, "state: ") {
		t.Errorf("after its token was revoked: %d %s %s", code, out, errs)
	}

	// Refusals, each with its reason.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "handoff", "--from", key, "--to", "claude:nope", "--task", "t"}, "(not_found)"},
		{[]string{"sessions", "handoff", "--from", key, "--task", "t"}, "usage: paddock sessions handoff"},
		{[]string{"sessions", "create"}, "usage: paddock sessions create"},
		{[]string{"sessions", "status", "nope"}, "usage: paddock sessions status"},
	} {
		if code, out, errs := cli(tc.args...); code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: %d %q %q, want an error naming %q", tc.args, code, out, errs, tc.want)
		}
	}

	// Without serve: read from the histories, and said so.
	srv.Stop(t)
	code, out, errs = cli("sessions", "status", "--json", key)
	if code != 0 || !strings.Contains(errs, "paddock serve is not running") || !strings.Contains(out, `"running"`) {
		t.Errorf("status without serve: %d %s %s", code, out, errs)
	}
	for _, args := range [][]string{{"sessions", "create", "--runtime", "claude"}, {"sessions", "handoff", "--from", key, "--to", "claude:x", "--task", "t"}} {
		if code, _, errs := cli(args...); code == 0 || !strings.Contains(errs, "paddock serve is not running") {
			t.Errorf("%v without serve: %d %s", args, code, errs)
		}
	}
}
