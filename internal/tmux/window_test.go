package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestNewWindowEnvDirArgv: the program runs in Dir with the server's
// environment plus Window.Env, and gets Argv verbatim — values ending in
// ';', "#{…}" formats and "#(…)" command substitutions included.
func TestNewWindowEnvDirArgv(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{Env: testEnv(t, "BASE=from-server", "OVERRIDE=server")})
	out := t.TempDir()
	// A working directory holding what tmux would expand: "#(…)" would
	// run touch through a shell (in the client's directory, the socket's),
	// "#{…}" would print the session name.
	dir := filepath.Join(t.TempDir(), "w #(touch pwned) #{session_name} semi;")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"OUT=" + out,
		"PADDOCK_X=hello world; $HOME #{pane_id} #(touch " + out + "/pwned2) 'q' \"q\" 日本",
		"SEMI=x;",
		"EMPTY=",
		"OVERRIDE=window",
	}
	// The last one ends in ";" just before the ";" that separates tmux
	// commands in the same call.
	args := []string{";", `\;`, "-x", "--", "{", "}", "#{pane_id}", "#(touch " + out + "/pwned3)", "$HOME", "", "sp ace", "a;"}
	p := start(t, s, Window{
		Name: "env-1",
		Dir:  dir,
		Env:  env,
		Argv: sh(`env -0 > "$OUT/env"; pwd -P > "$OUT/pwd"; printf '%s\0' "$@" > "$OUT/args"; exec sleep 600`, args...),
	})
	if p.Session != "env-1" || !strings.HasPrefix(p.Window, "@") || !strings.HasPrefix(p.ID, "%") || p.PID <= 0 {
		t.Fatalf("pane %+v", p)
	}

	gotArgs := strings.Split(strings.TrimSuffix(waitFile(t, filepath.Join(out, "args")), "\x00"), "\x00")
	if !slices.Equal(gotArgs, args) {
		t.Errorf("argv %q, want %q", gotArgs, args)
	}
	envFile, err := os.ReadFile(filepath.Join(out, "env"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSuffix(string(envFile), "\x00"), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	for _, kv := range append(env[1:], "BASE=from-server") {
		k, v, _ := strings.Cut(kv, "=")
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if !strings.HasPrefix(got["TMUX"], s.Socket()+",") || got["TMUX_PANE"] != p.ID {
		t.Errorf("TMUX=%q TMUX_PANE=%q: want paddock's socket and pane %s", got["TMUX"], got["TMUX_PANE"], p.ID)
	}
	if got["TERM"] != DefaultTerminal {
		t.Errorf("TERM=%q", got["TERM"])
	}
	if pwd := strings.TrimSuffix(waitFile(t, filepath.Join(out, "pwd")), "\n"); pwd != dir {
		t.Errorf("working directory %q, want %q", pwd, dir)
	}
	for _, f := range []string{filepath.Join(filepath.Dir(s.Socket()), "pwned"), filepath.Join(out, "pwned2"), filepath.Join(out, "pwned3")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s: tmux ran a #(…) substitution", f)
		}
	}
	eventually(t, "sleep in the pane", func() (bool, string) {
		info, err := s.Status(context.Background(), p)
		return err == nil && info.Dir == dir && info.Command == "sleep" && !info.Dead, fmt.Sprint(info, err)
	})
}

// TestOneWordArgvIsNotAShellCommand: tmux runs a one-word command with
// sh -c; NewWindow must not let it.
func TestOneWordArgvIsNotAShellCommand(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	out := t.TempDir()
	p := start(t, s, Window{Name: "one-word", Argv: []string{"touch " + out + "/pwned; true"}})
	if exit := waitDead(t, s, p); exit.Code == 0 {
		t.Errorf("a one-word command line that is not a program exited %v", exit)
	}
	if _, err := os.Stat(filepath.Join(out, "pwned")); err == nil {
		t.Error("the one-word command ran through a shell")
	}
	// A real one-word program runs (found on the window's PATH).
	c := start(t, s, Window{Name: "cat", Argv: []string{"cat"}})
	eventually(t, "cat running", func() (bool, string) {
		cmd, err := s.CurrentCommand(context.Background(), c)
		return err == nil && cmd == "cat", cmd
	})
}

// TestDefaultEnvIgnoresCallersTmux: paddock running inside the user's tmux
// (TMUX set) still uses only its own socket, and never creates or touches a
// default server.
func TestDefaultEnvIgnoresCallersTmux(t *testing.T) {
	tmpdir := t.TempDir()
	t.Setenv("TMUX", "/nonexistent/user-tmux,1,0")
	t.Setenv("TMUX_PANE", "%99")
	t.Setenv("TMUX_TMPDIR", tmpdir)
	t.Setenv("PADDOCK_FROM_PROCESS", "yes")
	s := newServerOwnEnv(t, Options{})
	if s.env == nil || slices.ContainsFunc(s.env, func(kv string) bool { return strings.HasPrefix(kv, "TMUX=") }) {
		t.Fatalf("server environment keeps TMUX: %q", s.env)
	}
	out := t.TempDir()
	p := start(t, s, Window{Name: "inside", Env: []string{"OUT=" + out},
		Argv: sh(`printf '%s|%s|%s' "$TMUX" "$TMUX_PANE" "$PADDOCK_FROM_PROCESS" > "$OUT/t"; exec sleep 600`)})
	got := waitFile(t, filepath.Join(out, "t"))
	if !strings.HasPrefix(got, s.Socket()+",") || !strings.Contains(got, "|"+p.ID+"|yes") {
		t.Errorf("pane sees %q", got)
	}
	if err := s.SendText(context.Background(), p, "x"); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(tmpdir); len(ents) != 0 {
		t.Errorf("TMUX_TMPDIR gained %v: a default server was used", ents)
	}
}

// TestNewWindowRefusesBadInput: nothing is started for bad input, and a
// duplicate name is ErrExists with nothing half-created.
func TestNewWindowRefusesBadInput(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ok := Window{Name: "ok", Dir: dir, Argv: []string{"sleep", "600"}}
	for _, tc := range []struct {
		name string
		edit func(*Window)
	}{
		{"empty name", func(w *Window) { w.Name = "" }},
		{"name with ;", func(w *Window) { w.Name = "a;" }},
		{"name with space", func(w *Window) { w.Name = "a b" }},
		{"name with colon", func(w *Window) { w.Name = "a:b" }},
		{"long name", func(w *Window) { w.Name = strings.Repeat("a", MaxNameLen+1) }},
		{"relative dir", func(w *Window) { w.Dir = "proj" }},
		{"missing dir", func(w *Window) { w.Dir = filepath.Join(dir, "missing") }},
		{"file as dir", func(w *Window) { w.Dir = file }},
		{"env without =", func(w *Window) { w.Env = []string{"NOEQ"} }},
		{"env bad key", func(w *Window) { w.Env = []string{"1X=1"} }},
		{"env key with ;", func(w *Window) { w.Env = []string{"X;=1"} }},
		{"env NUL", func(w *Window) { w.Env = []string{"X=a\x00b"} }},
		{"no argv", func(w *Window) { w.Argv = nil }},
		{"empty program", func(w *Window) { w.Argv = []string{""} }},
		{"argv NUL", func(w *Window) { w.Argv = []string{"sleep", "1\x00"} }},
		{"tiny window", func(w *Window) { w.Width = 5 }},
	} {
		w := ok
		tc.edit(&w)
		if _, err := s.NewWindow(context.Background(), w); !errors.Is(err, ErrBadName) {
			t.Errorf("%s: %v, want ErrBadName", tc.name, err)
		}
	}
	if s.Running(context.Background()) {
		t.Fatal("bad input started the server")
	}
	start(t, s, ok)
	_, err := s.NewWindow(context.Background(), ok)
	if !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate: %v, want ErrExists", err)
	}
	var te *Error
	if !errors.As(err, &te) || te.Op != "new-session" || !strings.Contains(te.Stderr, "duplicate session") {
		t.Errorf("error %#v", err)
	}
	if infos, _ := s.List(context.Background()); len(infos) != 1 {
		t.Errorf("%d panes after a refused duplicate", len(infos))
	}
}

