// Package usagetest is what the agents' usage tests share: reading a
// session whole or in steps as it grows, and summing what was read the
// way the store does (a record read again under its key replaces the
// first).
package usagetest

import (
	"context"
	"os"
	"testing"

	"paddock/internal/session"
	"paddock/internal/usage"
)

// Sums are what a session's records add up to.
type Sums struct {
	Calls                                      int
	Input, Output, CacheRead, CacheWrite, CW1h int64
	Cost                                       float64 // the agent's own figures
	Covered                                    int     // calls whose cost is in another record
	Models                                     map[string]int
	Context                                    int64 // the latest call's
	Window                                     int64
}

// Held is what a store holds of one session: its records by key, in the
// order first read.
type Held struct {
	keys []string
	byK  map[string]usage.Record
}

// Apply takes in a batch as the store does.
func (h *Held) Apply(b usage.Batch) {
	if b.Fresh || h.byK == nil {
		h.keys, h.byK = nil, map[string]usage.Record{}
	}
	for _, r := range b.Records {
		if _, ok := h.byK[r.Key]; !ok {
			h.keys = append(h.keys, r.Key)
		}
		h.byK[r.Key] = r
	}
}

// Sums adds up what is held.
func (h *Held) Sums() Sums {
	s := Sums{Models: map[string]int{}}
	var latest usage.Record
	for _, k := range h.keys {
		r := h.byK[k]
		if r.Input+r.Output+r.CacheRead+r.CacheWrite > 0 {
			s.Calls++
			s.Models[r.Model]++
		}
		s.Input += r.Input
		s.Output += r.Output
		s.CacheRead += r.CacheRead
		s.CacheWrite += r.CacheWrite
		s.CW1h += r.CacheWrite1h
		if r.HasCost {
			s.Cost += r.Cost
		}
		if r.Covered {
			s.Covered++
		}
		if r.Context > 0 && !r.Time.Before(latest.Time) {
			latest = r
		}
	}
	s.Context, s.Window = latest.Context, latest.Window
	return s
}

// ReadAll reads info whole with rd.
func ReadAll(t testing.TB, rd usage.Reader, info session.Info) (Sums, usage.Batch) {
	t.Helper()
	b, err := rd.Read(context.Background(), info, usage.Cursor{})
	if err != nil {
		t.Fatalf("read %s: %v", info.Path, err)
	}
	if !b.Fresh {
		t.Errorf("a first read is not fresh")
	}
	var h Held
	h.Apply(b)
	return h.Sums(), b
}

// Grow writes the file at src into dst in parts, cut after each of the
// byte offsets in cuts, reading info (whose Path is dst) with rd after
// each part; it returns what was held at the end and each read's batch.
func Grow(t testing.TB, rd usage.Reader, info session.Info, src string, cuts ...int) (Sums, []usage.Batch) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var h Held
	var cur usage.Cursor
	var batches []usage.Batch
	for _, end := range append(cuts, len(data)) {
		if err := os.WriteFile(info.Path, data[:end], 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := rd.Read(context.Background(), info, cur)
		if err != nil {
			t.Fatalf("read after %d bytes: %v", end, err)
		}
		h.Apply(b)
		cur = b.Cursor
		batches = append(batches, b)
	}
	return h.Sums(), batches
}
