package catalog

import (
	"context"
	"slices"

	"paddock/internal/session"
)

// TailReader is implemented by scanners that can read a session's newest
// messages from the end of its history without parsing all of it: the
// first page of a 50 MB session must not wait for a full parse. Scanners
// without it are read in full.
type TailReader interface {
	// TailConversation returns the last n (n ≥ 1) messages of id's
	// conversation, oldest first: exactly the last n of what Conversation
	// returns at that moment, or all of them when there are fewer.
	// complete reports that msgs is the whole conversation (no message
	// comes before the first one returned). Errors are Conversation's
	// (session.ErrNotFound, ctx.Err()).
	TailConversation(ctx context.Context, id string, n int) (msgs []session.Message, complete bool, err error)
}

// RecentMessages returns the last n (n ≥ 1; less is taken as 1) messages
// of a session's conversation, oldest first, and how many messages the
// whole conversation has: -1 when that is not known because only the end
// of its history was read. It is what a session's page shows first, and
// again on every live update.
//
// The answer comes from the cached whole conversation when the history
// file is unchanged (Messages' cache, memory or disk); else from the
// runtime's TailReader, whose answer is kept in memory under the file's
// signature but never taken for the whole conversation; else from a full
// read, cached as Messages caches it. The caller gets its own copy.
func (c *Catalog) RecentMessages(ctx context.Context, k session.Key, n int) ([]session.Message, int, error) {
	n = max(n, 1)
	info, err := c.Get(ctx, k)
	if err != nil {
		return nil, 0, err
	}
	tr, ok := c.byName[k.Runtime].(TailReader)
	if !ok {
		msgs, err := c.conversation(ctx, k, info.Path)
		if err != nil {
			return nil, 0, err
		}
		return lastN(msgs, n), len(msgs), nil
	}
	// Stat first, for the reason conversation gives.
	sig, sigOK := statSignature(info.Path)
	if sigOK {
		// Memory first (the whole, then this page), the disk last: a
		// push to an open page must not open a file to learn it is stale.
		if msgs, hit := c.conv.get(k, sig); hit {
			return lastN(msgs, n), len(msgs), nil
		}
		if msgs, hit := c.conv.getTail(k, sig, n); hit {
			return lastN(msgs, n), -1, nil
		}
		if msgs, hit := c.cached(k, sig); hit {
			return lastN(msgs, n), len(msgs), nil
		}
	}
	msgs, complete, err := tr.TailConversation(ctx, k.ID, n)
	if err != nil {
		return nil, 0, err
	}
	if complete {
		// The whole conversation after all (a short session): it answers
		// Messages too. Copied: a scanner may reuse its slice.
		all := slices.Clone(msgs)
		if sigOK {
			c.conv.put(k, sig, all)
		}
		return lastN(all, n), len(all), nil
	}
	// A scanner may hand back more than asked, or reuse its slice: keep
	// and return copies of the last n.
	msgs = lastN(msgs, n)
	if sigOK {
		c.conv.putTail(k, sig, n, msgs)
	}
	return slices.Clone(msgs), -1, nil
}

// lastN is a copy of the last n of msgs (all of them when fewer).
func lastN(msgs []session.Message, n int) []session.Message {
	return slices.Clone(msgs[max(len(msgs)-n, 0):])
}