// TestListOddNames: working directories with spaces, tabs, newlines, the
// separator, UTF-8 and invalid UTF-8, and a session made by hand with an
// odd name, all parse exactly.
func TestListOddNames(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	base := t.TempDir()
	dirs := []string{
		"with space", "tab\there", "new\nline", "sep\x1fhere", "日本 é", "semi;", "bad\xffutf8", "#{pane_id}",
	}
	want := map[string]string{} // session → dir
	for i, d := range dirs {
		dir := filepath.Join(base, d)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		name := "odd-" + string(rune('a'+i))
		start(t, s, Window{Name: name, Dir: dir, Argv: []string{"sleep", "600"}})
		want[name] = dir
	}
	// Someone attached to paddock's socket and made a session by hand
	// (tmux stores the name with its control characters escaped).
	rawTmux(t, s, "new-session", "-d", "-s", "hand\x1fmade\tone", "-c", base, "--", "sleep", "600")
	before := time.Now().Add(-time.Minute)

	var infos []Info
	eventually(t, "every pane's cwd known", func() (bool, string) {
		var err error
		infos, err = s.List(context.Background())
		if err != nil {
			return false, err.Error()
		}
		for _, in := range infos {
			if in.Dir == "" || in.Command != "sleep" {
				return false, in.Session + " not settled"
			}
		}
		return len(infos) == len(dirs)+1, ""
	})
	for _, in := range infos {
		if strings.HasPrefix(in.Session, "hand") {
			if in.Dir != base {
				t.Errorf("hand-made session dir %q", in.Dir)
			}
			continue
		}
		if in.Dir != want[in.Session] {
			t.Errorf("%s: dir %q, want %q", in.Session, in.Dir, want[in.Session])
		}
		if in.PID <= 0 || in.Dead || in.Created.Before(before) || in.Activity.Before(before) {
			t.Errorf("%s: %+v", in.Session, in)
		}
	}
}

