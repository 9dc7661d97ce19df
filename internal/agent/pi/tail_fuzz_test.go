package pi

import (
	"os"
	"path/filepath"
	"testing"

	"paddock/internal/testkit/fuzzseed"
)

// maxTailInput bounds a tail fuzz input: every edge rule shows on a few
// lines, and each input is read whole and from several windows.
const maxTailInput = 8 << 10

// FuzzTail: reading a session file from its end gives exactly the last n
// messages of reading it whole, whatever the bytes, from windows that
// start inside lines as well as between them.
func FuzzTail(f *testing.F) {
	for _, s := range fuzzseed.Chunks(fuzzseed.Files(f, fuzzseed.Of("pi", ".jsonl")), 8, 4, 8<<10) {
		f.Add(s)
	}
	path := filepath.Join(f.TempDir(), "s.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxTailInput {
			return // longer inputs only repeat the work of shorter ones
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c := tailer().Check(t, path)
		c.Ns, c.Windows = []int{1, 3}, []int64{7, int64(len(data)/2 + 1)}
		c.Run(t)
	})
}
