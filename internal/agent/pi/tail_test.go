package pi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
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

// tailCase is one session file for the tail property.
type tailCase struct {
	name string
	data string
}

// TestTailMatchesConversation is the tail read's contract, over every
// file the package's tests read (pi-mono's, agentsview's and deja-vu's
// fixtures, the proving ground's agent dir, the recordings, the synthetic
// and bad-input files, a long worked-on session) and generated trees with
// rewinds, torn lines, reused ids and cycles: for every page size and
// window, the tail is exactly the end of the full parse, complete says
// whether it is all of it, and a file that is no session fails alike.
func TestTailMatchesConversation(t *testing.T) {
	var cases []historytest.TailCase
	for _, c := range slices.Concat(fixtureTailCases(t), syntheticTailCases(t), randomTailCases(40)) {
		cases = append(cases, historytest.TailCase{Name: c.name, Data: []byte(c.data)})
	}
	tailer().Files(t, cases, history.FirstWindow, maxLineBytes)
}

// tailer is the tail property's two reads of a file, whole and from its
// end.
func tailer() historytest.Tailer {
	ctx := context.Background()
	return historytest.Tailer{
		Full: func(path string) ([]session.Message, error) {
			msgs, _, err := conversation(ctx, path)
			return msgs, err
		},
		Tail: func(path string, n int, window int64) (*historytest.TailRead, error) {
			tl, err := tailFile(ctx, path, n, window)
			if tl == nil {
				return nil, err
			}
			return &historytest.TailRead{Msgs: tl.msgs, Complete: tl.complete, Read: tl.read}, err
		},
		// Not each byte once: the header is read first on its own.
	}
}

// fixtureTailCases returns every .jsonl of the shared Pi fixtures (when
// ../shared is there) and of the repository's recordings.
func fixtureTailCases(t *testing.T) []tailCase {
	t.Helper()
	var roots []string
	if sharedPresent() {
		roots = append(roots, sharedtest.Fixtures(t, "public", "pi"), sharedtest.Fixtures(t, "real", "pi-0.73.1"))
	}
	roots = append(roots, piRecordings(t)...)
	var out []tailCase
	for _, path := range historytest.JSONLFiles(t, roots...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tailCase{path, string(data)})
	}
	return out
}

// sharedPresent reports whether ../shared is there, or must be
// (SHARED_REQUIRED=1, when sharedtest fails the test instead).
func sharedPresent() bool {
	if os.Getenv("SHARED_REQUIRED") == "1" {
		return true
	}
	st, err := os.Stat(filepath.Join("..", "..", "..", "..", "shared", "fixtures"))
	return err == nil && st.IsDir()
}

