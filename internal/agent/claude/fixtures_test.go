package claude

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"paddock/internal/testkit/sharedtest"
)

// fixtureRoots are the Claude fixture trees under ../shared/fixtures.
var fixtureRoots = []string{
	"public/claude",
	"real/claude-2.1.328",
}

// fixtureFile is one fixture transcript placed in a temporary Claude dir.
type fixtureFile struct {
	src string // the shared fixture
	dst string // its copy under <dir>/projects
	id  string // the session id its name gives (file name without .jsonl)
	top bool   // directly in a project dir, i.e. a session candidate
}

// claudeDirFromFixtures builds a Claude config dir in a temp dir holding a
// copy of every file of the Claude fixtures, laid out as Claude lays out
// projects/: a transcript's directory becomes a project directory, and
// files under <id>/subagents/ stay nested under the project that holds
// <id>.jsonl. Copies (not the shared originals) keep every test, even a
// buggy one, away from ../shared.
func claudeDirFromFixtures(t testing.TB) (dir string, files []fixtureFile) {
	t.Helper()
	dir = t.TempDir()
	base := sharedtest.Fixtures(t)
	for _, root := range fixtureRoots {
		rootPath := filepath.Join(base, filepath.FromSlash(root))
		err := filepath.WalkDir(rootPath, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(base, path)
			if err != nil {
				return err
			}
			proj, inProj := projectPlacement(filepath.ToSlash(rel))
			dst := filepath.Join(dir, "projects", proj, filepath.FromSlash(inProj))
			copyFile(t, path, dst)
			if strings.HasSuffix(path, ".jsonl") {
				files = append(files, fixtureFile{
					src: path,
					dst: dst,
					id:  strings.TrimSuffix(filepath.Base(path), ".jsonl"),
					top: !strings.Contains(inProj, "/"),
				})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) == 0 {
		t.Fatal("no Claude fixtures found")
	}
	return dir, files
}

// projectPlacement maps a fixture path (relative to fixtures/) to a project
// directory name and a path inside it. The project is the directory that
// holds the file, or for <id>/subagents/... trees the directory that holds
// <id>.jsonl; its name is the whole directory path flattened, so it is
// unique.
func projectPlacement(rel string) (project, inProject string) {
	parts := strings.Split(rel, "/")
	cut := len(parts) - 1
	for i, p := range parts {
		if p == "subagents" && i >= 2 {
			cut = i - 1 // the <id> directory
			break
		}
	}
	return strings.Join(parts[:cut], "-"), strings.Join(parts[cut:], "/")
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	// Keep the fixture's mtime: listing order and effective times use it.
	if st, err := os.Stat(src); err == nil {
		_ = os.Chtimes(dst, st.ModTime(), st.ModTime())
	}
}

// sharedPresent mirrors sharedtest's lookup (../shared next to the module)
// without its skip, so the benchmark can fall back to generated data.
func sharedPresent() bool {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return false
	}
	st, err := os.Stat(filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "fixtures"))
	return err == nil && st.IsDir()
}
