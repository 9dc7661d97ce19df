package opencode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"paddock/internal/session"
)

// deleteTimeout bounds one `opencode session delete`: it starts OpenCode's
// runtime (about 3 s; longer when it first migrates a database).
const deleteTimeout = 2 * time.Minute

// Delete removes a session the way OpenCode does: `opencode session delete
// <id>`, so the session's messages, parts, todos, shares and subagent
// sessions go with it and OpenCode's own bookkeeping stays right. paddock
// never writes OpenCode's database itself. The command runs with the
// database that holds the session as $OPENCODE_DB and, when the data
// directory is <dir>/opencode, $XDG_DATA_HOME=<dir>, with --pure (no
// plugins: paddock's own hook plugin must not report a delete as agent
// activity).
//
// A session a running OpenCode shows, or one any OpenCode process names
// with -s or PADDOCK_SESSION_ID, is refused (session.ErrLive): OpenCode
// would write it again. An id no database lists is session.ErrNotFound.
// Without the opencode command it fails and deletes nothing.
func (s *Scanner) Delete(ctx context.Context, id string) error {
	if !validID(id) {
		return session.ErrNotFound
	}
	info, err := s.Session(ctx, id)
	if err != nil {
		return err
	}
	if info.Live {
		return fmt.Errorf("opencode: session %s is open in OpenCode (pid %d): %w", id, info.PID, session.ErrLive)
	}
	procs, procErr := s.processes(ctx)
	if procErr {
		return fmt.Errorf("opencode: cannot list processes to check that session %s is not in use; not deleting it", id)
	}
	for _, p := range procs {
		if p.argID == id || p.envID == id {
			return fmt.Errorf("opencode: session %s is in use by OpenCode (pid %d): %w", id, p.pid, session.ErrLive)
		}
	}

	bin := s.opts.Bin
	if bin == "" {
		bin = "opencode"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return fmt.Errorf("opencode: paddock deletes OpenCode sessions only through `opencode session delete`, and the opencode command was not found: %w", err)
	}
	dbPath, err := filepath.Abs(info.Path)
	if err != nil {
		return fmt.Errorf("opencode: %w", err)
	}

	ctx, cancel := context.WithTimeout(ctx, deleteTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "session", "delete", "--pure", id)
	cmd.Env = append(os.Environ(), "OPENCODE_DB="+dbPath, "OPENCODE_DISABLE_AUTOUPDATE=1")
	if dir := s.opts.DataDir; dir != "" && filepath.Base(filepath.Clean(dir)) == "opencode" {
		if abs, err := filepath.Abs(filepath.Dir(filepath.Clean(dir))); err == nil {
			cmd.Env = append(cmd.Env, "XDG_DATA_HOME="+abs)
		}
	}
	// Not the session's project directory: OpenCode would look for a git
	// repository there. The database's directory holds nothing of a
	// project; OpenCode finds the session by id from anywhere.
	cmd.Dir = filepath.Dir(dbPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	runErr := cmd.Run()

	// Whatever the outcome, the database changed (or may have): the next
	// Scan reads it again.
	s.mu.Lock()
	s.last = nil
	s.mu.Unlock()

	if runErr != nil {
		msg := strings.TrimSpace(ansi.ReplaceAllString(stderr.String(), ""))
		if ctx.Err() != nil {
			return fmt.Errorf("opencode: `opencode session delete %s` did not finish within %s: %s", id, deleteTimeout, msg)
		}
		return fmt.Errorf("opencode: `opencode session delete %s`: %w: %s", id, runErr, msg)
	}
	if _, err := s.Session(ctx, id); !errors.Is(err, session.ErrNotFound) {
		if err != nil {
			return fmt.Errorf("opencode: after `opencode session delete %s`: %w", id, err)
		}
		return fmt.Errorf("opencode: `opencode session delete %s` succeeded but %s still lists the session", id, dbPath)
	}
	return nil
}

// ansi matches the colour escapes OpenCode writes around its messages.
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)
