package usage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"paddock/internal/session"
)

// schemaVersion is the file's layout; a file of another version is
// built again from the histories.
const schemaVersion = 2

// How a record's cost was known (records.src).
const (
	srcList    = 0 // priced from the price table
	srcAgent   = 1 // the agent's own figure
	srcCovered = 2 // in another record of the agent's (a running total)
	srcUnknown = 3 // no price for its model: tokens only
)

// Store is the usage file: one row per session read (with where its
// reading stopped and its latest context size), one per call read, and
// per session, day and model the calls' sums, which every report adds
// up. Its methods are safe for concurrent use; one writer at a time.
type Store struct {
	db     *sql.DB
	prices *Prices
	loc    *time.Location
	log    *slog.Logger

	mu  sync.Mutex // serialises the writers
	ctx sync.Map   // session key → Fill: the cards' context bars, read without SQL
}

// StoreOptions configure a Store.
type StoreOptions struct {
	Path   string
	Prices *Prices        // default: DefaultPrices
	Loc    *time.Location // days are this zone's; default time.Local
	Log    *slog.Logger
	// ReadOnly opens the file for reports only (`paddock usage` beside
	// a serve that writes it): it is never created or changed.
	ReadOnly bool
}

// ErrNoStore is a usage file never built here.
var ErrNoStore = errors.New("usage: no usage file yet: paddock serve builds it when it starts")

// OpenStore opens the usage file at o.Path, creating it (mode 0600) or
// emptying a file of another layout or priced with another table: what
// it held is read again from the histories.
func OpenStore(ctx context.Context, o StoreOptions) (*Store, error) {
	if o.Path == "" {
		return nil, errors.New("usage: no file")
	}
	if o.Prices == nil {
		o.Prices = DefaultPrices()
	}
	if o.Loc == nil {
		o.Loc = time.Local
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	abs, err := filepath.Abs(o.Path)
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	s := &Store{prices: o.Prices, loc: o.Loc, log: o.Log}
	if o.ReadOnly {
		if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
			return nil, ErrNoStore
		}
		u := url.URL{Path: filepath.ToSlash(abs)}
		if s.db, err = sql.Open("sqlite", "file:"+u.EscapedPath()+"?mode=ro&_pragma=busy_timeout(5000)"); err != nil {
			return nil, fmt.Errorf("usage: %w", err)
		}
		var v int
		if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion {
			s.db.Close()
			return nil, fmt.Errorf("usage: %s is of another version (%d, %v); paddock serve builds it again when it starts", abs, v, err)
		}
		return s, s.loadContext(ctx)
	}
	if s.db, err = openWritable(ctx, abs); err != nil {
		return nil, err
	}
	if err := s.prepare(ctx, abs); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, s.loadContext(ctx)
}

func openWritable(ctx context.Context, abs string) (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	// Created by us so it is never readable by others: it says what was
	// worked on when.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	f.Close()
	if err := os.Chmod(abs, 0o600); err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	u := url.URL{Path: filepath.ToSlash(abs)}
	db, err := sql.Open("sqlite", "file:"+u.EscapedPath()+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	db.SetMaxOpenConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("usage: open %s: %w", abs, err)
	}
	return db, nil
}

