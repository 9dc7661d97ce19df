package hookinstall

import (
	"paddock/internal/hookinstall/jsonedit"

	"path/filepath"
	"regexp"
	"strings"
)

// relayMarker is what every hook command paddock installs contains, and how
// an entry is recognised as paddock's (together with the binary's name):
// "<paddock> hook --runtime <r> [--data-dir <d>] <Event>".
const relayMarker = " hook --runtime "

// RelayArgv is the relay's argv without the event.
func (o *Env) RelayArgv(runtime string) []string {
	a := []string{o.binary, "hook", "--runtime", runtime}
	if o.dataDir != "" {
		a = append(a, "--data-dir", o.dataDir)
	}
	return a
}

// Command is the shell command line for one event: the agents run hook
// commands through sh -c, so paths with spaces are quoted.
func (o *Env) Command(runtime, event string) string {
	a := append(o.RelayArgv(runtime), event)
	q := make([]string, len(a))
	for i, s := range a {
		q[i] = shellQuote(s)
	}
	return strings.Join(q, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`)

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellWords splits a POSIX shell command prefix into words, honouring
// single and double quotes and backslashes; good enough to find the program.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				cur.WriteString(s[i+1:])
				i = len(s)
				break
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			in = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			in = true
			i++
			cur.WriteByte(s[i])
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			in = true
			cur.WriteByte(c)
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// isPaddockProgram says whether path names a paddock binary: any file whose
// name starts with "paddock", or the binary these options install.
func (o *Env) isPaddockProgram(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "paddock") || base == filepath.Base(o.binary)
}

// IsOurCommand recognises a hook command paddock installed, whatever binary
// path or data dir it was installed with.
func (o *Env) IsOurCommand(cmd string) bool {
	i := strings.Index(cmd, relayMarker)
	if i < 0 {
		return false
	}
	w := shellWords(cmd[:i])
	return len(w) > 0 && o.isPaddockProgram(w[len(w)-1])
}

// IsOurArgv recognises paddock's relay given as an argv (Codex's notify
// program).
func (o *Env) IsOurArgv(argv []string) bool {
	if len(argv) < 3 || !o.isPaddockProgram(argv[0]) {
		return false
	}
	for i := 1; i+1 < len(argv); i++ {
		if argv[i] == "hook" && argv[i+1] == "--runtime" {
			return true
		}
	}
	return false
}

var ourHookURL = regexp.MustCompile(`^http://(127\.0\.0\.1|localhost|\[::1\]):[0-9]+/hook/`)

// IsOurJSONHandler recognises paddock's handler objects: a command running
// the relay, or an http hook to the loopback listener carrying paddock's
// secret header.
func (o *Env) IsOurJSONHandler(h *jsonedit.Node) bool {
	if h == nil || h.Kind() != '{' {
		return false
	}
	if cmd, ok := h.GetString("command"); ok && o.IsOurCommand(cmd) {
		return true
	}
	if u, ok := h.GetString("url"); ok && ourHookURL.MatchString(u) {
		if hd := h.Get("headers"); hd != nil && hd.Kind() == '{' {
			for _, k := range hd.Keys() {
				if strings.EqualFold(k, "X-Paddock-Secret") {
					return true
				}
			}
		}
	}
	return false
}
