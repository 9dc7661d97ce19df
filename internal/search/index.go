// Package search is the full-text index of every session's conversation:
// SQLite FTS5 over what the user typed and the readable answers, of every
// session the catalog knows (not only the listed ones), kept current as
// sessions grow.
//
// The index is derived data in a file of its own: deleting it loses
// nothing (it is built again), and a file of another schema version is
// replaced. It never touches an agent's files: conversations come from
// the catalog, which reads them read-only.
package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"paddock/internal/session"
)

// defaultRankWindow is Options.RankWindow's default.
const defaultRankWindow = 2000

// readers is how many conversations are read at once.
const readers = 4

// schemaVersion is the index's layout; a file of another version is
// rebuilt from the histories.
const schemaVersion = 2

// A message's rowid is its session's number shifted left by seqBits, plus
// its place in the conversation: one session's rows are one rowid range,
// which FTS5 deletes and filters on cheaply. Tool rows (Options.Tools)
// take the upper half of the range, toolBase on.
const (
	seqBits  = 24
	maxSeq   = 1<<seqBits - 1
	toolBase = 1 << (seqBits - 1)
)

// RoleTool is the role of a hit in a tool call or its output.
const RoleTool = "tool"

// Source is where sessions and their conversations come from (the
// catalog).
type Source interface {
	// WaitComplete returns once a scan has listed every session (the
	// index forgets what the list does not hold).
	WaitComplete(ctx context.Context) error
	// All is every session known, newest first.
	All() []session.Info
	Get(ctx context.Context, k session.Key) (session.Info, error)
	Subscribe() (<-chan session.Change, func())
	// ReadConversation reads k's conversation past any cache: the index
	// reads every session once and would push out what pages use.
	ReadConversation(ctx context.Context, k session.Key) ([]session.Message, error)
}

// EventSource is a Source that also reads a session's whole record, for
// an index of the tools' calls and output too (Options.Tools).
type EventSource interface {
	Events(ctx context.Context, k session.Key) ([]session.Event, error)
}

// Options configure an Index.
type Options struct {
	Path   string // the index's SQLite file
	Source Source
	Log    *slog.Logger
	// Batch is how many sessions one transaction of the first build
	// writes (default 200).
	Batch int
	// RankWindow is how many of a word's messages, in the newest
	// sessions, are ranked when it is in more (default 2,000).
	RankWindow int
	// Tools indexes the tools' calls (their input) and output too, for
	// sources that read records (EventSource). Changing it rebuilds the
	// index.
	Tools bool
}

// Index is the search index. Search is safe to call from any goroutine,
// while Run builds and follows.
type Index struct {
	o  Options
	db *sql.DB

	mu      sync.Mutex // serialises the writers
	total   atomic.Int64
	done    atomic.Int64
	ready   atomic.Bool
	written atomic.Int64 // messages written, in all
}

