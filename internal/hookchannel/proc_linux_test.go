package hookchannel

import (
	"os"
	"testing"
)

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
