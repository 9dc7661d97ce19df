// A snapshot is paddock's private copy of an agent's SQLite database,
// which is what paddock opens with SQLite: never the agent's own file.
// Even a read-only open touches the files beside a WAL database: SQLite
// opens its -wal and -shm, takes locks in the -shm, creates either when
// it is missing and, running as root, chowns them to the database's owner
// (which changes their ctime even when the owner is the same). A copy is
// made with plain reads of the database and its -wal only, so the agent's
// files are opened for reading and nothing else: no lock, no write, no
// chown. The -shm is left behind: it is an index of the WAL that SQLite
// rebuilds for the copy.
//
// Copies are kept (up to a budget) and refreshed only when the agent's
// files change: while the database keeps its WAL generation only the
// -wal is copied again. A copy taken while the agent wrote is checked
// against the files' signatures and the WAL header before and after it,
// and taken again when a checkpoint or a rewrite tore it.

package history

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the driver that opens the copies
)

const (
	// copyName is the copy's file name; SQLite names its -wal and -shm
	// after it.
	copyName = "db.sqlite"
	// walHeaderSize is the size of a WAL file's header: magic, format,
	// page size, checkpoint sequence, two salts, two checksums. A WAL
	// restarted after a checkpoint gets new salts, so a new header.
	walHeaderSize = 32
	// walFrameHeaderSize is the size of the header before each page in a
	// WAL: page number, database size, the two salts, two checksums.
	walFrameHeaderSize = 24
	// copyAttempts bounds the copies taken while the agent keeps tearing
	// them.
	copyAttempts = 4
	// racyWindow: a file modified this shortly before it was copied may
	// change again without its signature showing it (mtimes are as coarse
	// as a kernel tick, or a second on some file systems), so such a copy
	// is refreshed at its next use even when the signature is the same.
	racyWindow = 2 * time.Second
	// busyWait is how long a refresh waits for the readers of the current
	// copy to finish before it makes a whole new copy beside it instead.
	busyWait = 500 * time.Millisecond
	// dirPrefix starts the name of every private directory of copies.
	dirPrefix = "paddock-snapshots-"
)

// SnapshotOptions say where copies are made and how many are kept.
type SnapshotOptions struct {
	// Dir is where the private directory of copies is created (mode 0700,
	// the copies 0600: they hold private conversations); "" is
	// os.TempDir(). The private directory exists while it holds a copy.
	Dir string
	// KeepBytes bounds the copies kept while nobody reads them, for the
	// next read to reuse and refresh: the least recently used go first.
	// 0 keeps none: a copy is removed when its last reader is done.
	KeepBytes int64
}

// Snapshots makes and keeps paddock's private copies of agents' SQLite
// databases. It is safe for concurrent use. Close removes every copy.
type Snapshots struct {
	opts SnapshotOptions
	now  func() time.Time

	mu       sync.Mutex
	dir      string   // the private directory; "" while it holds nothing
	lock     *os.File // held while dir exists: marks it in use (see sweep)
	next     int      // names the copies in dir
	sources  map[string]*source
	versions map[*version]bool // every copy on disk
	tick     uint64            // counts uses, for least-recently-used
	swept    bool              // sweep ran
	closed   bool

	// Test hooks: copies taken of databases and of -wal files, and a
	// function run between the two (nil: none).
	dbCopies, walCopies atomic.Int64
	betweenCopies       func()
}

// source is one agent database that was copied.
type source struct {
	fill sync.Mutex // one refresh of this database at a time
	cur  *version   // the newest copy (guarded by Snapshots.mu)
	used uint64     // Snapshots.tick at its last use
}

// version is one copy of a source: a directory holding the database and
// its WAL. While nobody reads it, a refresh updates it in place; while
// somebody does, a refresh makes a new version and the old one goes when
// its last reader is done.
type version struct {
	src *source
	dir string
	// db is what the database copy was taken from; dbHead, the header of
	// the WAL generation it goes with (zero: it was taken without a WAL).
	db      Sig
	dbRacy  bool
	dbHead  walHeader
	wal     Sig // what the -wal copy was taken from (zero: none)
	walRacy bool
	walHead walHeader
	bytes   int64

	refs    int           // readers
	filling bool          // a refresh is writing it
	idle    chan struct{} // closed when refs drops to 0, for a refresh waiting
	// keeper is a connection held open to a kept copy, so that the index
	// SQLite builds of its WAL outlives each reader's connections: without
	// one, every first connection reads the whole WAL again.
	keeper *sql.DB
}

