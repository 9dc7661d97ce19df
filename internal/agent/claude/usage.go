package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"paddock/internal/history/jsonpeek"
	"paddock/internal/session"
	"paddock/internal/usage"
)

// Claude Code records usage in two places of a transcript:
//
//   - each assistant line's message.usage (input_tokens,
//     cache_read_input_tokens, cache_creation_input_tokens with its
//     cache_creation.ephemeral_1h_input_tokens part, output_tokens) and
//     message.model. A streamed message is written once per content
//     block, each line repeating the message's id and usage: a call is
//     counted once per message.id, the last line read winning.
//   - "cost-state" lines (2.1 on), the session's running cost per model
//     (modelUsage.<model>.costUSD), written at the end of each turn and
//     restored when the session is resumed. Their increase is the
//     turn's cost as Claude Code priced it; a session that has them has
//     its calls' tokens counted but never priced from the table.
//
// Subagents' transcripts (<session>/subagents/**/agent-*.jsonl) are the
// session's calls too, and the running cost includes them.

// usageState is what the reader carries from one read to the next.
type usageState struct {
	// Costs is the running cost per model at the last cost-state read.
	Costs map[string]float64 `json:"c,omitempty"`
	// HasCost: a cost-state was read, so the calls are covered by it.
	HasCost bool `json:"h,omitempty"`
	// Last is the time of the last line read with one (a cost-state has
	// none of its own: it is dated by the turn it ends).
	Last time.Time `json:"l,omitzero"`
}

// usageReader reads Claude Code's usage.
type usageReader struct{}

// Read reads what info's transcript and its subagents' recorded since
// from, or all of it when a file was rewritten or the first running cost
// turned up (the calls read before it are then covered by it).
func (usageReader) Read(ctx context.Context, info session.Info, from usage.Cursor) (usage.Batch, error) {
	b, restart, err := readUsage(ctx, info.Path, from)
	if err == nil && restart {
		b, _, err = readUsage(ctx, info.Path, usage.Cursor{})
	}
	return b, err
}

// mainFile is the transcript's own name in a cursor.
const mainFile = "main"

func readUsage(ctx context.Context, path string, from usage.Cursor) (b usage.Batch, restart bool, err error) {
	if path == "" {
		return b, false, session.ErrNotFound
	}
	var st usageState
	fresh := len(from.Files) == 0
	if !fresh {
		_ = json.Unmarshal(from.State, &st)
	}
	hadCost := st.HasCost
	files := []string{mainFile}
	subDir := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
	files = append(files, subagentFiles(subDir)...)
	for _, name := range files {
		file := path
		if name != mainFile {
			file = filepath.Join(subDir, filepath.FromSlash(name))
		}
		m, reset, err := usage.FollowLines(ctx, file, from.File(name), func(off int64, line []byte) {
			if r, ok := st.line(name, off, line); ok {
				b.Records = append(b.Records, r...)
			}
		})
		if err != nil {
			if name == mainFile {
				if errors.Is(err, fs.ErrNotExist) {
					return b, false, session.ErrNotFound
				}
				return b, false, err
			}
			continue // a subagent's file that went away
		}
		if reset {
			return b, true, nil
		}
		b.Cursor.Files = append(b.Cursor.Files, m)
	}
	if st.HasCost && !hadCost && !fresh {
		return b, true, nil
	}
	if st.HasCost {
		for i := range b.Records {
			if !b.Records[i].HasCost {
				b.Records[i].Covered = true
			}
		}
	}
	b.Fresh = fresh
	b.Cursor.State, err = json.Marshal(st)
	return b, false, err
}

// subagentFiles lists the subagents' transcripts under dir, relative to
// it, sorted; none when there is no such directory.
func subagentFiles(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if strings.Count(strings.TrimPrefix(p, dir), string(filepath.Separator)) > 3 {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".jsonl") {
			if rel, err := filepath.Rel(dir, p); err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	slices.Sort(out)
	return out
}

var (
	lineFields    = []string{"type", "timestamp", "message", "modelUsage"}
	messageFields = []string{"id", "model", "usage"}
	usageFields   = []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "cache_creation"}
	creationField = []string{"ephemeral_1h_input_tokens"}
	costField     = []string{"costUSD"}
)