// prepare creates the tables, first dropping what a file of another
// layout or price table holds.
func (s *Store) prepare(ctx context.Context, abs string) error {
	var v int
	if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("usage: %w", err)
	}
	prices := strconv.FormatUint(s.prices.Sum(), 16)
	if v == schemaVersion {
		var have string
		err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'prices'`).Scan(&have)
		if err == nil && have == prices {
			return nil
		}
		s.log.Info("usage priced with another price table: reading it again", "path", abs)
	} else if v != 0 {
		s.log.Info("usage file of another version: reading it again", "path", abs, "version", v)
	}
	drops := []string{`DROP TABLE IF EXISTS sessions`, `DROP TABLE IF EXISTS records`, `DROP TABLE IF EXISTS days`, `DROP TABLE IF EXISTS meta`}
	for _, r := range rollups {
		drops = append(drops, `DROP TABLE IF EXISTS `+r.table)
	}
	for _, q := range append(drops, []string{
		`CREATE TABLE sessions (
			num INTEGER PRIMARY KEY,
			key TEXT NOT NULL UNIQUE,
			runtime TEXT NOT NULL,
			project TEXT NOT NULL,
			sig INTEGER NOT NULL,       -- the effective time it was read at, unix ns
			cursor BLOB NOT NULL,       -- where reading stopped (JSON)
			ctx_tokens INTEGER NOT NULL DEFAULT 0,
			ctx_window INTEGER NOT NULL DEFAULT 0,
			ctx_model TEXT NOT NULL DEFAULT '',
			ctx_at INTEGER NOT NULL DEFAULT 0 -- unix ms
		)`,
		`CREATE TABLE records (
			num INTEGER NOT NULL,
			rkey TEXT NOT NULL,
			day INTEGER NOT NULL,       -- YYYYMMDD in the store's zone
			at INTEGER NOT NULL,        -- unix ms
			model TEXT NOT NULL,
			input INTEGER NOT NULL,
			output INTEGER NOT NULL,
			cache_read INTEGER NOT NULL,
			cache_write INTEGER NOT NULL,
			cost REAL NOT NULL,
			src INTEGER NOT NULL,
			PRIMARY KEY (num, rkey)
		) WITHOUT ROWID`,
		`CREATE INDEX records_day ON records (num, day)`,
		`CREATE TABLE days (
			num INTEGER NOT NULL,
			day INTEGER NOT NULL,
			model TEXT NOT NULL,
			calls INTEGER NOT NULL,
			input INTEGER NOT NULL,
			output INTEGER NOT NULL,
			cache_read INTEGER NOT NULL,
			cache_write INTEGER NOT NULL,
			cost REAL NOT NULL,         -- what is known of it
			listed REAL NOT NULL,       -- the part priced from the table
			unknown_calls INTEGER NOT NULL,
			unknown_tokens INTEGER NOT NULL,
			PRIMARY KEY (num, day, model)
		) WITHOUT ROWID`,
		`CREATE INDEX days_day ON days (day)`,
		`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`INSERT INTO meta (key, value) VALUES ('prices', '` + prices + `')`,
	}...) {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("usage: create the file: %w", err)
		}
	}
	for _, q := range append(rollupSchema(), `PRAGMA user_version = `+strconv.Itoa(schemaVersion)) {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("usage: create the file: %w", err)
		}
	}
	return nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// Prices is the table the store prices with.
func (s *Store) Prices() *Prices { return s.prices }

// Fill is how full a session's context was after its latest call.
type Fill struct {
	Tokens int64
	Window int64 // 0 when unknown
	Model  string
	At     time.Time
}

// Percent is how full the context is, 0 to 100 (and over when a model
// took more than its listed window); 0 without a window.
func (f Fill) Percent() int {
	if f.Window <= 0 {
		return 0
	}
	return int(f.Tokens * 100 / f.Window)
}

// WarnPercent is the fill from which a context is shown as nearly full.
const WarnPercent = 80

// Warn says the context is nearly full.
func (f Fill) Warn() bool { return f.Window > 0 && f.Percent() >= WarnPercent }

// Context is session k's latest context fill, when one was recorded.
func (s *Store) Context(k session.Key) (Fill, bool) {
	v, ok := s.ctx.Load(k.String())
	if !ok {
		return Fill{}, false
	}
	return v.(Fill), true
}

func (s *Store) loadContext(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT key, ctx_tokens, ctx_window, ctx_model, ctx_at FROM sessions WHERE ctx_tokens > 0`)
	if err != nil {
		return fmt.Errorf("usage: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var f Fill
		var at int64
		if err := rows.Scan(&key, &f.Tokens, &f.Window, &f.Model, &at); err != nil {
			return err
		}
		s.ctx.Store(key, s.fill(f, at))
	}
	return rows.Err()
}

// fill completes a stored fill: its time, and the table's window where
// the agent recorded none.
func (s *Store) fill(f Fill, at int64) Fill {
	f.At = time.UnixMilli(at)
	if f.Window == 0 {
		f.Window = s.prices.Window(f.Model)
	}
	return f
}

// stored is what the store holds of one session's reading.
type stored struct {
	num    int64
	sig    int64
	cursor Cursor
	ctxAt  int64
}

// known is every session read, by key.
func (s *Store) known(ctx context.Context) (map[string]stored, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, num, sig, cursor, ctx_at FROM sessions`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]stored{}
	for rows.Next() {
		var k string
		var st stored
		var cur []byte
		if err := rows.Scan(&k, &st.num, &st.sig, &cur, &st.ctxAt); err != nil {
			return nil, err
		}
		// A cursor that does not decode is read again from the start.
		_ = json.Unmarshal(cur, &st.cursor)
		out[k] = st
	}
	return out, rows.Err()
}

