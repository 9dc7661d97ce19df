package opencode

import (
	"slices"
	"time"
)

// scanSig is Scan's cheap signature: the databases and
// their -wal files (size, mtime in ns, device and inode: OpenCode writes
// to the -wal and touches the database only at a checkpoint) and the whole
// set of OpenCode processes with what binding reads of them (not folded by
// cwd: a second TUI in one directory must change it), plus the arguments.
// When it is unchanged, Scan returns its last result without reading.
//
// Not in it: the -shm file (an index of the WAL, which paddock's copies
// do without) and the existence of the sessions' directories (a
// directory created or removed shows at the next change of the database).
type scanSig struct {
	files   []sigFile
	procs   []procKey
	procErr bool
	limit   int
	keep    []string
}

type sigFile struct {
	path    string
	db, wal fileStat
}

type procKey struct {
	pid                           int
	startTicks, cwd, argID, envID string
	tui, cont, fork               bool
}

func newScanSig(dbs []dbFile, procs []proc, procErr bool, limit int, keep []string) scanSig {
	sig := scanSig{procErr: procErr, limit: limit, keep: slices.Sorted(slices.Values(keep))}
	for _, f := range dbs {
		sig.files = append(sig.files, sigFile{path: f.path, db: f.db, wal: f.wal})
	}
	for _, p := range procs {
		sig.procs = append(sig.procs, procKey{
			pid: p.pid, startTicks: p.startTicks, cwd: p.cwd, argID: p.argID, envID: p.envID,
			tui: p.tui, cont: p.cont, fork: p.fork,
		})
	}
	return sig
}

func (a scanSig) equal(b scanSig) bool {
	return a.procErr == b.procErr && a.limit == b.limit &&
		slices.Equal(a.keep, b.keep) && slices.Equal(a.files, b.files) && slices.Equal(a.procs, b.procs)
}

// changedSince reports whether a database or -wal file was modified at or
// after t.
func (a scanSig) changedSince(t time.Time) bool {
	for _, f := range a.files {
		if f.db.mtimeNs >= t.UnixNano() || f.wal.exists && f.wal.mtimeNs >= t.UnixNano() {
			return true
		}
	}
	return false
}
