package claude

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"paddock/internal/catalog"
	"paddock/internal/history"
	"paddock/internal/history/historytest"
	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
)

// The catalog reads a first page through this.
var _ catalog.TailReader = (*Scanner)(nil)

// TestTailMatchesConversation is the tail read's contract, over every
// transcript the package's tests read (the shared fixtures, subagent files
// included; the recordings; the synthetic, bad-input and benchmark
// transcripts) and generated trees with rewinds, compaction, split
// answers, duplicates and cycles: for every page size and window, the tail
// is exactly the end of the full parse, and complete says whether it is
// all of it.
func TestTailMatchesConversation(t *testing.T) {
	var cases []historytest.TailCase
	for _, c := range slices.Concat(fixtureTailCases(t), syntheticTailCases(), randomTailCases(40)) {
		cases = append(cases, historytest.TailCase{Name: c.name, Data: c.data})
	}
	tailer(t).Files(t, cases, history.FirstWindow, maxLineBytes)
}

// tailer is the tail property's two reads of a transcript, whole and from
// its end. Every transcript checked reads whole.
func tailer(t testing.TB) historytest.Tailer {
	ctx := context.Background()
	return historytest.Tailer{
		Full: func(path string) ([]session.Message, error) {
			msgs, _, err := conversation(ctx, path)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return msgs, nil
		},
		Tail: func(path string, n int, window int64) (*historytest.TailRead, error) {
			tl, err := tailFile(ctx, path, n, window)
			if tl == nil {
				return nil, err
			}
			return &historytest.TailRead{Msgs: tl.msgs, Complete: tl.complete, Read: tl.read}, err
		},
		EachByteOnce: true,
	}
}

// tailCase is one transcript for the tail property.
type tailCase struct {
	name string
	data []byte
}

// fixtureTailCases returns every .jsonl of the shared Claude fixtures
// (when ../shared is there) and of the repository's recordings.
func fixtureTailCases(t *testing.T) []tailCase {
	t.Helper()
	var roots []string
	if sharedPresent() || os.Getenv("SHARED_REQUIRED") == "1" {
		for _, r := range fixtureRoots {
			roots = append(roots, sharedtest.Fixtures(t, filepath.FromSlash(r)))
		}
	}
	roots = append(roots, claudeRecordings(t)...)
	var out []tailCase
	for _, path := range historytest.JSONLFiles(t, roots...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tailCase{path, data})
	}
	return out
}