// tailWindow is how much of a line's end is looked at for its type.
const tailWindow = 1024

// line reads one transcript line's records.
func (st *usageState) line(file string, off int64, line []byte) ([]usage.Record, bool) {
	// Only assistant lines and running costs count; most lines are
	// neither, and are passed over unparsed. A running cost names its
	// type first; a line's own type follows its message, near its end,
	// so a user's line (a tool's long output) is known by its last bytes.
	if !bytes.HasPrefix(line, []byte(`{"type":"cost-state"`)) {
		if bytes.Contains(line[max(0, len(line)-tailWindow):], []byte(`"type":"user"`)) || !bytes.Contains(line, []byte(`"usage"`)) {
			return nil, false
		}
	}
	var typ, stamp, msg, models []byte
	if !jsonpeek.Fields(line, lineFields, func(i int, v []byte) {
		switch i {
		case 0:
			typ = v
		case 1:
			stamp = v
		case 2:
			msg = v
		case 3:
			models = v
		}
	}) {
		return nil, false
	}
	if t := usage.When(stamp); !t.IsZero() {
		st.Last = t
	}
	switch {
	case jsonpeek.Is(typ, "assistant"):
		r, ok := assistantUsage(msg)
		if !ok {
			return nil, false
		}
		r.Time = st.Last
		if file != mainFile {
			r.Context = 0 // the session's context is its own, not a subagent's
		}
		if r.Key == "" {
			r.Key = file + "@" + strconv.FormatInt(off, 10)
		}
		return []usage.Record{r}, true
	case jsonpeek.Is(typ, "cost-state"):
		return st.costState(file, off, models), true
	}
	return nil, false
}

// assistantUsage reads an assistant message's usage.
func assistantUsage(msg []byte) (usage.Record, bool) {
	var r usage.Record
	var id, model, u []byte
	jsonpeek.Fields(msg, messageFields, func(i int, v []byte) {
		switch i {
		case 0:
			id = v
		case 1:
			model = v
		case 2:
			u = v
		}
	})
	r.Model = usage.Text(model)
	// Claude Code's own notes (an API error, an interruption) are
	// "<synthetic>" messages: no call was made.
	if u == nil || jsonpeek.Null(u) || r.Model == "<synthetic>" {
		return r, false
	}
	if s := usage.Text(id); s != "" {
		r.Key = "msg:" + s
	}
	jsonpeek.Fields(u, usageFields, func(i int, v []byte) {
		switch i {
		case 0:
			r.Input = usage.Count(v)
		case 1:
			r.Output = usage.Count(v)
		case 2:
			r.CacheRead = usage.Count(v)
		case 3:
			r.CacheWrite = usage.Count(v)
		case 4:
			jsonpeek.Fields(v, creationField, func(_ int, v []byte) { r.CacheWrite1h = usage.Count(v) })
		}
	})
	r.Context = r.Input + r.CacheRead + r.CacheWrite + r.Output
	return r, true
}

// costState turns a running cost into the cost of the calls since the
// last one, per model. A total lower than the last (a run that started
// counting again) is a new run's cost from nothing.
func (st *usageState) costState(file string, off int64, models []byte) []usage.Record {
	st.HasCost = true
	if st.Costs == nil {
		st.Costs = map[string]float64{}
	}
	var out []usage.Record
	jsonpeek.Object(models, func(k, v []byte) {
		model := usage.Text(k)
		var total float64
		var ok bool
		jsonpeek.Fields(v, costField, func(_ int, v []byte) { total, ok = usage.Dollars(v) })
		if !ok || model == "" {
			return
		}
		delta := total - st.Costs[model]
		if delta < 0 {
			delta = total
		}
		st.Costs[model] = total
		if delta == 0 {
			return
		}
		out = append(out, usage.Record{Key: "cost:" + file + "@" + strconv.FormatInt(off, 10) + ":" + model,
			Time: st.Last, Model: model, Cost: delta, HasCost: true})
	})
	return out
}
