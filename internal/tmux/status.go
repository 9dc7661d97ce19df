package tmux

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"paddock/internal/procscan"
)

// Info is what the server says about one pane.
type Info struct {
	Pane
	// Dead: the program has exited (or closed its terminal). The window
	// stays, with its last screen, until Kill.
	Dead bool
	// Exit is how a dead pane's program ended, once tmux has reaped it.
	Exit Exit
	// Command is the name of the pane's foreground process
	// (#{pane_current_command}): the agent, or a shell it left behind.
	Command string
	// Dir is the foreground process's working directory; empty for a
	// dead pane.
	Dir string
	// Created is when the window's session was created (one window per
	// session); Activity is the window's last output.
	Created, Activity time.Time

	serverPID int
}

// String summarises the pane for logs: "a1:@3.%3 pid 812 claude" or
// "… (dead, status 0)".
func (in Info) String() string {
	s := in.Pane.String() + " pid " + strconv.Itoa(in.PID) + " " + in.Command
	if in.Dead {
		s += " (dead, " + in.Exit.String() + ")"
	}
	return s
}

// Exit is how a pane's program ended. tmux 3.3a now and then reports a
// program that left at the end of its input as killed by SIGHUP (signal
// 1), its terminal having closed as it went: after a requested exit, treat
// status 0 and signal 1 alike.
type Exit struct {
	// Known: tmux has reaped the program and Code or Signal holds.
	Known bool
	// Code is the exit status; -1 when killed by a signal or not known.
	Code int
	// Signal is the signal that killed it; 0 if none.
	Signal int
}

func (e Exit) String() string {
	switch {
	case !e.Known:
		return "exit status unknown"
	case e.Signal != 0:
		return "signal " + strconv.Itoa(e.Signal)
	}
	return "status " + strconv.Itoa(e.Code)
}

// recordFormat is one pane per line. Fields are separated by \x1f; the
// three that hold whatever the system put there (a session name made by
// hand, the process name, a working directory with tabs or newlines) are
// preceded by their length in bytes (#{n:…}), so any byte in them parses.
const recordFormat = "#{pid}\x1f" +
	"#{n:session_name}\x1f#{session_name}\x1f" +
	"#{window_id}\x1f#{pane_id}\x1f#{pane_pid}\x1f" +
	"#{pane_dead}\x1f#{pane_dead_status}\x1f#{pane_dead_signal}\x1f" +
	"#{session_created}\x1f#{window_activity}\x1f" +
	"#{n:pane_current_command}\x1f#{pane_current_command}\x1f" +
	"#{n:pane_current_path}\x1f#{pane_current_path}"

// errRecord is a record that did not parse.
var errRecord = errors.New("tmux: unreadable pane record")

// parseRecords parses tmux's output of recordFormat lines.
func parseRecords(out string) ([]Info, error) {
	var infos []Info
	r := recordReader{rest: out}
	for r.rest != "" {
		info, err := r.record()
		if err != nil {
			return nil, err
		}
		infos = append(infos, info)
	}
	return infos, nil
}

type recordReader struct {
	rest string
	err  error
}

// field reads up to the next \x1f.
func (r *recordReader) field() string {
	if r.err != nil {
		return ""
	}
	i := strings.IndexByte(r.rest, '\x1f')
	if i < 0 {
		r.err = fmt.Errorf("%w: missing field", errRecord)
		return ""
	}
	f := r.rest[:i]
	if strings.IndexByte(f, '\n') >= 0 {
		r.err = fmt.Errorf("%w: record ends early", errRecord)
		return ""
	}
	r.rest = r.rest[i+1:]
	return f
}

// sized reads a length field, then that many bytes, then the terminator.
func (r *recordReader) sized(term byte) string {
	n, err := strconv.Atoi(r.field())
	if r.err != nil {
		return ""
	}
	if err != nil || n < 0 || n >= len(r.rest) || r.rest[n] != term {
		// Also when the value changed between tmux reading its length and
		// reading it (a process exec'ing, a cd): the caller asks again.
		r.err = fmt.Errorf("%w: a value does not match its length", errRecord)
		return ""
	}
	f := r.rest[:n]
	r.rest = r.rest[n+1:]
	return f
}

