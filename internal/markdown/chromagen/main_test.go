package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The files internal/markdown embeds are what chromagen writes now: after
// a chroma upgrade or a change to languages, `make generate` and commit.
// (Like the templ check, for the chroma stylesheet and lexers.)
func TestGeneratedFilesUpToDate(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	dir := ".."
	committed, err := filepath.Glob(filepath.Join(dir, "lexers", "*.xml"))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"chroma.css", "lexers_gen.go"}
	for _, f := range committed {
		names = append(names, "lexers/"+filepath.Base(f))
	}
	for name := range want {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		got, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case want[name] == nil:
			t.Errorf("internal/markdown/%s is no longer generated; run make generate", name)
		case err != nil:
			t.Errorf("internal/markdown/%s: %v; run make generate", name, err)
		case !bytes.Equal(got, want[name]):
			t.Errorf("internal/markdown/%s is stale; run make generate", name)
		}
	}
}

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{
		"Go": "go.xml", "C++": "cpp.xml", "C#": "csharp.xml", "Bash Session": "bash_session.xml",
		"Objective-C": "objective_c.xml", "paddock Go raw string": "paddock_go_raw_string.xml",
	} {
		if got := fileName(in); got != want {
			t.Errorf("fileName(%q) = %q, want %q", in, got, want)
		}
	}
}
