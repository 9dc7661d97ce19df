package cursor

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"paddock/internal/session"
)

// Bad input degrades per file: a broken meta.json or prompt history loses
// only what it would have said, never the scan, and a file that is no
// JSON is the chat's Error (JSON of another shape is not). SYNTHETIC
// files.
func TestBadInput(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	bad := []struct {
		id      string
		meta    string
		history string
		listed  bool
		err     string
	}{
		{id: "truncated-meta", meta: `{"title": "half`, listed: true, err: "its meta.json is not valid JSON"},
		{id: "array-meta", meta: `[1,2,3]`, history: `["still a prompt"]`, listed: true}, // prompts still list it
		{id: "huge-title", meta: `{"title": "` + string(make([]byte, 0)) + longText(5000) + `", "cwd": "` + proj + `"}`, listed: true},
		{id: "binary-meta", meta: "\x00\x01\x02", listed: true, err: "its meta.json is not valid JSON"},
		{id: "history-object", meta: `{"cwd": "` + proj + `"}`, history: `{"entries": [{"display": "typed"}, 5, null, {"text": ""}]}`, listed: true},
		{id: "history-garbage", meta: `{"cwd": "` + proj + `"}`, history: `{"not": "a list"}`, listed: true},
		{id: "history-broken", meta: `{"cwd": "` + proj + `"}`, history: `["a", `, listed: true, err: "its prompt_history.json is not valid JSON"},
		{id: "relative-cwd", meta: `{"cwd": "relative/dir", "title": "Rel"}`, listed: true},
		{id: "bad-times", meta: `{"createdAtMs": -5, "updatedAtMs": 1e300, "title": "T"}`, listed: true},
		{id: "seconds-time", meta: `{"createdAtMs": 1781256145, "updatedAtMs": "2026-06-12T10:02:25Z", "title": "S"}`, listed: true},
	}
	for _, b := range bad {
		dir := filepath.Join(root, "chats", wsOf(proj), b.id)
		writeFile(t, filepath.Join(dir, "meta.json"), []byte(b.meta))
		if b.history != "" {
			writeFile(t, filepath.Join(dir, "prompt_history.json"), []byte(b.history))
		}
	}
	s := New(Options{Dir: root})
	got := scanAll(t, s)
	for _, b := range bad {
		info, ok := got[b.id]
		if ok != b.listed {
			t.Errorf("%s: listed %v, want %v", b.id, ok, b.listed)
			continue
		}
		if ok {
			checkInfo(t, info)
		}
		if info.Error != b.err {
			t.Errorf("%s: Error %q, want %q", b.id, info.Error, b.err)
		}
	}
	if got["array-meta"].FirstPrompt != "still a prompt" || got["history-object"].FirstPrompt != "typed" {
		t.Errorf("prompts: %q, %q", got["array-meta"].FirstPrompt, got["history-object"].FirstPrompt)
	}
	// A relative cwd is no cwd; the folder's own (md5 of proj) names it.
	if got["relative-cwd"].Cwd != proj {
		t.Errorf("relative cwd: %q, want the workspace folder's %q", got["relative-cwd"].Cwd, proj)
	}
	if c := got["bad-times"].Created; !c.IsZero() {
		t.Errorf("bad-times: created %v", c)
	}
	if c := got["seconds-time"].Created; !c.Equal(time.UnixMilli(1781256145000)) {
		t.Errorf("seconds-time: created %v", c)
	}
	if n := len([]rune(got["huge-title"].Title)); n != maxTitleRunes {
		t.Errorf("huge title has %d runes", n)
	}
}

func longText(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}

// Message blobs of odd shapes never crash the preview and never show as
// text what is not (roles only user/assistant, no empty text).
func TestBlobMessageOddShapes(t *testing.T) {
	blobs := [][]byte{
		nil, {}, []byte("   "), []byte("{"), []byte(`{"role":"user"}`), []byte(`{"role":"user","content":null}`),
		[]byte(`{"role":"user","content":42}`), []byte(`{"role":"user","content":[null, 5, {"type":"text"}]}`),
		[]byte(`{"role":"assistant","content":[{"type":"reasoning","text":"secret"}]}`),
		[]byte(`{"role":"assistant","content":[{"type":"redacted-reasoning","data":"x"}]}`),
		[]byte(`{"role":"tool","content":"output"}`), []byte(`{"role":"system","content":"rules"}`),
		[]byte(`{"role":"user","content":"<user_info>only context</user_info>"}`),
		[]byte(`{"role":"user","content":"<unknown_tag>x</unknown_tag>"}`),
		[]byte(`{"role":"user","content":"<user_query>   </user_query>"}`),
		{0x0a, 0x20}, {0x12, 0x00},
	}
	for _, b := range blobs {
		if m, ok := blobMessage(b); ok {
			t.Errorf("%q gave %+v", b, m)
		}
	}
	m, ok := blobMessage([]byte(`{"role":"user","content":"<user_info>x</user_info>\n<user_query>a</user_query>\n<user_query>b</user_query>"}`))
	if !ok || m != (session.Message{Role: session.RoleUser, Text: "a\nb"}) {
		t.Errorf("two queries: %+v", m)
	}
}

// protoBytes never panics on malformed input and keeps what it read.
func TestProtoBytes(t *testing.T) {
	id := make([]byte, 32)
	good := pbBytes(1, id)
	cases := [][]byte{nil, {0xff}, {0x0a}, {0x0a, 0xff, 0xff}, append(append([]byte{}, good...), 0x0a, 0x40, 1), {0x0b}, {0x09, 1, 2}, {0x0d, 1}}
	for _, c := range cases {
		protoBytes(c, 1)
	}
	if got := protoBytes(append(append([]byte{}, good...), 0x0a, 0x40, 1), 1); len(got) != 1 {
		t.Errorf("kept %d values before the malformed one, want 1", len(got))
	}
}

// A chat folder removed between the stat pass and the read is skipped, and
// Conversation of a vanished store is "not found".
func TestVanishingChat(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	dir := writeChat(t, root, chatSpec{id: "gone", cwd: proj, meta: map[string]any{"cwd": proj},
		store: &storeSpec{meta: map[string]any{"agentId": "gone"}}})
	s := New(Options{Dir: root})
	if len(scanAll(t, s)) != 1 {
		t.Fatal("not listed")
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if len(scanAll(t, s)) != 0 {
		t.Error("still listed after removal")
	}
	if _, err := s.Conversation(context.Background(), "gone"); err != session.ErrNotFound {
		t.Errorf("Conversation after removal: %v", err)
	}
}
