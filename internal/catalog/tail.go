package catalog

import (
	"context"

	"paddock/internal/session"
)

// TailReader is implemented by scanners that can read a session's newest
// messages from the end of its history without parsing all of it: the
// first page of a 50 MB session must not wait for a full parse (issue 7
// §11). Scanners without it are read in full.
type TailReader interface {
	// TailConversation returns the last n (n ≥ 1) messages of id's
	// conversation, oldest first: exactly the last n of what Conversation
	// returns at that moment, or all of them when there are fewer.
	// complete reports that msgs is the whole conversation (no message
	// comes before the first one returned). Errors are Conversation's
	// (session.ErrNotFound, ctx.Err()).
	TailConversation(ctx context.Context, id string, n int) (msgs []session.Message, complete bool, err error)
}
