package opencode

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"paddock/internal/session"
	"paddock/internal/testkit/fuzzseed"
)

// recordedRows returns the data column of every message and part row of
// the recorded databases: the repository's and, when ../shared is there,
// the real OpenCode home's (fuzzseed says so when it is not).
func recordedRows(t *testing.T) (messages, parts []string) {
	t.Helper()
	var paths []string
	for i, file := range fuzzseed.Files(t, fuzzseed.Of("opencode", "/opencode.db")) {
		// A private copy: opening the recording in place would make SQLite
		// write beside it.
		p := filepath.Join(t.TempDir(), fmt.Sprintf("%d.db", i))
		if err := os.WriteFile(p, file.Data, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		t.Fatal("no recorded OpenCode database")
	}
	for _, p := range paths {
		db, err := sql.Open("sqlite", p) // the test's own copy
		if err != nil {
			t.Fatal(err)
		}
		for q, into := range map[string]*[]string{"SELECT data FROM message": &messages, "SELECT data FROM part": &parts} {
			rows, err := db.Query(q)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				*into = append(*into, s)
			}
			rows.Close()
		}
		db.Close()
	}
	return messages, parts
}

// timeField is a time value in a row's JSON.
var timeField = regexp.MustCompile(`"(created|start|end|completed)":\d+`)

// mutate returns s changed the way a damaged or foreign database might
// hold it: cut short, spliced with another row, a value of another type,
// a number where a string goes, or left alone.
func mutate(rng *rand.Rand, s string, pool []string) string {
	switch rng.IntN(9) {
	case 0:
		return s[:rng.IntN(len(s)+1)]
	case 1:
		o := pool[rng.IntN(len(pool))]
		return s[:rng.IntN(len(s)+1)] + o[rng.IntN(len(o)+1):]
	case 2:
		for _, kv := range [][2]string{{`"text"`, `"tool"`}, {`"tool"`, `"text"`}, {`"completed"`, `"error"`},
			{`"user"`, `"assistant"`}, {`"assistant"`, `"user"`}, {`"reasoning"`, `"compaction"`}, {`"text":"`, `"text":null,"x":"`}} {
			if rng.IntN(2) == 0 {
				s = strings.Replace(s, kv[0], kv[1], 1)
			}
		}
		return s
	case 3:
		vals := []string{`null`, `1e400`, `-1e400`, `1e300`, `-1`, `"1764000000"`, `[]`, `{}`, `"\ud800"`, `"` + strings.Repeat("x", 3000) + `"`, `true`}
		if i := strings.IndexByte(s, ':'); i >= 0 {
			j := i + 1 + strings.IndexAny(s[i+1:], ",}")
			if j > i {
				return s[:i+1] + vals[rng.IntN(len(vals))] + s[j:]
			}
		}
	case 4:
		return strings.ReplaceAll(s, `"created":`, `"created":"x`)
	case 5:
		times := []string{`1e400`, `1e300`, `-5`, `0`, `"1764000000"`, `9e15`}
		return timeField.ReplaceAllStringFunc(s, func(m string) string {
			return m[:strings.IndexByte(m, ':')+1] + times[rng.IntN(len(times))]
		})
	}
	return s
}

