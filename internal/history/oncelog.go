// OnceLog logs each problem with an agent's file once, not on
// every rescan: a broken file beyond the listing limit is met again by
// every scan, and must not flood the log. Only what the caller passes is
// logged (a path, an error), never file content: histories are private.

package history

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"sync"
)

// OnceLog remembers which problems it has logged, by key (usually the
// path of the file at fault). It is safe for concurrent use.
type OnceLog struct {
	log    *slog.Logger
	mu     sync.Mutex
	logged map[string]bool
}

// NewOnceLog returns a Logger that logs to log.
func NewOnceLog(log *slog.Logger) *OnceLog {
	return &OnceLog{log: log, logged: make(map[string]bool)}
}

// Error logs msg at level Error, with "path" set to path and then args,
// the first time path is seen.
func (l *OnceLog) Error(path, msg string, args ...any) {
	if l.first(path) {
		l.log.Error(msg, append([]any{"path", path}, args...)...)
	}
}

// Log logs msg with args as they are, at level, the first time key is
// seen. The key is not logged: it may be a topic ("processes") or a path
// with a prefix naming the operation.
func (l *OnceLog) Log(level slog.Level, key, msg string, args ...any) {
	if l.first(key) {
		l.log.Log(context.Background(), level, msg, args...)
	}
}

func (l *OnceLog) first(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.logged[key] {
		return false
	}
	l.logged[key] = true
	return true
}

// Forget lets the problem of key be logged again if it comes back (it
// went away).
func (l *OnceLog) Forget(key string) {
	l.mu.Lock()
	delete(l.logged, key)
	l.mu.Unlock()
}

// ForgetIf forgets every key forget reports, so the remembered keys stay
// as few as the problems still there. forget runs without the lock held:
// it may stat files.
func (l *OnceLog) ForgetIf(forget func(key string) bool) {
	l.mu.Lock()
	keys := make([]string, 0, len(l.logged))
	for k := range l.logged {
		keys = append(keys, k)
	}
	l.mu.Unlock()
	for _, k := range keys {
		if forget(k) {
			l.Forget(k)
		}
	}
}

// ForgetGone forgets the keys whose file no longer exists (os.Lstat says
// so), apart from those keep reports (files the last scan used, keys
// that name no file), which are not even stat'ed. A broken file stays
// logged once for as long as it is there.
func (l *OnceLog) ForgetGone(keep func(key string) bool) {
	l.ForgetIf(func(k string) bool {
		if keep(k) {
			return false
		}
		_, err := os.Lstat(k)
		return errors.Is(err, fs.ErrNotExist)
	})
}