// walHeader is the first 32 bytes of a -wal file; zero when there is no
// WAL, an empty one or something else.
type walHeader [walHeaderSize]byte

func (h walHeader) valid() bool {
	magic := binary.BigEndian.Uint32(h[:4])
	return magic == 0x377f0682 || magic == 0x377f0683
}

// sourceState is what is known of an agent's database without opening it
// with SQLite: the signatures of the database and its -wal (zero when
// there is none) and the -wal's header.
type sourceState struct {
	db, wal Sig
	head    walHeader
}

// NewSnapshots returns an empty set of copies; nothing is created until
// the first Open.
func NewSnapshots(opts SnapshotOptions) *Snapshots {
	return &Snapshots{opts: opts, now: time.Now, sources: make(map[string]*source), versions: make(map[*version]bool)}
}

// Snapshot is a reader's hold on a copy: Path stays as it is until
// Release.
type Snapshot struct {
	s    *Snapshots
	v    *version
	once sync.Once
}

// Path is the copy's database file: open it read-only (mode=ro), never
// write it (a refresh relies on it being the agent's bytes).
func (sn *Snapshot) Path() string { return filepath.Join(sn.v.dir, copyName) }

// Release ends the hold. Close every SQLite connection to Path first: a
// released copy may be refreshed in place or removed.
func (sn *Snapshot) Release() {
	sn.once.Do(func() {
		s := sn.s
		s.mu.Lock()
		defer s.mu.Unlock()
		v := sn.v
		v.refs--
		if v.refs > 0 {
			return
		}
		if v.idle != nil {
			close(v.idle)
			v.idle = nil
		}
		if s.closed || v.src.cur != v {
			s.removeLocked(v)
		}
		s.evictLocked()
	})
}

// Open returns a copy of the agent's database at path that is as new as
// the agent's files were when Open was called: the copy kept from before
// when they have not changed, else one refreshed (only the -wal when the
// database kept its WAL generation). The caller must Release it. A
// missing database is an error satisfying errors.Is(err, fs.ErrNotExist).
func (s *Snapshots) Open(ctx context.Context, path string) (*Snapshot, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("snapshots: closed")
	}
	src := s.sources[path]
	if src == nil {
		src = &source{}
		s.sources[path] = src
	}
	s.mu.Unlock()

	src.fill.Lock()
	defer src.fill.Unlock()
	now, err := observe(path)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if v := src.cur; v != nil && v.dbCurrent(now) && v.walCurrent(now) {
		return s.holdLocked(v), nil
	}
	s.mu.Unlock()
	return s.refresh(ctx, src, path)
}

// holdLocked gives the caller a hold on v and unlocks s.mu.
func (s *Snapshots) holdLocked(v *version) *Snapshot {
	defer s.mu.Unlock()
	v.refs++
	s.tick++
	v.src.used = s.tick
	return &Snapshot{s: s, v: v}
}

// dbCurrent reports whether v's database copy still goes with the agent's
// files described by now. In WAL mode the database changes only when a
// checkpoint writes back pages the WAL holds until it restarts with a new
// header: so while the header is the one the copy was taken with, the copy
// and a fresh copy of the WAL read the same. Without a WAL, the database
// itself must be unchanged.
func (v *version) dbCurrent(now sourceState) bool {
	if now.db.Ino != v.db.Ino {
		return false // replaced
	}
	if now.head.valid() {
		return now.head == v.dbHead
	}
	return now.db == v.db && !v.dbRacy && !v.dbHead.valid()
}

// walCurrent reports whether v's -wal copy is the agent's -wal as now
// describes it.
func (v *version) walCurrent(now sourceState) bool {
	return now.wal == v.wal && now.head == v.walHead && !v.walRacy
}

