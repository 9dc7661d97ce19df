package kimi

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkFoldLines folds the lines of a real wire (testdata's "tools"
// session: tool calls, approvals, a resume) repeated to about 8 MB, in
// memory: the per-line cost of a session preview without the file
// reads. The tool snapshot line is left out, as the reader skips it
// unread.
func BenchmarkFoldLines(b *testing.B) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "kimi-*", "kimi", "sessions", "*", "session_6852ccb6-*", "agents", "main", "wire.jsonl"))
	if len(paths) == 0 {
		b.Skip("no testdata wire")
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		b.Fatal(err)
	}
	var body [][]byte
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if !bytes.Contains(l, []byte(`"type":"llm.tools_snapshot"`)) {
			body = append(body, l)
		}
	}
	var lines [][]byte
	size := 0
	for size < 8<<20 {
		for _, l := range body {
			lines = append(lines, l)
			size += len(l) + 1
		}
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		f := newFold()
		for _, l := range lines {
			f.line(l)
		}
		if len(f.messages()) == 0 || f.badLines != 0 {
			b.Fatalf("%d bad lines", f.badLines)
		}
	}
}
