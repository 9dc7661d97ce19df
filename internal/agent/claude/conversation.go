package claude

import (
	"context"
	"errors"
	"io"
	"os"

	"paddock/internal/history"
	"paddock/internal/session"
)

// convRecord is what the conversation loader keeps of a line: its place in
// the parentUuid tree and, when it has one, the message it shows.
type convRecord struct {
	uuid, parent  string
	msg           *session.Message
	messageID     string // assistant message.id, to join a message split over lines
	leafCandidate bool   // a user or assistant record of the main thread
	// events are the record's thinking, tool calls and results in content
	// order, with one EventMessage slot (no text) where msg belongs; only
	// when the transcript is read withEvents.
	events []session.Event
	// hasMsg says the record shows a message, when the transcript is read
	// treeOnly (msg is not kept).
	hasMsg bool
}

// transcript is a whole file read for its conversation.
type transcript struct {
	records    []convRecord
	badLines   int
	withEvents bool // keep each record's events too (Events)
	// treeOnly keeps of each record its place in the tree and whether it
	// shows a message, numbered as a read withEvents numbers them
	// (EachEvent's first read).
	treeOnly bool
	// stream, when set, keeps nothing: each record goes to it as it is
	// read (EachEvent's second read).
	stream *eventStream
}

// readTranscript reads every line of the file. A broken line is counted
// and skipped, an over-long one read clipped; a read error ends the file
// early and is returned with what was read.
func readTranscript(ctx context.Context, f io.Reader) (*transcript, error) {
	t := &transcript{}
	return t, t.read(ctx, f)
}

// read adds every line of f to t, as readTranscript describes.
func (t *transcript) read(ctx context.Context, f io.Reader) error {
	lr := history.NewLineReader(f, maxLineBytes)
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, _, err := lr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if len(line) == 0 {
			continue
		}
		r, err := parseLine(line)
		if err != nil {
			t.badLines++
			continue
		}
		t.add(&r)
	}
}

func (t *transcript) add(r *record) {
	c := convRecord{uuid: r.UUID, parent: r.Parent}
	isMessage := r.Type == typeUser || r.Type == typeAssistant
	c.leafCandidate = isMessage && !r.Sidechain && r.UUID != ""
	if text, ok := r.prompt(); ok {
		c.msg = &session.Message{Role: session.RoleUser, Text: text, Time: r.Time}
	} else if text, ok := r.answer(); ok {
		c.msg = &session.Message{Role: session.RoleAssistant, Text: text, Time: r.Time}
		c.messageID = r.MessageID
	}
	if t.withEvents || t.treeOnly && c.uuid == "" && c.msg == nil {
		c.events = recordEvents(r, c.msg != nil)
	}
	if c.uuid == "" && c.msg == nil && len(c.events) == 0 {
		return // bookkeeping outside the tree
	}
	switch {
	case t.stream != nil:
		t.stream.record(&c)
		return
	case t.treeOnly:
		c.hasMsg, c.msg, c.events = c.msg != nil, nil, nil
		if !c.hasMsg {
			c.messageID = ""
		}
	}
	t.records = append(t.records, c)
}

// messages returns the conversation of the current branch in file order.
//
// A transcript is a tree: each record names its parentUuid, and rewinding
// or editing an earlier prompt starts a new branch from an older record.
// The current branch ends at the last message record appended (the leaf);
// walking parentUuid back from it gives the branch. A record is left out
// when it hangs off that branch at some ancestor but is not on it — it
// belongs to an abandoned branch. Records that never reach the branch at all
// (no uuid, a null parent in fixtures and old versions, a parent from
// another file) are kept in file order, since nothing says they were
// abandoned.
func (t *transcript) messages() []session.Message {
	return branchMessages(t.records, t.abandonedTest().test)
}

// abandonedTest finds the current branch (messages) and returns the test
// for records off it.
func (t *transcript) abandonedTest() *branchTest { return t.findBranch(false) }

// branchMessages returns the messages of records that are not on an
// abandoned branch, in order.
func branchMessages(records []convRecord, abandoned func(uuid string) bool) []session.Message {
	var out []session.Message
	lastID := ""
	for _, r := range records {
		if r.msg == nil || (r.uuid != "" && abandoned(r.uuid)) {
			continue
		}
		// Claude writes one API message as several lines (text, thinking,
		// tool_use) sharing message.id; their texts form one answer.
		if r.messageID != "" && r.messageID == lastID && len(out) > 0 {
			prev := &out[len(out)-1]
			prev.Text += "\n\n" + r.msg.Text
			continue
		}
		out = append(out, *r.msg)
		lastID = r.messageID
	}
	return out
}

// findBranch finds the current branch and returns the test for records
// off it, as abandonedTest. open says the records are only the end of the
// file (a tail window, tail.go): then the test answers unknown where
// records before them could decide.
func (t *transcript) findBranch(open bool) *branchTest {
	parent := make(map[string]string, len(t.records))
	leaf := ""
	for _, r := range t.records {
		if r.uuid != "" {
			parent[r.uuid] = r.parent
		}
		if r.leafCandidate {
			leaf = r.uuid
		}
	}
	branch := make(map[string]bool)
	end := ""
	for u := leaf; u != "" && !branch[u]; u = parent[u] {
		branch[u] = true
		end = u
	}
	b := newBranchTest(parent, branch)
	if open {
		b.open = true
		// The walk from the leaf stopped at a parent no record here has:
		// the branch goes on before the window.
		_, known := parent[end]
		b.branchOpen = end != "" && !known
	}
	return b
}

// branchTest answers "is this record on an abandoned branch?" with memoised
// parent walks, so a long transcript is still linear work.
type branchTest struct {
	parent map[string]string
	branch map[string]bool
	memo   map[string]branchStatus
	// open: the records are a tail window. A walk that leaves them may go
	// on through records before them; one that ends (a root, a cycle)
	// without meeting the branch is only known to stay off it when the
	// branch itself ends among them (branchOpen false), since the part of
	// the branch before the window could lead back into it.
	open, branchOpen bool
}

// branchStatus is where a record stands against the current branch.
type branchStatus uint8

const (
	statusKept      branchStatus = iota // on the branch, or never reaching it
	statusAbandoned                     // off the branch at some ancestor
	statusUnknown                       // decided by records before a tail window
)

func newBranchTest(parent map[string]string, branch map[string]bool) *branchTest {
	return &branchTest{parent: parent, branch: branch, memo: make(map[string]branchStatus)}
}

func (b *branchTest) test(uuid string) bool { return b.status(uuid) == statusAbandoned }

func (b *branchTest) status(uuid string) branchStatus {
	if b.branch[uuid] {
		return statusKept
	}
	// Walk up until the branch, a known answer, or the end of the chain.
	var path []string
	seen := make(map[string]bool)
	result := statusKept
	for u := uuid; ; {
		if v, ok := b.memo[u]; ok {
			result = v
			break
		}
		if b.branch[u] {
			result = statusAbandoned // joined the branch from the side
			break
		}
		path = append(path, u)
		seen[u] = true
		p, ok := b.parent[u]
		if !ok || p == "" || seen[p] {
			// A root, a parent from elsewhere, or a cycle.
			if b.open && (!ok || b.branchOpen) {
				result = statusUnknown
			}
			break
		}
		u = p
	}
	for _, u := range path {
		b.memo[u] = result
	}
	return result
}

// conversation loads the messages of the transcript at path.
func conversation(ctx context.Context, path string) ([]session.Message, *transcript, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	t, err := readTranscript(ctx, f)
	return t.messages(), t, err
}