// refresh brings src's copy up to date with the agent's files, and holds
// it for the caller: in place when nobody reads it (after waiting briefly
// for its readers), else as a new version beside it.
func (s *Snapshots) refresh(ctx context.Context, src *source, path string) (*Snapshot, error) {
	s.mu.Lock()
	if v := src.cur; v != nil && v.refs > 0 {
		if v.idle == nil {
			v.idle = make(chan struct{})
		}
		idle := v.idle
		s.mu.Unlock()
		t := time.NewTimer(busyWait)
		select {
		case <-idle:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		s.mu.Lock()
	}
	// Read again: the copy may have been evicted meanwhile.
	v := src.cur
	var keeper *sql.DB
	if v != nil && v.refs == 0 {
		keeper, v.keeper = v.keeper, nil
	}
	if v == nil || v.refs > 0 {
		dir, err := s.newDirLocked()
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		v = &version{src: src, dir: dir}
		s.versions[v] = true
	}
	v.filling = true
	s.mu.Unlock()

	if keeper != nil {
		keeper.Close() // no connection may see the files change
		keeper = nil
	}
	size, err := s.take(ctx, v, path)
	if err == nil && s.opts.KeepBytes > 0 {
		keeper = openKeeper(filepath.Join(v.dir, copyName))
	}

	s.mu.Lock()
	v.filling, v.bytes = false, size
	if err == nil && s.closed {
		err = errors.New("snapshots: closed")
	}
	if err != nil {
		if keeper != nil {
			keeper.Close()
		}
		s.removeLocked(v)
		s.mu.Unlock()
		return nil, err
	}
	v.keeper = keeper
	if old := src.cur; old != nil && old != v && old.refs == 0 {
		s.removeLocked(old)
	}
	src.cur = v
	return s.holdLocked(v), nil
}

// take copies the agent's files at path into v: the database when v's
// copy of it no longer goes with them, and the -wal. A copy that the agent
// tore (it checkpointed, restarted its WAL or rewrote its database while
// it was read) is taken again. It returns the size of the copy. The
// caller holds v.src.fill: nothing else reads v's fields meanwhile.
func (s *Snapshots) take(ctx context.Context, v *version, path string) (int64, error) {
	for range copyAttempts {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		start := s.now()
		before, err := observe(path)
		if err != nil {
			return 0, err
		}
		copyDB := v.db == (Sig{}) || !v.dbCurrent(before)
		if copyDB {
			v.db = Sig{} // until the copy is whole
			if err := copyInto(ctx, path, v.dir, copyName, copyAll); err != nil {
				return 0, err
			}
			s.dbCopies.Add(1)
		}
		if s.betweenCopies != nil {
			s.betweenCopies()
		}
		walBytes, err := s.takeWAL(ctx, path, v.dir, before)
		if err != nil {
			return 0, err
		}
		after, err := observe(path)
		if err != nil {
			return 0, err
		}
		if !untorn(before, after, readWALHeader(filepath.Join(v.dir, copyName+"-wal"))) {
			continue
		}
		racy := start.Add(-racyWindow).UnixNano()
		if copyDB {
			v.db, v.dbRacy, v.dbHead = before.db, before.db.MtimeNs >= racy, before.head
		}
		v.wal, v.walRacy, v.walHead = before.wal, before.wal != (Sig{}) && before.wal.MtimeNs >= racy, before.head
		st, err := os.Stat(filepath.Join(v.dir, copyName))
		if err != nil {
			return 0, err
		}
		return st.Size() + walBytes, nil
	}
	return 0, fmt.Errorf("copy of %s: it kept changing while it was read", path)
}

// takeWAL replaces the copy's -wal with the agent's (none when the agent
// has none, or an empty one) and drops the copy's -shm, the index of the WAL it had, which
// SQLite rebuilds from the new one.
func (s *Snapshots) takeWAL(ctx context.Context, path, dir string, before sourceState) (int64, error) {
	wal := filepath.Join(dir, copyName+"-wal")
	if err := os.Remove(filepath.Join(dir, copyName+"-shm")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	if before.wal.Size == 0 {
		if err := os.Remove(wal); err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, err
		}
		return 0, nil
	}
	if err := copyInto(ctx, path+"-wal", dir, copyName+"-wal", copyFrames); errors.Is(err, os.ErrNotExist) {
		// Checkpointed and removed since it was seen: the check after
		// the copy sees it gone and takes the copy again.
		if err := os.Remove(wal); err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, err
		}
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	s.walCopies.Add(1)
	st, err := os.Stat(wal)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// untorn reports whether a copy taken between before and after, whose
// -wal copy starts with copied, is one state of the agent's database.
// With a WAL: the same WAL generation throughout (the header before, in
// the copy and after), since within one generation the WAL only grows
// and the database only takes back pages the WAL still holds; a WAL copy
// that caught a commit half-written ends, for SQLite, at the commit before
// it. Without one: nothing changed at all.
func untorn(before, after sourceState, copied walHeader) bool {
	if copied != before.head || after.head != before.head {
		return false
	}
	if before.head.valid() {
		return after.db.Ino == before.db.Ino && after.wal.Ino == before.wal.Ino
	}
	return after == before
}

// observe stats the agent's database and its -wal and reads the -wal's
// header.
func observe(path string) (sourceState, error) {
	st, err := os.Stat(path)
	if err != nil {
		return sourceState{}, err
	}
	if !st.Mode().IsRegular() {
		return sourceState{}, fmt.Errorf("%s: not a regular file", path)
	}
	s := sourceState{db: SigOf(st)}
	if wst, err := os.Stat(path + "-wal"); err == nil && wst.Mode().IsRegular() {
		s.wal = SigOf(wst)
		s.head = readWALHeader(path + "-wal")
	}
	return s, nil
}

// readWALHeader reads a -wal's header; zero when it has none.
func readWALHeader(path string) walHeader {
	var h walHeader
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return walHeader{}
	}
	if !h.valid() {
		return walHeader{}
	}
	return h
}

// copyInto copies src to dir/name with fill, which reads with plain reads:
// no mapping, no copy_file_range or sendfile, nothing that asks more of
// the agent's file than read(2). The copy is written beside its name and
// renamed over it, so a copy cut short never stands as a whole one.
func copyInto(ctx context.Context, src, dir, name string, fill func(context.Context, io.Reader, io.Writer) error) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := filepath.Join(dir, name+".part")
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = fill(ctx, in, out)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// copyBuffer is the size of the reads a copy makes.
const copyBuffer = 1 << 20

// copyAll copies everything.
func copyAll(ctx context.Context, in io.Reader, out io.Writer) error {
	buf := make([]byte, copyBuffer)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := in.Read(buf)
		if n > 0 {
			if _, err := out.Write(buf[:n]); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// copyFrames copies a -wal up to the end of its current generation: the
// header, then the frames that carry the header's salts. A WAL file keeps
// the size of its largest generation, and what lies after the current one
// is frames of earlier generations that SQLite ignores (as it ignores a
// frame half-written at the end).
func copyFrames(ctx context.Context, in io.Reader, out io.Writer) error {
	var h walHeader
	n, err := io.ReadFull(in, h[:])
	if _, werr := out.Write(h[:n]); werr != nil {
		return werr
	}
	if err != nil || !h.valid() {
		return nil // no WAL to speak of; the header check sees what it is
	}
	page := int(binary.BigEndian.Uint32(h[8:12]))
	if page < 512 || page > 65536 || page&(page-1) != 0 {
		return nil
	}
	frame := walFrameHeaderSize + page
	buf := make([]byte, frame*max(1, copyBuffer/frame))
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := io.ReadFull(in, buf)
		whole := n / frame
		good := whole
		for i := range whole {
			if f := buf[i*frame:]; !bytes.Equal(f[8:16], h[16:24]) {
				good = i
				break
			}
		}
		if _, werr := out.Write(buf[:good*frame]); werr != nil {
			return werr
		}
		switch {
		case good < whole, err == io.EOF, err == io.ErrUnexpectedEOF:
			return nil
		case err != nil:
			return err
		}
	}
}

// openKeeper opens the connection that keeps a kept copy's WAL index
// alive (nil when it cannot: it only saves work).
func openKeeper(path string) *sql.DB {
	db, err := sql.Open("sqlite", snapshotDSN(filepath.ToSlash(path), "busy_timeout(10000)"))
	if err != nil {
		return nil
	}
	db.SetMaxOpenConns(1)
	var n int
	if err := db.QueryRow("SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
		db.Close()
		return nil
	}
	return db
}

// newDirLocked makes a directory for a new version, creating the private
// directory first when there is none.
func (s *Snapshots) newDirLocked() (string, error) {
	if s.closed {
		return "", errors.New("snapshots: closed")
	}
	if s.dir == "" {
		parent := cmp.Or(s.opts.Dir, os.TempDir())
		if err := os.MkdirAll(parent, 0o700); err != nil {
			return "", fmt.Errorf("snapshots: %w", err)
		}
		if !s.swept {
			sweep(parent)
			s.swept = true
		}
		dir, err := os.MkdirTemp(parent, dirPrefix+"*")
		if err != nil {
			return "", fmt.Errorf("snapshots: %w", err)
		}
		lock, err := lockDir(dir)
		if err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("snapshots: %w", err)
		}
		s.dir, s.lock = dir, lock
	}
	s.next++
	dir := filepath.Join(s.dir, strconv.Itoa(s.next))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("snapshots: %w", err)
	}
	return dir, nil
}

