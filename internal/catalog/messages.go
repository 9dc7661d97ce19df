package catalog

import (
	"container/list"
	"context"
	"errors"
	"os"
	"slices"
	"sync"

	"paddock/internal/history"
	"paddock/internal/session"
)

// conversationCacheSize bounds the conversation cache: enough for the
// sessions a user flips between, small enough that long transcripts cannot
// grow paddock's memory without limit.
const conversationCacheSize = 64

// Messages returns a session's conversation, oldest first. It is cached per
// session under the signature of its history file (path, size, mtime in ns,
// device and inode) and re-read when that changes — a session keeps being
// written while it is open, so a cache keyed by session alone would go stale
// (only real human input and readable answers). The caller gets its own
// copy.
func (c *Catalog) Messages(ctx context.Context, k session.Key) ([]session.Message, error) {
	info, err := c.Get(ctx, k)
	if err != nil {
		return nil, err
	}
	msgs, err := c.conversation(ctx, k, info.Path)
	if err != nil {
		return nil, err
	}
	return slices.Clone(msgs), nil
}

// ReadConversation reads k's conversation from its agent, past both
// caches: for a reader that walks every session once (the search index),
// which would otherwise push out what the pages use.
func (c *Catalog) ReadConversation(ctx context.Context, k session.Key) ([]session.Message, error) {
	sc, ok := c.byName[k.Runtime]
	if !ok {
		return nil, session.ErrNotFound
	}
	return sc.Conversation(ctx, k.ID)
}

// conversation is the full conversation of k (whose history is at path),
// from the memory cache, the disk cache or its scanner. The slice may be
// the cache's own: callers copy what they hand out.
func (c *Catalog) conversation(ctx context.Context, k session.Key, path string) ([]session.Message, error) {
	// Stat before reading: if the file grows during the read, the cached
	// copy carries the older signature and the next call reads again. The
	// other order could pin stale content under a current signature.
	sig, ok := statSignature(path)
	if ok {
		if msgs, hit := c.cached(k, sig); hit {
			return msgs, nil
		}
	}
	msgs, err := c.byName[k.Runtime].Conversation(ctx, k.ID)
	if err != nil {
		return nil, err
	}
	// Without a signature (no path, or stat failed) there is nothing to
	// validate a cached copy against, so it is not cached.
	if ok {
		// Cloned so a scanner reusing its slice cannot change the cache.
		msgs = slices.Clone(msgs)
		c.conv.put(k, sig, msgs)
		if c.disk != nil {
			if err := c.disk.put(k, sig, msgs); err != nil {
				c.log.Debug("conversation not cached on disk", "session", k.String(), "error", err)
			}
		}
	}
	return msgs, nil
}

// cached is the full conversation read under sig, from memory or disk.
// The slice is the cache's own.
func (c *Catalog) cached(k session.Key, sig fileSignature) ([]session.Message, bool) {
	if msgs, hit := c.conv.get(k, sig); hit {
		return msgs, true
	}
	if c.disk != nil {
		if msgs, hit := c.disk.get(k, sig); hit {
			c.conv.put(k, sig, msgs)
			return msgs, true
		}
	}
	return nil, false
}

// fileSignature identifies one version of a history file. Size and mtime
// catch appends; device and inode catch a file replaced by rename. For a
// SQLite history (OpenCode, Cursor's store.db) new rows land in the "-wal"
// file and the database file itself stays untouched until a checkpoint, so
// the WAL's size and mtime are part of the signature when it exists; for a
// JSONL history that is one failed stat. Its
// fields are exported only so the disk cache can store it (gob).
type fileSignature struct {
	Path       string
	Size       int64
	MtimeNs    int64
	Dev, Ino   uint64
	WALSize    int64
	WALMtimeNs int64
}

func statSignature(path string) (fileSignature, bool) {
	if path == "" {
		return fileSignature{}, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fileSignature{}, false
	}
	sig := fileSignature{Path: path, Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano()}
	sig.Dev, sig.Ino = history.FileID(fi)
	if wal, err := os.Stat(path + "-wal"); err == nil {
		sig.WALSize, sig.WALMtimeNs = wal.Size(), wal.ModTime().UnixNano()
	}
	return sig, true
}

// convCache is a small LRU of conversations by session key. An entry
// holds either the whole conversation or, when only the end of the history
// was read (RecentMessages), its last messages: never both, and a tail is
// never answered as the whole.
type convCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *convEntry, most recently used first
	byKey map[session.Key]*list.Element
}

type convEntry struct {
	key  session.Key
	sig  fileSignature
	full bool              // msgs is the whole conversation
	msgs []session.Message // the whole conversation, or its last tailN messages
	// tailN is how many messages were asked of the tail read (msgs may
	// hold fewer only when the conversation has fewer).
	tailN int
}

func newConvCache(max int) *convCache {
	return &convCache{max: max, order: list.New(), byKey: make(map[session.Key]*list.Element)}
}

// get returns the whole conversation when it was read under sig. The
// slice is shared: callers clone it before handing it out.
func (cc *convCache) get(k session.Key, sig fileSignature) ([]session.Message, bool) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	el, ok := cc.byKey[k]
	if !ok {
		return nil, false
	}
	e := el.Value.(*convEntry)
	if e.sig != sig || !e.full {
		return nil, false
	}
	cc.order.MoveToFront(el)
	return e.msgs, true
}