// syntheticTailCases are the shapes the other tests write (split answers,
// compaction, rewinds, bad lines) and the ones that stress a window's
// edge: a fork far back, records that reach no branch, duplicate uuids,
// parents written after their children, cycles.
func syntheticTailCases() []tailCase {
	split := func(uuid, parent, msgID, text string) string {
		return line(map[string]any{"type": "assistant", "uuid": uuid, "parentUuid": nullable(parent),
			"message": map[string]any{"id": msgID, "role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}}})
	}
	toolUse := func(uuid, parent, msgID string) string {
		return line(map[string]any{"type": "assistant", "uuid": uuid, "parentUuid": parent,
			"message": map[string]any{"id": msgID, "role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t", "name": "Bash"}}}})
	}
	result := func(uuid, parent string) string {
		return line(map[string]any{"type": "user", "uuid": uuid, "parentUuid": parent, "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t", "content": strings.Repeat("out ", 20)}}}})
	}
	system := func(uuid, parent string) string {
		return line(map[string]any{"type": "system", "uuid": uuid, "parentUuid": nullable(parent), "subtype": "turn_duration"})
	}
	join := func(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }
	// long is a linear conversation of k turns after parent, uuids
	// prefixed p, each answer split over three lines.
	long := func(p, parent string, k int) []string {
		var out []string
		for i := range k {
			u, a, b, r, c := fmt.Sprintf("%su%d", p, i), fmt.Sprintf("%sa%d", p, i), fmt.Sprintf("%sb%d", p, i), fmt.Sprintf("%sr%d", p, i), fmt.Sprintf("%sc%d", p, i)
			id := fmt.Sprintf("msg_%s%d", p, i)
			out = append(out, user(u, parent, fmt.Sprintf("%s prompt %d", p, i), i),
				split(a, u, id, fmt.Sprintf("%s first part %d", p, i)), toolUse(b, a, id), result(r, b),
				split(c, r, id, fmt.Sprintf("%s second part %d", p, i)))
			parent = c
		}
		return out
	}
	huge := user("big", "m", strings.Repeat("x", maxLineBytes+10), 1)
	cases := []tailCase{
		{"split answers", join(
			user("u1", "", "explain", 0),
			split("a1", "u1", "m1", "\n\n"), toolUse("a2", "a1", "m1"), split("a3", "a2", "m1", "Part one."),
			result("r1", "a3"), split("a5", "r1", "m1", "Part two."), split("a6", "a5", "m2", "A new message."),
		)},
		{"compaction", join(
			user("u1", "", "old question", 0), answer("a1", "u1", "old answer", 1),
			user("x1", "a1", "abandoned question", 2), user("u2", "a1", "edited question", 3),
			line(map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": "cb", "parentUuid": nil, "logicalParentUuid": "u2"}),
			user("cs", "cb", "This session is being continued from a previous conversation.", 4, "isCompactSummary", true),
			user("u3", "cs", "new question", 5), answer("a3", "u3", "new answer", 6),
		)},
		// The user rewound to the start after a long first branch: every
		// record of it is abandoned, decided only at the file's start.
		{"fork far back", join(slices.Concat(
			[]string{user("r0", "", "root prompt", 0), answer("ra", "r0", "root answer", 0)},
			long("old", "ra", 20), long("new", "ra", 20))...)},
		// A rewind near the end: the abandoned branch and its fork point
		// are both in a small window.
		{"fork near the end", join(slices.Concat(
			long("a", "", 20), long("b", "ac19", 3), long("c", "ac19", 3))...)},
		// Records whose chain reaches no branch are kept in file order.
		{"kept off the branch", join(slices.Concat(
			long("a", "", 5),
			[]string{user("o1", "", "an orphan root", 5), user("o2", "elsewhere", "a parent from another file", 5),
				line(map[string]any{"type": "user", "message": map[string]any{"content": "no uuid at all"}})},
			long("b", "ac4", 5))...)},
		// The last records continue a parent from another file.
		{"resumed from elsewhere", join(long("a", "other-file", 8)...)},
		// A uuid written twice: the last line's parent counts.
		{"duplicate uuids", join(slices.Concat(
			long("a", "", 6),
			[]string{user("au2", "ac5", "au2 again, moved to the end", 6)},
			long("b", "au2", 4))...)},
		// A parent written after its child, and a cycle through both.
		{"forward parents", join(slices.Concat(
			[]string{user("f1", "f3", "child first", 0), answer("f2", "f1", "middle", 0)},
			long("a", "", 6),
			[]string{user("f3", "ac5", "parent last", 6)},
			long("b", "f2", 4))...)},
		{"cycle", join(slices.Concat(
			[]string{user("c1", "c2", "in a loop", 0), answer("c2", "c1", "loop answer", 1)},
			long("a", "c2", 6))...)},
		{"sidechains and meta", join(slices.Concat(
			long("a", "", 4),
			[]string{
				user("s1", "ac3", "sidechain prompt", 4, "isSidechain", true),
				answer("s2", "s1", "sidechain answer", 4, "isSidechain", true),
				user("m1", "ac3", "<command-name>/model</command-name>", 4),
				user("m2", "m1", "meta text", 4, "isMeta", true),
				user("m3", "m2", "from a hook", 4, "origin", map[string]any{"kind": "hook"}),
				system("y1", "m3"),
			},
			long("b", "y1", 3))...)},
		{"only bookkeeping at the end", join(slices.Concat(
			long("a", "", 6),
			[]string{meta("custom-title", "customTitle", "a title"), meta("last-prompt", "lastPrompt", "x"), system("z1", "ac5"), system("z2", "z1")})...)},
		{"no messages", join(system("s1", ""), system("s2", "s1"), meta("summary", "summary", "x"))},
		{"empty", nil},
		{"blank lines", []byte("\n\n  \n")},
		{"10 MB line", join(slices.Concat(long("a", "", 3), []string{huge}, long("b", "ac2", 3))...)},
		{"truncated last line", append(join(long("a", "", 4)...), `{"type":"user","uuid":"u2","message":{"content":"cut of`...)},
		{"CRLF and blank lines", []byte(strings.Join(long("a", "", 5), "\r\n\r\n\n") + "\r\n")},
		{"lines that are not objects", join(slices.Concat(
			[]string{`"massive error"`, "42", "[1]", "null", `{"silly": "this"}`},
			long("a", "", 3), []string{"{not json}"}, long("b", "ac2", 2))...)},
		{"invalid UTF-8", join(slices.Concat(long("a", "", 3), []string{
			`{"type":"user","uuid":"v1","parentUuid":"ac2","message":{"content":"caf` + "\xe9 \xff\xfe" + ` ok"}}`,
			`{"type":"user","uuid":"v2","parentUuid":"v1","message":{"content":"lone \ud800 surrogate"}}`,
		})...)},
		{"nulls and wrong types", join(slices.Concat(long("a", "", 3), []string{
			`{"type":null,"uuid":null,"parentUuid":null,"logicalParentUuid":null,"isMeta":null,"message":null}`,
			`{"type":"user","uuid":null,"parentUuid":null,"message":{"role":null,"content":null,"id":null}}`,
			`{"type":"assistant","message":{"id":null,"content":[{"type":"text","text":null},null]}}`,
			`{"type":"user","timestamp":12345,"isSidechain":"yes","origin":"human","message":{"content":"typed"}}`,
			`{"type":"assistant","uuid":"w1","parentUuid":"ac2","message":{"id":42,"content":[{"type":"text","text":"numeric id"}]}}`,
		}, long("b", "w1", 2))...)},
	}
	// A page exactly the size of the conversation: the window holds all
	// of it and the file's start nothing more, which only reading that
	// start can show (complete). Before the last k messages, a prompt that
	// is abandoned only as far as the file's start shows.
	for _, k := range []int{1, 2, 3, 5} {
		var msgs, rewound []string
		parent := "s2"
		for i := range k {
			u := fmt.Sprintf("m%d", i)
			if i%2 == 0 {
				msgs = append(msgs, user(u, parent, fmt.Sprintf("prompt %d", i), i))
			} else {
				msgs = append(msgs, answer(u, parent, fmt.Sprintf("answer %d", i), i))
			}
			parent = u
		}
		rewound = append(rewound, user("x", "s1", "abandoned prompt", 0))
		cases = append(cases,
			tailCase{fmt.Sprintf("exactly %d after bookkeeping", k), join(slices.Concat(preamble(8), []string{system("s1", ""), system("s2", "s1")}, msgs)...)},
			tailCase{fmt.Sprintf("exactly %d after an abandoned prompt", k), join(slices.Concat(
				preamble(8), []string{system("s1", ""), system("s2", "s1")}, preamble(4), rewound, msgs)...)})
	}
	// The branch leaves the window and comes back into it: e, written
	// first, names x, written late, as its parent. m hangs off x, so it is
	// abandoned, but inside a window without e it looks like a record
	// whose chain ends at a root without meeting the branch.
	cases = append(cases, tailCase{"branch comes back into the window", join(slices.Concat(
		[]string{user("e", "x", "early prompt", 0)},
		long("a", "e", 10),
		[]string{system("x", ""), user("m", "x", "abandoned under x", 9)},
		long("b", "ac9", 1))...)})
	for _, src := range syntheticSources() {
		cases = append(cases, tailCase{"benchmark source " + src.id, src.data})
	}
	return cases
}

