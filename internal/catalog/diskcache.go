package catalog

import (
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"paddock/internal/session"
)

// diskCache keeps conversations on disk under their history file's
// signature, so that after a restart, or once the memory cache has let a
// session go, opening a long conversation does not parse its history again.
// It is derived data: every file in it may be deleted at any time (it is
// then read from the history again), a file that does not decode is a miss,
// and its size is bounded (the least recently used files go first).
type diskCache struct {
	dir string
	max int64
	mu  sync.Mutex // one writer and pruner at a time
}

// diskCacheVersion changes when the encoding or the Message type does:
// older files are then misses.
const diskCacheVersion = 2

// defaultDiskCacheBytes bounds the on-disk cache.
const defaultDiskCacheBytes = 256 << 20

// diskCacheMin is the smallest conversation worth a file: shorter ones
// are read from their history as fast as from the cache.
const diskCacheMin = 64

// A cache file is two gob values: this header, then the messages. A
// file whose history has changed since is told by its header alone, without
// decoding a conversation that is thrown away (the session page asks on
// every render while its agent writes).
type diskHeader struct {
	Version int
	Key     session.Key
	Sig     fileSignature
}

func newDiskCache(dir string, max int64) (*diskCache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &diskCache{dir: dir, max: max}, nil
}

func (d *diskCache) file(k session.Key) string {
	h := sha256.Sum256([]byte(k.String()))
	return filepath.Join(d.dir, hex.EncodeToString(h[:16])+".gob")
}

// get returns the conversation cached for k under sig.
func (d *diskCache) get(k session.Key, sig fileSignature) ([]session.Message, bool) {
	name := d.file(k)
	f, err := os.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	dec := gob.NewDecoder(f)
	var h diskHeader
	if dec.Decode(&h) != nil || h.Version != diskCacheVersion || h.Key != k || h.Sig != sig {
		return nil, false
	}
	var msgs []session.Message
	if dec.Decode(&msgs) != nil {
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(name, now, now) // recently used: pruned last
	return msgs, true
}

// drop deletes a session's cached conversation.
func (d *diskCache) drop(k session.Key) {
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = os.Remove(d.file(k))
}

// put stores a conversation (atomically: a reader sees the old file or
// the new one) and prunes the cache to its bound.
func (d *diskCache) put(k session.Key, sig fileSignature, msgs []session.Message) error {
	if len(msgs) < diskCacheMin {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	// The directory may have been deleted (it is safe to): make it again.
	if err := os.MkdirAll(d.dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(d.dir, ".tmp-*")
	if err != nil {
		return err
	}
	enc := gob.NewEncoder(tmp)
	err = enc.Encode(diskHeader{Version: diskCacheVersion, Key: k, Sig: sig})
	if err == nil {
		err = enc.Encode(msgs)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), d.file(k))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return d.prune()
}

// prune deletes the least recently used files until the cache fits its
// bound with a tenth to spare.
func (d *diskCache) prune() error {
	entries, err := os.ReadDir(d.dir)
	if err != nil {
		return err
	}
	type file struct {
		name string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".gob") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, file{e.Name(), fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	if total <= d.max {
		return nil
	}
	slices.SortFunc(files, func(a, b file) int { return a.used.Compare(b.used) })
	var errs []error
	for _, f := range files {
		if total <= d.max*9/10 {
			break
		}
		if err := os.Remove(filepath.Join(d.dir, f.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		total -= f.size
	}
	return errors.Join(errs...)
}
