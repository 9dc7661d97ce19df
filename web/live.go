package web

import (
	"context"

	"paddock/internal/board"
	"paddock/internal/live"
	"paddock/internal/session"
)

// Board is what the web layer needs of the sessions: one view joining
// their history, live state and pending items (internal/board).
type Board interface {
	Loaded() bool
	List(f board.Filter) []board.Entry
	// Page is a page of the list after a cursor (board.ErrBadCursor for
	// one it did not make) and the next page's cursor.
	Page(s board.Select, cursor string, limit int) ([]board.Entry, string, error)
	Get(ctx context.Context, k session.Key) (board.Entry, error)
	Card(k session.Key) (live.Card, bool)
	Messages(ctx context.Context, e board.Entry) ([]session.Message, error)
	Recent(ctx context.Context, e board.Entry, n int) (board.Recent, error)
	Subscribe() (<-chan board.Change, func())
	// Problems are the parts of the agents' histories that cannot be read
	// or watched just now (board.Problems).
	Problems() []session.SourceProblem
	Machine() live.MachineMemory
	// MarkRead clears a card's unread result: the user looked at it.
	MarkRead(ctx context.Context, k session.Key) error
	// Events reads a session's full record; Delete deletes its history
	// (catalog.ErrUnsupported where its agent's format allows neither;
	// session.ErrLive while it runs).
	Events(ctx context.Context, k session.Key) ([]session.Event, error)
	// EachEvent reads it one event at a time, never whole where the
	// agent can stream it (an export).
	EachEvent(ctx context.Context, k session.Key, fn func(session.Event) error) error
	Delete(ctx context.Context, k session.Key) error
	// HasSubagents says whether runtime's subagents keep conversations of
	// their own, which SubagentConversation reads (catalog.ErrUnsupported
	// where they do not).
	HasSubagents(runtime string) bool
	SubagentConversation(ctx context.Context, k session.Key, agentID string) ([]session.Message, error)
}
