package pi

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"slices"

	"paddock/internal/session"
)

// node is one entry of a session file as the conversation loader keeps it:
// its place in the tree and, when it shows something, the message.
type node struct {
	id, parent string // id "": no place in the tree (v1)
	msg        int32  // index in transcript.msgs; -1: none
	// up is the last node with the parent's id in the node's own range
	// of nodes (idIndex), relative to the range; -1: none there.
	up int32
}

// transcript is a whole session file read for its conversation.
type transcript struct {
	version  int // header version; 0 = v1
	nodes    []node
	msgs     []session.Message // what the nodes show, in file order
	badLines int
	// withEvents keeps each node's events too (Events): the entry's
	// thinking, tool calls and results in content order, with one
	// EventMessage slot (no text) where its message belongs.
	withEvents bool
	nodeEvents [][]session.Event // by node, when withEvents
	// ids finds a node by its id: one map per range of nodes, each made
	// where its range was read (readFile), later ranges last.
	ids []idIndex

	// nodesOnly keeps the nodes alone, numbered as a read withEvents
	// numbers them, and no message or event (EachEvent's first read).
	nodesOnly bool
	// stream, when set, keeps nothing: each entry's events go to it as
	// the entry is read (EachEvent's second read).
	stream *eventStream
}

// idIndex maps the ids of a range of nodes, which starts at node base, to
// the last node of the range with each id (relative to base). A range is
// what one goroutine read (readFile): the whole file, or a part of a long
// one.
type idIndex struct {
	base, n int // the range: n nodes from base
	ids     map[string]int32
}

// readTranscript reads every line of a session file. The first line must
// be the session header (errNoHeader otherwise; one over maxLineBytes is
// none); a broken line later is counted and skipped, an over-long one
// read clipped; a read error ends the file early and is returned with
// what was read.
func readTranscript(ctx context.Context, r io.Reader) (*transcript, error) {
	return readTranscriptWith(ctx, r, &transcript{})
}

// readTranscriptWith reads into t, as readTranscript describes.
func readTranscriptWith(ctx context.Context, r io.Reader, t *transcript) (*transcript, error) {
	if ctx.Err() != nil {
		return t, ctx.Err()
	}
	fr := fileRead{t: t}
	fr.readRange(ctx, r, 0, 0, true)
	return fr.transcript()
}

// readTranscriptFile is readTranscriptWith over a whole file, read in
// ranges in parallel when it is long (readFile).
func readTranscriptFile(ctx context.Context, f *os.File, t *transcript) (*transcript, error) {
	st, err := f.Stat()
	if err != nil || ctx.Err() != nil {
		return readTranscriptWith(ctx, f, t)
	}
	fr := fileRead{t: t}
	// The last range runs to the end of the file as it is when read, as a
	// plain read of the file would.
	fr.readFile(ctx, f, st.Size(), math.MaxInt64)
	return fr.transcript()
}

// join appends p, the transcript of the lines that follow t's.
func (t *transcript) join(p *transcript) {
	for _, x := range p.ids {
		x.base += len(t.nodes)
		t.ids = append(t.ids, x)
	}
	off := int32(len(t.msgs))
	t.nodes = slices.Grow(t.nodes, len(p.nodes))
	for _, nd := range p.nodes {
		if nd.msg >= 0 {
			nd.msg += off
		}
		t.nodes = append(t.nodes, nd)
	}
	t.msgs = append(t.msgs, p.msgs...)
	t.nodeEvents = append(t.nodeEvents, p.nodeEvents...)
	t.badLines += p.badLines
}

func (t *transcript) add(e *entry) {
	nd := node{id: e.ID, parent: t.parentID(e.Parent), msg: -1, up: -1}
	var msg session.Message
	if e.Type == typeMessage && e.HasTexts {
		switch e.Role {
		case roleUser:
			msg = session.Message{Role: session.RoleUser, Text: e.Text, Time: e.when()}
		case roleAssistant:
			msg = session.Message{Role: session.RoleAssistant, Text: e.Text, Time: e.when()}
		}
	}
	var events []session.Event
	if e.Type == typeMessage && (t.withEvents || t.nodesOnly && nd.id == "" && msg.Role == "") {
		events = entryEvents(e, msg.Role != "")
	}
	if nd.id == "" && msg.Role == "" && len(events) == 0 {
		return // a v1 bookkeeping line: no place in any tree, nothing to show
	}
	switch {
	case t.stream != nil:
		t.stream.node(msg, events)
		return
	case t.nodesOnly:
		t.nodes = append(grow(t.nodes), nd)
		return
	}
	if msg.Role != "" {
		nd.msg = int32(len(t.msgs))
		t.msgs = append(grow(t.msgs), msg)
	}
	t.nodes = append(grow(t.nodes), nd)
	if t.withEvents {
		t.nodeEvents = append(t.nodeEvents, events)
	}
}

// reserve makes room for the entries of n bytes of a long session file
// whose lines are about lineBytes long (0: unknown, then none is made),
// most of them with a message: growing the lists of a 50 MB file copied
// them over and over. A quarter more than the estimate is made.
func (t *transcript) reserve(n, lineBytes int64) {
	if lineBytes <= 0 {
		return
	}
	k := int(n / lineBytes * 5 / 4)
	t.nodes = slices.Grow(t.nodes, k)
	if !t.nodesOnly {
		t.msgs = slices.Grow(t.msgs, k*3/4)
	}
}