// Open opens the index at o.Path, creating it (mode 0600) or replacing a
// file of another schema version.
func Open(ctx context.Context, o Options) (*Index, error) {
	if o.Path == "" || o.Source == nil {
		return nil, errors.New("search: no index path or source")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Batch <= 0 {
		o.Batch = 200
	}
	if o.RankWindow <= 0 {
		o.RankWindow = defaultRankWindow
	}
	abs, err := filepath.Abs(o.Path)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	o.Path = abs
	db, err := openDB(ctx, abs)
	if err != nil {
		return nil, err
	}
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		db.Close()
		return nil, fmt.Errorf("search: %w", err)
	}
	if v != 0 && v != schemaVersion {
		o.Log.Info("search index of another version: building it again", "path", abs, "version", v)
		db.Close()
		if err := removeDB(abs); err != nil {
			return nil, err
		}
		if db, err = openDB(ctx, abs); err != nil {
			return nil, err
		}
	}
	if err := create(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	if o.Tools {
		if _, ok := o.Source.(EventSource); !ok {
			db.Close()
			return nil, errors.New("search: indexing the tools needs a source of records")
		}
	}
	if err := setTools(ctx, db, o.Tools, o.Log); err != nil {
		db.Close()
		return nil, err
	}
	return &Index{o: o, db: db}, nil
}

// setTools records whether the index holds the tools' rows; when that
// changes, what is indexed is dropped and built again.
func setTools(ctx context.Context, db *sql.DB, tools bool, log *slog.Logger) error {
	want := "0"
	if tools {
		want = "1"
	}
	var have string
	err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'tools'`).Scan(&have)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("search: %w", err)
	}
	if have == want {
		return nil
	}
	if have != "" {
		log.Info("search index of tools' output switched: building it again", "tools", tools)
	}
	for _, q := range []string{`DELETE FROM messages`, `DELETE FROM sessions`, `INSERT OR REPLACE INTO meta (key, value) VALUES ('tools', '` + want + `')`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("search: %w", err)
		}
	}
	return nil
}

// ErrNoIndex is an index that was never built here.
var ErrNoIndex = errors.New("search: no index yet: paddock serve builds it when it starts")

// OpenReader opens the index at path for searching only, beside a paddock
// serve that may be writing it (or as its last run left it). It never
// creates or changes the file.
func OpenReader(ctx context.Context, path string) (*Index, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoIndex
	}
	u := url.URL{Path: filepath.ToSlash(abs)}
	db, err := sql.Open("sqlite", "file:"+u.EscapedPath()+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		db.Close()
		return nil, fmt.Errorf("search: open %s: %w", abs, err)
	}
	if v != schemaVersion {
		db.Close()
		return nil, fmt.Errorf("search: %s is of another version (%d); paddock serve builds it again when it starts", abs, v)
	}
	return &Index{o: Options{Path: abs, RankWindow: defaultRankWindow, Log: slog.New(slog.DiscardHandler)}, db: db}, nil
}

func openDB(ctx context.Context, abs string) (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	// Created by us so it is never readable by others: it holds the
	// conversations' text.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	f.Close()
	if err := os.Chmod(abs, 0o600); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	u := url.URL{Path: filepath.ToSlash(abs)}
	db, err := sql.Open("sqlite", "file:"+u.EscapedPath()+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	db.SetMaxOpenConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("search: open %s: %w", abs, err)
	}
	return db, nil
}

func removeDB(abs string) error {
	for _, p := range []string{abs, abs + "-wal", abs + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("search: remove the old index: %w", err)
		}
	}
	return nil
}

func create(ctx context.Context, db *sql.DB) error {
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS sessions (
			num INTEGER PRIMARY KEY,
			key TEXT NOT NULL UNIQUE,
			runtime TEXT NOT NULL,
			id TEXT NOT NULL,
			cwd TEXT NOT NULL,
			project TEXT NOT NULL,
			title TEXT NOT NULL,
			updated INTEGER NOT NULL, -- unix ms
			sig INTEGER NOT NULL,     -- the effective time it was indexed at, unix ns
			count INTEGER NOT NULL,   -- messages indexed
			last INTEGER NOT NULL,    -- hash of the last one indexed
			tools INTEGER NOT NULL    -- tool rows indexed
		)`,
		// msg: the message a row is, or follows: where a hit opens the page.
		`CREATE VIRTUAL TABLE IF NOT EXISTS messages USING fts5(body, role UNINDEXED, at UNINDEXED, msg UNINDEXED,
			tokenize = 'unicode61 remove_diacritics 2')`,
		`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`PRAGMA user_version = ` + strconv.Itoa(schemaVersion),
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("search: create the index: %w", err)
		}
	}
	return nil
}

// Close closes the index.
func (ix *Index) Close() error { return ix.db.Close() }

// Progress is how far the build is: sessions indexed (or found unchanged)
// of those known, and whether the first build is done.
type Progress struct {
	Indexed, Total int
	Ready          bool
}

// Progress reports the build.
func (ix *Index) Progress() Progress {
	return Progress{Indexed: int(ix.done.Load()), Total: int(ix.total.Load()), Ready: ix.ready.Load()}
}

// Run builds the index in the background once the catalog has loaded,
// then follows the catalog's changes until ctx ends.
func (ix *Index) Run(ctx context.Context) error {
	changes, stop := ix.o.Source.Subscribe()
	defer stop()
	if err := ix.o.Source.WaitComplete(ctx); err != nil {
		return nil // stopped before the catalog loaded
	}
	start := time.Now()
	n, err := ix.Build(ctx)
	if err != nil {
		// Search is not worth stopping paddock for: it answers from what
		// is indexed, and the next change is tried again.
		if ctx.Err() == nil {
			ix.o.Log.Error("search index not built; searches see only part of the sessions", "error", err)
		}
		return nil
	}
	ix.ready.Store(true)
	ix.o.Log.Info("search index ready", "sessions", len(ix.o.Source.All()), "read", n, "took", time.Since(start).Round(time.Millisecond))
	for {
		select {
		case <-ctx.Done():
			return nil
		case ch, ok := <-changes:
			if !ok {
				return nil
			}
			if err := ix.apply(ctx, ch); err != nil && ctx.Err() == nil {
				ix.o.Log.Warn("search index not updated", "error", err)
			}
		}
	}
}

// Build brings the index up to date with every session the source knows
// now, and returns how many conversations it read (those whose time
// changed since they were indexed).
func (ix *Index) Build(ctx context.Context) (int, error) {
	return ix.sync(ctx, ix.o.Source.All(), true)
}

// Count is how many sessions and messages the index holds.
func (ix *Index) Count(ctx context.Context) (sessions, messages int, err error) {
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&sessions); err != nil {
		return 0, 0, err
	}
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM messages`).Scan(&messages); err != nil {
		return 0, 0, err
	}
	return sessions, messages, nil
}