// TestKill: a killed window is gone, a second Kill is fine, and the server
// exits with its last window.
func TestKill(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	ctx := context.Background()
	p := start(t, s, Window{Name: "k", Argv: []string{"sleep", "600"}})
	if ok, err := s.Alive(ctx, p); !ok || err != nil {
		t.Fatalf("alive %v %v", ok, err)
	}
	if err := s.Kill(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Status(ctx, p); !errors.Is(err, ErrNoPane) && !errors.Is(err, ErrNoServer) {
		t.Errorf("status of a killed pane: %v", err)
	}
	if ok, err := s.Alive(ctx, p); ok || err != nil {
		t.Errorf("alive after kill: %v %v", ok, err)
	}
	if err := s.Kill(ctx, p); err != nil {
		t.Errorf("second kill: %v", err)
	}
	eventually(t, "server exits with its last window", func() (bool, string) { return !s.Running(ctx), "" })
	if err := s.SendText(ctx, p, "x"); !errors.Is(err, ErrNoServer) {
		t.Errorf("send with no server: %v", err)
	}
}

// TestStaleReferenceNeverReachesAnotherPane: a reference whose ids now
// belong to another session reaches nothing: no text, keys, paste, kill or
// status of the other pane.
func TestStaleReferenceNeverReachesAnotherPane(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	ctx := context.Background()
	a := start(t, s, Window{Name: "a", Argv: []string{"cat"}})
	b := start(t, s, Window{Name: "b", Argv: []string{"cat"}})
	for _, stale := range []Pane{
		{Session: "a", Window: b.Window, ID: b.ID},
		{Session: "b", Window: a.Window, ID: b.ID},
		{Session: "b", Window: b.Window, ID: a.ID},
	} {
		if err := s.SendText(ctx, stale, "wrong pane"); !errors.Is(err, ErrNoPane) {
			t.Errorf("send to %s: %v, want ErrNoPane", stale, err)
		}
		if err := s.Paste(ctx, stale, "wrong\npane"); !errors.Is(err, ErrNoPane) {
			t.Errorf("paste to %s: %v, want ErrNoPane", stale, err)
		}
		if err := s.SendKeys(ctx, stale, "Enter"); !errors.Is(err, ErrNoPane) {
			t.Errorf("keys to %s: %v, want ErrNoPane", stale, err)
		}
		if _, err := s.Capture(ctx, stale, CaptureOptions{}); !errors.Is(err, ErrNoPane) {
			t.Errorf("capture of %s: %v, want ErrNoPane", stale, err)
		}
		if info, err := s.Status(ctx, stale); !errors.Is(err, ErrNoPane) {
			t.Errorf("status of %s: %v %v, want ErrNoPane", stale, info, err)
		}
		if ok, err := s.Alive(ctx, stale); ok || err != nil {
			t.Errorf("alive %s: %v %v", stale, ok, err)
		}
		if err := s.Kill(ctx, stale); err != nil {
			t.Errorf("kill %s: %v", stale, err)
		}
	}
	if infos, err := s.List(ctx); err != nil || len(infos) != 2 {
		t.Errorf("a stale Kill killed something: %v %v", infos, err)
	}
	for _, p := range []Pane{a, b} {
		if screen, _ := s.Capture(ctx, p, CaptureOptions{}); strings.Contains(screen, "wrong") {
			t.Errorf("%s got text meant for a stale reference: %q", p, screen)
		}
	}
}

// TestSocketDir: the socket lives in <data>/tmux, mode 0700.
func TestSocketDir(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	start(t, s, Window{Name: "x", Argv: []string{"sleep", "600"}})
	st, err := os.Stat(filepath.Dir(s.Socket()))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("socket dir: %v %v", st.Mode(), err)
	}
	if _, err := os.Stat(s.Socket()); err != nil {
		t.Errorf("socket: %v", err)
	}
	if _, err := New(context.Background(), "/"+strings.Repeat("d", 120), Options{}); err == nil {
		t.Error("a socket path over the unix limit was accepted")
	}
}
