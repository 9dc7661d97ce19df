package codex

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

// Where rollouts live under the Codex home: sessions/YYYY/MM/DD/ (and the
// legacy flat sessions/), and archived_sessions/ where `codex archive`
// moves them.
const (
	sessionsDir = "sessions"
	archiveDir  = "archived_sessions"
	// maxDepth: YYYY/MM/DD below the root; depth 0 is the flat layout.
	maxDepth = 3
)

// candidate is one rollout found by the stat pass.
type candidate struct {
	id, path string
	sig      history.Sig
	// unreadable: why the rollout cannot be read at all (a pipe, a link
	// that cannot be followed); nil for a regular file.
	unreadable error
}

func (c candidate) mtime() time.Time { return c.sig.Mtime() }

// rolloutID returns the thread id in a rollout file name:
// rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl, or rollout-<id>.jsonl in the
// oldest flat layout.
func rolloutID(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "rollout-")
	if !ok {
		return "", false
	}
	rest, ok = strings.CutSuffix(rest, ".jsonl")
	if !ok {
		return "", false
	}
	if len(rest) >= 20 && rest[19] == '-' && stampLike(rest[:19]) {
		rest = rest[20:]
	}
	return rest, validID(rest)
}

// stampLike matches the local time Codex puts in a rollout name,
// YYYY-MM-DDThh-mm-ss.
func stampLike(s string) bool {
	const layout = "0000-00-00T00-00-00"
	for i := range len(layout) {
		if layout[i] == '0' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != layout[i] {
			return false
		}
	}
	return true
}

// candidates stats every rollout under sessions/ and archived_sessions/
// and returns them newest mtime first. It is the only work of a scan that
// grows with the size of the history. One id found twice (a copy left in
// both places) keeps its newest file.
func (s *Scanner) candidates(ctx context.Context) ([]candidate, error) {
	var dirs []string
	for _, root := range []string{sessionsDir, archiveDir} {
		dirs = appendDirs(dirs, filepath.Join(s.dir, root), 0)
	}
	all, err := history.Gather(ctx, history.StatWorkers, dirs, s.statDir)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.sig.MtimeNs, a.sig.MtimeNs), strings.Compare(a.path, b.path))
	})
	seen := make(map[string]bool, len(all))
	out := all[:0]
	for _, c := range all {
		if !seen[c.id] {
			seen[c.id] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// rollouts are the candidates of a stat pass, one per id, with a lookup by
// id built on first use: a scan that binds no process and keeps no
// session never needs one. Not safe for concurrent use.
type rollouts struct {
	cands []candidate
	byID  map[string]candidate
}

func (r *rollouts) get(id string) (candidate, bool) {
	if r.byID == nil {
		r.byID = make(map[string]candidate, len(r.cands))
		for _, c := range r.cands {
			r.byID[c.id] = c
		}
	}
	c, ok := r.byID[id]
	return c, ok
}

// forget drops id, so get no longer finds it.
func (r *rollouts) forget(id string) {
	r.get(id)
	delete(r.byID, id)
}

// appendDirs appends dir, when it is a directory, and its subdirectories
// down to maxDepth. The day directories themselves are not read here: the
// stat pass reads each once.
func appendDirs(dirs []string, dir string, depth int) []string {
	if depth == 0 && !dirExists(dir) {
		return dirs
	}
	dirs = append(dirs, dir)
	if depth == maxDepth {
		return dirs
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return dirs
	}
	for _, e := range entries {
		if e.IsDir() {
			dirs = appendDirs(dirs, filepath.Join(dir, e.Name()), depth+1)
		}
	}
	return dirs
}

// statDir stats the rollouts directly in dir.
func (s *Scanner) statDir(dir string) []candidate {
	f, err := os.Open(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) { // removed since the listing: no news
			s.problems.Error(dir, "cannot open Codex sessions directory", "err", err)
			s.sources.Add(dir, "cannot be read: "+history.Reason(err))
		}
		return nil
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil && len(names) == 0 {
		s.problems.Error(dir, "cannot list Codex sessions directory", "err", err)
		s.sources.Add(dir, "cannot be read: "+history.Reason(err))
		return nil
	}
	// Stat relative to the open directory: the kernel resolves one name
	// instead of the whole path, per file.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil
	}
	defer root.Close()
	var out []candidate
	for _, name := range names {
		id, ok := rolloutID(name)
		if !ok {
			continue
		}
		// Plain concatenation: both parts are clean, and filepath.Join's
		// Clean costs more than the stat at 10,000 files.
		path := dir + string(filepath.Separator) + name
		lst, err := root.Lstat(name)
		if err != nil {
			continue // removed meanwhile
		}
		// A dangling link or a directory is nothing to list; a pipe or
		// a link that cannot be followed is listed, unreadable.
		st, ok, bad := history.StatHistory(path, lst)
		if !ok {
			continue
		}
		out = append(out, candidate{id: id, path: path, sig: history.SigOf(st), unreadable: bad})
	}
	return out
}

// find locates the rollout of id without a full stat pass: the last scan's
// answer when it is still there, else a search of the layouts.
func (s *Scanner) find(id string) (candidate, bool) {
	if s.dir == "" || !validID(id) {
		return candidate{}, false
	}
	var known candidate
	ok := false
	s.mu.Lock()
	if s.last != nil {
		known, ok = s.last.get(id)
	}
	s.mu.Unlock()
	if ok {
		if st, err := os.Stat(known.path); err == nil && st.Mode().IsRegular() {
			return candidate{id: id, path: known.path, sig: history.SigOf(st)}, true
		}
	}
	var best candidate
	found := false
	for _, c := range s.rollouts(id) {
		if !found || c.sig.MtimeNs > best.sig.MtimeNs {
			best, found = c, true
		}
	}
	return best, found
}

// rollouts finds every rollout of id in the layouts (a copy may be left in
// both sessions/ and archived_sessions/).
func (s *Scanner) rollouts(id string) []candidate {
	// validID admits no glob metacharacters, so the id matches only itself;
	// rolloutID then rejects a longer id that merely ends in "-"+id.
	var out []candidate
	for _, root := range []string{sessionsDir, archiveDir} {
		for depth := 0; depth <= maxDepth; depth++ {
			p := []string{s.dir, root}
			for range depth {
				p = append(p, "*")
			}
			p = append(p, "rollout-*"+id+".jsonl")
			paths, _ := filepath.Glob(filepath.Join(p...))
			for _, path := range paths {
				if got, ok := rolloutID(filepath.Base(path)); !ok || got != id {
					continue
				}
				st, err := os.Stat(path)
				if err != nil || !st.Mode().IsRegular() {
					continue
				}
				out = append(out, candidate{id: id, path: path, sig: history.SigOf(st)})
			}
		}
	}
	return out
}
