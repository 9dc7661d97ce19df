//go:build linux

package procscan

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	// Fields 4.. of a real line (ppid 10978, tty_nr 34818 = pts/2, flags
	// 4194560, 3 threads, starttime 1038331, rss 49215 pages).
	tail := " 10978 12236 12236 34818 12236 4194560 64181 0 0 0 1032 243 0 0 20 0 3 0 1038331 74599002112 49215 18446744073709551615"
	tests := []struct {
		name string
		data string
		want proc
		ok   bool
	}{
		{"claude", "12236 (claude) S" + tail, proc{ppid: 10978, ttyNr: 34818, startTicks: 1038331, rss: 49215 * 4096}, true},
		{"spaces and parens in comm", "12236 (a) (b c)) R" + tail, proc{ppid: 10978, ttyNr: 34818, startTicks: 1038331, rss: 49215 * 4096}, true},
		{"threaded zombie leader lives", "12236 (node) Z" + tail, proc{ppid: 10978, ttyNr: 34818, startTicks: 1038331, rss: 49215 * 4096}, true},
		{"lone zombie", "7 (sh) Z 1 7 7 0 -1 4194564 1 0 0 0 0 0 0 0 20 0 1 0 500 0 0 18446744073709551615",
			proc{ppid: 1, zombie: true, startTicks: 500}, true},
		{"kernel thread", "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 3 0 0 18446744073709551615",
			proc{kernel: true, startTicks: 3}, true},
		{"no tty is -1 tpgid, 0 tty", "9 (x) S 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 4 0 2 1",
			proc{ppid: 1, startTicks: 4, rss: 2 * 4096}, true},
		{"too short", "9 (x) S 1 9 9 0", proc{}, false},
		{"no comm", "9 x S 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 4 0 2 1", proc{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseStat([]byte(tt.data), 4096)
			if ok != tt.ok || ok && got != tt.want {
				t.Fatalf("parseStat = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestSplitCmdline(t *testing.T) {
	for _, c := range []struct {
		data string
		want []string
	}{
		{"claude\x00--resume\x00id\x00", []string{"claude", "--resume", "id"}},
		{"pi\x00\x00\x00\x00", []string{"pi", "", "", ""}}, // a process title over the arguments
		{"no-terminator", []string{"no-terminator"}},
	} {
		if got := splitCmdline([]byte(c.data)); !slices.Equal(got, c.want) {
			t.Errorf("splitCmdline(%q) = %q, want %q", c.data, got, c.want)
		}
	}
}

func BenchmarkScan(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := Scan(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func TestOpenFiles(t *testing.T) {
	dir := t.TempDir()
	held := filepath.Join(dir, "rollout.jsonl")
	if err := os.WriteFile(held, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A child that holds the file open on fd 3 and a pipe on stdin.
	f, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("sleep", "30")
	cmd.ExtraFiles = []*os.File{f}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	got, err := OpenFiles(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, held) {
		t.Errorf("OpenFiles = %q, want it to hold %s", got, held)
	}
	for _, p := range got {
		if !filepath.IsAbs(p) || strings.HasPrefix(p, "/dev/") {
			t.Errorf("OpenFiles listed %q: only regular paths belong there", p)
		}
	}

	cmd.Process.Kill()
	cmd.Wait()
	if _, err := OpenFiles(cmd.Process.Pid); err != ErrNotRunning {
		t.Errorf("OpenFiles of an exited process: err = %v, want ErrNotRunning", err)
	}
}
