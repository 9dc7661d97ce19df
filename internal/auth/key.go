package auth

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// KeySize is the length of the server secret (CSRF HMAC key).
const KeySize = 32

// LoadOrCreateKey returns the 32-byte server secret stored at path, creating
// it (mode 0600, parent dir 0700) on first use.
//
// Decision: a key file readable by group or others is treated as possibly
// read by someone else and is replaced by a fresh key (mode 0600), rather
// than refused or merely chmod-ed. Replacing is safe to do unasked — the key
// only derives CSRF tokens, so rotating it just makes open pages fetch a new
// one — and it removes the exposure instead of blocking startup. A file of
// the wrong size, or that is not a regular file (e.g. a symlink), is an
// error: that is not ours to overwrite.
func LoadOrCreateKey(path string) ([]byte, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("auth: key dir: %w", err)
	}
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return createKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("auth: key: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("auth: key %s is not a regular file", path)
	}
	// Windows has no Unix permission bits to check.
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return replaceKey(path)
	}
	return readKey(path)
}

func readKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth: key: %w", err)
	}
	if len(b) != KeySize {
		return nil, fmt.Errorf("auth: key %s has %d bytes, want %d; delete it to make a new one", path, len(b), KeySize)
	}
	return b, nil
}

// writeTemp writes a new random key to a 0600 temp file beside path, so the
// final file only ever appears complete.
func writeTemp(path string) (tmp string, key []byte, err error) {
	key = make([]byte, KeySize)
	_, _ = rand.Read(key) // never fails (Go ≥1.24)

	// CreateTemp makes the file 0600 and with a name nobody else can claim.
	f, err := os.CreateTemp(filepath.Dir(path), ".key-*")
	if err != nil {
		return "", nil, fmt.Errorf("auth: key: %w", err)
	}
	tmp = f.Name()
	_, err = f.Write(key)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o600) // explicit, whatever CreateTemp's default
	}
	if err != nil {
		os.Remove(tmp)
		return "", nil, fmt.Errorf("auth: key: %w", err)
	}
	return tmp, key, nil
}

// createKey publishes a new key with a hard link, which fails if the file
// exists: when two processes (server and CLI) start together, one key wins
// and both use it.
func createKey(path string) ([]byte, error) {
	tmp, key, err := writeTemp(path)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readKey(path)
		}
		return nil, fmt.Errorf("auth: key: %w", err)
	}
	return key, nil
}

// replaceKey atomically overwrites path with a new key.
func replaceKey(path string) ([]byte, error) {
	tmp, key, err := writeTemp(path)
	if err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("auth: key: %w", err)
	}
	return key, nil
}