// syntheticTailCases are the shapes the other tests write (branches, torn
// lines, cycles, v1, nulls, roles, bad lines, files that are no session)
// and the ones that stress a window's edge: a rewind far back, a page
// exactly the size of the conversation, a torn line before the page.
func syntheticTailCases(t *testing.T) []tailCase {
	// turns is a linear run of k prompts and answers after parent, ids
	// prefixed p, with a tool result and a model change in each turn.
	turns := func(p, parent string, k int) string {
		var b strings.Builder
		for i := range k {
			u, a, r, m := fmt.Sprintf("%su%d", p, i), fmt.Sprintf("%sa%d", p, i), fmt.Sprintf("%sr%d", p, i), fmt.Sprintf("%sm%d", p, i)
			b.WriteString(msgLine(u, parent, "user", fmt.Sprintf("%s prompt %d", p, i), i))
			b.WriteString(jsonLine(map[string]any{"type": "message", "id": r, "parentId": u, "timestamp": ts(i),
				"message": map[string]any{"role": "toolResult", "toolCallId": "c", "content": []any{map[string]any{"type": "text", "text": "out"}}}}))
			b.WriteString(jsonLine(map[string]any{"type": "model_change", "id": m, "parentId": r, "timestamp": ts(i), "modelId": "mock"}))
			b.WriteString(msgLine(a, m, "assistant", fmt.Sprintf("%s answer %d", p, i), i))
			parent = a
		}
		return b.String()
	}
	// bookkeeping is k entries of the tree without messages.
	bookkeeping := func(p, parent string, k int) string {
		var b strings.Builder
		for i := range k {
			id := fmt.Sprintf("%s%d", p, i)
			b.WriteString(jsonLine(map[string]any{"type": "label", "id": id, "parentId": parent, "timestamp": ts(i), "label": strings.Repeat("l", 150)}))
			parent = id
		}
		return b.String()
	}
	h := headerLine("tail", proj, 0)
	cases := []tailCase{
		{"chat", chat("c", proj, 0, "one", "two", "three")},
		{"branched", h + jsonLine(map[string]any{"type": "model_change", "id": "m0", "parentId": nil, "timestamp": ts(0), "modelId": "mock-model"}) +
			msgLine("u1", "m0", "user", "shared start", 1) + msgLine("a1", "u1", "assistant", "shared answer", 2) +
			msgLine("u2", "a1", "user", "abandoned prompt", 3) + msgLine("a2", "u2", "assistant", "abandoned answer", 4) +
			jsonLine(map[string]any{"type": "branch_summary", "id": "b1", "parentId": "a1", "timestamp": ts(5), "fromId": "a2", "summary": "left"}) +
			msgLine("u3", "b1", "user", "current prompt", 6) + msgLine("a3", "u3", "assistant", "current answer", 7) +
			jsonLine(map[string]any{"type": "label", "id": "l1", "parentId": "a3", "timestamp": ts(8), "label": "bookmark"})},
		// The user went back to the start after a long first branch.
		{"rewind far back", h + turns("r", "", 1) + turns("old", "ra0", 20) + turns("new", "ra0", 2)},
		{"rewind near the end", h + turns("a", "", 20) + turns("b", "aa19", 3) + turns("c", "aa19", 2)},
		{"torn far back", h + turns("a", "", 10) + `{"type":"message","id":"t","parentId":"aa9","timest` + "\n" + turns("b", "t", 10)},
		{"torn near the end", h + turns("a", "", 10) + `{"type":"message","id":"t","parentId":"aa9","timest` + "\n" + turns("b", "t", 1)},
		{"cycle", h + msgLine("u1", "a1", "user", "in a loop", 1) + msgLine("a1", "u1", "assistant", "loop answer", 2)},
		{"cycle at the end", h + turns("a", "", 10) + msgLine("x1", "x2", "user", "loop", 1) + msgLine("x2", "x1", "assistant", "loop answer", 2)},
		// An id written again late: its parent lookups go to the late one.
		{"reused id", h + turns("a", "", 6) + msgLine("au2", "aa5", "user", "au2 again", 7) + turns("b", "au3", 3)},
		// A parent written after its child.
		{"forward parent", h + msgLine("f1", "f9", "user", "child first", 0) + turns("a", "f1", 6) + msgLine("f9", "", "user", "parent last", 7) + turns("b", "aa5", 2)},
		{"no ids at the end", h + turns("a", "", 5) + msgLine("", "", "user", "an id-less prompt", 6) + msgLine("", "", "assistant", "an id-less answer", 6)},
		{"bookkeeping at the end", h + turns("a", "", 5) + bookkeeping("k", "aa4", 30)},
		{"only the header", h},
		{"header and blank lines", h + "\n\n \n"},
		{"nulls", `{"type":"session","version":3,"id":"nulls","timestamp":null,"cwd":null}` + "\n" +
			`{"type":null,"id":"n0","parentId":null,"timestamp":null}` + "\n" +
			`{"type":"message","id":"n1","parentId":"n0","message":null}` + "\n" +
			`{"type":"message","id":"n2","parentId":"n1","message":{"role":null,"content":"x"}}` + "\n" +
			`{"type":"message","id":"n3","parentId":"n2","message":{"role":"user","content":null}}` + "\n" +
			`{"type":"message","id":"n4","parentId":"n3","message":{"role":"user","content":[null,{"type":"text","text":null},{"type":"text","text":"real prompt"}]}}` + "\n" +
			`{"type":"message","id":"n5","parentId":"n4","message":{"role":"assistant","content":[{"type":"text","text":"real answer"}],"model":null}}` + "\n" +
			`{"type":"message","id":"n8","parentId":"n5","timestamp":"not a time","message":{"role":"assistant","content":"string answer","timestamp":"x"}}` + "\n"},
		{"bad lines", headerLine("bad", proj, 0) + msgLine("u1", "", "user", "first", 1) + "not json at all\n[1,2,3]\n\n" +
			`{"type":"message","id":"x","parentId":` + "\n" +
			`{"type":"message","id":"big","parentId":"u1","message":{"role":"user","content":"` + strings.Repeat("x", maxLineBytes+10) + `"}}` + "\n" +
			msgLine("a1", "u1", "assistant", "answer one", 3) +
			strings.Replace(msgLine("u2", "a1", "user", "caf@ bad bytes", 4), "caf@", "caf\xe9", 1) +
			strings.ReplaceAll(msgLine("a2", "u2", "assistant", "crlf answer", 5), "\n", "\r\n") +
			`{"type":"message","id":"u3","parentId":"a2","timestamp":"` + ts(6) + `","message":{"role":"user","content":"torn last`},
		{"v1", `{"type":"session","id":"v1-session","timestamp":"` + ts(0) + `","cwd":"/p"}` + "\n" + func() string {
			var b strings.Builder
			for i := range 30 {
				role := []string{"user", "assistant", "toolResult"}[i%3]
				b.WriteString(jsonLine(map[string]any{"type": "message", "timestamp": ts(i), "message": map[string]any{"role": role, "content": fmt.Sprintf("v1 %s %d", role, i)}}))
			}
			return b.String()
		}()},
		// Files whose first line is no usable header: no session, however
		// much of a conversation follows.
		{"no header", turns("a", "", 5)},
		{"header later", "\n" + h + turns("a", "", 5)},
		{"null id", `{"type":"session","version":3,"id":null}` + "\n" + turns("a", "", 5)},
		{"torn header", `{"type":"session","version":3,"id":"torn"`},
		{"empty", ""},
		{"long header", headerLine("long-header", strings.Repeat("/d", 4<<10), 0) + turns("a", "", 10)},
	}
	// A page exactly the size of the conversation: the window holds all
	// of it, and only the root (here behind a run of bookkeeping) shows
	// that nothing comes before.
	for _, k := range []int{1, 2, 3, 5} {
		var b strings.Builder
		parent := "k9"
		for i := range k {
			id := fmt.Sprintf("e%d", i)
			b.WriteString(msgLine(id, parent, []string{"user", "assistant"}[i%2], fmt.Sprintf("message %d", i), i))
			parent = id
		}
		cases = append(cases, tailCase{fmt.Sprintf("exactly %d after bookkeeping", k), h + bookkeeping("k", "", 10) + b.String()})
	}
	data, err := os.ReadFile(longSession(t, 300<<10))
	if err != nil {
		t.Fatal(err)
	}
	return append(cases, tailCase{"long worked-on session", string(data)})
}

