package codex

import (
	"context"
	"errors"
	"io"
	"os"

	"paddock/internal/history"
	"paddock/internal/session"
)

// conversation is a whole rollout read for its messages and, when
// withEvents, its full record (events.go).
type conversation struct {
	msgs     []session.Message
	users    []int // indexes in msgs of the user messages, for rollbacks
	dedup    dedup
	badLines int

	withEvents bool
	events     []session.Event
	userEvents []int // indexes in events of the user messages, for rollbacks
	calls      calls
	// stream, with withEvents, is EachEvent's: it numbers the events
	// (its first read, keeping them without their text) or hands over
	// those the first read kept (its second, keeping nothing). The
	// messages are not kept then.
	stream *eventStream
}

// readConversation reads every line of the rollout at path. Broken lines
// are counted and skipped, over-long ones read clipped; a read error ends
// the file early and is returned with what was read.
func readConversation(ctx context.Context, path string) (*conversation, error) {
	return readRollout(ctx, path, &conversation{})
}

// readRollout reads every line of the rollout at path into c.
func readRollout(ctx context.Context, path string, c *conversation) (*conversation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bad, err := readRecords(ctx, history.NewLineReader(f, maxLineBytes), true, c.add)
	c.badLines += bad
	return c, err
}

// readRecords parses every line ls yields and hands each record to add, in
// file order; a whole rollout and the tail TailConversation reads go
// through it alike. first says ls starts at the file's first line, the
// only place of the bare legacy header. Broken lines are counted in bad
// and skipped (over-long ones come clipped from ls); a read error ends
// the reading and is returned. The record add gets is only valid during the call: one is
// reused for every line (a new one each would be an allocation a line).
func readRecords(ctx context.Context, ls *history.LineReader, first bool, add func(*record)) (bad int, err error) {
	var r record
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return bad, ctx.Err()
		}
		line, _, err := ls.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return bad, nil
			}
			return bad, err
		}
		if len(line) == 0 {
			continue
		}
		r, err = parseRecord(line, first && n == 0)
		if err != nil {
			bad++
			continue
		}
		add(&r)
	}
}

func (c *conversation) add(r *record) {
	if r.rollback > 0 {
		c.rollback(r.rollback)
		return
	}
	if c.withEvents {
		c.addEvent(r)
	}
	m := r.msg
	if m == nil || !c.dedup.fresh(m) {
		c.addImages(r)
		return
	}
	if m.role == session.RoleUser {
		c.users = append(c.users, len(c.msgs))
		if c.withEvents {
			c.userEvents = append(c.userEvents, len(c.events))
		}
	}
	if c.stream == nil {
		c.msgs = append(c.msgs, session.Message{Role: m.role, Text: m.text, Time: r.time})
	}
	if c.withEvents {
		c.appendEvents(session.Event{Kind: session.EventMessage, Role: m.role, Text: m.text, Time: r.time})
	}
	c.addImages(r)
}

// addImages adds the images a person attached to a message, after it:
// only the response item holds them, whichever copy of the message is
// kept.
func (c *conversation) addImages(r *record) {
	if c.withEvents && len(r.images) > 0 {
		c.appendEvents(imageParts(r.images, session.RoleUser, "", r.time)...)
	}
}

// rollback drops the last n turns, as Codex does when the person goes back
// to edit an earlier prompt (thread_rolled_back): everything from the n-th
// last prompt on is gone from the thread.
func (c *conversation) rollback(n int) {
	if n > len(c.users) {
		n = len(c.users)
	}
	if n == 0 {
		return
	}
	cut := c.users[len(c.users)-n]
	c.msgs = c.msgs[:cut]
	c.users = c.users[:len(c.users)-n]
	c.dedup = dedup{}
	if c.withEvents {
		c.events = c.events[:c.userEvents[len(c.userEvents)-n]]
		c.userEvents = c.userEvents[:len(c.userEvents)-n]
		if c.stream != nil && c.stream.planning {
			c.stream.seqs = c.stream.seqs[:len(c.events)]
		}
	}
}
