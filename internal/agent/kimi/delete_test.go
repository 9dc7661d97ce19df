package kimi

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddock/internal/history/historytest"
	"paddock/internal/procscan"
	"paddock/internal/session"
	"paddock/internal/testkit/agenttest"
)

// fileState records every regular file under root (directories' mtimes
// change when an entry in them goes, so they are left out).
func fileState(t *testing.T, root string) map[string]string {
	t.Helper()
	return historytest.Tree{Omit: func(p string) bool {
		st, err := os.Lstat(p)
		return err == nil && st.IsDir()
	}}.State(t, root)
}

// checkOnlyGone asserts that the files under the gone paths (files or
// directories) are gone and every other file of before is byte-identical
// after.
func checkOnlyGone(t *testing.T, before, after map[string]string, gone ...string) {
	t.Helper()
	under := func(p string) bool {
		return slices.ContainsFunc(gone, func(g string) bool { return p == g || strings.HasPrefix(p, g+string(filepath.Separator)) })
	}
	for p, was := range before {
		now, ok := after[p]
		switch {
		case under(p):
			if ok {
				t.Errorf("%s still there", p)
			}
		case !ok:
			t.Errorf("%s removed", p)
		case now != was:
			t.Errorf("%s changed", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s created", p)
		}
	}
}

// recordedHome copies the recording into a temporary kimi-code home.
func recordedHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	copyTree(t, recDir, home)
	return home
}

// A kimi-code session's directory goes whole (state.json, the main wire,
// notify/, logs/); the other session, Kimi's index cache and dirty
// markers are byte-identical; nothing finds the session any more.
func TestDeleteCurrent(t *testing.T) {
	ctx := context.Background()
	home := recordedHome(t)
	dir := filepath.Join(home, "sessions", "wd_proj_7bee20991442", recChat)
	// A subagent's wire beside the main one is the session's too.
	writeFile(t, filepath.Join(dir, "agents", "agent-0", "wire.jsonl"), recMeta(t0)+"\n")
	s := newTest(home)
	if got := ids(scanAll(t, s)); len(got) != 2 {
		t.Fatalf("listed %v", got)
	}
	before := fileState(t, home)
	if err := s.Delete(ctx, recChat); err != nil {
		t.Fatal(err)
	}
	checkOnlyGone(t, before, fileState(t, home), dir)
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("session directory: %v", err)
	}
	if got := ids(scanAll(t, s)); !slices.Equal(got, []string{recTools}) {
		t.Errorf("listed after Delete: %v", got)
	}
	if _, err := s.Session(ctx, recChat); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Session: %v", err)
	}
	if _, err := s.Conversation(ctx, recChat); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Conversation: %v", err)
	}
	if _, err := s.Events(ctx, recChat); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Events: %v", err)
	}
	if err := s.Delete(ctx, recChat); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("second Delete: %v", err)
	}
}

func TestDeleteUnknown(t *testing.T) {
	home := recordedHome(t)
	s := newTest(home)
	before := fileState(t, home)
	for _, id := range []string{"", "nope", "..", "../..", "*", "session_*", ".index-cache", "wd_proj_7bee20991442", "agents", "main"} {
		if err := s.Delete(context.Background(), id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Delete(%q) = %v, want ErrNotFound", id, err)
		}
	}
	if err := New(Options{}).Delete(context.Background(), recChat); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("no Kimi home: %v", err)
	}
	checkOnlyGone(t, before, fileState(t, home))
}

// A session a live kimi TUI holds is refused, and any session while the
// processes cannot be listed; nothing is removed. An unsupported platform
// has no liveness: nothing is live there.
func TestDeleteLive(t *testing.T) {
	ctx := context.Background()
	home := recordedHome(t)
	before := fileState(t, home)
	tui := procscan.AgentProcess{PID: 4242, Runtime: "kimi", Argv: []string{"kimi-code"}, ArgsHidden: true,
		ArgSessionID: recTools, Cwd: "/tmp/paddock-fixtures-home/proj", Interactive: true}
	s := newTest(home, func(o *Options) { o.Processes = procsOf(tui) })
	err := s.Delete(ctx, recTools)
	if !errors.Is(err, session.ErrLive) || !strings.Contains(err.Error(), "4242") {
		t.Errorf("live session: %v, want ErrLive naming pid 4242", err)
	}
	broken := newTest(home, func(o *Options) {
		o.Processes = func(context.Context) ([]procscan.AgentProcess, error) { return nil, errors.New("no /proc") }
	})
	if err := broken.Delete(ctx, recChat); err == nil || errors.Is(err, session.ErrNotFound) {
		t.Errorf("processes unreadable: %v, want an error", err)
	}
	checkOnlyGone(t, before, fileState(t, home))

	if err := s.Delete(ctx, recChat); err != nil {
		t.Errorf("the session nobody runs: %v", err)
	}
	unsupported := newTest(home, func(o *Options) {
		o.Processes = func(context.Context) ([]procscan.AgentProcess, error) { return nil, procscan.ErrUnsupported }
	})
	if err := unsupported.Delete(ctx, recTools); err != nil {
		t.Errorf("unsupported platform: %v", err)
	}
}

// kimi-cli's layout: a session directory goes whole (context.jsonl,
// wire.jsonl, state.json, subagents/), a flat session its one file;
// kimi.json and the other sessions stay. A migrated kimi-code session
// takes its kimi-cli original with it, which Scan would list otherwise.
func TestDeleteLegacy(t *testing.T) {
	ctx := context.Background()
	share, home, proj := legacyTree(t)
	s := New(Options{Home: home, LegacyHome: share})
	bucket := filepath.Join(share, "sessions", md5hex(proj))
	beforeShare, beforeHome := fileState(t, share), fileState(t, home)

	if err := s.Delete(ctx, uuidDir); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, uuidFlat); err != nil {
		t.Fatal(err)
	}
	checkOnlyGone(t, beforeShare, fileState(t, share), filepath.Join(bucket, uuidDir), filepath.Join(bucket, uuidFlat+".jsonl"))
	checkOnlyGone(t, beforeHome, fileState(t, home))

	migrated := "ses_" + uuidMigrated
	beforeShare = fileState(t, share)
	if err := s.Delete(ctx, migrated); err != nil {
		t.Fatal(err)
	}
	checkOnlyGone(t, beforeShare, fileState(t, share), filepath.Join(bucket, uuidMigrated))
	checkOnlyGone(t, beforeHome, fileState(t, home), filepath.Join(home, "sessions", workDirKey(proj), migrated))
	got := ids(scanAll(t, s))
	if !slices.Equal(got, []string{uuidUnknown}) {
		t.Errorf("listed after Delete: %v", got)
	}
	for _, id := range []string{uuidDir, uuidFlat, migrated, uuidMigrated} {
		if err := s.Delete(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Delete(%s) again: %v", id, err)
		}
	}
}

// Kimi Code itself agrees: after Delete, the real `kimi session list`
// over the same home lists only the other session (Kimi checks its index
// cache against the session directories).
func TestDeleteRealKimiAgrees(t *testing.T) {
	bin := agenttest.Bin(t, agenttest.Kimi)
	home := recordedHome(t)
	if err := newTest(home).Delete(context.Background(), recChat); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), bin, "session", "list", "--all", "--json")
	cmd.Env = append(os.Environ(), "KIMI_CODE_HOME="+home, "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kimi session list: %v", err)
	}
	var list []struct{ ID string }
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("kimi session list: %v\n%s", err, out)
	}
	if len(list) != 1 || list[0].ID != recTools {
		t.Errorf("kimi lists %+v, want only %s", list, recTools)
	}
}
