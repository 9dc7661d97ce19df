package usage

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"paddock/internal/broadcast"
	"paddock/internal/session"
)

// readers is how many sessions are read at once.
const readers = 4

// batchSize is how many sessions one transaction of the first build
// writes.
const batchSize = 200

// Source is where sessions come from (the catalog).
type Source interface {
	// WaitComplete returns once a scan has listed every session (the
	// store forgets what the list does not hold).
	WaitComplete(ctx context.Context) error
	// All is every session known.
	All() []session.Info
	Get(ctx context.Context, k session.Key) (session.Info, error)
	Subscribe() (<-chan session.Change, func())
}

// Options configure an Index.
type Options struct {
	Store   *Store
	Source  Source
	Readers map[string]Reader // by agent name; an agent without one records no usage paddock can read
	Log     *slog.Logger
}

// Index keeps the store current with the sessions the source knows:
// built once every session is listed, then following the source's
// changes, reading of each changed session only what its history gained.
type Index struct {
	o       Options
	mu      sync.Mutex // one build or change at a time
	ready   atomic.Bool
	changes *broadcast.Broadcaster[[]session.Key]
}

// NewIndex returns an Index over o.
func NewIndex(o Options) *Index {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Index{o: o, changes: broadcast.New(func() []session.Key { return nil }, slices.Clone[[]session.Key])}
}

// Subscribe tells which sessions' usage changed (nil: maybe all of
// them); stop unsubscribes.
func (ix *Index) Subscribe() (<-chan []session.Key, func()) { return ix.changes.Subscribe() }

// Ready says the first build is done.
func (ix *Index) Ready() bool { return ix.ready.Load() }

// Run builds the store once the source has listed every session, then
// follows its changes until ctx ends. A failure is logged, never fatal:
// usage is not worth stopping paddock for.
func (ix *Index) Run(ctx context.Context) error {
	changes, stop := ix.o.Source.Subscribe()
	defer stop()
	if err := ix.o.Source.WaitComplete(ctx); err != nil {
		return nil
	}
	start := time.Now()
	n, err := ix.Build(ctx)
	if err != nil {
		if ctx.Err() == nil {
			ix.o.Log.Error("usage not read; the usage page shows part of it", "error", err)
		}
		return nil
	}
	ix.ready.Store(true)
	ix.changes.Publish(nil)
	ix.o.Log.Info("usage read", "sessions", len(ix.o.Source.All()), "read", n, "took", time.Since(start).Round(time.Millisecond))
	for {
		select {
		case <-ctx.Done():
			return nil
		case ch, ok := <-changes:
			if !ok {
				return nil
			}
			if err := ix.apply(ctx, ch); err != nil && ctx.Err() == nil {
				ix.o.Log.Warn("usage not updated", "error", err)
			}
		}
	}
}

// Build brings the store up to date with every session the source knows
// and forgets the others. It returns how many sessions it read.
func (ix *Index) Build(ctx context.Context) (int, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	n, err := ix.sync(ctx, ix.o.Source.All(), true)
	return n, err
}

