package tmux

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MaxText is the most text one SendText or Paste accepts: 64 KiB, far more
// than a message typed on a phone; longer text is ErrTooLong (put it in a
// file and send its path).
const MaxText = 64 << 10

// sendChunk is the most text one send-keys carries. tmux refuses a command
// of about 16 KiB or more ("command too long"), so longer text goes in
// several invocations, under the pane's send lock so nothing interleaves.
const sendChunk = 8 << 10

// maxKeys bounds one SendKeys.
const maxKeys = 32

// sendStripes is the number of send locks panes are spread over.
const sendStripes = 16

// lockPane serialises input to one pane (and the few others sharing its
// stripe), so that a chunked SendText, a Paste and a SendKeys from
// different callers each arrive whole. It gives up when ctx ends.
func (s *Server) lockPane(ctx context.Context, id string) (unlock func(), err error) {
	h := fnv.New32a()
	h.Write([]byte(id))
	ch := s.sends[h.Sum32()%sendStripes]
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// SendText types text into the pane literally (send-keys -l), without
// pressing Enter: "-x", ";", "C-c", "#{…}", quotes and $VARs arrive as
// characters. It is one line: a newline or other control character (tab
// excepted) is ErrBadText — Paste multi-line text, SendKeys Enter to
// submit. Over MaxText bytes is ErrTooLong.
func (s *Server) SendText(ctx context.Context, p Pane, text string) error {
	t, err := p.target()
	if err != nil {
		return err
	}
	if err := checkText(text, false); err != nil {
		return err
	}
	if text == "" {
		return nil
	}
	unlock, err := s.lockPane(ctx, p.ID)
	if err != nil {
		return err
	}
	defer unlock()
	for rest := text; rest != ""; {
		chunk := cut(rest, sendChunk)
		rest = rest[len(chunk):]
		if _, err := s.run(ctx, call{
			cmds:   []command{{"send-keys", "-t", t, "-l", "--", chunk}},
			secret: chunk,
		}); err != nil {
			return err
		}
	}
	return nil
}

// cut returns the longest prefix of s of at most n bytes that ends on a
// rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Paste pastes text into the pane as one bracketed paste (load-buffer from
// standard input into a buffer of its own, then paste-buffer -p -d), so
// that an application that asked for bracketed paste — bash, the agents'
// TUIs — takes every line as input and runs nothing until Enter. Newlines
// (\n, \r\n, \r) and tabs are allowed; other control characters are
// ErrBadText (ESC could end the bracket early), over MaxText bytes
// ErrTooLong. Enter is not pressed.
func (s *Server) Paste(ctx context.Context, p Pane, text string) error {
	t, err := p.target()
	if err != nil {
		return err
	}
	if err := checkText(text, true); err != nil {
		return err
	}
	if text == "" {
		return nil
	}
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return fmt.Errorf("tmux: buffer name: %w", err)
	}
	buf := "paddock-" + hex.EncodeToString(id[:])
	unlock, err := s.lockPane(ctx, p.ID)
	if err != nil {
		return err
	}
	defer unlock()
	// One client for both: the paste runs only if the load worked, and
	// -d deletes the buffer once pasted. paste-buffer turns each \n into
	// \r, as a terminal does.
	paste := command{"paste-buffer", "-p", "-d", "-b", buf, "-t", t}
	_, err = s.run(ctx, call{
		cmds:   []command{{"load-buffer", "-b", buf, "-"}, paste},
		op:     paste,
		stdin:  strings.NewReader(text),
		secret: text,
	})
	if err != nil {
		// The pane went between load and paste: do not leave the text in
		// the server's memory.
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_, _ = s.run(cleanup, call{cmds: []command{{"delete-buffer", "-b", buf}}})
	}
	return err
}

// checkText validates text for SendText (multiline false) or Paste.
func checkText(text string, multiline bool) error {
	if len(text) > MaxText {
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLong, len(text), MaxText)
	}
	if !utf8.ValidString(text) {
		return fmt.Errorf("%w: not valid UTF-8", ErrBadText)
	}
	for i, r := range text {
		switch {
		case r == '\t':
		case r == '\n' || r == '\r':
			if !multiline {
				return fmt.Errorf("%w: a line break at byte %d: send one line, Paste several, and SendKeys Enter to submit", ErrBadText, i)
			}
		case unicode.IsControl(r):
			return fmt.Errorf("%w: control character U+%04X at byte %d (send keys with SendKeys)", ErrBadText, r, i)
		}
	}
	return nil
}

// SendKeys presses named keys in order. Only these names pass (anything
// else is ErrBadKey, and nothing is sent): Enter, Escape, Tab, BTab
// (shift-Tab), Space, BSpace, DC (delete), Up, Down, Left, Right, Home, End,
// PageUp, PageDown, M-Enter, C-a … C-z, and single letters and digits
// (a menu's "1", an approval's "y"). No key name can hold a ';' or
// otherwise become a tmux command.
func (s *Server) SendKeys(ctx context.Context, p Pane, keys ...string) error {
	t, err := p.target()
	if err != nil {
		return err
	}
	if len(keys) == 0 || len(keys) > maxKeys {
		return fmt.Errorf("%w: %d keys; send 1–%d at a time", ErrBadKey, len(keys), maxKeys)
	}
	for i, k := range keys {
		if !allowedKey(k) {
			// The rejected string is not repeated: it may be text typed
			// into the wrong field.
			return fmt.Errorf("%w: key %d of %d is not an allowed key name", ErrBadKey, i+1, len(keys))
		}
	}
	unlock, err := s.lockPane(ctx, p.ID)
	if err != nil {
		return err
	}
	defer unlock()
	_, err = s.run(ctx, call{cmds: []command{append(command{"send-keys", "-t", t}, keys...)}})
	return err
}

// allowedKey is SendKeys' allowlist.
func allowedKey(k string) bool {
	switch k {
	case "Enter", "Escape", "Tab", "BTab", "Space", "BSpace", "DC",
		"Up", "Down", "Left", "Right", "Home", "End", "PageUp", "PageDown",
		"M-Enter":
		return true
	}
	if len(k) == 1 {
		c := k[0]
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return len(k) == 3 && k[:2] == "C-" && k[2] >= 'a' && k[2] <= 'z'
}
