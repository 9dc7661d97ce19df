package kimi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"paddock/internal/history/jsonpeek"
	"paddock/internal/session"
	"paddock/internal/usage"
)

// Kimi Code records each call in its wire log (agents/<agent>/wire.jsonl)
// as {"type":"usage.record","model":…,"usage":{"inputOther","output",
// "inputCacheRead","inputCacheCreation"},"usageScope":"turn","time":ms}:
// inputOther is the input read fresh. A session's subagents have wire
// logs of their own beside main's, and their calls are the session's.
// Only "turn" records (or records naming no scope) are calls; Kimi
// records no cost and no context window. The legacy context.jsonl has no
// usage.

type usageReader struct{}

// Read reads what info's wire logs recorded since from; all of them when
// one is not from's grown.
func (usageReader) Read(ctx context.Context, info session.Info, from usage.Cursor) (usage.Batch, error) {
	if info.Path == "" {
		return usage.Batch{}, session.ErrNotFound
	}
	if filepath.Base(info.Path) != "wire.jsonl" {
		if _, err := os.Stat(info.Path); err != nil {
			return usage.Batch{}, session.ErrNotFound
		}
		return usage.Batch{Fresh: true}, nil
	}
	b, restart, err := readWires(ctx, info.Path, from)
	if err == nil && restart {
		b, _, err = readWires(ctx, info.Path, usage.Cursor{})
	}
	return b, err
}

// readWires reads main's wire log (at path) and its siblings'.
func readWires(ctx context.Context, path string, from usage.Cursor) (b usage.Batch, restart bool, err error) {
	b.Fresh = len(from.Files) == 0
	agents := filepath.Dir(filepath.Dir(path))
	names := []string{"main"}
	if entries, err := os.ReadDir(agents); err == nil {
		for _, e := range entries {
			if e.IsDir() && e.Name() != "main" {
				names = append(names, e.Name())
			}
		}
	}
	slices.Sort(names[1:])
	for _, name := range names {
		m, reset, err := usage.FollowLines(ctx, filepath.Join(agents, name, "wire.jsonl"), from.File(name), func(off int64, line []byte) {
			if r, ok := wireUsage(name, off, line); ok {
				b.Records = append(b.Records, r)
			}
		})
		if err != nil {
			if name == "main" {
				if errors.Is(err, fs.ErrNotExist) {
					return b, false, session.ErrNotFound
				}
				return b, false, err
			}
			continue // a subagent without a wire log (yet)
		}
		if reset {
			return b, true, nil
		}
		b.Cursor.Files = append(b.Cursor.Files, m)
	}
	b.Cursor.State = json.RawMessage(`{}`)
	return b, false, nil
}

var (
	wireFields      = []string{"type", "model", "usage", "usageScope", "time"}
	wireUsageFields = []string{"inputOther", "output", "inputCacheRead", "inputCacheCreation"}
)

// wireUsage reads one wire line's call, if it is a turn's usage.record.
func wireUsage(agent string, off int64, line []byte) (usage.Record, bool) {
	var r usage.Record
	if !bytes.Contains(line, []byte(`"usage.record"`)) {
		return r, false
	}
	var typ, model, u, scope, at []byte
	if !jsonpeek.Fields(line, wireFields, func(i int, v []byte) {
		switch i {
		case 0:
			typ = v
		case 1:
			model = v
		case 2:
			u = v
		case 3:
			scope = v
		case 4:
			at = v
		}
	}) || !jsonpeek.Is(typ, "usage.record") || len(u) == 0 || u[0] != '{' {
		return r, false
	}
	if scope != nil && !jsonpeek.Null(scope) && !jsonpeek.Is(scope, "turn") {
		return r, false
	}
	jsonpeek.Fields(u, wireUsageFields, func(i int, v []byte) {
		switch i {
		case 0:
			r.Input = usage.Count(v)
		case 1:
			r.Output = usage.Count(v)
		case 2:
			r.CacheRead = usage.Count(v)
		case 3:
			r.CacheWrite = usage.Count(v)
		}
	})
	if r.Input+r.Output+r.CacheRead+r.CacheWrite == 0 {
		return r, false
	}
	r.Key = agent + "@" + strconv.FormatInt(off, 10)
	r.Model = usage.Text(model)
	r.Time = usage.When(at)
	// The session's context is its main agent's.
	if agent == "main" {
		r.Context = r.Input + r.Output + r.CacheRead + r.CacheWrite
	}
	return r, true
}
