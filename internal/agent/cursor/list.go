package cursor

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"paddock/internal/history"
)

// fileStat identifies one version of a file (history.Sig); ok is false
// for a file that does not exist, which the zero Sig alone cannot tell
// from an empty file with a zero mtime.
type fileStat struct {
	ok bool
	history.Sig
}

func statOf(st fs.FileInfo) fileStat {
	return fileStat{ok: true, Sig: history.SigOf(st)}
}

// statSide stats one of a chat's files: like statFile, and for one that
// is there but cannot be read (a pipe, a link loop), why.
func statSide(path string) (fileStat, error) {
	st, ok, err := history.StatHistory(path, nil)
	switch {
	case !ok:
		return fileStat{}, nil
	case err != nil:
		return fileStat{Sig: history.SigOf(st)}, err // not ok: never opened
	}
	return statOf(st), nil
}

// statFile stats a regular file (following a symlink); a missing or
// non-regular file gives the zero fileStat.
func statFile(path string) fileStat {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return fileStat{}
	}
	return statOf(st)
}

// chat is one chats/<ws>/<id>/ directory found by the stat pass, with the
// stat of each file listing or liveness looks at.
type chat struct {
	id, ws, dir      string
	meta, history    fileStat // meta.json, prompt_history.json
	store, wal       fileStat // store.db, store.db-wal
	activityNs       int64    // newest mtime of them all
	transcript       string   // for a transcript-only session: the transcript file
	transcriptStat   fileStat
	transcriptProjID string // its projects/<dir> name
	// badFile names a file of the chat that is there but cannot be read
	// (a pipe, a link loop: never opened), and badErr says why; for a
	// transcript-only session it is the transcript.
	badFile string
	badErr  error
}

func (c *chat) storePath() string { return filepath.Join(c.dir, "store.db") }

// path is the history file a conversation preview reads: store.db, else
// the transcript.
func (c *chat) path() string {
	if c.transcript != "" {
		return c.transcript
	}
	if c.store.ok {
		return c.storePath()
	}
	return ""
}

func (c *chat) mtime() time.Time { return time.Unix(0, c.activityNs) }

// chats stats every chats/<ws>/<id>/ and returns those holding any of
// Cursor's chat files, newest activity first, and the folders it listed:
// chats/, then every chats/<ws>/ by name (what WatchDirs names, found on
// the way rather than listed again). This pass is the only work that
// grows with the number of chats. A missing chats/ folder is no chats;
// one that exists but cannot be listed is an error.
func (s *Scanner) chats(ctx context.Context) ([]*chat, []string, error) {
	root := s.chatsDir()
	wsNames, err := readDirNames(root)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	perWS := make([][]*chat, len(wsNames))
	listed := make([]bool, len(wsNames))
	if err := history.Each(ctx, history.StatWorkers, len(wsNames), func(i int) {
		perWS[i], listed[i] = s.workspace(root, wsNames[i])
	}); err != nil {
		return nil, nil, err
	}
	var dirs []string
	for i, ws := range wsNames {
		if listed[i] {
			dirs = append(dirs, filepath.Join(root, ws))
		}
	}
	slices.Sort(dirs)
	out := slices.Concat(perWS...)
	sortChats(out)
	return out, append([]string{root}, dirs...), nil
}

func sortChats(cs []*chat) {
	slices.SortFunc(cs, func(a, b *chat) int {
		if c := cmp.Compare(b.activityNs, a.activityNs); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
}

// workspace stats the chats of one chats/<ws>/ folder; listed is false
// when it could not be listed (a file, or gone since the listing).
func (s *Scanner) workspace(root, ws string) (chats []*chat, listed bool) {
	dir := root + string(filepath.Separator) + ws
	ids, err := readDirNames(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			s.problems.Error(dir, "cannot list Cursor workspace folder", "err", err)
			s.sources.Add(dir, "cannot be read: "+history.Reason(err))
		}
		return nil, false
	}
	var out []*chat
	for _, id := range ids {
		if !validID(id) {
			continue
		}
		c := statChat(dir+string(filepath.Separator)+id, ws, id)
		if c != nil {
			out = append(out, c)
		}
	}
	return out, true
}

// statChat stats the files of one chat folder; nil when it holds none.
func statChat(dir, ws, id string) *chat {
	sep := string(filepath.Separator)
	c := &chat{id: id, ws: ws, dir: dir}
	var bad fileStat
	for _, f := range []struct {
		name string
		st   *fileStat
	}{{"meta.json", &c.meta}, {"prompt_history.json", &c.history}, {"store.db", &c.store}} {
		st, err := statSide(dir + sep + f.name)
		if err != nil && c.badFile == "" {
			c.badFile, c.badErr, bad = f.name, err, st
		}
		*f.st = st
	}
	if !c.meta.ok && !c.history.ok && !c.store.ok && c.badFile == "" {
		return nil
	}
	if c.store.ok {
		c.wal = statFile(dir + sep + "store.db-wal")
	}
	for _, f := range []fileStat{c.meta, c.history, c.store, c.wal, bad} {
		c.activityNs = max(c.activityNs, f.MtimeNs)
	}
	return c
}

// findChat locates chats/*/<id>/ for one id, newest activity first when the
// id is (oddly) in two workspace folders.
func (s *Scanner) findChat(id string) *chat {
	if s.dir == "" || !validID(id) {
		return nil
	}
	// validID admits no glob metacharacters, so id matches only itself.
	dirs, _ := filepath.Glob(filepath.Join(s.chatsDir(), "*", id))
	var best *chat
	for _, d := range dirs {
		if c := statChat(d, filepath.Base(filepath.Dir(d)), id); c != nil && (best == nil || c.activityNs > best.activityNs) {
			best = c
		}
	}
	return best
}

// readDirNames lists a directory's entry names, unsorted.
func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil && len(names) == 0 {
		return nil, err
	}
	return names, nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
