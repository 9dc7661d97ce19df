package claude

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"paddock/internal/testkit/fuzzseed"
)

// claudeFiles are every Claude recording of kind ext.
func claudeFiles(f *testing.F, ext string) []fuzzseed.File {
	return fuzzseed.Files(f, fuzzseed.Of("claude", ext))
}

// maxTailInput bounds a tail fuzz input: every edge rule shows on a few
// lines, and each input is read whole and from several windows.
const maxTailInput = 8 << 10

// FuzzTail: reading a transcript from its end gives exactly the last n
// messages of reading it whole, whatever the bytes, from windows that
// start inside lines as well as between them.
func FuzzTail(f *testing.F) {
	for _, s := range fuzzseed.Chunks(claudeFiles(f, ".jsonl"), 8, 4, 8<<10) {
		f.Add(s)
	}
	path := filepath.Join(f.TempDir(), "t.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxTailInput {
			return // longer inputs only repeat the work of shorter ones
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c := tailer(t).Check(t, path)
		c.Ns, c.Windows = []int{1, 3}, []int64{7, int64(len(data)/2 + 1)}
		c.Run(t)
	})
}

// FuzzPidFile: a sessions/<pid>.json of any bytes is refused or gives a
// pid a process can have and valid text.
func FuzzPidFile(f *testing.F) {
	for _, file := range claudeFiles(f, ".json") {
		if strings.Contains(file.Rel, "/sessions") {
			f.Add(file.Data)
		}
	}
	f.Add([]byte(`{"pid":23233,"sessionId":"s","procStart":12345,"status":"waiting","waitingFor":"permission","tmux":"%1","updatedAt":1764000000000}`))
	f.Add([]byte(`{"pid":2147483648,"sessionId":["s"]}`))
	f.Add([]byte(`{"pid":1.5,"procStart":1e300}`))
	path := filepath.Join(f.TempDir(), "1.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		p, ok := readPidFile(path)
		if !ok {
			if p != (pidFile{}) {
				t.Fatalf("a refused file gave %+v", p)
			}
			return
		}
		if p.pid < 0 || p.pid > math.MaxInt32 {
			t.Fatalf("pid %d", p.pid)
		}
		for _, s := range []string{p.sessionID, p.procStart, p.status, p.waitingFor, p.tmux} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 %q", s)
			}
		}
	})
}