// preamble is k bookkeeping lines outside the tree, about 200 bytes each,
// like the snapshots and request shapes Claude writes between turns.
func preamble(k int) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = line(map[string]any{"type": "file-history-snapshot", "messageId": fmt.Sprint(i), "snapshot": strings.Repeat("s", 150)})
	}
	return out
}

// randomTailCases generates k transcripts of random shape: prompts,
// answers split over lines (sometimes around a rewind), tool results,
// rewinds to any earlier record, compactions, sidechains, duplicates,
// parents from nowhere, forward parents, records without uuids, bad lines.
func randomTailCases(k int) []tailCase {
	var out []tailCase
	for seed := range k {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		var lines, uuids []string
		leaf := ""
		next := 0
		newID := func() string { next++; return fmt.Sprintf("id%d", next) }
		pick := func() string {
			if len(uuids) == 0 {
				return ""
			}
			return uuids[r.IntN(len(uuids))]
		}
		msgID := "msg_0"
		steps := 20 + r.IntN(200)
		for i := range steps {
			parent := leaf
			switch x := r.IntN(100); {
			case x < 6:
				parent = pick() // a rewind
			case x < 8:
				parent = ""
			case x < 9:
				parent = "nowhere"
			case x < 10:
				parent = fmt.Sprintf("id%d", next+1+r.IntN(5)) // written later
			}
			u := newID()
			var l string
			switch x := r.IntN(100); {
			case x < 25:
				l = user(u, parent, fmt.Sprintf("prompt %d", i), i)
			case x < 50:
				if r.IntN(3) > 0 {
					msgID = fmt.Sprintf("msg_%d", i)
				}
				l = line(map[string]any{"type": "assistant", "uuid": u, "parentUuid": nullable(parent),
					"message": map[string]any{"id": msgID, "role": "assistant", "content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("answer %d", i)}}}})
			case x < 60:
				l = line(map[string]any{"type": "assistant", "uuid": u, "parentUuid": nullable(parent),
					"message": map[string]any{"id": msgID, "role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t", "name": "Bash"}}}})
			case x < 68:
				l = line(map[string]any{"type": "user", "uuid": u, "parentUuid": nullable(parent), "message": map[string]any{"role": "user",
					"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t", "content": "ok"}}}})
			case x < 75:
				l = line(map[string]any{"type": "system", "uuid": u, "parentUuid": nullable(parent), "subtype": "turn_duration"})
			case x < 78:
				l = line(map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": u, "parentUuid": nil, "logicalParentUuid": nullable(parent)})
			case x < 82:
				l = user(u, parent, fmt.Sprintf("sidechain %d", i), i, "isSidechain", true)
			case x < 85:
				l = line(map[string]any{"type": "user", "message": map[string]any{"content": fmt.Sprintf("no uuid %d", i)}})
				u = ""
			case x < 88 && len(lines) > 0:
				l = lines[r.IntN(len(lines))] // a duplicate line
				u = ""
			case x < 90:
				l = "{not json"
				u = ""
			case x < 93:
				l = meta("custom-title", "customTitle", "t")
				u = ""
			default:
				l = answer(u, parent, fmt.Sprintf("whole answer %d", i), i)
			}
			lines = append(lines, l)
			if u != "" {
				uuids = append(uuids, u)
				if r.IntN(10) > 0 {
					leaf = u
				}
			}
		}
		out = append(out, tailCase{fmt.Sprintf("random %d", seed), []byte(strings.Join(lines, "\n") + "\n")})
	}
	return out
}

