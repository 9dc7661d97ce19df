package kimi

import (
	"cmp"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"paddock/internal/history"
)

// layout tells the two programs' session stores apart.
type layout uint8

const (
	// current is kimi-code (TypeScript): <home>/sessions/<workDirKey>/<id>/
	// with state.json and agents/main/wire.jsonl.
	current layout = iota
	// legacy is the Python kimi-cli: <share>/sessions/<md5(cwd)>/<uuid>/
	// context.jsonl (or the older flat <md5(cwd)>/<uuid>.jsonl).
	legacy
)

// candidate is one session found by the stat pass.
type candidate struct {
	id     string
	layout layout
	bucket string // the directory the session sits in: a workdir key or an md5 bucket
	dir    string // the session's own directory; "" for a flat legacy file
	path   string // the history file: agents/main/wire.jsonl, or the legacy context.jsonl
	sig    history.Sig
	cwd    string // legacy only: the cwd kimi.json gives the bucket
	// unreadable: why the history file cannot be read at all (a pipe, a
	// link that cannot be followed); nil for a regular file. Such a file
	// is never opened.
	unreadable error
}

func (c *candidate) mtime() time.Time { return c.sig.Mtime() }

// statePath is the state.json that goes with the history file, or "".
func (c *candidate) statePath() string {
	if c.dir == "" {
		return ""
	}
	return filepath.Join(c.dir, "state.json")
}

// subdirs lists the directories (and symlinks, checked later) in dir whose
// names do not start with a dot (kimi-code keeps .index-cache and
// .index-dirty beside the buckets). A missing dir is (nil, nil).
func subdirs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil && len(entries) == 0 {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// mainWire is the main agent's wire inside a session directory.
var mainWire = string(filepath.Separator) + filepath.Join("agents", "main", "wire.jsonl")

// entryNames lists a directory's names unsorted (the caller sorts by
// mtime); a symlink to a file, or a file, has none.
func entryNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil && len(names) == 0 {
		if st, serr := f.Stat(); serr == nil && !st.IsDir() {
			return nil, nil
		}
		return nil, err
	}
	return names, nil
}

// statHistory stats a session's history file for the listing: ok false
// when there is none (not started yet, or not a session); else its stat
// and, for one that cannot be read (a pipe, a link loop), why.
func statHistory(path string) (st fs.FileInfo, ok bool, unreadable error) {
	st, ok, err := history.StatHistory(path, nil)
	if !ok {
		return nil, false, nil
	}
	return st, true, err
}

// statFile stats path, following a symlink, and accepts only a regular
// file.
func statFile(path string) (fs.FileInfo, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	return st, true
}

// currentCandidates stats every <home>/sessions/*/*/agents/main/wire.jsonl.
// A missing sessions directory is no sessions; one that exists but cannot
// be listed is an error, so the caller keeps its previous result.
func (s *Scanner) currentCandidates(ctx context.Context) ([]candidate, error) {
	if s.home == "" {
		return nil, nil
	}
	root := filepath.Join(s.home, "sessions")
	buckets, err := subdirs(root)
	if err != nil {
		return nil, err
	}
	return history.Gather(ctx, history.StatWorkers, buckets, func(bucket string) []candidate {
		dir := root + string(filepath.Separator) + bucket
		names, err := entryNames(dir)
		if err != nil {
			s.problems.Error(dir, "cannot list Kimi Code workspace directory", "err", err)
			if !errors.Is(err, fs.ErrNotExist) { // removed since the listing: no news
				s.sources.Add(dir, "cannot be read: "+history.Reason(err))
			}
			return nil
		}
		out := make([]candidate, 0, len(names))
		for _, id := range names {
			if !validID(id) {
				continue
			}
			// Plain concatenation: the parts are clean, and Clean costs
			// more than the stat at thousands of sessions.
			sdir := dir + string(filepath.Separator) + id
			wire := sdir + mainWire
			st, ok, bad := statHistory(wire)
			if !ok {
				continue // not started yet, or not a session
			}
			out = append(out, candidate{id: id, layout: current, bucket: bucket, dir: sdir, path: wire, sig: history.SigOf(st), unreadable: bad})
		}
		return out
	})
}

// md5Bucket matches kimi-cli's bucket names: md5(cwd), or <kaos>_md5(cwd)
// for a non-local filesystem.
var md5Bucket = regexp.MustCompile(`^(?:.+_)?([0-9a-f]{32})$`)

