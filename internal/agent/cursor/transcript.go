package cursor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"paddock/internal/history"
	"paddock/internal/session"
)

// Cursor also writes each chat as a JSONL transcript under
// projects/<encoded cwd>/agent-transcripts/: <id>.jsonl (older builds) or
// <id>/<id>.jsonl, with subagents' transcripts in <id>/subagents/. A line
// is {"role":"user"|"assistant","message":{"content": string | [parts]}}
// (some writers put content at the top level), plus control lines such as
// {"type":"turn_ended"} (fixture: deja-vu registry-cursor.jsonl). paddock
// reads them only where chats/ has nothing: see Scanner.Scan.

const (
	// maxLineBytes caps one transcript line as it is read; a longer one
	// is clipped while it is read, and still shows, marked as clipped.
	maxLineBytes = history.MaxLine
	// A transcript up to wholeReadBytes is read whole for listing; a larger
	// one only its first headBytes and last tailBytes.
	wholeReadBytes = 2 << 20
	headBytes      = 1 << 20
	tailBytes      = 512 << 10
)

// transcripts finds the top-level transcripts under projects/, keyed by
// chat id (the newest file when an id has both layouts).
func (s *Scanner) transcripts() map[string]*chat {
	projects := filepath.Join(s.dir, "projects")
	names, err := readDirNames(projects)
	if err != nil {
		return nil
	}
	out := make(map[string]*chat)
	add := func(id, path, proj string) {
		st, bad := statSide(path)
		if !st.ok && bad == nil || !validID(id) {
			return
		}
		if old, ok := out[id]; ok && old.activityNs >= st.MtimeNs {
			return
		}
		c := &chat{id: id, transcript: path, transcriptStat: st, activityNs: st.MtimeNs, transcriptProjID: proj}
		if bad != nil {
			c.badFile, c.badErr = "transcript", bad // a pipe, a link loop: never opened
		}
		out[id] = c
	}
	for _, proj := range names {
		dir := filepath.Join(projects, proj, "agent-transcripts")
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if id, ok := strings.CutSuffix(name, ".jsonl"); ok && !e.IsDir() {
				add(id, filepath.Join(dir, name), proj)
			} else if e.IsDir() && validID(name) {
				add(name, filepath.Join(dir, name, name+".jsonl"), proj)
			}
		}
	}
	return out
}

// transcriptLine is one line of a JSONL transcript.
type transcriptLine struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Message *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// lineMessage turns a transcript line into a conversation message, if it
// is a person's typed text or an assistant's readable text.
func lineMessage(line []byte) (session.Message, bool, error) {
	var l transcriptLine
	if err := json.Unmarshal(line, &l); err != nil {
		return session.Message{}, false, err
	}
	content := l.Content
	if l.Message != nil && len(l.Message.Content) > 0 {
		content = l.Message.Content
	}
	parts := transcriptText(content)
	switch l.Role {
	case "user":
		if text := typedText(strings.Join(parts, "\n")); text != "" {
			return session.Message{Role: session.RoleUser, Text: text}, true, nil
		}
	case "assistant":
		if text := clean(strings.Join(parts, "\n\n")); text != "" {
			return session.Message{Role: session.RoleAssistant, Text: text}, true, nil
		}
	}
	return session.Message{}, false, nil
}

// transcriptText returns the text parts of a transcript line's content:
// Anthropic's string-or-parts shape, where only "text" parts are text
// (thinking, tool_use, tool_result, redacted are not).
func transcriptText(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []aiPart
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []string
	for _, p := range parts {
		if p.Type == "text" && p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return out
}

// readLines calls fn for every line of r that is not blank, a line over
// maxLineBytes clipped (history.LineReader). It returns the number of
// lines fn could not parse.
func readLines(ctx context.Context, r io.Reader, fn func([]byte) error) (bad int, err error) {
	n, err := countLines(ctx, r, fn)
	if n.unended {
		bad = 1
	}
	return bad + n.bad, err
}

// lineCounts is what countLines met: lines fn parsed (good) and could
// not (bad), and whether the last, without a newline, could not be
// parsed (unended: perhaps a line still being written, not counted in
// bad).
type lineCounts struct {
	good, bad int
	unended   bool
}

func (n *lineCounts) add(m lineCounts) {
	n.good += m.good
	n.bad += m.bad
	n.unended = m.unended
}

// countLines is readLines, counting.
func countLines(ctx context.Context, r io.Reader, fn func([]byte) error) (n lineCounts, err error) {
	ls := history.NewLineReader(r, maxLineBytes)
	for i := 0; ; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return n, ctx.Err()
		}
		line, _, err := ls.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		switch {
		case fn(line) == nil:
			n.good++
		case ls.Ended():
			n.bad++
		default:
			n.unended = true
		}
	}
}