// apply follows one catalog change.
func (ix *Index) apply(ctx context.Context, ch session.Change) error {
	if ch.Full {
		_, err := ix.Build(ctx)
		return err
	}
	var infos []session.Info
	for _, k := range ch.Updated {
		if i, err := ix.o.Source.Get(ctx, k); err == nil {
			infos = append(infos, i)
		}
	}
	if _, err := ix.sync(ctx, infos, false); err != nil {
		return err
	}
	if len(ch.Removed) == 0 {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, k := range ch.Removed {
		if err := forget(ctx, tx, k.String()); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// indexed is what the index holds of one session.
type indexed struct {
	num, sig    int64
	count, last int64
	tools       int64
}

// sync brings the index up to date with infos: sessions whose effective
// time is what they were indexed at are not read again; a grown one gets
// only its new messages; with all set, sessions no longer known leave.
// It returns how many conversations it read.
func (ix *Index) sync(ctx context.Context, infos []session.Info, all bool) (int, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	known, err := ix.known(ctx)
	if err != nil {
		return 0, err
	}
	if all {
		ix.total.Store(int64(len(infos)))
		ix.done.Store(0)
	}
	// Sessions are numbered oldest first (a search ranks a common word
	// among the newest numbers). The first build, which takes the newest
	// first so that they are found first, numbers them so; later ones
	// take the next number.
	var numbers []int64
	if len(known) == 0 {
		numbers = make([]int64, len(infos))
		for i := range numbers {
			numbers[i] = int64(len(infos) - i)
		}
	}
	read := 0
	for len(infos) > 0 {
		batch := infos[:min(len(infos), ix.o.Batch)]
		infos = infos[len(batch):]
		var nums []int64
		if numbers != nil {
			nums, numbers = numbers[:len(batch)], numbers[len(batch):]
		}
		n, err := ix.writeBatch(ctx, batch, nums, known)
		read += n
		if err != nil {
			return read, err
		}
		if all {
			ix.done.Add(int64(len(batch)))
		}
	}
	if !all {
		return read, nil
	}
	// What the catalog no longer lists leaves the index.
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return read, err
	}
	defer tx.Rollback()
	for key := range known {
		if err := forget(ctx, tx, key); err != nil {
			return read, err
		}
	}
	return read, tx.Commit()
}

// known is every indexed session by key. The caller holds ix.mu.
func (ix *Index) known(ctx context.Context) (map[string]indexed, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT key, num, sig, count, last, tools FROM sessions`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]indexed{}
	for rows.Next() {
		var k string
		var s indexed
		if err := rows.Scan(&k, &s.num, &s.sig, &s.count, &s.last, &s.tools); err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, rows.Err()
}

// writeBatch indexes infos in one transaction, deleting each from known
// (what is left there afterwards was not seen). numbers, when set, are
// the numbers new sessions get.
func (ix *Index) writeBatch(ctx context.Context, infos []session.Info, numbers []int64, known map[string]indexed) (int, error) {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	// The conversations are read side by side (reading is mostly waiting
	// on the disk), then written in order by this one writer.
	type job struct {
		info session.Info
		was  indexed
		ok   bool
		num  int64 // the number to give a new session, 0 for the next free
		msgs []session.Message
		tool []toolRow
		err  error
	}
	var jobs []*job
	for i, info := range infos {
		key := info.Key().String()
		was, ok := known[key]
		delete(known, key)
		if ok && was.sig == info.Updated.UnixNano() {
			continue
		}
		j := &job{info: info, was: was, ok: ok}
		if numbers != nil {
			j.num = numbers[i]
		}
		jobs = append(jobs, j)
	}
	var wg sync.WaitGroup
	next := make(chan *job)
	for range min(readers, len(jobs)) {
		wg.Go(func() {
			for j := range next {
				j.msgs, j.err = ix.o.Source.ReadConversation(ctx, j.info.Key())
				if j.err == nil && ix.o.Tools {
					j.tool, j.err = ix.toolRows(ctx, j.info.Key())
				}
			}
		})
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	read := 0
	for _, j := range jobs {
		info, was, ok, msgs := j.info, j.was, j.ok, j.msgs
		if j.err != nil {
			// Unreadable now (being written, removed): tried again on its
			// next change; what was indexed stays.
			ix.o.Log.Debug("search: conversation not read", "session", info.Key().String(), "error", j.err)
			continue
		}
		read++
		if !ok {
			was.num = j.num
		}
		n, err := put(ctx, tx, info, info.Updated.UnixNano(), msgs, j.tool, was, ok)
		ix.written.Add(int64(n))
		if err != nil {
			return read, err
		}
	}
	return read, tx.Commit()
}

// toolRow is one tool call (its name and input) or its output, and the
// message it follows.
type toolRow struct {
	text string
	at   time.Time
	msg  int
}

// toolRows reads k's record for its tools' rows. A source that cannot
// read this agent's records gives none.
func (ix *Index) toolRows(ctx context.Context, k session.Key) ([]toolRow, error) {
	evs, err := ix.o.Source.(EventSource).Events(ctx, k)
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			return nil, err
		}
		return nil, nil
	}
	var out []toolRow
	msg := -1
	for _, e := range evs {
		switch e.Kind {
		case session.EventMessage:
			msg++
		case session.EventToolCall:
			out = append(out, toolRow{text: e.Tool + " " + e.Input, at: e.Time, msg: max(msg, 0)})
		case session.EventToolResult:
			if e.Text != "" {
				out = append(out, toolRow{text: e.Text, at: e.Time, msg: max(msg, 0)})
			}
		}
	}
	return out, nil
}

// put writes one session: only the messages (and tool rows) after those
// indexed when the conversation still begins with them, else all of it
// again. A new session (ok false) takes was.num as its number, or the
// next free one. It returns how many rows it wrote.
func put(ctx context.Context, tx *sql.Tx, info session.Info, sig int64, msgs []session.Message, tools []toolRow, was indexed, ok bool) (int, error) {
	if len(msgs) > toolBase {
		msgs = msgs[:toolBase]
	}
	if len(tools) > toolBase {
		tools = tools[:toolBase]
	}
	from, tfrom := 0, 0
	num := was.num
	if ok && was.count > 0 && int(was.count) <= len(msgs) && messageHash(msgs[was.count-1]) == was.last && int(was.tools) <= len(tools) {
		from, tfrom = int(was.count), int(was.tools)
	} else if ok {
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE rowid BETWEEN ? AND ?`, num<<seqBits, num<<seqBits|maxSeq); err != nil {
			return 0, err
		}
	}
	var last int64
	if len(msgs) > 0 {
		last = messageHash(msgs[len(msgs)-1])
	}
	updated := info.Updated.UnixMilli()
	project := session.ShortProject(info.Cwd, "")
	if ok {
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET cwd = ?, project = ?, title = ?, updated = ?, sig = ?, count = ?, last = ?, tools = ? WHERE num = ?`,
			info.Cwd, project, info.Title, updated, sig, len(msgs), last, len(tools), num); err != nil {
			return 0, err
		}
	} else {
		var given any // NULL: the next free number
		if num > 0 {
			given = num
		}
		err := tx.QueryRowContext(ctx, `INSERT INTO sessions (num, key, runtime, id, cwd, project, title, updated, sig, count, last, tools)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING num`,
			given, info.Key().String(), info.Runtime, info.ID, info.Cwd, project, info.Title, updated, sig, len(msgs), last, len(tools)).Scan(&num)
		if err != nil {
			return 0, err
		}
	}
	if from >= len(msgs) && tfrom >= len(tools) {
		return 0, nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO messages (rowid, body, role, at, msg) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	at := func(t time.Time) int64 {
		if t.IsZero() {
			return updated
		}
		return t.UnixMilli()
	}
	n := 0
	for i := from; i < len(msgs); i++ {
		m := msgs[i]
		if _, err := stmt.ExecContext(ctx, num<<seqBits|int64(i), m.Text, m.Role, at(m.Time), i); err != nil {
			return n, err
		}
		n++
	}
	for i := tfrom; i < len(tools); i++ {
		t := tools[i]
		if _, err := stmt.ExecContext(ctx, num<<seqBits|int64(toolBase+i), t.text, RoleTool, at(t.at), t.msg); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// forget removes one session from the index.
func forget(ctx context.Context, tx *sql.Tx, key string) error {
	var num int64
	err := tx.QueryRowContext(ctx, `DELETE FROM sessions WHERE key = ? RETURNING num`, key).Scan(&num)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM messages WHERE rowid BETWEEN ? AND ?`, num<<seqBits, num<<seqBits|maxSeq)
	return err
}

// messageHash identifies a message's content, to tell a grown
// conversation from a rewritten one.
func messageHash(m session.Message) int64 {
	h := fnv.New64a()
	h.Write([]byte(m.Role))
	h.Write([]byte{0})
	h.Write([]byte(m.Text))
	return int64(h.Sum64() >> 1)
}