// legacyWorkDirs reads kimi-cli's kimi.json, the only map from a bucket
// back to its directory: {"work_dirs":[{"path","kaos"},…]}.
func legacyWorkDirs(share string) map[string]string {
	path := filepath.Join(share, "kimi.json")
	if _, ok := statFile(path); !ok {
		return nil
	}
	m, err := readJSONObject(path)
	if err != nil {
		return nil
	}
	out := make(map[string]string)
	for _, raw := range array(m["work_dirs"]) {
		wd := object(raw)
		p := jsonStr(wd["path"])
		if p == "" {
			continue
		}
		sum := md5.Sum([]byte(p))
		key := hex.EncodeToString(sum[:])
		if kaos := jsonStr(wd["kaos"]); kaos != "" && kaos != "local" {
			key = kaos + "_" + key
		}
		out[key] = p
	}
	return out
}

// legacyCandidates stats the kimi-cli sessions under <share>/sessions:
// <bucket>/<uuid>/context.jsonl, and the flat <bucket>/<uuid>.jsonl of older
// versions when no directory holds the same session.
func (s *Scanner) legacyCandidates(ctx context.Context, workDirs map[string]string) ([]candidate, error) {
	if s.legacyHome == "" {
		return nil, nil
	}
	root := filepath.Join(s.legacyHome, "sessions")
	buckets, err := subdirs(root)
	if err != nil {
		return nil, err
	}
	buckets = slices.DeleteFunc(buckets, func(b string) bool { return !md5Bucket.MatchString(b) })
	return history.Gather(ctx, history.StatWorkers, buckets, func(bucket string) []candidate {
		dir := root + string(filepath.Separator) + bucket
		entries, err := os.ReadDir(dir)
		if err != nil && len(entries) == 0 {
			s.problems.Error(dir, "cannot list Kimi CLI workspace directory", "err", err)
			if !errors.Is(err, fs.ErrNotExist) { // removed since the listing: no news
				s.sources.Add(dir, "cannot be read: "+history.Reason(err))
			}
			return nil
		}
		cwd := workDirs[bucket]
		byID := make(map[string]candidate)
		for _, e := range entries {
			name := e.Name()
			if id, flat := strings.CutSuffix(name, ".jsonl"); flat && validID(id) {
				if _, seen := byID[id]; seen {
					continue
				}
				path := dir + string(filepath.Separator) + name
				if st, ok, bad := statHistory(path); ok {
					byID[id] = candidate{id: id, layout: legacy, bucket: bucket, path: path, sig: history.SigOf(st), cwd: cwd, unreadable: bad}
				}
				continue
			}
			if !validID(name) {
				continue
			}
			sdir := dir + string(filepath.Separator) + name
			path := filepath.Join(sdir, "context.jsonl")
			if st, ok, bad := statHistory(path); ok {
				byID[name] = candidate{id: name, layout: legacy, bucket: bucket, dir: sdir, path: path, sig: history.SigOf(st), cwd: cwd, unreadable: bad}
			}
		}
		out := make([]candidate, 0, len(byID))
		for _, c := range byID {
			out = append(out, c)
		}
		return out
	})
}

// sortNewest orders candidates newest history mtime first (Kimi lists by
// the main wire's mtime), then by path for a stable order.
func sortNewest(cands []candidate) {
	slices.SortFunc(cands, func(a, b candidate) int {
		if c := cmp.Compare(b.sig.MtimeNs, a.sig.MtimeNs); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
}

// workDirKey is kimi-code's bucket name for a working directory
// (encodeWorkDirKey): "wd_" + a slug of the base name + "_" + the first 12
// hex digits of the SHA-256 of the normalised path.
func workDirKey(dir string) string {
	norm := strings.TrimRight(strings.ReplaceAll(dir, `\`, "/"), "/")
	base := norm
	if i := strings.LastIndexByte(norm, '/'); i >= 0 {
		base = norm[i+1:]
	}
	slug := strings.Trim(slugJunk.ReplaceAllString(strings.ToLower(base), "-"), "-")
	if len(slug) > 40 {
		slug = strings.Trim(slug[:40], "-")
	}
	if slug == "" || slug == "." || slug == ".." {
		slug = "workspace"
	}
	sum := sha256.Sum256([]byte(norm))
	return "wd_" + slug + "_" + hex.EncodeToString(sum[:6])
}

var slugJunk = regexp.MustCompile(`[^a-z0-9._-]+`)

// legacyBucket is kimi-cli's bucket name for a local working directory.
func legacyBucket(dir string) string {
	sum := md5.Sum([]byte(dir))
	return hex.EncodeToString(sum[:])
}