func (r *recordReader) record() (Info, error) {
	serverPID := r.field()
	session := r.sized('\x1f')
	window, pane, pid := r.field(), r.field(), r.field()
	dead, status, signal := r.field(), r.field(), r.field()
	created, activity := r.field(), r.field()
	cmd := r.sized('\x1f')
	dir := r.sized('\n')
	if r.err != nil {
		return Info{}, r.err
	}
	info := Info{
		Pane:     Pane{Session: session, Window: window, ID: pane},
		Dead:     dead == "1",
		Exit:     Exit{Code: -1},
		Command:  cmd,
		Dir:      dir,
		Created:  unixTime(created),
		Activity: unixTime(activity),
	}
	var err1, err2 error
	info.serverPID, err1 = strconv.Atoi(serverPID)
	info.PID, err2 = strconv.Atoi(pid)
	if err1 != nil || err2 != nil || !isID(window, '@') || !isID(pane, '%') {
		return Info{}, fmt.Errorf("%w: bad ids %q %q %q %q", errRecord, serverPID, window, pane, pid)
	}
	if n, err := strconv.Atoi(signal); err == nil && signal != "" {
		info.Exit = Exit{Known: true, Code: -1, Signal: n}
	} else if n, err := strconv.Atoi(status); err == nil && status != "" {
		info.Exit = Exit{Known: true, Code: n}
	}
	return info, nil
}

func unixTime(s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(n, 0)
}

// query runs a command printing recordFormat and parses it, asking again
// (twice at most) when a value changed while tmux printed it.
func (s *Server) query(ctx context.Context, cmd command) ([]Info, error) {
	var err error
	for range 3 {
		var out string
		if out, err = s.run(ctx, call{cmds: []command{cmd}}); err != nil {
			return nil, err
		}
		var infos []Info
		if infos, err = parseRecords(out); err == nil {
			return infos, nil
		}
	}
	return nil, err
}

// settle marks panes whose process is gone as dead even when tmux has not
// noticed yet, and has tmux reap them. Debian's tmux is built with
// libutempter, whose SIGCHLD handling can swallow the signal (tmux#311,
// #4559): the program stays a zombie, the pane reads as alive (or as dead
// with no exit status) until tmux gets another SIGCHLD, which settle sends
// to paddock's server. It reports whether it did.
func settle(infos []Info) (nudged bool) {
	for i := range infos {
		in := &infos[i]
		if in.Exit.Known || in.PID <= 0 || procscan.Alive(in.PID) {
			continue
		}
		in.Dead = true
		if !nudged {
			nudgeServer(in.serverPID)
			nudged = true
		}
	}
	return nudged
}

// Status reads everything about one pane in one tmux call. A pane that is
// gone is ErrNoPane; no server, ErrNoServer.
func (s *Server) Status(ctx context.Context, p Pane) (Info, error) {
	if _, err := p.target(); err != nil {
		return Info{}, err
	}
	// The session's panes, picked here: display-message would be one call
	// too, but it never fails on a target it cannot find — it prints a
	// blank record, or one of another pane (checked on tmux 3.3a).
	cmd := command{"list-panes", "-s", "-t", "=" + p.Session, "-F", recordFormat}
	find := func() (Info, bool, error) {
		infos, err := s.query(ctx, cmd)
		if err != nil {
			return Info{}, false, err
		}
		for _, in := range infos {
			if in.Window == p.Window && in.ID == p.ID {
				return in, settle([]Info{in}), nil
			}
		}
		return Info{}, false, fmt.Errorf("%w: %s", ErrNoPane, p)
	}
	info, nudged, err := find()
	if err != nil {
		return Info{}, err
	}
	if nudged {
		info.Dead = true
		// The server has been told to reap: ask once more for the status.
		if again, _, err := find(); err == nil && again.Exit.Known {
			again.Dead = true
			return again, nil
		}
	}
	return info, nil
}

// PanePID is the pid of the process tmux started in the pane.
func (s *Server) PanePID(ctx context.Context, p Pane) (int, error) {
	info, err := s.Status(ctx, p)
	return info.PID, err
}

// CurrentCommand is the name of the pane's foreground process.
func (s *Server) CurrentCommand(ctx context.Context, p Pane) (string, error) {
	info, err := s.Status(ctx, p)
	return info.Command, err
}

// Alive reports whether the pane exists and its program still runs. A pane
// that is gone, or a server that is not running, is false without error.
func (s *Server) Alive(ctx context.Context, p Pane) (bool, error) {
	info, err := s.Status(ctx, p)
	if errors.Is(err, ErrNoPane) || errors.Is(err, ErrNoServer) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !info.Dead, nil
}

// DeadStatus reports whether the pane's program has ended and how (the
// window stays thanks to remain-on-exit). A pane that is gone is ErrNoPane.
func (s *Server) DeadStatus(ctx context.Context, p Pane) (dead bool, exit Exit, err error) {
	info, err := s.Status(ctx, p)
	if err != nil {
		return false, Exit{}, err
	}
	return info.Dead, info.Exit, nil
}

// List lists every pane on paddock's server (one per hosted window), in
// tmux's order. A server that is not running has none: that is not an
// error.
func (s *Server) List(ctx context.Context) ([]Info, error) {
	infos, err := s.query(ctx, command{"list-panes", "-a", "-F", recordFormat})
	if errors.Is(err, ErrNoServer) || errors.Is(err, ErrNoPane) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	settle(infos)
	return infos, nil
}
