//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package history

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// lockDir marks dir as a live process's private directory: a file in it
// holds an exclusive flock for as long as the process keeps it open (the
// kernel drops it when the process dies). The lock is taken before the
// file gets the name sweep looks for, so no sweep sees it unlocked.
func lockDir(dir string) (*os.File, error) {
	tmp := filepath.Join(dir, "lock.new")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "lock")); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// sweep removes the private directories under parent that no live process
// holds: those a paddock that was killed left behind. A directory without
// its lock file yet is being made, and is left alone.
func sweep(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), dirPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		f, err := os.Open(filepath.Join(dir, "lock"))
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(dir)
		}
		f.Close()
	}
}
