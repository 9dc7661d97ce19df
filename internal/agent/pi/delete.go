package pi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"paddock/internal/session"
)

// Delete removes a session's history the way Pi keeps it, when the user
// asks: the session file whose header id is id. It is the only write this
// package ever makes. Pi has no command that deletes a session (`pi
// remove` uninstalls an extension), and a session is that one file:
// nothing else names it, so nothing else is touched — not its folder,
// even when it is left empty, and not another session's file.
//
// When several files carry the id (a session copied out of an isolation
// folder), they are one session and all go: Scan would list the next
// one otherwise.
//
// A session bound to a running Pi process (Scan's liveness, from a fresh
// process snapshot) is refused (errors.Is session.ErrLive); so is any
// delete while the process table cannot be read, since liveness is then
// unknown. Pi hides its arguments and holds no file open, so a plain `pi`
// that paddock did not start and whose extension has not reported cannot
// be seen to run a session: that one cannot be refused. An unknown id is
// session.ErrNotFound.
func (s *Scanner) Delete(ctx context.Context, id string) error {
	if s.dir == "" || !validID(id) {
		return session.ErrNotFound
	}
	cands, _, err := s.walk(ctx)
	if err != nil {
		return err
	}
	var files []candidate
	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.header(c) == id {
			files = append(files, c)
		}
	}
	if len(files) == 0 {
		return session.ErrNotFound
	}

	claims, ok := s.claims(ctx)
	if !ok {
		return fmt.Errorf("pi: cannot tell whether session %s is running (the process table is unreadable); not deleting it", id)
	}
	claims = resolvePrefixes(claims, cands)
	for _, c := range files {
		if pid, live := pidFor(claims, id, c.path); live {
			return fmt.Errorf("pi: session %s runs in pid %d: %w", id, pid, session.ErrLive)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	var errs []error
	for _, c := range files {
		if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	s.forget(files)
	if len(errs) > 0 {
		return fmt.Errorf("pi: deleting session %s: %w", id, errors.Join(errs...))
	}
	return nil
}

// forget drops what the caches hold of files,
// so the next Scan reads the directory afresh.
func (s *Scanner) forget(files []candidate) {
	for _, c := range files {
		s.sums.Forget(c.path)
		s.heads.Forget(c.path)
	}
}