// getTail returns the last n messages read from the end of the history
// under sig, when at least n were asked for then. Shared, as get's.
func (cc *convCache) getTail(k session.Key, sig fileSignature, n int) ([]session.Message, bool) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	el, ok := cc.byKey[k]
	if !ok {
		return nil, false
	}
	e := el.Value.(*convEntry)
	if e.sig != sig || e.full || e.tailN < n {
		return nil, false
	}
	cc.order.MoveToFront(el)
	return e.msgs[max(len(e.msgs)-n, 0):], true
}

// drop forgets a session's conversation.
func (cc *convCache) drop(k session.Key) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if el, ok := cc.byKey[k]; ok {
		cc.order.Remove(el)
		delete(cc.byKey, k)
	}
}

func (cc *convCache) put(k session.Key, sig fileSignature, msgs []session.Message) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.store(&convEntry{key: k, sig: sig, full: true, msgs: msgs})
}

// putTail keeps the last n messages read under sig, unless the entry
// already answers at least as much for that signature.
func (cc *convCache) putTail(k session.Key, sig fileSignature, n int, msgs []session.Message) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if el, ok := cc.byKey[k]; ok {
		if e := el.Value.(*convEntry); e.sig == sig && (e.full || e.tailN >= n) {
			return
		}
	}
	cc.store(&convEntry{key: k, sig: sig, msgs: msgs, tailN: n})
}

// store puts ne first, in place of k's entry, and evicts past the bound.
// cc.mu is held.
func (cc *convCache) store(ne *convEntry) {
	if el, ok := cc.byKey[ne.key]; ok {
		el.Value = ne
		cc.order.MoveToFront(el)
		return
	}
	cc.byKey[ne.key] = cc.order.PushFront(ne)
	for cc.order.Len() > cc.max {
		last := cc.order.Back()
		cc.order.Remove(last)
		delete(cc.byKey, last.Value.(*convEntry).key)
	}
}

// EventReader is a Scanner that can read a session's full record
// (internal/agent/*: messages, thinking, tool calls and results).
type EventReader interface {
	Events(ctx context.Context, id string) ([]session.Event, error)
}

// EventStreamer is a Scanner that can hand over a session's full record
// as it reads it — EventReader's events, one at a time — holding no
// more of it than its format makes it (an export of a long session).
type EventStreamer interface {
	EachEvent(ctx context.Context, id string, fn func(session.Event) error) error
}

// Deleter is a Scanner that can delete a session's history when the user
// asks.
type Deleter interface {
	Delete(ctx context.Context, id string) error
}

// SubagentReader is a Scanner whose sessions' subagents keep
// conversations of their own (Claude Code's Agent/Task transcripts).
type SubagentReader interface {
	SubagentConversation(ctx context.Context, sessionID, agentID string) ([]session.Message, error)
}

// HasSubagents reports whether runtime's subagents keep conversations
// SubagentConversation can read.
func (c *Catalog) HasSubagents(runtime string) bool {
	_, ok := c.byName[runtime].(SubagentReader)
	return ok
}

// SubagentConversation reads the conversation of one of a session's
// subagents; ErrUnsupported where the runtime keeps none.
func (c *Catalog) SubagentConversation(ctx context.Context, k session.Key, agentID string) ([]session.Message, error) {
	r, ok := c.byName[k.Runtime].(SubagentReader)
	if !ok {
		return nil, ErrUnsupported
	}
	return r.SubagentConversation(ctx, k.ID, agentID)
}

// ErrUnsupported says a runtime cannot do what was asked (read events,
// delete, read subagents).
var ErrUnsupported = errors.New("catalog: not supported for this agent")

// Events returns a session's full record, oldest first.
func (c *Catalog) Events(ctx context.Context, k session.Key) ([]session.Event, error) {
	if _, err := c.Get(ctx, k); err != nil {
		return nil, err
	}
	r, ok := c.byName[k.Runtime].(EventReader)
	if !ok {
		return nil, ErrUnsupported
	}
	return r.Events(ctx, k.ID)
}

// EachEvent hands a session's full record to fn, oldest first, as its
// agent reads it (from Events where the agent cannot stream it); fn's
// first error stops it and is returned.
func (c *Catalog) EachEvent(ctx context.Context, k session.Key, fn func(session.Event) error) error {
	if _, err := c.Get(ctx, k); err != nil {
		return err
	}
	if s, ok := c.byName[k.Runtime].(EventStreamer); ok {
		return s.EachEvent(ctx, k.ID, fn)
	}
	evs, err := c.Events(ctx, k)
	if err != nil {
		return err
	}
	for _, e := range evs {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// Delete deletes a session's history (the agent's own files, as its
// runtime knows them) and takes it off the list at once.
func (c *Catalog) Delete(ctx context.Context, k session.Key) error {
	if _, err := c.Get(ctx, k); err != nil {
		return err
	}
	d, ok := c.byName[k.Runtime].(Deleter)
	if !ok {
		return ErrUnsupported
	}
	if err := d.Delete(ctx, k.ID); err != nil {
		return err
	}
	c.conv.drop(k)
	if c.disk != nil {
		c.disk.drop(k)
	}
	// Off the list now, without rescanning every runtime for one session:
	// the scanner dropped it from its caches, so the next sweep agrees.
	c.mu.Lock()
	_, listed := c.byRuntime[k.Runtime][k.ID]
	if listed {
		delete(c.byRuntime[k.Runtime], k.ID)
		c.rebuildSorted()
	}
	c.mu.Unlock()
	if listed {
		c.publish(Change{Removed: []session.Key{k}})
	}
	return nil
}