// removeLocked deletes v's files, and the private directory once it holds
// no copy.
func (s *Snapshots) removeLocked(v *version) {
	if !s.versions[v] {
		return
	}
	delete(s.versions, v)
	if v.src.cur == v {
		v.src.cur = nil
	}
	if v.keeper != nil {
		v.keeper.Close()
		v.keeper = nil
	}
	os.RemoveAll(v.dir)
	if len(s.versions) == 0 && s.dir != "" {
		s.removeDirLocked()
	}
}

func (s *Snapshots) removeDirLocked() {
	os.RemoveAll(s.dir)
	if s.lock != nil {
		s.lock.Close()
	}
	s.dir, s.lock = "", nil
}

// evictLocked removes the least recently used copies nobody reads until
// the copies on disk fit KeepBytes (or none idle is left).
func (s *Snapshots) evictLocked() {
	var total int64
	var idle []*version
	for v := range s.versions {
		total += v.bytes
		if v.refs == 0 && !v.filling {
			idle = append(idle, v)
		}
	}
	slices.SortFunc(idle, func(a, b *version) int { return cmp.Compare(a.src.used, b.src.used) })
	for _, v := range idle {
		if total <= s.opts.KeepBytes {
			return
		}
		total -= v.bytes
		s.removeLocked(v)
	}
}

