package live

import (
	"cmp"
	"strings"

	"paddock/internal/procscan"
	"paddock/internal/session"
)

// discovered binds the interactive agent processes of a process-table scan
// (every 20 s) to the cards they run: by the hosted terminal id
// in their environment, else by the session id on their command line or
// in PADDOCK_SESSION_ID. It fills in the pid (and terminal) of cards whose
// hooks did not name one — Claude's http hooks run in no process of their
// own — so process checks and memory cover them. Processes of sessions no
// card has open nothing: a card needs evidence from the agent itself.
func (o *owner) discovered(procs []procscan.AgentProcess, u *update) {
	for _, p := range procs {
		if !p.Interactive {
			continue
		}
		var k session.Key
		if t := o.terms[p.TerminalID]; t != nil && p.TerminalID != "" && t.spec.Runtime == p.Runtime {
			k = t.key
		} else if id := cmp.Or(p.SessionID, p.ArgSessionID); id != "" && !strings.ContainsRune(id, '/') {
			k = session.Key{Runtime: p.Runtime, ID: id}
		}
		m := o.meta[k]
		if k.ID == "" || m == nil || o.tracker.Get(k) == nil || m.pid != 0 {
			continue
		}
		m.pid, m.ppid = p.PID, p.PPID
		if m.tty == "" {
			m.tty = p.TTY
		}
		if m.cwd == "" {
			m.cwd = p.Cwd
		}
		u.touch(k)
	}
}
