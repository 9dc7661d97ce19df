package hookinstall_test

import (
	"os"
	"os/exec"
	. "paddock/internal/hookinstall"
	"path/filepath"
	"strings"
	"testing"
)

// applyDiffCheck applies diff to orig with patch(1) and compares the result
// with the file at want.
func applyDiffCheck(t *testing.T, orig, diff, want string) {
	t.Helper()
	bin, err := exec.LookPath("patch")
	if err != nil {
		t.Log("patch(1) not found: diff not applied")
		return
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "file")
	if err := os.WriteFile(f, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-s", "-f", f)
	cmd.Stdin = strings.NewReader(diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s\n%s", err, out, diff)
	}
	got, _ := os.ReadFile(f)
	w, _ := os.ReadFile(want)
	if string(got) != string(w) {
		t.Fatalf("the diff does not produce the file:\n%s", diff)
	}
}

func TestUnifiedDiff(t *testing.T) {
	cases := []struct{ a, b string }{
		{"a\nb\nc\n", "a\nb\nc\nd\n"},
		{"", "x\ny\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\nY\n12\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n", "0\n1\n2\n4\n5\n6\n7\n8\n"},
		{"no newline", "no newline\nmore"},
		{"{\n}\n", "{\n  \"a\": 1\n}\n"},
	}
	for _, c := range cases {
		d := UnifiedDiff("f", []byte(c.a), []byte(c.b), true, true)
		if !strings.HasPrefix(d, "--- f\n+++ f\n@@ ") {
			t.Errorf("diff header: %q", d)
		}
		w := filepath.Join(t.TempDir(), "want")
		if err := os.WriteFile(w, []byte(c.b), 0o600); err != nil {
			t.Fatal(err)
		}
		applyDiffCheck(t, c.a, d, w)
	}
	if d := UnifiedDiff("f", []byte("x\n"), nil, true, false); d != "--- f\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n" {
		t.Errorf("deletion diff: %q", d)
	}
	if d := UnifiedDiff("f", nil, []byte("x\n"), false, true); d != "--- /dev/null\n+++ f\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("creation diff: %q", d)
	}
}
