package claude

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"paddock/internal/history"
	"paddock/internal/session"
)

// maxAgentIDLen bounds an agent id taken from a URL. Claude's are 7 to 17
// hex digits.
const maxAgentIDLen = 128

// SubagentConversation returns the conversation of one Agent/Task subagent
// of a session: the task prompt the main agent gave it as the user turn,
// then its readable answers. Claude 2.1 keeps it in
// projects/<project>/<sessionID>/subagents/agent-<agentID>.jsonl, next to
// the session's own transcript. session.ErrNotFound when the session or
// the subagent's transcript does not exist, or an id could not name one.
func (s *Scanner) SubagentConversation(ctx context.Context, sessionID, agentID string) ([]session.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Both ids come from URLs: nothing is built from them until they are
	// known to hold no separator, dot or glob character (find checks the
	// session id).
	if !validAgentID(agentID) {
		return nil, session.ErrNotFound
	}
	c, ok := s.find(sessionID)
	if !ok {
		return nil, session.ErrNotFound
	}
	f, path, err := openSubagent(strings.TrimSuffix(c.path, ".jsonl"), agentID)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, session.ErrNotFound
		}
		s.problems.Error(path, "cannot read Claude subagent transcript", "err", err)
		return nil, err
	}
	defer f.Close()

	t, err := readSubagentTranscript(ctx, f)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil || t.badLines > 0 {
		s.problems.Error(path, "Claude subagent transcript partly unreadable; showing what could be read",
			"bad_lines", t.badLines, "err", err)
	}
	return t.messages(), nil
}

// validAgentID reports whether id can name a subagent transcript: letters,
// digits, '-' and '_' only, so it can reach nothing outside subagents/.
func validAgentID(id string) bool { return history.SafeName(id, maxAgentIDLen) }

// openSubagent opens <sessionDir>/subagents/agent-<agentID>.jsonl read-only.
// Claude never writes links there, so neither the session directory, nor
// subagents/, nor the file may be a symlink: a link planted under projects/
// cannot make paddock read a file elsewhere. An id that already carries the
// "agent-" prefix (some hook payloads send it so) is tried without it too.
// The path is returned for logging even on error.
func openSubagent(sessionDir, agentID string) (*os.File, string, error) {
	dir := filepath.Join(sessionDir, "subagents")
	for _, p := range []string{sessionDir, dir} {
		st, err := os.Lstat(p)
		if err != nil {
			return nil, p, err
		}
		if !st.IsDir() {
			return nil, p, fs.ErrNotExist // a link or a file: not Claude's layout
		}
	}
	names := []string{"agent-" + agentID + ".jsonl"}
	if rest, ok := strings.CutPrefix(agentID, "agent-"); ok && rest != "" {
		names = append(names, "agent-"+rest+".jsonl")
	}
	var err error
	for _, name := range names {
		path := filepath.Join(dir, name)
		var f *os.File
		if f, err = openRegular(path); err == nil {
			return f, path, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, path, err
		}
	}
	return nil, filepath.Join(dir, names[0]), err
}

// openRegular opens path read-only if it is a regular file and not a link,
// checking that what was opened is what was checked.
func openRegular(path string) (*os.File, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fs.ErrNotExist
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fst, err := f.Stat(); err != nil || !os.SameFile(st, fst) {
		f.Close()
		return nil, fs.ErrNotExist // replaced between the check and the open
	}
	return f, nil
}

// readSubagentTranscript reads a subagent transcript like readTranscript
// reads a session's. Every line of a subagent file is a sidechain, which a
// session's conversation rightly leaves out; here the sidechain is the
// conversation, so the flag is cleared before the record is kept. The
// first user input is the task the main agent (or a team lead) wrote: it
// is shown as the user turn even where a session would take it for
// injected text.
func readSubagentTranscript(ctx context.Context, f io.Reader) (*transcript, error) {
	t := &transcript{}
	lr := history.NewLineReader(f, maxLineBytes)
	sawTask := false
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return t, ctx.Err()
		}
		line, _, err := lr.Next()
		switch {
		case errors.Is(err, io.EOF):
			return t, nil
		case err != nil:
			return t, err
		case len(line) == 0:
			continue
		}
		r, err := parseLine(line)
		if err != nil {
			t.badLines++
			continue
		}
		r.Sidechain = false
		if !sawTask {
			if _, ok := r.userInput(); ok {
				sawTask = true
				if _, ok := r.prompt(); !ok {
					t.addTask(&r)
					continue
				}
			}
		}
		t.add(&r)
	}
}

// addTask keeps a subagent's task prompt as a user message.
func (t *transcript) addTask(r *record) {
	var parts []string
	for _, p := range r.Texts {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	text := strings.Join(parts, "\n\n")
	// A teammate's brief comes wrapped: <teammate-message …>brief</teammate-message>.
	if open, rest, ok := strings.Cut(text, ">"); ok && strings.HasPrefix(open, "<teammate-message") {
		if inner, ok := strings.CutSuffix(rest, "</teammate-message>"); ok && strings.TrimSpace(inner) != "" {
			text = strings.TrimSpace(inner)
		}
	}
	t.records = append(t.records, convRecord{
		uuid: r.UUID, parent: r.Parent, leafCandidate: r.UUID != "",
		msg: &session.Message{Role: session.RoleUser, Text: text, Time: r.Time},
	})
}