// transcriptConversation reads a whole transcript.
func transcriptConversation(ctx context.Context, path string) ([]session.Message, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var out []session.Message
	bad, err := readLines(ctx, f, func(line []byte) error {
		m, ok, err := lineMessage(line)
		if ok {
			out = append(out, m)
		}
		return err
	})
	return out, bad, err
}

// transcriptSummary reads what listing needs of a transcript: its prompts,
// from the whole file when small, else from its head and tail (the count
// is then of the prompts seen).
func transcriptSummary(ctx context.Context, path string, size int64) (*summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sum := &summary{}
	var prompts []string
	collect := func(line []byte) error {
		m, ok, err := lineMessage(line)
		if ok && m.Role == session.RoleUser {
			prompts = append(prompts, m.Text)
		}
		return err
	}
	var lines lineCounts
	if size <= wholeReadBytes {
		n, err := countLines(ctx, io.NewSectionReader(f, 0, size), collect)
		if err != nil {
			return nil, err
		}
		lines.add(n)
	} else {
		n, err := countLines(ctx, io.LimitReader(f, headBytes), collect)
		if err != nil {
			return nil, err
		}
		n.unended = false // the head ends mid-line where its limit cut it
		lines.add(n)
		tail := make([]byte, tailBytes)
		got, err := f.ReadAt(tail, size-tailBytes)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		tail = tail[:got]
		// The tail starts past the head (wholeReadBytes > headBytes +
		// tailBytes); drop the partial line it starts in.
		if i := bytes.IndexByte(tail, '\n'); i >= 0 {
			tail = tail[i+1:]
		}
		n, err = countLines(ctx, bytes.NewReader(tail), collect)
		if err != nil {
			return nil, err
		}
		lines.add(n)
	}
	if lines.unended && lines.good == 0 {
		lines.bad++ // nothing parsed: not a line being written, a broken file
	}
	sum.problem = history.PartlyRead(lines.bad, lines.good, "line", nil)
	for _, p := range prompts {
		if sum.prompts == 0 {
			sum.firstPrompt = history.ClipLine(p, maxPromptRunes)
		}
		sum.lastPrompt = history.ClipLine(p, maxPromptRunes)
		sum.prompts++
	}
	return sum, nil
}

// resolveProjectDir turns a projects/<name> folder name back into the
// working directory it encodes: Cursor drops the leading separator and
// turns '/', '\\' and '.' into '-', which is lossy, so the candidates are
// tried against the file system (each '-' is a separator, a '-' or a '.')
// and only an existing directory is accepted. "" when none is found
// within a small budget of checks.
func resolveProjectDir(name string, isDir func(string) bool) string {
	tokens := strings.Split(name, "-")
	if len(tokens) == 0 || len(tokens) > 64 || tokens[0] == "" {
		return ""
	}
	budget := 512
	var walk func(base string, i int, seg string) string
	walk = func(base string, i int, seg string) string {
		if budget--; budget < 0 {
			return ""
		}
		if i == len(tokens) {
			if p := base + "/" + seg; isDir(p) {
				return p
			}
			return ""
		}
		// Close the segment here: the dash was a separator.
		if p := base + "/" + seg; isDir(p) {
			if r := walk(p, i+1, tokens[i]); r != "" {
				return r
			}
		}
		// Or keep building it: the dash was a '-' or a '.'.
		for _, j := range []string{"-", "."} {
			if r := walk(base, i+1, seg+j+tokens[i]); r != "" {
				return r
			}
		}
		return ""
	}
	return walk("", 1, tokens[0])
}