func (ix *Index) apply(ctx context.Context, ch session.Change) error {
	if ch.Full {
		_, err := ix.Build(ctx)
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var infos []session.Info
	for _, k := range ch.Updated {
		if i, err := ix.o.Source.Get(ctx, k); err == nil {
			infos = append(infos, i)
		}
	}
	if _, err := ix.sync(ctx, infos, false); err != nil {
		return err
	}
	keys := make([]string, len(ch.Removed))
	for i, k := range ch.Removed {
		keys[i] = k.String()
	}
	ix.o.Store.mu.Lock()
	defer ix.o.Store.mu.Unlock()
	return ix.o.Store.forget(ctx, keys)
}

// sync reads the sessions of infos whose time changed since they were
// read; with all, the sessions not in infos leave. The caller holds
// ix.mu.
func (ix *Index) sync(ctx context.Context, infos []session.Info, all bool) (int, error) {
	st := ix.o.Store
	known, err := st.known(ctx)
	if err != nil {
		return 0, err
	}
	var todo []read
	seen := map[string]bool{}
	for _, info := range infos {
		key := info.Key().String()
		seen[key] = true
		was, ok := known[key]
		if ok && was.sig == info.Updated.UnixNano() {
			continue
		}
		if ix.o.Readers[info.Runtime] == nil {
			continue
		}
		todo = append(todo, read{info: info, was: was, ok: ok})
	}
	n := 0
	for len(todo) > 0 {
		b := todo[:min(len(todo), batchSize)]
		todo = todo[len(b):]
		got, err := ix.readAll(ctx, b)
		n += len(got)
		if err != nil {
			return n, err
		}
		if err := ix.store(ctx, got); err != nil {
			return n, err
		}
	}
	if !all {
		return n, nil
	}
	var gone []string
	for k := range known {
		if !seen[k] {
			gone = append(gone, k)
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return n, st.forget(ctx, gone)
}

// ManyReader is a Reader that reads several sessions at once for less
// than each alone (opening a database once for all of them).
type ManyReader interface {
	Reader
	ReadMany(ctx context.Context, infos []session.Info, froms []Cursor) ([]Batch, []error)
}

// manyChunk is how many sessions one ReadMany reads.
const manyChunk = 64

// readAll reads rs side by side (reading is mostly waiting on the disk)
// and returns those read.
func (ix *Index) readAll(ctx context.Context, rs []read) ([]read, error) {
	// A job is one session, or a chunk of one ManyReader's sessions.
	var jobs [][]int
	many := map[string][]int{}
	for i, r := range rs {
		if _, ok := ix.o.Readers[r.info.Runtime].(ManyReader); ok {
			many[r.info.Runtime] = append(many[r.info.Runtime], i)
			continue
		}
		jobs = append(jobs, []int{i})
	}
	for _, idx := range many {
		for len(idx) > 0 {
			n := min(len(idx), manyChunk)
			jobs = append(jobs, idx[:n])
			idx = idx[n:]
		}
	}
	ok := make([]bool, len(rs))
	done := func(i int, b Batch, err error) {
		r := &rs[i]
		if err != nil {
			// Unreadable now (being written, removed): read again at its
			// next change; what was stored stays.
			if !errors.Is(err, session.ErrNotFound) && ctx.Err() == nil {
				ix.o.Log.Debug("usage: session not read", "session", r.info.Key().String(), "error", err)
			}
			return
		}
		r.batch, ok[i] = b, true
	}
	from := func(i int) Cursor {
		if !rs[i].ok {
			return Cursor{}
		}
		return rs[i].was.cursor
	}
	var wg sync.WaitGroup
	next := make(chan []int)
	for range min(readers, len(jobs)) {
		wg.Go(func() {
			for job := range next {
				rd := ix.o.Readers[rs[job[0]].info.Runtime]
				if m, isMany := rd.(ManyReader); isMany && len(job) > 1 {
					infos, froms := make([]session.Info, len(job)), make([]Cursor, len(job))
					for k, i := range job {
						infos[k], froms[k] = rs[i].info, from(i)
					}
					bs, errs := m.ReadMany(ctx, infos, froms)
					for k, i := range job {
						done(i, bs[k], errs[k])
					}
					continue
				}
				b, err := rd.Read(ctx, rs[job[0]].info, from(job[0]))
				done(job[0], b, err)
			}
		})
	}
	for _, job := range jobs {
		select {
		case next <- job:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out := rs[:0]
	for i, r := range rs {
		if ok[i] {
			out = append(out, r)
		}
	}
	return out, nil
}

// store writes what was read, logs each session's refused records once
// per read, and tells the subscribers what changed.
func (ix *Index) store(ctx context.Context, rs []read) error {
	if len(rs) == 0 {
		return nil
	}
	st := ix.o.Store
	st.mu.Lock()
	rejected, changed, err := st.write(ctx, rs)
	st.mu.Unlock()
	if err != nil {
		return err
	}
	for _, r := range rs {
		if bad := rejected[r.info.Key().String()]; len(bad) > 0 {
			ix.o.Log.Warn("usage: records refused as impossible, not counted", "session", r.info.Key().String(),
				"path", r.info.Path, "refused", len(bad), "first", bad[0].Key, "reason", bad[0].Reason)
		}
	}
	if len(changed) > 0 && ix.ready.Load() {
		ix.changes.Publish(changed)
	}
	return nil
}