// Close removes every copy and the private directory. A copy still held
// stays readable through connections already open to it (the files are
// unlinked, not truncated); Open fails from now on.
func (s *Snapshots) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for v := range s.versions {
		delete(s.versions, v)
		if v.src.cur == v {
			v.src.cur = nil
		}
		if v.keeper != nil {
			v.keeper.Close()
			v.keeper = nil
		}
	}
	if s.dir != "" {
		s.removeDirLocked()
	}
	return nil
}

// SnapshotDB is an agent's database opened with SQLite through a copy
// (Snapshots.OpenDB). Close closes the connections and releases the copy.
type SnapshotDB struct {
	*sql.DB
	snap *Snapshot
}

// OpenDB opens a copy of the agent's database at path (Open) read-only
// with SQLite (mode=ro), with the given _pragma values ("query_only(1)").
// Readers sharing a copy wait for each other (busy_timeout): the first
// connection to a copy with a WAL rebuilds its index, and the others are
// told the database is busy meanwhile.
func (s *Snapshots) OpenDB(ctx context.Context, path string, pragmas ...string) (*SnapshotDB, error) {
	sn, err := s.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	pragmas = append([]string{"busy_timeout(10000)"}, pragmas...)
	db, err := sql.Open("sqlite", snapshotDSN(filepath.ToSlash(sn.Path()), pragmas...))
	if err != nil {
		sn.Release()
		return nil, err
	}
	return &SnapshotDB{DB: db, snap: sn}, nil
}

// Close closes every connection, then releases the copy.
func (d *SnapshotDB) Close() error {
	err := d.DB.Close()
	d.snap.Release()
	return err
}

// snapshotDSN is the modernc.org/sqlite connection string that opens a
// private copy read-only (mode=ro): SQLite may build the copy's -shm
// beside it. Each of pragmas is a _pragma parameter ("busy_timeout(3000)").
// The path is escaped in a "file:" URI, since '?', '#' and '%' are legal
// in file names and the driver would cut a plain name at its first '?'.
func snapshotDSN(path string, pragmas ...string) string {
	var b strings.Builder
	b.WriteString("file:")
	b.WriteString((&url.URL{Path: path}).EscapedPath())
	b.WriteString("?mode=ro")
	for _, p := range pragmas {
		b.WriteString("&_pragma=")
		b.WriteString(p)
	}
	return b.String()
}
