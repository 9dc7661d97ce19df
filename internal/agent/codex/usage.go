package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strconv"

	"paddock/internal/history/jsonpeek"
	"paddock/internal/session"
	"paddock/internal/usage"
)

// Codex records usage in its rollout as token_count events
// ({"type":"event_msg","payload":{"type":"token_count","info":{…}}}):
// info.total_token_usage is the session's running total (it goes on
// across a resume), info.last_token_usage the last call's, and
// info.model_context_window the model's window. A call's usage is the
// total's increase, so an event written twice (Codex repeats one when
// only its rate limits changed) adds nothing; a total lower than the last
// is a new count from nothing. Events without a total (older versions)
// count their last call's. input_tokens includes cached_input_tokens and
// cache_write_input_tokens, which are counted apart; output_tokens
// includes reasoning. The model is the latest turn_context's (or the
// event's own info.model, where a version writes one). Codex records no
// cost.

// codexTotals are one token_usage object's counts.
type codexTotals struct {
	In, Cached, Written, Out int64
}

// codexState is what the reader carries from one read to the next.
type codexState struct {
	Total *codexTotals `json:"t,omitempty"`
	Model string       `json:"m,omitempty"`
}

type usageReader struct{}

const rolloutFile = "rollout"

// Read reads what info's rollout recorded since from; all of it when the
// rollout is not from's grown.
func (usageReader) Read(ctx context.Context, info session.Info, from usage.Cursor) (usage.Batch, error) {
	var b usage.Batch
	if info.Path == "" {
		return b, session.ErrNotFound
	}
	var st codexState
	b.Fresh = len(from.Files) == 0
	if !b.Fresh {
		_ = json.Unmarshal(from.State, &st)
	}
	read := func(m usage.Mark) (usage.Mark, bool, error) {
		return usage.FollowLines(ctx, info.Path, m, func(off int64, line []byte) {
			if r, ok := st.line(off, line); ok {
				b.Records = append(b.Records, r)
			}
		})
	}
	m, reset, err := read(from.File(rolloutFile))
	if reset {
		b, st = usage.Batch{Fresh: true}, codexState{}
		m, _, err = read(usage.Mark{Name: rolloutFile})
	}
	if errors.Is(err, fs.ErrNotExist) {
		return b, session.ErrNotFound
	}
	if err != nil {
		return b, err
	}
	b.Cursor.Files = []usage.Mark{m}
	b.Cursor.State, err = json.Marshal(st)
	return b, err
}

var (
	rolloutFields = []string{"timestamp", "type", "payload"}
	payloadFields = []string{"type", "info", "model"}
	infoFields    = []string{"total_token_usage", "last_token_usage", "model_context_window", "model"}
	totalsFields  = []string{"input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens"}
)

// typeWindow is how far into a rollout line its type is looked for.
const typeWindow = 512

// line reads one rollout line: a token_count's call, or the model a
// turn_context names.
func (st *codexState) line(off int64, line []byte) (usage.Record, bool) {
	// Both kinds name themselves in a line's first bytes (its type, or
	// its payload's first member): the rest of a long line (a tool's
	// output) is not searched.
	head := line[:min(len(line), typeWindow)]
	if !bytes.Contains(head, []byte(`"token_count"`)) && !bytes.Contains(head, []byte(`"turn_context"`)) {
		return usage.Record{}, false
	}
	if m, ok := contextModel(head, line); ok {
		if m != "" {
			st.Model = m
		}
		return usage.Record{}, false
	}
	var stamp, typ, payload []byte
	if !jsonpeek.Fields(line, rolloutFields, func(i int, v []byte) {
		switch i {
		case 0:
			stamp = v
		case 1:
			typ = v
		case 2:
			payload = v
		}
	}) {
		return usage.Record{}, false
	}
	var ptype, info, model []byte
	jsonpeek.Fields(payload, payloadFields, func(i int, v []byte) {
		switch i {
		case 0:
			ptype = v
		case 1:
			info = v
		case 2:
			model = v
		}
	})
	if jsonpeek.Is(typ, "turn_context") {
		if m := usage.Text(model); m != "" {
			st.Model = m
		}
		return usage.Record{}, false
	}
	if !jsonpeek.Is(typ, "event_msg") || !jsonpeek.Is(ptype, "token_count") || info == nil || jsonpeek.Null(info) {
		return usage.Record{}, false
	}
	var total, last *codexTotals
	var window int64
	jsonpeek.Fields(info, infoFields, func(i int, v []byte) {
		switch i {
		case 0:
			total = totals(v)
		case 1:
			last = totals(v)
		case 2:
			window = usage.Count(v)
		case 3:
			if m := usage.Text(v); m != "" {
				st.Model = m
			}
		}
	})
	call := last
	if total != nil {
		d := *total
		if p := st.Total; p != nil && total.In >= p.In && total.Cached >= p.Cached && total.Written >= p.Written && total.Out >= p.Out {
			d = codexTotals{In: total.In - p.In, Cached: total.Cached - p.Cached, Written: total.Written - p.Written, Out: total.Out - p.Out}
		}
		st.Total, call = total, &d
	}
	if call == nil || *call == (codexTotals{}) {
		return usage.Record{}, false
	}
	r := usage.Record{
		Key:        "tc@" + strconv.FormatInt(off, 10),
		Time:       usage.When(stamp),
		Model:      st.Model,
		Input:      call.In - call.Cached - call.Written,
		CacheRead:  call.Cached,
		CacheWrite: call.Written,
		Output:     call.Out,
		Window:     window,
	}
	if last != nil {
		r.Context = last.In + last.Out
	}
	return r, true
}

// contextModel reads the model a turn_context line names without
// walking the rest of it (a turn's settings and instructions, kilobytes
// long): Codex writes the turn's own "model" before the nested settings
// that name one too. ok is false for other lines, and for a model name
// that would need decoding (the line is then read whole).
func contextModel(head, line []byte) (string, bool) {
	if !bytes.Contains(head, []byte(`"type":"turn_context"`)) {
		return "", false
	}
	const key = `"model":"`
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return "", true // no model named: the last one stands
	}
	rest := line[i+len(key):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", false
	}
	return string(rest[:end]), true
}

// totals reads a token_usage object; nil when it is not one.
func totals(raw []byte) *codexTotals {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var t codexTotals
	jsonpeek.Fields(raw, totalsFields, func(i int, v []byte) {
		switch i {
		case 0:
			t.In = usage.Count(v)
		case 1:
			t.Cached = usage.Count(v)
		case 2:
			t.Written = usage.Count(v)
		case 3:
			t.Out = usage.Count(v)
		}
	})
	return &t
}
