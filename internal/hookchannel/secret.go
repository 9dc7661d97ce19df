package hookchannel

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// SecretFile is the name of the hook secret in paddock's data dir: 32
// random bytes as 64 hex digits and a newline, mode 0600. Hex, not raw
// bytes, because the same text goes into an HTTP header (and, for Claude's
// opt-in http hooks, into settings.json).
const SecretFile = "hook.secret"

const secretHexLen = 64

// LoadOrCreateSecret returns the hook secret in dir, creating it on first
// use. Decision (as for the CSRF key): a file readable by group or others
// may have been read by someone else and is replaced by a fresh secret,
// reported by replaced = true so the caller can say that http hooks
// installed with the old one need installing again. A file that is not a
// regular file, or does not hold a secret, is an error: not ours to
// overwrite.
func LoadOrCreateSecret(dir string) (secret string, replaced bool, err error) {
	path := filepath.Join(dir, SecretFile)
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s, err := createSecret(path)
		return s, false, err
	case err != nil:
		return "", false, fmt.Errorf("hook secret: %w", err)
	case !st.Mode().IsRegular():
		return "", false, fmt.Errorf("hook secret %s is not a regular file", path)
	case runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0:
		s, err := replaceSecret(path)
		return s, err == nil, err
	}
	s, err := ReadSecret(dir)
	return s, false, err
}

// ReadSecret reads the hook secret from dir without creating it; the relay
// uses it on every hook, so it reads one small file and nothing else.
func ReadSecret(dir string) (string, error) {
	path := filepath.Join(dir, SecretFile)
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, secretHexLen+8))
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(b))
	if !validSecret(s) {
		return "", fmt.Errorf("hook secret %s is not %d hex digits; delete it and restart paddock serve to make a new one", path, secretHexLen)
	}
	return s, nil
}

func validSecret(s string) bool {
	if len(s) != secretHexLen {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// writeTemp writes a fresh secret to a 0600 temp file beside path, so the
// secret file only ever appears complete.
func writeTemp(path string) (tmp, secret string, err error) {
	raw := make([]byte, secretHexLen/2)
	_, _ = rand.Read(raw) // never fails (Go ≥ 1.24)
	secret = hex.EncodeToString(raw)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", "", fmt.Errorf("hook secret: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".hook-secret-*")
	if err != nil {
		return "", "", fmt.Errorf("hook secret: %w", err)
	}
	tmp = f.Name()
	_, err = f.WriteString(secret + "\n")
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", "", fmt.Errorf("hook secret: %w", err)
	}
	return tmp, secret, nil
}

// createSecret publishes with a hard link, which fails if the file exists:
// two processes starting together agree on one secret.
func createSecret(path string) (string, error) {
	tmp, secret, err := writeTemp(path)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ReadSecret(filepath.Dir(path))
		}
		return "", fmt.Errorf("hook secret: %w", err)
	}
	return secret, nil
}

func replaceSecret(path string) (string, error) {
	tmp, secret, err := writeTemp(path)
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("hook secret: %w", err)
	}
	return secret, nil
}

// SecretShown is what is shown in place of the hook secret.
const SecretShown = "<hook secret>"

// Masker returns a function that hides secret in text shown to anyone (a
// diff, a note, an error); an empty secret hides nothing.
func Masker(secret string) func(string) string {
	return func(t string) string {
		if secret == "" {
			return t
		}
		return strings.ReplaceAll(t, secret, SecretShown)
	}
}
