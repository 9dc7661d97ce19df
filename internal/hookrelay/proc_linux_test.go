package hookrelay

import (
	"os"
	"testing"
)

func TestTTYName(t *testing.T) {
	dev := func(major, minor int64) int64 { return (minor & 0xff) | (major << 8) | ((minor &^ 0xff) << 12) }
	for _, c := range []struct {
		nr   int64
		want string
	}{
		{0, ""},
		{dev(136, 3), "/dev/pts/3"},
		{dev(136, 300), "/dev/pts/300"},
		{dev(137, 1), "/dev/pts/257"},
		{dev(4, 1), "/dev/tty1"},
	} {
		if got := ttyName(-1, c.nr); got != c.want {
			t.Errorf("ttyName(%d) = %q, want %q", c.nr, got, c.want)
		}
	}
}

func TestReadStat(t *testing.T) {
	st, ok := readStat(os.Getpid())
	if !ok || st.ppid != os.Getppid() || st.comm == "" {
		t.Fatalf("readStat(self) = %+v, %v", st, ok)
	}
	if _, ok := readStat(deadPID); ok {
		t.Fatal("readStat of a dead pid")
	}
	if !isShell("dash") || isShell("claude") || isShell("codex") {
		t.Fatal("isShell")
	}
}