// read is one session's read, to be written.
type read struct {
	info  session.Info
	was   stored
	ok    bool // was is what the store holds
	batch Batch
}

// Rejected is a record refused as impossible, and why.
type Rejected struct {
	Key    string
	Reason string
}

// writeStmts are the statements one write uses, prepared once for all of
// its sessions.
type writeStmts struct {
	insert, oldDay, newSession, setSession, resetSession, dropRecords, dropDays, dropDay, sumDay, setContext *sql.Stmt
}

func prepareWrite(ctx context.Context, tx *sql.Tx) (*writeStmts, error) {
	w := &writeStmts{}
	for _, p := range []struct {
		to *(*sql.Stmt)
		q  string
	}{
		{&w.insert, `INSERT INTO records (num, rkey, day, at, model, input, output, cache_read, cache_write, cost, src)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (num, rkey) DO UPDATE SET day = excluded.day, at = excluded.at, model = excluded.model, input = excluded.input,
				output = excluded.output, cache_read = excluded.cache_read, cache_write = excluded.cache_write, cost = excluded.cost, src = excluded.src`},
		{&w.oldDay, `SELECT day FROM records WHERE num = ? AND rkey = ?`},
		{&w.newSession, `INSERT INTO sessions (key, runtime, project, sig, cursor) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET project = excluded.project, sig = excluded.sig, cursor = excluded.cursor RETURNING num`},
		{&w.setSession, `UPDATE sessions SET project = ?, sig = ?, cursor = ? WHERE num = ?`},
		{&w.resetSession, `UPDATE sessions SET project = ?, sig = ?, cursor = ?, ctx_tokens = 0, ctx_window = 0, ctx_model = '', ctx_at = 0 WHERE num = ?`},
		{&w.dropRecords, `DELETE FROM records WHERE num = ?`},
		{&w.dropDays, `DELETE FROM days WHERE num = ?`},
		{&w.dropDay, `DELETE FROM days WHERE num = ? AND day = ?`},
		{&w.sumDay, `INSERT INTO days (num, day, model, calls, input, output, cache_read, cache_write, cost, listed, unknown_calls, unknown_tokens)
			SELECT num, day, model, sum(input + output + cache_read + cache_write > 0), sum(input), sum(output), sum(cache_read), sum(cache_write), sum(cost),
				sum(CASE src WHEN 0 THEN cost ELSE 0 END),
				sum(src = 3), sum(CASE src WHEN 3 THEN input + output + cache_read + cache_write ELSE 0 END)
			FROM records WHERE num = ? AND day = ? GROUP BY model`},
		{&w.setContext, `UPDATE sessions SET ctx_tokens = ?, ctx_window = ?, ctx_model = ?, ctx_at = ? WHERE num = ?`},
	} {
		st, err := tx.PrepareContext(ctx, p.q)
		if err != nil {
			w.close()
			return nil, err
		}
		*p.to = st
	}
	return w, nil
}

func (w *writeStmts) close() {
	for _, st := range []*sql.Stmt{w.insert, w.oldDay, w.newSession, w.setSession, w.resetSession, w.dropRecords, w.dropDays, w.dropDay, w.sumDay, w.setContext} {
		if st != nil {
			st.Close()
		}
	}
}