// grow makes room for one more element by doubling s when it is full.
// append grows a long slice by a quarter at a time, which copied a long
// session's entries over and over.
func grow[S ~[]E, E any](s S) S {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(len(s), 64))
}

// parentID decodes a raw parentId, sharing the string of the entry before
// when it names that entry, as it mostly does.
func (t *transcript) parentID(raw []byte) string {
	if n := len(t.nodes); n > 0 && len(raw) > 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 &&
		string(raw[1:len(raw)-1]) == t.nodes[n-1].id {
		return t.nodes[n-1].id
	}
	id, _ := jsonString(raw)
	return id
}

// msg returns the message node i shows, if any.
func (t *transcript) msg(i int) (session.Message, bool) {
	if m := t.nodes[i].msg; m >= 0 {
		return t.msgs[m], true
	}
	return session.Message{}, false
}

// messages returns the conversation of the current branch.
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
	branch := t.branch()
	// Usually the branch shows every message, in file order (no rewind,
	// no /tree): then the messages are t.msgs as they are.
	n, whole := 0, true
	for _, i := range branch {
		if m := t.nodes[i].msg; m >= 0 {
			whole = whole && int(m) == n
			n++
		}
	}
	if whole && n == len(t.msgs) {
		return slices.Clip(t.msgs)
	}
	out := make([]session.Message, 0, n)
	for _, i := range branch {
		if m, ok := t.msg(i); ok {
			out = append(out, m)
		}
	}
	return out
}

// branch returns the indices of the nodes on the current branch, root
// first (messages); every node, in file order, when no entry has an id.
func (t *transcript) branch() []int {
	if k := len(t.ids); k == 0 || t.ids[k-1].base+t.ids[k-1].n < len(t.nodes) {
		t.indexIDs()
	}
	leaf := t.prevWithID(len(t.nodes))
	if leaf < 0 {
		// v1, or a file whose entries lost their ids: the file's order.
		all := make([]int, len(t.nodes))
		for i := range all {
			all[i] = i
		}
		return all
	}
	path := make([]int, 0, len(t.nodes))
	t.walk(leaf, false, func(i int) bool {
		path = append(path, i)
		return true
	})
	slices.Reverse(path)
	return path
}

// walkEnd is why a walk of the branch ended.
type walkEnd uint8

const (
	walkDone    walkEnd = iota // the root, or a cycle: every node was visited
	walkStopped                // visit asked to stop
	walkOpen                   // a parent is not among the nodes (open)
)

// walk visits the nodes of the branch that ends at leaf, leaf first, until
// visit returns false. open says the nodes are the end of a file whose
// start was not read (a tail window, tail.go): a parent not found among
// them may be there, so the walk stops at it instead of carrying on at the
// entry before, as a whole file's broken chain does.
func (t *transcript) walk(leaf int, open bool, visit func(i int) bool) walkEnd {
	visited := make([]bool, len(t.nodes))
	r := len(t.ids) - 1 // the range of node i
	for i := leaf; i >= 0 && !visited[i]; {
		visited[i] = true
		if !visit(i) {
			return walkStopped
		}
		nd := t.nodes[i]
		if nd.parent == "" {
			break // the root
		}
		for r > 0 && i < t.ids[r].base {
			r--
		}
		for r+1 < len(t.ids) && i >= t.ids[r+1].base {
			r++
		}
		if p, ok := t.parentOf(nd, r); ok {
			i = p
			continue
		}
		if open {
			return walkOpen
		}
		i = t.prevWithID(i)
	}
	return walkDone
}

// indexIDs maps the ids of the nodes read since the last call (a range),
// and finds each one's parent among them (up), once the range is read: a
// map made to size is much cheaper to fill than one that grows, and the
// ranges of a long file are indexed in parallel.
func (t *transcript) indexIDs() {
	base := 0
	if k := len(t.ids); k > 0 {
		base = t.ids[k-1].base + t.ids[k-1].n
	}
	nodes := t.nodes[base:]
	n := 0
	for _, nd := range nodes {
		if nd.id != "" {
			n++
		}
	}
	ids := make(map[string]int32, n)
	for i, nd := range nodes {
		if nd.id != "" {
			ids[nd.id] = int32(i)
		}
	}
	for i := range nodes {
		if j, ok := ids[nodes[i].parent]; ok && nodes[i].parent != "" {
			nodes[i].up = j
		}
	}
	t.ids = append(t.ids, idIndex{base: base, n: len(nodes), ids: ids})
}

// parentOf returns the node that is the parent of nd, which lies in range
// r: the last node in the file with its parent's id.
func (t *transcript) parentOf(nd node, r int) (int, bool) {
	if nd.up < 0 {
		return t.lookup(nd.parent)
	}
	for _, x := range t.ids[r+1:] {
		if _, ok := x.ids[nd.parent]; ok {
			return t.lookup(nd.parent) // again in a later range
		}
	}
	return t.ids[r].base + int(nd.up), true
}

// lookup returns the last node with this id.
func (t *transcript) lookup(id string) (int, bool) {
	for _, x := range slices.Backward(t.ids) {
		if j, ok := x.ids[id]; ok {
			return x.base + int(j), true
		}
	}
	return 0, false
}

// prevWithID is the index of the last tree entry before i, or -1.
func (t *transcript) prevWithID(i int) int {
	for j := i - 1; j >= 0; j-- {
		if t.nodes[j].id != "" {
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
	t, err := readTranscriptFile(ctx, f, &transcript{})
	if t == nil {
		return nil, nil, err
	}
	return t.messages(), t, err
}
