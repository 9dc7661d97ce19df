package kimi

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddock/internal/history"
	"paddock/internal/session"
)

// FuzzWire feeds arbitrary bytes to the listing and conversation readers
// of both layouts: never a panic, and a conversation keeps to the
// preview rules.
func FuzzWire(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "kimi-*", "kimi", "sessions", "*", "*", "agents", "main", "wire.jsonl"))
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			lines := strings.Split(string(b), "\n")
			for i := 0; i+4 <= len(lines); i += 4 {
				if len(strings.Join(lines[i:i+4], "")) < 4096 {
					f.Add([]byte(strings.Join(lines[i:i+4], "\n")))
				}
			}
		}
	}
	f.Add([]byte(strings.Join(turn("s", "q", "a", t0), "\n")))
	f.Add([]byte(`{"role":"user","content":"x"}` + "\n" + `{"role":"assistant","content":[{"type":"text","text":"y"}]}`))
	f.Add([]byte(`{"type":"context.undo","count":1e300}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fo := newFold()
		var w wireSummary
		var l legacyLines
		var legacyMsgs []session.Message
		ls := history.NewLineReader(bytes.NewReader(data), maxLineBytes)
		for {
			line, _, err := ls.Next()
			if err != nil {
				break
			}
			fo.line(line)
			w.line(line, "marker")
			l.line(line, "marker")
			if m, wanted, ok := decodeLegacy(line); ok && wanted {
				if text, ok := legacyPrompt(m); ok {
					legacyMsgs = append(legacyMsgs, session.Message{Role: session.RoleUser, Text: text})
				} else if text, ok := legacyAnswer(m); ok {
					legacyMsgs = append(legacyMsgs, session.Message{Role: session.RoleAssistant, Text: text})
				}
			}
		}
		checkMessages(t, "wire", fo.messages())
		checkMessages(t, "context", legacyMsgs)
		if w.prompts < 0 || l.prompts < 0 {
			t.Fatal("negative count")
		}
	})
}
