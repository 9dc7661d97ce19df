package codex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"paddock/internal/history"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

// deleteTimeout bounds `codex delete`: it opens the state database and
// removes one file, well under a second when nothing is wrong.
const deleteTimeout = 30 * time.Second

// Delete removes a session's history the way Codex keeps it, when the user
// asks; it is the only write this package ever makes. Codex has its own
// command for it, `codex delete --force <UUID>`, which removes the rollout
// and the thread's row in state_5.sqlite, so Codex's index stays right:
// Delete runs it (Options.Bin) with CODEX_HOME and CODEX_SQLITE_HOME set to
// the directories this Scanner reads. Without the command, for an id that
// is not a UUID (--force takes only those, and a name could match another
// session), or for a rollout Codex 0.169 cannot find (the legacy flat
// sessions/rollout-<id>.jsonl and the bare pre-envelope format: its delete
// fails on them), it removes the rollout files itself and nothing else:
// state_5.sqlite and session_index.jsonl are shared by every session and
// are never written here (Scan lists by rollout, so the stale row shows
// nothing). Every copy of the rollout goes (sessions/ and
// archived_sessions/), or Scan would list the next one.
//
// A session a live codex process holds (or whose subagent it runs) is
// refused (errors.Is session.ErrLive); so is any session when the
// processes cannot be listed, since liveness is then unknown. An unknown
// id is session.ErrNotFound.
func (s *Scanner) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.dir == "" || !validID(id) {
		return session.ErrNotFound
	}
	if err := s.refuseLive(ctx, id); err != nil {
		return err
	}
	files := s.rollouts(id)
	if len(files) == 0 {
		return session.ErrNotFound
	}
	defer s.forget(id, files)

	if bin, ok := s.deleteCommand(id, files); ok {
		if err := s.runDelete(ctx, bin, id); err != nil {
			return err
		}
		// Codex removes the rollout it knows of; a second copy is this
		// session's too.
		files = s.rollouts(id)
	}
	var errs []error
	for _, c := range files {
		if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("codex: deleting session %s: %w", id, errors.Join(errs...))
	}
	return nil
}

// refuseLive returns a session.ErrLive error when a codex process holds id
// now, from a fresh process snapshot.
func (s *Scanner) refuseLive(ctx context.Context, id string) error {
	var procs []procscan.AgentProcess
	if s.processes != nil {
		var err error
		procs, err = s.processes(ctx)
		if err != nil && !errors.Is(err, procscan.ErrUnsupported) {
			return fmt.Errorf("codex: cannot tell whether session %s is live: %w", id, err)
		}
	}
	live := bindProcesses(procs, s.openFiles, s.cmdline, under(s.dir))
	live.addParents(s.parentOf)
	if b, ok := live.threads[id]; ok {
		return fmt.Errorf("codex: session %s is open in pid %d: %w", id, b.pid, session.ErrLive)
	}
	return nil
}

// deleteCommand returns the codex executable to delete id with, when there
// is one, id is a UUID and every rollout of it is one Codex can find.
func (s *Scanner) deleteCommand(id string, files []candidate) (string, bool) {
	if s.bin == "" || !isUUID(id) {
		return "", false
	}
	for _, c := range files {
		if !s.codexFinds(c.path) {
			return "", false
		}
	}
	bin, err := exec.LookPath(s.bin)
	if err != nil {
		return "", false
	}
	return bin, true
}

// runDelete runs `codex delete --force id` on this Scanner's directories.
func (s *Scanner) runDelete(ctx context.Context, bin, id string) error {
	ctx, cancel := context.WithTimeout(ctx, deleteTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "delete", "--force", id)
	// Later entries win: the Scanner's directories, whatever the
	// environment says.
	cmd.Env = append(os.Environ(), "CODEX_HOME="+s.dir, "CODEX_SQLITE_HOME="+s.stateDir)
	cmd.Dir = s.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("codex delete %s: %w: %s", id, err, cliMessage(stderr.String()))
	}
	return nil
}

// cliMessage is the part of codex's stderr worth reporting: its error,
// without the backtrace and the warnings before it, clipped.
func cliMessage(stderr string) string {
	stderr, _, _ = strings.Cut(stderr, "Stack backtrace:")
	var keep []string
	for line := range strings.Lines(stderr) {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "WARNING:") {
			keep = append(keep, t)
		}
	}
	msg := strings.Join(keep, "; ")
	if msg == "" {
		msg = strings.TrimSpace(stderr)
	}
	return history.ClipRunes(msg, 1024)
}

// forget drops what the Scanner remembers of a deleted session, so the
// next Scan, Session or Conversation reads the directories again.
func (s *Scanner) forget(id string, files []candidate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last != nil {
		s.last.forget(id)
	}
	for _, c := range files {
		s.cache.Forget(c.path)
	}
}

// codexFinds reports whether the rollout at path is in the layout and
// format Codex 0.169 finds sessions by: a rollout-<time>-<id>.jsonl in
// sessions/YYYY/MM/DD/ or archived_sessions/, whose first line is a
// session_meta envelope.
func (s *Scanner) codexFinds(path string) bool {
	rel, err := filepath.Rel(s.dir, path)
	if err != nil {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if !(parts[0] == sessionsDir && len(parts) == 2+maxDepth || parts[0] == archiveDir && (len(parts) == 2 || len(parts) == 2+maxDepth)) {
		return false
	}
	rest, _ := strings.CutPrefix(parts[len(parts)-1], "rollout-")
	if len(rest) < 20 || rest[19] != '-' || !stampLike(rest[:19]) {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, skipped, err := history.NewLineReader(f, maxLineBytes).Next()
	if err != nil || skipped {
		return false
	}
	var typ string
	var payload []byte
	_ = members(line, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = str(v)
		case "payload":
			payload = v
		}
		return true
	})
	return typ == lineSessionMeta && isObject(payload)
}

// isUUID reports whether id is a UUID in its 8-4-4-4-12 hex form, what
// `codex delete --force` accepts.
func isUUID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i := range len(id) {
		c := id[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
