package codex

import (
	"context"
	"errors"
	"io/fs"

	"paddock/internal/history"
	"paddock/internal/session"
)

// TailConversation returns the last n messages of Conversation(id) and
// whether they are all of it, reading the rollout from its end
// (catalog.TailReader). n < 1 is read as 1.
func (s *Scanner) TailConversation(ctx context.Context, id string, n int) ([]session.Message, bool, error) {
	c, ok := s.find(id)
	if !ok {
		if validID(id) && s.bindings(ctx).locked[id] {
			return nil, true, nil // a live session with no rollout yet
		}
		return nil, false, session.ErrNotFound
	}
	t, err := readTail(ctx, c.path, max(n, 1), history.FirstWindow)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, session.ErrNotFound // removed since find
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	case err != nil:
		// Conversation shows what it read before a read error (and logs
		// it); its last n are the answer then.
		msgs, err := s.Conversation(ctx, id)
		if err != nil {
			return nil, false, err
		}
		last := lastN(msgs, max(n, 1))
		return last, len(last) == len(msgs), nil
	}
	return t.msgs, t.complete, nil
}

// tail is what readTail found.
type tail struct {
	msgs     []session.Message
	complete bool  // msgs is the whole conversation
	read     int64 // bytes read from the file (tests)
}

// readTail returns the last n messages of the rollout at path as
// readConversation would, reading window bytes from its end and twice as
// many each time that is not enough to be sure. Each byte is read once
// (but for a line over maxLineBytes, read again once its start is found,
// history.Back): a grown window reads only the part before the last one
// and puts its records in front of those already read.
//
// The records of a window are those of the whole file from the window's
// first whole line on; what a full read would make of them differs only
// where state carried from earlier lines matters (windowMessages), and
// then the window grows.
func readTail(ctx context.Context, path string, n int, window int64) (tail, error) {
	f, err := history.OpenTail(path)
	if err != nil {
		return tail{}, err
	}
	defer f.Close()
	back := f.Back()
	var t tail
	var recs []record // the conversation records from back.Start() on, in file order
	for {
		start := max(f.Size()-window, 0)
		part, err := back.Before(start)
		if err != nil {
			return tail{}, err
		}
		if part != nil {
			var seg []record
			_, err := readRecords(ctx, history.NewLineReader(part, maxLineBytes), back.Start() == 0, func(r *record) {
				if r.msg != nil || r.rollback > 0 {
					// Only what conversation.add reads without events: the
					// rest of a record points into the reader's buffer.
					seg = append(seg, record{time: r.time, msg: r.msg, rollback: r.rollback})
				}
			})
			if err != nil {
				return tail{}, err
			}
			recs = append(seg, recs...)
		}
		t.read = f.Read()
		if start == 0 {
			c := &conversation{}
			for i := range recs {
				c.add(&recs[i])
			}
			t.msgs = lastN(c.msgs, n)
			t.complete = len(t.msgs) == len(c.msgs)
			return t, nil
		}
		if msgs, ok := windowMessages(recs, n); ok {
			t.msgs = msgs
			return t, nil
		}
		window *= 2
	}
}

// windowMessages folds the records of a window, whose earlier lines are
// unread, and returns the last n messages when the window settles them.
// Two rules of the full read look back past the window's start:
//
//   - De-duplication (dedup) compares a message with the one before it.
//     The first message of the window may be a copy of a message before
//     it, and so may the ones after it with the same role and text (which
//     copies merge depends on the sources already merged). They are left
//     out: they come before everything kept, and the first message that
//     differs is new whatever came before.
//   - A rollback of more turns than the window holds cuts before it, and
//     what it leaves depends on how many prompts came before: the window
//     grows.
func windowMessages(recs []record, n int) ([]session.Message, bool) {
	c := &conversation{}
	var first *message // the window's first message, while the ones like it are unsure
	settled := false   // a message unlike first has fixed the de-duplication state
	for i := range recs {
		r := &recs[i]
		if r.rollback > 0 {
			// Before the first message kept, c.users is empty: a rollback
			// there always reaches before the window.
			if r.rollback > len(c.users) {
				return nil, false
			}
		} else if !settled {
			switch m := r.msg; {
			case first == nil:
				first = m
				continue
			case m.role == first.role && m.text == first.text:
				continue
			}
			settled = true
		}
		c.add(r)
	}
	// The window's first message, left out, or the one it copies is
	// before all of c.msgs: n of them are not the whole conversation.
	if len(c.msgs) < n {
		return nil, false
	}
	return lastN(c.msgs, n), true
}

// lastN returns a copy of the last n of msgs (all when there are fewer).
func lastN(msgs []session.Message, n int) []session.Message {
	return append([]session.Message(nil), msgs[max(len(msgs)-n, 0):]...)
}
