package claude

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"paddock/internal/history"
)

// candidate is one transcript found by the stat pass.
type candidate struct {
	id, path string
	sig      history.Sig
	// unreadable: why the transcript cannot be read at all (a pipe, a
	// link that cannot be followed); nil for a regular file.
	unreadable error
}

// candidates stats every projects/*/*.jsonl — the top level of each project
// directory only: <id>/subagents/ holds Task subagents, never sessions —
// and returns them newest mtime first. This pass is the only work that
// grows with the number of sessions.
func (s *Scanner) candidates(ctx context.Context) ([]candidate, error) {
	projects := s.projectsDir()
	if !isDir(projects) {
		return nil, nil // Claude not installed, or never used
	}
	dirs, err := subdirs(projects)
	if err != nil {
		return nil, err
	}

	out, err := history.Gather(ctx, history.StatWorkers, dirs, s.project)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b candidate) int {
		if c := cmp.Compare(b.sig.MtimeNs, a.sig.MtimeNs); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	return out, nil
}

// project stats the transcripts at the top level of one project directory.
func (s *Scanner) project(dir string) []candidate {
	f, err := os.Open(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) { // removed since the listing: no news
			s.problems.Error(dir, "cannot open Claude project directory", "err", err)
			s.sources.Add(dir, "cannot be read: "+history.Reason(err))
		}
		return nil
	}
	defer f.Close()
	// Names only: the lstat below gives the type too, and an unsorted
	// listing is fine since the caller sorts by mtime.
	names, err := f.Readdirnames(-1)
	if err != nil && len(names) == 0 {
		if st, serr := f.Stat(); serr == nil && st.IsDir() {
			s.problems.Error(dir, "cannot list Claude project directory", "err", err)
			s.sources.Add(dir, "cannot be read: "+history.Reason(err))
		}
		return nil // a symlink to a file is no project
	}
	var out []candidate
	for _, name := range names {
		id, ok := strings.CutSuffix(name, ".jsonl")
		if !ok || !validID(id) {
			continue
		}
		// Plain concatenation: filepath.Join's Clean costs more than the
		// lstat itself at 10,000 files, and both parts are clean already.
		path := dir + string(filepath.Separator) + name
		// Gone since the listing, or a directory: nothing to list. A pipe
		// or a link that cannot be followed is listed, unreadable.
		st, ok, bad := history.StatHistory(path, nil)
		if !ok {
			if bad != nil {
				s.problems.Error(path, "cannot stat Claude transcript", "err", bad)
			}
			continue
		}
		out = append(out, candidate{id: id, path: path, sig: history.SigOf(st), unreadable: bad})
	}
	return out
}

// subdirs lists the entries of dir that are directories or symlinks (which
// project() opens and ignores if they lead to a file).
func subdirs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && len(entries) == 0 {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// find locates the transcript of id: the newest projects/*/<id>.jsonl.
func (s *Scanner) find(id string) (candidate, bool) {
	if s.dir == "" || !validID(id) {
		return candidate{}, false
	}
	// validID admits no glob metacharacters, so id matches only itself.
	paths, _ := filepath.Glob(filepath.Join(s.projectsDir(), "*", id+".jsonl"))
	var best candidate
	found := false
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if c := (candidate{id: id, path: p, sig: history.SigOf(st)}); !found || c.sig.MtimeNs > best.sig.MtimeNs {
			best, found = c, true
		}
	}
	return best, found
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
