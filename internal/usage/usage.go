// Package usage is what the sessions' model calls used and cost: the
// tokens (input, output, cache read, cache write), model and cost each
// agent records in its own history, read per session as the history
// grows (only what was appended is read again), kept in a SQLite file of
// paddock's own, priced from a table where the agent records no cost, and
// summed per day, project, agent and model; and how full each session's
// context is.
//
// The file is derived data: deleting it loses nothing, it is built again
// from the histories. This package never reads an agent's files itself
// but through the Reader that agent's own package gives it (read-only,
// like every scanner), and never guesses: a count that is negative or
// absurd is rejected, a model without a price is "cost unknown".
package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"paddock/internal/session"
)

// Record is one model call's usage (or one turn's, where the agent
// records no finer), as the agent recorded it.
type Record struct {
	// Key names the record within its session: read again (a streamed
	// message written several times, a history read again from its
	// start), a record of the same key replaces the first, never adds.
	Key   string
	Time  time.Time
	Model string
	// Input counts the input tokens read fresh; CacheRead those read
	// from the prompt cache and CacheWrite those written to it (never
	// counted in Input too). CacheWrite1h is the part of CacheWrite
	// written for an hour, which costs more, where the agent says.
	Input, Output, CacheRead, CacheWrite, CacheWrite1h int64
	// Cost is what the agent recorded the call cost, in US dollars,
	// when HasCost.
	Cost    float64
	HasCost bool
	// Covered says the agent records this call's cost in another record
	// (a running total it writes per turn): the call's tokens count, but
	// are never priced from the table.
	Covered bool
	// Context is how many tokens the model's context held after the call
	// (what the next call starts from); 0 when unknown. Window is the
	// model's context window where the agent records it.
	Context, Window int64
}

// Limits beyond which a record is absurd: no model call reads or writes
// more tokens, or costs more.
const (
	MaxTokens = 100_000_000
	MaxCost   = 10_000.0
)

// check says why r cannot be a real call's usage, or nil.
func (r Record) check() error {
	for _, c := range []struct {
		name string
		n    int64
	}{{"input", r.Input}, {"output", r.Output}, {"cache read", r.CacheRead}, {"cache write", r.CacheWrite},
		{"cache write 1h", r.CacheWrite1h}, {"context", r.Context}, {"window", r.Window}} {
		if c.n < 0 {
			return fmt.Errorf("negative %s tokens (%d)", c.name, c.n)
		}
		if c.n > MaxTokens {
			return fmt.Errorf("%s tokens beyond %d (%d)", c.name, MaxTokens, c.n)
		}
	}
	if r.CacheWrite1h > r.CacheWrite {
		return fmt.Errorf("1h cache write %d over the cache write %d", r.CacheWrite1h, r.CacheWrite)
	}
	if r.Cost < 0 || r.Cost > MaxCost || r.Cost != r.Cost {
		return fmt.Errorf("cost %v outside 0 to %v", r.Cost, MaxCost)
	}
	if r.Key == "" {
		return fmt.Errorf("no key")
	}
	return nil
}

// Mark is where reading one of a session's files stopped: the file (by
// the reader's own name for it and its inode), how far it was read, and
// a checksum of the bytes just before, so that a file rewritten in place
// is told from one appended to.
type Mark struct {
	Name   string `json:"n,omitempty"`
	Ino    uint64 `json:"i,omitempty"`
	Offset int64  `json:"o,omitempty"`
	Tail   uint32 `json:"t,omitempty"`
}

// Cursor is where reading a session stopped: a mark per file, and what
// the reader carries from one read to the next (running totals, the
// model in use), which is its own business.
type Cursor struct {
	Files []Mark          `json:"f,omitempty"`
	State json.RawMessage `json:"s,omitempty"`
}

// File is the mark of the file called name (zero when it was never read).
func (c Cursor) File(name string) Mark {
	for _, m := range c.Files {
		if m.Name == name {
			return m
		}
	}
	return Mark{Name: name}
}

// Batch is what one read of a session gave.
type Batch struct {
	// Records are the calls read, in the order read.
	Records []Record
	// Cursor is where the next read starts.
	Cursor Cursor
	// Fresh says the session was read from its start (the first read, or
	// a history that was not only appended to): what was stored of it is
	// replaced by Records.
	Fresh bool
}

// Reader reads one agent's usage records. Its own package implements it
// over its own files, read-only; Read may be called concurrently for
// different sessions.
type Reader interface {
	// Read reads the usage session info recorded since from (the zero
	// Cursor: since its start). session.ErrNotFound when its history is
	// gone.
	Read(ctx context.Context, info session.Info, from Cursor) (Batch, error)
}

// ReaderFunc is a Reader as a function.
type ReaderFunc func(ctx context.Context, info session.Info, from Cursor) (Batch, error)

// Read calls f.
func (f ReaderFunc) Read(ctx context.Context, info session.Info, from Cursor) (Batch, error) {
	return f(ctx, info, from)
}