// TestTailConversation is the Scanner's tail read: the fixtures' ends
// through the public method, and Conversation's errors.
func TestTailConversation(t *testing.T) {
	dir := t.TempDir()
	writeSession(t, dir, "p", "s1", threeTurns()...)
	s := New(Options{Dir: dir})
	ctx := context.Background()
	all, err := s.Conversation(ctx, "s1")
	if err != nil || len(all) != 6 {
		t.Fatalf("Conversation = %d messages, %v", len(all), err)
	}
	historytest.CheckTailConversation(t, s.TailConversation, "s1", all, []int{-1, 0, 1, 5, 6, 7})
	writeSession(t, dir, "p", "empty")
	historytest.CheckTailErrors(t, s.TailConversation, "s1", []string{"missing", "../p/s1", ""}, "empty")
}

func threeTurns() []string {
	return []string{
		user("u1", "", "one", 0), answer("a1", "u1", "reply one", 1),
		user("u2", "a1", "two", 2), answer("a2", "u2", "reply two", 3),
		user("u3", "a2", "three", 4), answer("a3", "u3", "reply three", 5),
	}
}

// TestTailReadsLittle grows a recorded session to 8 MB: its newest page
// must come from a small window at the end, not from reading the file.
func TestTailReadsLittle(t *testing.T) {
	tailer(t).ReadsLittle(t, grownTranscript(t, 8<<20), history.FirstWindow)
}

