package kimi

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"paddock/internal/testkit/fuzzseed"
)

// kimiFiles are every Kimi recording of kind ext: kimi-code's wire files
// and state, kimi-cli's context files and metadata.
func kimiFiles(f *testing.F, ext string) []fuzzseed.File {
	return fuzzseed.Files(f, fuzzseed.Of("kimi", ext))
}

// maxTailInput bounds a tail fuzz input: every edge rule shows on a few
// lines, and each input is read whole and from several windows.
const maxTailInput = 8 << 10

// FuzzTail: reading a wire or context file from its end gives exactly
// the last n messages of reading it whole, whatever the bytes, from
// windows that start inside lines as well as between them.
func FuzzTail(f *testing.F) {
	for _, s := range fuzzseed.Chunks(kimiFiles(f, ".jsonl"), 8, 6, 8<<10) {
		f.Add(s, false)
		f.Add(s, true)
	}
	path := filepath.Join(f.TempDir(), "wire.jsonl")
	f.Fuzz(func(t *testing.T, data []byte, isLegacy bool) {
		if len(data) > maxTailInput {
			return // longer inputs only repeat the work of shorter ones
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		l := current
		if isLegacy {
			l = legacy
		}
		c := tailer(t, l).Check(t, path)
		c.Ns, c.Windows = []int{1, 3}, []int64{7, int64(len(data)/2 + 1)}
		c.Run(t)
	})
}

// FuzzState: state.json and metadata.json of any bytes give a title kind
// kimi-code knows and valid text.
func FuzzState(f *testing.F) {
	for _, file := range kimiFiles(f, ".json") {
		f.Add(file.Data)
	}
	f.Add([]byte(`{"version":2,"cwd":"/p","title":"t","titleKind":"generated","createdAt":1764000000000,"updatedAt":"2026-11-29T21:26:26Z","archived":true}`))
	f.Add([]byte(`{"workDir":"/p","title":"x","isCustomTitle":true,"customTitle":null,"custom_title":7}`))
	path := filepath.Join(f.TempDir(), "state.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		m, err := readJSONObject(path)
		if err != nil {
			if m != nil {
				t.Fatalf("an error with an object: %v", m)
			}
			return
		}
		st := parseState(m)
		switch st.titleKind {
		case "custom", "generated", "replaceable":
		default:
			t.Fatalf("title kind %q", st.titleKind)
		}
		ls := parseLegacyState(m, m)
		for _, s := range []string{st.cwd, st.title, st.lastPrompt, ls.customTitle} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 %q", s)
			}
		}
	})
}
