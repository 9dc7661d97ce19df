package pi

import (
	"os"
	"path/filepath"
	"testing"

	"paddock/internal/testkit/fuzzseed"
)

// FuzzTail: reading a session file from its end gives exactly the last n
// messages of reading it whole, whatever the bytes, from windows that
// start inside lines as well as between them.
func FuzzTail(f *testing.F) {
	for _, s := range fuzzseed.Chunks(fuzzseed.Files(f, fuzzseed.Of("pi", ".jsonl")), 8, 4, 16<<10) {
		f.Add(s)
	}
	path := filepath.Join(f.TempDir(), "s.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c := tailer().Check(t, path)
		c.Ns, c.Windows = []int{1, 2, 5}, []int64{1, 7, 64, int64(len(data)/2 + 1)}
		c.Run(t)
	})
}