// TestRandomRows writes sessions whose message and part rows are the
// recorded ones, damaged at random (mutate), into a database of the real
// schema and reads them back: no read fails on a row's content (a
// malformed one is skipped), what is shown is valid text, and the
// record's message events are the conversation. It is a seeded random
// test rather than a fuzz target because every read goes through SQLite,
// whose own coverage varies from run to run: the fuzz engine would spend
// its time minimising that noise.
func TestRandomRows(t *testing.T) {
	msgRows, partRows := recordedRows(t)
	if len(msgRows) == 0 || len(partRows) == 0 {
		t.Fatal("no recorded rows")
	}
	rng := rand.New(rand.NewPCG(16, 8))
	dir := t.TempDir()
	w := newDB(t, dir)
	const sessions = 60
	for i := range sessions {
		sid := fmt.Sprintf("ses_%03d", i)
		at := t0.Add(time.Duration(i) * time.Minute)
		w.session(sess{id: sid, dir: "/work/p", created: at})
		for n := range 1 + rng.IntN(5) {
			var parts []string
			for range rng.IntN(5) {
				parts = append(parts, mutate(rng, partRows[rng.IntN(len(partRows))], partRows))
			}
			data := mutate(rng, msgRows[rng.IntN(len(msgRows))], msgRows)
			w.messageData(sid, n, at.Add(time.Duration(n)*time.Second), data, parts...)
		}
	}
	w.Close()
	ctx := context.Background()
	s := New(Options{DataDir: dir, KeepMissingCwd: true})
	infos, err := s.Scan(ctx, -1, nil)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	listed, flagged := map[string]bool{}, map[string]bool{}
	for _, in := range infos {
		listed[in.ID] = true
		flagged[in.ID] = in.Error != ""
		for _, v := range []string{in.Title, in.FirstPrompt, in.LastPrompt, in.Model, in.Cwd} {
			if !utf8.ValidString(v) {
				t.Errorf("%s: invalid UTF-8 %q", in.ID, v)
			}
		}
	}
	shown := 0
	for i := range sessions {
		sid := fmt.Sprintf("ses_%03d", i)
		conv, err := s.Conversation(ctx, sid)
		if err != nil {
			t.Fatalf("%s conversation: %v", sid, err)
		}
		for _, m := range conv {
			if m.Role != session.RoleUser && m.Role != session.RoleAssistant || m.Text == "" || !utf8.ValidString(m.Text) {
				t.Errorf("%s: bad message %+v", sid, m)
			}
		}
		evs, err := s.Events(ctx, sid)
		if err != nil {
			t.Fatalf("%s events: %v", sid, err)
		}
		for _, e := range evs {
			for _, v := range []string{e.Text, e.Tool, e.ToolID, e.Input} {
				if !utf8.ValidString(v) {
					t.Errorf("%s: invalid UTF-8 in event %+v", sid, e)
				}
			}
			if _, err := e.Time.MarshalJSON(); err != nil {
				t.Errorf("%s: event time %v cannot be shown: %v", sid, e.Time, err)
			}
		}
		if got := messagesOf(evs); !slices.Equal(got, conv) {
			t.Errorf("%s: messages of Events = %q, want Conversation %q", sid, convText(got), convText(conv))
		}
		shown += len(conv)
		prompted := slices.ContainsFunc(conv, func(m session.Message) bool { return m.Role == session.RoleUser })
		// A session is listed when it has a prompt, or when some of its
		// records could not be read: then with the error that says so.
		if listed[sid] != prompted && !flagged[sid] {
			t.Errorf("%s: listed %v, but its conversation has a prompt: %v", sid, listed[sid], prompted)
		}
	}
	if shown == 0 {
		t.Error("no session showed a message: the damage is too much to test anything")
	}
	t.Logf("%d sessions, %d messages shown", sessions, shown)
}

// FuzzColumnValues: a time column of any value is no time or one a page
// and the API can show (JSON holds years 0 to 9999 only), and a model
// column of any text names a model in valid text.
func FuzzColumnValues(f *testing.F) {
	f.Add("1764000000000", 1764000000.5, int64(1764000000000))
	f.Add("2026-11-29T21:26:26.123Z", math.Inf(1), int64(-1))
	f.Add(`{"id":"m","providerID":"p"}`, math.NaN(), int64(math.MaxInt64))
	f.Add(`{"id":"\ud800","providerID":7}`, -0.0, int64(99999999999))
	f.Fuzz(func(t *testing.T, s string, fl float64, n int64) {
		for _, v := range []any{s, []byte(s), fl, n} {
			if at := parseTime(v); !at.IsZero() {
				if _, err := at.MarshalJSON(); err != nil {
					t.Fatalf("parseTime(%v) = %v: %v", v, at, err)
				}
			}
		}
		if m := modelName(s); !utf8.ValidString(m) {
			t.Fatalf("modelName(%q) = %q", s, m)
		}
	})
}
