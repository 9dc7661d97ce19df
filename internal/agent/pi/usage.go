package pi

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strconv"

	"paddock/internal/history/jsonpeek"
	"paddock/internal/session"
	"paddock/internal/usage"
)

// Pi records each call on its assistant message entry:
// {"type":"message","id":…,"timestamp":…,"message":{"role":"assistant",
// "model":…,"usage":{"input","output","cacheRead","cacheWrite",
// "totalTokens","cost":{…,"total"}}}}. input excludes the cache; the cost
// is Pi's own from its model table, and 0 where Pi has no price for the
// model (the mock's, a local model's): a cost of 0 is taken as not
// recorded, and priced from paddock's table where it can be. A session
// branches but never rewrites: every assistant entry of the file was a
// call. Older files' entries have no id: their place in the file names
// them.

type usageReader struct{}

const usageFile = "session"

// Read reads what info's session file recorded since from; all of it when
// the file is not from's grown.
func (usageReader) Read(ctx context.Context, info session.Info, from usage.Cursor) (usage.Batch, error) {
	var b usage.Batch
	if info.Path == "" {
		return b, session.ErrNotFound
	}
	b.Fresh = len(from.Files) == 0
	read := func(m usage.Mark) (usage.Mark, bool, error) {
		return usage.FollowLines(ctx, info.Path, m, func(off int64, line []byte) {
			if r, ok := piUsage(off, line); ok {
				b.Records = append(b.Records, r)
			}
		})
	}
	m, reset, err := read(from.File(usageFile))
	if reset {
		b = usage.Batch{Fresh: true}
		m, _, err = read(usage.Mark{Name: usageFile})
	}
	if errors.Is(err, fs.ErrNotExist) {
		return b, session.ErrNotFound
	}
	b.Cursor.Files = []usage.Mark{m}
	return b, err
}

var (
	piEntryFields   = []string{"type", "id", "timestamp", "message"}
	piMessageFields = []string{"role", "model", "usage", "timestamp"}
	piUsageFields   = []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"}
	piCostField     = []string{"total"}
)

// piUsage reads one entry's call, if it is an assistant message with
// usage.
func piUsage(off int64, line []byte) (usage.Record, bool) {
	var r usage.Record
	if !bytes.Contains(line, []byte(`"usage"`)) {
		return r, false
	}
	var typ, id, stamp, msg []byte
	if !jsonpeek.Fields(line, piEntryFields, func(i int, v []byte) {
		switch i {
		case 0:
			typ = v
		case 1:
			id = v
		case 2:
			stamp = v
		case 3:
			msg = v
		}
	}) || !jsonpeek.Is(typ, "message") {
		return r, false
	}
	var role, model, u, mstamp []byte
	jsonpeek.Fields(msg, piMessageFields, func(i int, v []byte) {
		switch i {
		case 0:
			role = v
		case 1:
			model = v
		case 2:
			u = v
		case 3:
			mstamp = v
		}
	})
	if !jsonpeek.Is(role, "assistant") || len(u) == 0 || u[0] != '{' {
		return r, false
	}
	var total int64
	jsonpeek.Fields(u, piUsageFields, func(i int, v []byte) {
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
			total = usage.Count(v)
		case 5:
			jsonpeek.Fields(v, piCostField, func(_ int, v []byte) {
				if c, ok := usage.Dollars(v); ok && c != 0 {
					r.Cost, r.HasCost = c, true
				}
			})
		}
	})
	if r.Input+r.Output+r.CacheRead+r.CacheWrite == 0 {
		return r, false // an aborted or failed call: nothing was used
	}
	r.Key = "@" + strconv.FormatInt(off, 10)
	if s := usage.Text(id); s != "" {
		r.Key = "id:" + s
	}
	r.Model = usage.Text(model)
	if r.Time = usage.When(stamp); r.Time.IsZero() {
		r.Time = usage.When(mstamp)
	}
	r.Context = total
	if r.Context == 0 {
		r.Context = r.Input + r.Output + r.CacheRead + r.CacheWrite
	}
	return r, true
}
