package pi

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"paddock/internal/history"
)

// candidate is one *.jsonl file found by the stat pass.
type candidate struct {
	path     string
	sig      history.Sig
	isolated bool   // in a legacy isolation folder (its own quota)
	nameID   string // the id part of <timestamp>_<id>.jsonl: a hint, never the identity
	// unreadable: why the file cannot be read at all (a pipe, a link
	// that cannot be followed); nil for a regular file. Such a file is
	// never opened.
	unreadable error
}

func (c candidate) mtime() time.Time { return c.sig.Mtime() }

// walk stats every sessions/**/*.jsonl and returns the files newest mtime
// first, with every directory seen (for WatchDirs). This pass is the only
// work of a listing that grows with the number of sessions. Symlinked
// files are followed; symlinked directories are not (no loops).
func (s *Scanner) walk(ctx context.Context) ([]candidate, []string, error) {
	s.walks.Add(1)
	root := s.sessionsDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		if _, serr := os.Stat(root); serr != nil {
			return nil, nil, nil // Pi not installed, or never used
		}
		return nil, nil, err // there, but unreadable: not "no sessions"
	}
	var top []candidate
	var subdirs []string
	for _, e := range entries {
		p := filepath.Join(root, e.Name())
		if e.IsDir() {
			subdirs = append(subdirs, p)
		} else if c, ok := s.stat(p, e); ok {
			top = append(top, c)
		}
	}

	type result struct {
		cands []candidate
		dirs  []string
	}
	results := make([]result, len(subdirs))
	if err := history.Each(ctx, history.StatWorkers, len(subdirs), func(i int) {
		r := &results[i]
		s.walkDir(ctx, subdirs[i], &r.cands, &r.dirs)
	}); err != nil {
		return nil, nil, err
	}

	out := top
	dirs := []string{root}
	for _, r := range results {
		out = append(out, r.cands...)
		dirs = append(dirs, r.dirs...)
	}
	slices.SortFunc(out, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.sig.MtimeNs, a.sig.MtimeNs), strings.Compare(a.path, b.path))
	})
	return out, dirs, nil
}

// walkDir adds dir's session files and directories, recursively.
func (s *Scanner) walkDir(ctx context.Context, dir string, cands *[]candidate, dirs *[]string) {
	if ctx.Err() != nil {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil && len(entries) == 0 {
		s.problems.Error(dir, "cannot list Pi session folder", "err", err)
		if !errors.Is(err, fs.ErrNotExist) { // removed since the listing: no news
			s.sources.Add(dir, "cannot be read: "+history.Reason(err))
		}
		return
	}
	*dirs = append(*dirs, dir)
	for _, e := range entries {
		// Plain concatenation: filepath.Join's Clean costs more than the
		// lstat at 10,000 files, and both parts are clean.
		p := dir + string(filepath.Separator) + e.Name()
		if e.IsDir() {
			s.walkDir(ctx, p, cands, dirs)
		} else if c, ok := s.stat(p, e); ok {
			*cands = append(*cands, c)
		}
	}
}

// stat makes a candidate of a *.jsonl regular file (or a symlink to
// one), or of one that cannot be read (a pipe, a link that cannot be
// followed), which is listed as such.
func (s *Scanner) stat(path string, e fs.DirEntry) (candidate, bool) {
	name := e.Name()
	stem, ok := strings.CutSuffix(name, ".jsonl")
	if !ok || stem == "" {
		return candidate{}, false
	}
	lst, err := e.Info()
	if err != nil {
		if !os.IsNotExist(err) { // removed since the listing: no news
			s.problems.Error(path, "cannot stat Pi session file", "err", err)
		}
		return candidate{}, false
	}
	st, ok, bad := history.StatHistory(path, lst)
	if !ok {
		if bad != nil && !os.IsNotExist(bad) {
			s.problems.Error(path, "cannot stat Pi session file", "err", bad)
		}
		return candidate{}, false
	}
	_, nameID, found := strings.Cut(stem, "_")
	if !found {
		nameID = stem
	}
	rel := strings.TrimPrefix(path, s.sessionsDir()+string(filepath.Separator))
	return candidate{path: path, sig: history.SigOf(st), isolated: isolated(filepath.ToSlash(rel)), nameID: nameID, unreadable: bad}, true
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