// write stores reads in one transaction and returns the records refused
// per session and the sessions whose usage changed. The caller holds
// s.mu.
func (s *Store) write(ctx context.Context, reads []read) (map[string][]Rejected, []session.Key, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	w, err := prepareWrite(ctx, tx)
	if err != nil {
		return nil, nil, err
	}
	defer w.close()
	rejected := map[string][]Rejected{}
	fills := map[string]Fill{}
	var changed []session.Key
	for _, r := range reads {
		key := r.info.Key().String()
		num, err := s.putSession(ctx, w, r)
		if err != nil {
			return nil, nil, err
		}
		if r.batch.Fresh && r.ok {
			for _, st := range []*sql.Stmt{w.dropRecords, w.dropDays} {
				if _, err := st.ExecContext(ctx, num); err != nil {
					return nil, nil, err
				}
			}
		}
		days := map[int]bool{}
		var latest *Record
		for i := range r.batch.Records {
			rec := &r.batch.Records[i]
			if rec.Time.IsZero() {
				rec.Time = r.info.Updated
			}
			if err := rec.check(); err != nil {
				rejected[key] = append(rejected[key], Rejected{Key: rec.Key, Reason: err.Error()})
				continue
			}
			day := s.day(rec.Time)
			// A record read again may have moved to another day: that
			// day's sums are made again too.
			if r.ok && !r.batch.Fresh {
				var was int
				switch err := w.oldDay.QueryRowContext(ctx, num, rec.Key).Scan(&was); {
				case err == nil:
					days[was] = true
				case !errors.Is(err, sql.ErrNoRows):
					return nil, nil, err
				}
			}
			days[day] = true
			cost, src := s.cost(*rec)
			if _, err := w.insert.ExecContext(ctx, num, rec.Key, day, rec.Time.UnixMilli(), rec.Model, rec.Input, rec.Output,
				rec.CacheRead, rec.CacheWrite, cost, src); err != nil {
				return nil, nil, err
			}
			if rec.Context > 0 && (latest == nil || !rec.Time.Before(latest.Time)) {
				latest = rec
			}
		}
		list := make([]int, 0, len(days))
		for d := range days {
			list = append(list, d)
		}
		slices.Sort(list)
		for _, d := range list {
			if !r.batch.Fresh || r.ok {
				if _, err := w.dropDay.ExecContext(ctx, num, d); err != nil {
					return nil, nil, err
				}
			}
			if _, err := w.sumDay.ExecContext(ctx, num, d); err != nil {
				return nil, nil, err
			}
		}
		if latest != nil && (r.batch.Fresh || !r.ok || latest.Time.UnixMilli() >= r.was.ctxAt) {
			at := latest.Time.UnixMilli()
			if _, err := w.setContext.ExecContext(ctx, latest.Context, latest.Window, latest.Model, at, num); err != nil {
				return nil, nil, err
			}
			fills[key] = s.fill(Fill{Tokens: latest.Context, Window: latest.Window, Model: latest.Model}, at)
		}
		if len(days) > 0 || latest != nil {
			changed = append(changed, r.info.Key())
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, nil, err
	}
	for k, f := range fills {
		s.ctx.Store(k, f)
	}
	return rejected, changed, nil
}

// putSession writes the session's row (its cursor and time) and returns
// its number.
func (s *Store) putSession(ctx context.Context, w *writeStmts, r read) (int64, error) {
	cur, err := json.Marshal(r.batch.Cursor)
	if err != nil {
		return 0, err
	}
	sig := r.info.Updated.UnixNano()
	if r.ok {
		st := w.setSession
		if r.batch.Fresh {
			st = w.resetSession
			s.ctx.Delete(r.info.Key().String())
		}
		_, err := st.ExecContext(ctx, projectOf(r.info), sig, cur, r.was.num)
		return r.was.num, err
	}
	var num int64
	err = w.newSession.QueryRowContext(ctx, r.info.Key().String(), r.info.Runtime, projectOf(r.info), sig, cur).Scan(&num)
	return num, err
}

// projectOf is the project a session's usage is reported under.
func projectOf(i session.Info) string {
	if p := session.ShortProject(i.Cwd, ""); p != "" {
		return p
	}
	return i.Project
}

// cost is a record's cost and how it is known.
func (s *Store) cost(r Record) (float64, int) {
	switch {
	case r.HasCost:
		return r.Cost, srcAgent
	case r.Covered:
		return 0, srcCovered
	}
	if c, ok := s.prices.Cost(r); ok {
		return c, srcList
	}
	return 0, srcUnknown
}

// day is t's day in the store's zone, as YYYYMMDD.
func (s *Store) day(t time.Time) int {
	y, m, d := t.In(s.loc).Date()
	return y*10000 + int(m)*100 + d
}

// forget removes sessions no longer known.
func (s *Store) forget(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, k := range keys {
		var num int64
		err := tx.QueryRowContext(ctx, `SELECT num FROM sessions WHERE key = ?`, k).Scan(&num)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		// Its sums leave the reports while its row still says where
		// they were counted.
		for _, q := range []string{`DELETE FROM records WHERE num = ?`, `DELETE FROM days WHERE num = ?`, `DELETE FROM sessions WHERE num = ?`} {
			if _, err := tx.ExecContext(ctx, q, num); err != nil {
				return err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for _, k := range keys {
		s.ctx.Delete(k)
	}
	return nil
}
