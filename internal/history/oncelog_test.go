package history

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func newLogger() (*OnceLog, *bytes.Buffer) {
	var buf bytes.Buffer
	return NewOnceLog(slog.New(slog.NewTextHandler(&buf, nil))), &buf
}

func TestError(t *testing.T) {
	l, buf := newLogger()
	for range 3 {
		l.Error("/a", "cannot read", "err", "boom")
	}
	l.Error("/b", "cannot read")
	out := buf.String()
	if n := strings.Count(out, "path=/a"); n != 1 {
		t.Errorf("/a logged %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, `level=ERROR msg="cannot read" path=/a err=boom`) {
		t.Errorf("record lacks level, path or args:\n%s", out)
	}
	if !strings.Contains(out, "path=/b") {
		t.Errorf("a second key was not logged:\n%s", out)
	}
}

func TestLog(t *testing.T) {
	l, buf := newLogger()
	l.Log(slog.LevelWarn, "processes", "cannot list processes", "err", "eperm")
	l.Log(slog.LevelWarn, "processes", "cannot list processes", "err", "eperm")
	out := buf.String()
	if strings.Count(out, "cannot list") != 1 || !strings.Contains(out, "level=WARN") || strings.Contains(out, "path=") {
		t.Errorf("want one WARN record without the key:\n%s", out)
	}
}

func TestForget(t *testing.T) {
	l, buf := newLogger()
	l.Error("k", "m")
	l.Forget("k")
	l.Error("k", "m")
	if n := strings.Count(buf.String(), "path=k"); n != 2 {
		t.Errorf("logged %d times, want twice (once before and once after Forget)", n)
	}
}

func TestForgetGone(t *testing.T) {
	dir := t.TempDir()
	kept, gone, here := filepath.Join(dir, "kept"), filepath.Join(dir, "gone"), filepath.Join(dir, "here")
	if err := os.WriteFile(here, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l, buf := newLogger()
	for _, k := range []string{kept, gone, here, "processes"} {
		l.Error(k, "m")
	}
	var stated []string
	var mu sync.Mutex
	l.ForgetGone(func(k string) bool {
		mu.Lock()
		stated = append(stated, k)
		mu.Unlock()
		return k == kept || k == "processes"
	})
	buf.Reset()
	for _, k := range []string{kept, gone, here, "processes"} {
		l.Error(k, "m")
	}
	out := buf.String()
	if strings.Count(out, "msg=m") != 1 || !strings.Contains(out, "path="+gone) {
		t.Errorf("after ForgetGone only the missing, unkept file may be logged again:\n%s", out)
	}
	if len(stated) != 4 {
		t.Errorf("keep asked about %v, want every key", stated)
	}
}

func TestForgetIf(t *testing.T) {
	l, buf := newLogger()
	l.Error("/x/a", "m")
	l.Error("/y/b", "m")
	l.ForgetIf(func(k string) bool { return strings.HasPrefix(k, "/x/") })
	buf.Reset()
	l.Error("/x/a", "m")
	l.Error("/y/b", "m")
	if out := buf.String(); strings.Count(out, "msg=m") != 1 || !strings.Contains(out, "/x/a") {
		t.Errorf("want only /x/a logged again:\n%s", out)
	}
}
