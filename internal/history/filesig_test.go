package history

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestSig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if got := StatSig(path); got != (Sig{}) {
		t.Fatalf("missing file: %+v, want zero", got)
	}
	write := func(p, data string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	write(path, "one", at)
	first := StatSig(path)
	if first.Size != 3 || !first.Mtime().Equal(at) {
		t.Errorf("Stat = %+v, want size 3 and mtime %v", first, at)
	}
	if st, err := os.Stat(path); err != nil || SigOf(st) != first {
		t.Errorf("Of = %+v (%v), want %+v", SigOf(st), err, first)
	}
	if again := StatSig(path); again != first {
		t.Errorf("unchanged file signs %+v, then %+v", first, again)
	}

	// A replacement by rename with the same size and mtime: only the inode
	// tells it apart.
	other := filepath.Join(dir, "g")
	write(other, "two", at)
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	replaced := StatSig(path)
	if replaced.Size != first.Size || replaced.MtimeNs != first.MtimeNs {
		t.Fatalf("replacement: %+v, want size and mtime of %+v", replaced, first)
	}
	if runtime.GOOS != "windows" && replaced == first {
		t.Errorf("a file replaced by rename signs as the old one: %+v", replaced)
	}
}

func TestID(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no inode numbers")
	}
	st, err := os.Stat(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, ino := FileID(st); ino == 0 {
		t.Error("ID gave no inode on a Unix file system")
	}
}
