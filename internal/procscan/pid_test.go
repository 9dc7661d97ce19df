package procscan

import (
	"os"
	"runtime"
	"testing"
)

func TestParsePidStat(t *testing.T) {
	// Fields 4..21 (ppid .. itrealvalue), then 22 (starttime), then more.
	tail := " 1 1 1 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 22595 1000 10 18446744073709551615"
	tests := []struct {
		name      string
		data      string
		wantState byte
		wantStart string
		wantErr   bool
	}{
		{"plain", "8934 (claude) S" + tail, 'S', "22595", false},
		{"spaces in comm", "8934 (my cmd) R" + tail, 'R', "22595", false},
		{"parens in comm", "8934 (a) (b) c)) Z" + tail, 'Z', "22595", false},
		{"trailing newline", "8934 (claude) S" + tail + "\n", 'S', "22595", false},
		{"no comm", "8934 claude S" + tail, 0, "", true},
		{"too short", "8934 (claude) S 1 1", 0, "", true},
		{"start not a number", "8934 (claude) S 1 1 1 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 x22 1000", 0, "", true},
		{"empty", "", 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, start, err := parsePidStat([]byte(tt.data))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if state != tt.wantState || start != tt.wantStart {
				t.Errorf("got (%q, %q), want (%q, %q)", state, start, tt.wantState, tt.wantStart)
			}
		})
	}
}

func TestStartTicksSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, err := StartTicks(os.Getpid()); err == nil {
			t.Fatal("StartTicks without /proc should fail")
		}
		t.Skip("start ticks come from /proc (Linux only)")
	}
	first, err := StartTicks(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if first == "" {
		t.Fatal("empty start ticks")
	}
	for _, c := range first {
		if c < '0' || c > '9' {
			t.Fatalf("start ticks %q is not a decimal number", first)
		}
	}
	again, err := StartTicks(os.Getpid())
	if err != nil || again != first {
		t.Fatalf("second read = %q, %v; want %q (a process's start time never changes)", again, err, first)
	}
	if _, err := StartTicks(-1); err == nil {
		t.Error("StartTicks(-1) should fail")
	}
}

func TestAlive(t *testing.T) {
	tests := []struct {
		name string
		pid  int
		want bool
	}{
		{"self", os.Getpid(), runtime.GOOS != "windows" && runtime.GOOS != "plan9"},
		{"zero is a process group, not a process", 0, false},
		{"negative", -1, false},
		{"beyond pid_max", 1 << 30, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Alive(tt.pid); got != tt.want {
				t.Errorf("Alive(%d) = %v, want %v", tt.pid, got, tt.want)
			}
		})
	}
}