// randomTailCases generates k session files of random shape: prompts and
// answers, tool results, bookkeeping entries, rewinds to any earlier
// entry, parents that are torn away, written later or reused, id-less
// entries, bad and blank lines, CRLF.
func randomTailCases(k int) []tailCase {
	var out []tailCase
	for seed := range k {
		r := rand.New(rand.NewPCG(uint64(seed), 77))
		var b strings.Builder
		b.WriteString(headerLine(fmt.Sprintf("random-%d", seed), proj, 0))
		var ids []string
		last, next := "", 0
		for i := range 20 + r.IntN(200) {
			parent := last
			switch x := r.IntN(100); {
			case x < 6 && len(ids) > 0:
				parent = ids[r.IntN(len(ids))] // a rewind
			case x < 8:
				parent = ""
			case x < 10:
				parent = fmt.Sprintf("gone%d", i) // its line was torn
			case x < 12:
				parent = fmt.Sprintf("e%d", next+1+r.IntN(5)) // written later
			}
			next++
			id := fmt.Sprintf("e%d", next)
			if x := r.IntN(100); x < 3 && len(ids) > 0 {
				id = ids[r.IntN(len(ids))] // reused
			} else if x < 6 {
				id = ""
			}
			var l string
			switch x := r.IntN(100); {
			case x < 30:
				l = msgLine(id, parent, "user", fmt.Sprintf("prompt %d", i), i)
			case x < 60:
				l = msgLine(id, parent, "assistant", fmt.Sprintf("answer %d", i), i)
			case x < 70:
				l = jsonLine(map[string]any{"type": "message", "id": id, "parentId": parent, "timestamp": ts(i),
					"message": map[string]any{"role": "toolResult", "content": "out"}})
			case x < 80:
				l = jsonLine(map[string]any{"type": "model_change", "id": id, "parentId": parent, "timestamp": ts(i), "modelId": "m"})
			case x < 84:
				l = "{not json\n"
				id = ""
			case x < 87:
				l = "\n"
				id = ""
			case x < 90:
				l = strings.Replace(msgLine(id, parent, "user", fmt.Sprintf("crlf %d", i), i), "\n", "\r\n", 1)
			default:
				l = nameLine(id, parent, "name", i)
			}
			if id == "" && strings.Contains(l, `"id":""`) {
				l = strings.Replace(l, `"id":"",`, "", 1)
			}
			b.WriteString(l)
			if id != "" {
				ids = append(ids, id)
				last = id
			}
		}
		out = append(out, tailCase{fmt.Sprintf("random %d", seed), b.String()})
	}
	return out
}

// TestTailConversation is the Scanner's tail read: the end of a session
// through the public method, and Conversation's errors.
func TestTailConversation(t *testing.T) {
	agent := t.TempDir()
	writeChat(t, agent, "s1", proj, 0, "one", "two", "three")
	writeFile(t, filepath.Join(agent, "sessions", "--home-u-proj--", "x_empty.jsonl"), headerLine("empty", proj, 0))
	s := newTestScanner(agent)
	ctx := context.Background()
	all, err := s.Conversation(ctx, "s1")
	if err != nil || len(all) != 6 {
		t.Fatalf("Conversation = %d messages, %v", len(all), err)
	}
	historytest.CheckTailConversation(t, s.TailConversation, "s1", all, []int{-1, 0, 1, 5, 6, 7})
	historytest.CheckTailErrors(t, s.TailConversation, "s1", []string{"missing", "../s1", ""}, "empty")
}

// TestTailReadsLittle writes a long linear session: its newest page must
// come from a small window at the end, not from reading the file.
func TestTailReadsLittle(t *testing.T) {
	tailer().ReadsLittle(t, bigSession(t, 8<<20), history.FirstWindow)
}

// BenchmarkTail50MB reads the first page (the newest 50 messages) of the
// 50 MB session BenchmarkBigSession50MB loads whole.
func BenchmarkTail50MB(b *testing.B) {
	path := bigSession(b, 50<<20)
	ctx := context.Background()
	var tl *tailRead
	for b.Loop() {
		var err error
		if tl, err = tailFile(ctx, path, 50, history.FirstWindow); err != nil || len(tl.msgs) != 50 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(tl.read)/(1<<10), "KiB-read")
}
