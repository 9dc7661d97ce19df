package pi

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"

	"paddock/internal/scan/jsonl"
	"paddock/internal/session"
)

// node is one entry of a session file as the conversation loader keeps it:
// its place in the tree and, when it shows something, the message.
type node struct {
	id, parent string
	hasID      bool
	msg        *session.Message
	// events are the entry's thinking, tool calls and results in content
	// order, with one EventMessage slot (no text) where msg belongs; only
	// when the transcript is read withEvents.
	events []session.Event
}

// transcript is a whole session file read for its conversation.
type transcript struct {
	version    int // header version; 0 = v1
	nodes      []node
	badLines   int
	withEvents bool // keep each entry's events too (Events)
}

// readTranscript reads every line of a session file. The first line must
// be the session header (errNoHeader otherwise); a broken or over-long line
// later is counted and skipped; a read error ends the file early and is
// returned with what was read.
func readTranscript(ctx context.Context, r io.Reader) (*transcript, error) {
	return readTranscriptWith(ctx, r, &transcript{})
}

// readTranscriptWith reads into t, as readTranscript describes.
func readTranscriptWith(ctx context.Context, r io.Reader, t *transcript) (*transcript, error) {
	lr := jsonl.NewReader(r, maxLineBytes)
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return t, ctx.Err()
		}
		line, tooLong, err := lr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if n == 0 {
					return nil, errNoHeader // an empty file
				}
				return t, nil
			}
			if n == 0 {
				return nil, err
			}
			return t, err
		}
		if n == 0 {
			h, herr := parseHeader(line)
			if tooLong || herr != nil {
				return nil, errNoHeader
			}
			t.version = h.version
			continue
		}
		if tooLong {
			t.badLines++
			continue
		}
		e, err := parseEntry(line)
		if err != nil {
			if len(line) > 0 {
				t.badLines++
			}
			continue
		}
		t.add(&e)
	}
}

func (t *transcript) add(e *entry) {
	nd := node{id: e.ID, parent: e.Parent, hasID: e.HasID}
	if e.Type == typeMessage && e.HasTexts {
		switch e.Role {
		case roleUser:
			nd.msg = &session.Message{Role: session.RoleUser, Text: e.Text, Time: e.when()}
		case roleAssistant:
			nd.msg = &session.Message{Role: session.RoleAssistant, Text: e.Text, Time: e.when()}
		}
	}
	if t.withEvents && e.Type == typeMessage {
		nd.events = entryEvents(e, nd.msg != nil)
	}
	if !nd.hasID && nd.msg == nil && len(nd.events) == 0 {
		return // a v1 bookkeeping line: no place in any tree, nothing to show
	}
	t.nodes = append(t.nodes, nd)
}

// messages returns the conversation of the current branch (seed 002 §4, §6).
//
// v2 and v3 files are trees: every entry names its parentId, and /tree or
// a rewind starts a new branch from an older entry. Pi's current leaf is
// the last entry in the file, and the conversation is the path from the
// root to it; entries of abandoned branches are never shown. v1 files have
// no ids at all (Pi migrates them only when it opens them, and paddock
// never writes), so their order is the file's.
//
// Where the chain is broken — a parentId that names no entry, because its
// line was torn or corrupt — the walk carries on at the entry just before
// the orphan in the file, which is where Pi appended it from.
func (t *transcript) messages() []session.Message {
	var out []session.Message
	for _, i := range t.branch() {
		if m := t.nodes[i].msg; m != nil {
			out = append(out, *m)
		}
	}
	return out
}

// branch returns the indices of the nodes on the current branch, root
// first (messages); every node, in file order, when no entry has an id.
func (t *transcript) branch() []int {
	index := make(map[string]int, len(t.nodes))
	leaf := -1
	for i, nd := range t.nodes {
		if nd.hasID {
			index[nd.id] = i
			leaf = i
		}
	}
	if leaf < 0 {
		// v1, or a file whose entries lost their ids: the file's order.
		all := make([]int, len(t.nodes))
		for i := range all {
			all[i] = i
		}
		return all
	}
	var path []int
	visited := make(map[int]bool)
	for i := leaf; i >= 0 && !visited[i]; {
		visited[i] = true
		path = append(path, i)
		nd := t.nodes[i]
		if nd.parent == "" {
			break // the root
		}
		if p, ok := index[nd.parent]; ok {
			i = p
			continue
		}
		i = t.prevWithID(i)
	}
	slices.Reverse(path)
	return path
}

// prevWithID is the index of the last tree entry before i, or -1.
func (t *transcript) prevWithID(i int) int {
	for j := i - 1; j >= 0; j-- {
		if t.nodes[j].hasID {
			return j
		}
	}
	return -1
}

// conversation loads the messages of the session file at path.
func conversation(ctx context.Context, path string) ([]session.Message, *transcript, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	t, err := readTranscript(ctx, f)
	if t == nil {
		return nil, nil, err
	}
	return t.messages(), t, err
}
