package kimi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"paddock/internal/procscan"
	"paddock/internal/session"
)

// Delete removes a session's history the way Kimi keeps it, when the user
// asks; it is the only write this package ever makes. Kimi Code 2.1 has
// no command that deletes a session (`kimi session` only lists), so the
// files are removed here, and only the session's own:
//
//   - kimi-code: its directory sessions/<workDirKey>/<id>/ (state.json,
//     the main wire, its subagents' wires under agents/, its logs). Kimi's
//     shared indexes (sessions/.index-cache, .index-dirty,
//     session_index.jsonl) are left as they are; Kimi checks them against
//     the directories.
//   - kimi-cli: the session's directory sessions/<md5(cwd)>/<uuid>/, or
//     the older flat <uuid>.jsonl; kimi.json is not touched.
//
// A kimi-code session migrated from kimi-cli (ses_<uuid>) takes its
// kimi-cli original with it: the original is listed only while the copy
// exists, so leaving it would bring the deleted conversation back. Every
// copy of an id (in more than one workspace directory) goes, for the same
// reason.
//
// A session a live kimi process holds is refused (errors.Is
// session.ErrLive), and so is any session while the processes cannot be
// listed, since liveness is then unknown. An unknown id is
// session.ErrNotFound.
func (s *Scanner) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c, ok := s.find(id)
	if !ok {
		return session.ErrNotFound
	}
	targets := []candidate{c}
	if uuid, ok := strings.CutPrefix(id, "ses_"); ok && c.layout == current {
		if orig, ok := s.findLegacy(uuid); ok {
			targets = append(targets, orig)
		}
	}

	procs, err := s.freshProcs(ctx)
	if err != nil {
		return fmt.Errorf("kimi: cannot tell whether session %s is live: %w", id, err)
	}
	p := newPass(s)
	for _, t := range targets {
		if pid := bindLive(procs, s.bucketCandidates(t), p.created)[t.id]; pid != 0 {
			return fmt.Errorf("kimi: session %s runs in pid %d: %w", id, pid, session.ErrLive)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	var errs []error
	var gone []string
	for _, t := range targets {
		for _, f := range s.ownFiles(t) {
			if err := removeOwn(f); err != nil {
				errs = append(errs, err)
			}
			gone = append(gone, f.history)
		}
	}
	s.forget(gone)
	if len(errs) > 0 {
		return fmt.Errorf("kimi: deleting session %s: %w", id, errors.Join(errs...))
	}
	return nil
}

// freshProcs takes a new process snapshot. Unlike listing, a failure is
// an error: Delete must not guess that nothing is live. An unsupported
// platform has no liveness at all.
func (s *Scanner) freshProcs(ctx context.Context) ([]procscan.AgentProcess, error) {
	if s.processes == nil {
		return nil, nil
	}
	procs, err := s.processes(ctx)
	if err != nil && !errors.Is(err, procscan.ErrUnsupported) {
		return nil, err
	}
	return procs, nil
}

// sessionFiles is one copy of a session on disk: its directory (or "")
// and its history file, removed first so that a half-finished removal
// still unlists it.
type sessionFiles struct {
	dir     string
	history string
}

// ownFiles finds every copy of c's session in its layout: kimi-code's
// <home>/sessions/*/<id>/, kimi-cli's <share>/sessions/<bucket>/<id>/ and
// <bucket>/<id>.jsonl. validID admits no separator or glob character, so
// the patterns name this id only.
func (s *Scanner) ownFiles(c candidate) []sessionFiles {
	var out []sessionFiles
	if c.layout == current {
		for _, dir := range globAll(filepath.Join(s.home, "sessions", "*", c.id)) {
			if bucketOK(dir) && realDir(dir) {
				out = append(out, sessionFiles{dir: dir, history: dir + mainWire})
			}
		}
		return out
	}
	root := filepath.Join(s.legacyHome, "sessions")
	for _, dir := range globAll(filepath.Join(root, "*", c.id)) {
		if md5Bucket.MatchString(filepath.Base(filepath.Dir(dir))) && realDir(dir) {
			out = append(out, sessionFiles{dir: dir, history: filepath.Join(dir, "context.jsonl")})
		}
	}
	for _, path := range globAll(filepath.Join(root, "*", c.id+".jsonl")) {
		if md5Bucket.MatchString(filepath.Base(filepath.Dir(path))) {
			if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
				out = append(out, sessionFiles{history: path})
			}
		}
	}
	return out
}

// bucketOK leaves out Kimi's own dot directories under sessions/
// (.index-cache, .index-dirty): they hold no session.
func bucketOK(dir string) bool {
	return !strings.HasPrefix(filepath.Base(filepath.Dir(dir)), ".")
}

// realDir reports whether path is a directory itself, not a link to one:
// Kimi never links there, and a planted link must not lead the removal
// elsewhere (os.RemoveAll never follows links inside the tree).
func realDir(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.IsDir()
}

func removeOwn(f sessionFiles) error {
	if err := os.Remove(f.history); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if f.dir == "" {
		return nil
	}
	return os.RemoveAll(f.dir)
}

// forget drops what the Scanner remembers of the removed histories, so
// the next Scan reads the directories again.
func (s *Scanner) forget(histories []string) {
	s.cache.Forget(histories...)
}