// BenchmarkTail50MB reads the first page (the newest 50 messages) of a
// recorded session grown to 50 MB, and for comparison its whole
// conversation.
func BenchmarkTail50MB(b *testing.B) {
	path := grownTranscript(b, 50<<20)
	ctx := context.Background()
	b.Run("tail", func(b *testing.B) {
		var tl *tailRead
		for b.Loop() {
			var err error
			if tl, err = tailFile(ctx, path, 50, history.FirstWindow); err != nil || len(tl.msgs) != 50 {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(tl.read)/(1<<10), "KiB-read")
	})
	b.Run("conversation", func(b *testing.B) {
		for b.Loop() {
			if msgs, _, err := conversation(ctx, path); err != nil || len(msgs) < 50 {
				b.Fatal(err)
			}
		}
	})
}

var (
	uuidPattern   = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	mockIDPattern = regexp.MustCompile(`(msg|toolu)_mock_\d+`)
)

// grownTranscript writes the recording of a session with tool calls
// (testdata/claude-*, 6acb7d34) repeated to about size bytes: each copy
// with its own uuids and message ids, its root prompt parented to the
// previous copy's last record, so the file is one long conversation (as
// internal/runtimes grows it for BenchmarkPreview50MB).
func grownTranscript(tb testing.TB, size int) string {
	tb.Helper()
	paths, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "claude-*", "claude", "projects", "*", "6acb7d34-*.jsonl"))
	if len(paths) == 0 {
		tb.Fatal("no recorded 6acb7d34 transcript in testdata/ (make fixtures)")
	}
	src, err := os.ReadFile(paths[0])
	if err != nil {
		tb.Fatal(err)
	}
	sessionID := strings.TrimSuffix(filepath.Base(paths[0]), ".jsonl")
	// What copy k rewrites, found once: each uuid gets k as its first 8
	// hex digits, each mock id _k after it, and the root's null parent
	// the previous copy's last record.
	type edit struct {
		start, end int
		kind       byte // 'u'uid, 'm'ock id, 'r'oot
	}
	var edits []edit
	for _, m := range uuidPattern.FindAllIndex(src, -1) {
		if string(src[m[0]:m[1]]) != sessionID {
			edits = append(edits, edit{m[0], m[1], 'u'})
		}
	}
	for _, m := range mockIDPattern.FindAllIndex(src, -1) {
		edits = append(edits, edit{m[0], m[1], 'm'})
	}
	if i := bytes.Index(src, []byte(`"parentUuid":null`)); i >= 0 {
		edits = append(edits, edit{i, i + len(`"parentUuid":null`), 'r'})
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	last := "" // the recording's last record
	for l := range bytes.Lines(src) {
		if r, err := parseLine(bytes.TrimSpace(l)); err == nil && r.UUID != "" {
			last = r.UUID
		}
	}
	var out bytes.Buffer
	out.Write(src)
	for k := 1; out.Len() < size; k++ {
		pos := 0
		for _, e := range edits {
			out.Write(src[pos:e.start])
			switch e.kind {
			case 'u':
				fmt.Fprintf(&out, "%08x%s", k, src[e.start+8:e.end])
			case 'm':
				fmt.Fprintf(&out, "%s_%d", src[e.start:e.end], k)
			case 'r':
				prev := last
				if k > 1 {
					prev = fmt.Sprintf("%08x%s", k-1, last[8:])
				}
				fmt.Fprintf(&out, `"parentUuid":%q`, prev)
			}
			pos = e.end
		}
		out.Write(src[pos:])
	}
	path := filepath.Join(tb.TempDir(), "grown.jsonl")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}
