package hookinstall

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// maxConfig bounds what paddock reads as a config file.
const maxConfig = 16 << 20

// readConfig reads path. A missing file is (nil, false, nil).
func readConfig(path string) ([]byte, bool, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr == nil {
			return nil, false, fmt.Errorf("%s is a dangling symlink", path)
		}
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !st.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > maxConfig {
		return nil, false, fmt.Errorf("%s is larger than %d bytes", path, maxConfig)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// realPath follows symlinks, so that a settings.json linked from a dotfiles
// repository is edited in place rather than replaced by a regular file.
func realPath(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return path
}

// backupName is <file>.paddock-backup-<UTC time>, with a counter when that
// name is taken.
func backupName(path string, now time.Time) string {
	base := path + ".paddock-backup-" + now.UTC().Format("20060102T150405Z")
	name := base
	for i := 1; ; i++ {
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name
		}
		name = fmt.Sprintf("%s.%d", base, i)
	}
}

// writeBackup copies the original content next to the file, with its mode.
func writeBackup(path string, content []byte, mode fs.FileMode, now time.Time) (string, error) {
	name := backupName(path, now)
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode.Perm())
	if err != nil {
		return "", err
	}
	if _, err = f.Write(content); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(name)
		return "", err
	}
	return name, nil
}

// unchangedSince fails when the file no longer holds what the plan was made
// from: the agent (Codex writes trust hashes, Claude "always allow" rules)
// may have written it meanwhile, and a rename would lose that.
func unchangedSince(path string, old []byte, existed bool) error {
	cur, exists, err := readConfig(path)
	if err != nil {
		return err
	}
	if exists != existed || !bytes.Equal(cur, old) {
		return fmt.Errorf("%s changed while paddock was editing it; nothing written, run the command again", path)
	}
	return nil
}

// writeAtomic replaces path with content: a temp file in the same
// directory, fsync, the mode (and owner) of the original, rename, fsync of
// the directory. A reader sees the old file or the new one, never half.
func writeAtomic(path string, content []byte, mode fs.FileMode, old []byte, existed bool) (err error) {
	real := realPath(path)
	dir := filepath.Dir(real)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(real)+".paddock-tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(content); err != nil {
		_ = tmp.Close()
		return err
	}
	if err = tmp.Chmod(mode.Perm()); err != nil {
		_ = tmp.Close()
		return err
	}
	if existed {
		if err = keepOwner(tmp, real); err != nil {
			_ = tmp.Close()
			return err
		}
	}
	if err = tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = unchangedSince(real, old, existed); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), real); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// removeFile deletes a file paddock empties, after checking nobody changed it.
func removeFile(path string, old []byte) error {
	if err := unchangedSince(path, old, true); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}
