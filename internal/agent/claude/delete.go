package claude

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"paddock/internal/session"
)

// Delete removes a session's history the way Claude keeps it, when the
// user asks: the transcript projects/<project>/<id>.jsonl and the
// session's own directory beside it, projects/<project>/<id>/ (its
// subagents' transcripts and saved tool results). It is the only write
// this package ever makes. Claude Code has no command that deletes a
// session by id (`claude rm` forgets a background session but keeps its
// conversation; `claude purge` takes a whole project), so the files are
// removed here.
//
// Nothing shared is touched: not the pid registry (sessions/), not
// ~/.claude.json, history.jsonl, file-history/, todos/ or other sessions'
// files. A transcript under several project directories (the same id
// twice) is one session, so every copy goes, or Scan would list the next.
//
// A session whose Claude process runs now is refused (errors.Is
// session.ErrLive): deleting a transcript Claude is appending to would
// leave it writing a fragment. An unknown id is session.ErrNotFound.
func (s *Scanner) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.dir == "" || !validID(id) {
		return session.ErrNotFound
	}
	// validID admits no separator or glob character, so the pattern
	// names only this id's transcripts.
	paths, _ := filepath.Glob(filepath.Join(s.projectsDir(), "*", id+".jsonl"))
	var transcripts []string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			transcripts = append(transcripts, p)
		}
	}
	if len(transcripts) == 0 {
		return session.ErrNotFound
	}
	if p, ok := liveFor(readPidFiles(s.sessionsDir())[id]); ok {
		return fmt.Errorf("claude: session %s runs in pid %d: %w", id, p.pid, session.ErrLive)
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	var errs []error
	for _, path := range transcripts {
		// The transcript first: once it is gone the session is no longer
		// listed, even if its directory cannot be removed.
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		if err := removeSessionDir(strings.TrimSuffix(path, ".jsonl")); err != nil {
			errs = append(errs, err)
		}
	}
	s.cache.Forget(transcripts...)
	if len(errs) > 0 {
		return fmt.Errorf("claude: deleting session %s: %w", id, errors.Join(errs...))
	}
	return nil
}

// removeSessionDir removes a session's own directory with all it holds.
// Only a real directory is removed: Claude never puts a link there, and
// a link planted under projects/ must not lead the removal elsewhere
// (os.RemoveAll itself never follows links inside the tree).
func removeSessionDir(dir string) error {
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !st.IsDir() {
		return nil
	}
	if err != nil {
		return err
	}
	return os.RemoveAll(dir)
}
