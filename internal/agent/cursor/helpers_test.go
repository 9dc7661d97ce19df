package cursor

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"paddock/internal/session"
)

// Everything in this file builds SYNTHETIC Cursor trees: no real chats/
// sample exists. The shapes follow what third-party readers of Cursor's
// files document and their fixture builders: meta.json {schemaVersion, createdAtMs, updatedAtMs,
// hasConversation, isSubagent, title, cwd}; store.db with meta(key, value)
// holding hex JSON in row "0" and blobs(id, data) keyed by the hex SHA-256
// of data; a protobuf root blob listing message ids in field 1 (and
// compaction archives in field 13); AI-SDK JSON message blobs.

// wsOf is the workspace folder name Cursor uses for a cwd: md5 of the path.
func wsOf(cwd string) string {
	h := md5.Sum([]byte(cwd))
	return hex.EncodeToString(h[:])
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, data)
}

func setMtime(t testing.TB, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// chatSpec describes one synthetic chat folder.
type chatSpec struct {
	id, cwd  string
	ws       string         // default wsOf(cwd)
	meta     map[string]any // meta.json; nil: none
	metaRaw  string         // meta.json written verbatim when set
	prompts  any            // prompt_history.json; nil: none
	store    *storeSpec     // store.db; nil: none
	mtime    time.Time      // of every file written; zero: now
	extraDir string         // an alternative chats root (tests of odd layouts)
}

// storeSpec describes a synthetic store.db.
type storeSpec struct {
	meta     map[string]any // row "0"; latestRootBlobId is filled in
	messages []any          // message blobs in root order; []byte = raw blob
	archived []any          // messages a compaction archived (field 13)
	noRoot   bool           // leave latestRootBlobId out (rowid fallback)
	noMeta   bool           // no meta row at all
}

func (c chatSpec) dir(root string) string {
	ws := c.ws
	if ws == "" {
		ws = wsOf(c.cwd)
	}
	return filepath.Join(root, "chats", ws, c.id)
}

// writeChat writes a chat folder under root (Cursor's config dir) and
// returns the folder.
func writeChat(t testing.TB, root string, c chatSpec) string {
	t.Helper()
	dir := c.dir(root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var files []string
	switch {
	case c.metaRaw != "":
		writeFile(t, filepath.Join(dir, "meta.json"), []byte(c.metaRaw))
		files = append(files, "meta.json")
	case c.meta != nil:
		writeJSON(t, filepath.Join(dir, "meta.json"), c.meta)
		files = append(files, "meta.json")
	}
	if c.prompts != nil {
		writeJSON(t, filepath.Join(dir, "prompt_history.json"), c.prompts)
		files = append(files, "prompt_history.json")
	}
	if c.store != nil {
		db := openWriter(t, filepath.Join(dir, "store.db"))
		fillStore(t, db, c.store)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		files = append(files, "store.db")
	}
	if !c.mtime.IsZero() {
		for _, f := range files {
			setMtime(t, filepath.Join(dir, f), c.mtime)
		}
	}
	return dir
}

// openWriter opens a store.db for writing the way Cursor keeps it: WAL
// mode, no automatic checkpoint (so a test decides what is in the WAL).
func openWriter(t testing.TB, path string) *sql.DB {
	t.Helper()
	u := url.URL{Path: filepath.ToSlash(path)}
	db, err := sql.Open("sqlite", "file:"+u.EscapedPath()+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		"CREATE TABLE IF NOT EXISTS blobs (id TEXT PRIMARY KEY, data BLOB)",
		"CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// putBlob stores a blob content-addressed and returns its raw id.
func putBlob(t testing.TB, db *sql.DB, data []byte) []byte {
	t.Helper()
	id := sha256.Sum256(data)
	if _, err := db.Exec("INSERT OR IGNORE INTO blobs (id, data) VALUES (?, ?)", hex.EncodeToString(id[:]), data); err != nil {
		t.Fatal(err)
	}
	return id[:]
}

func blobData(t testing.TB, m any) []byte {
	if raw, ok := m.([]byte); ok {
		return raw
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// pbBytes encodes one length-delimited protobuf field.
func pbBytes(field int, payload []byte) []byte {
	var out []byte
	key := uint64(field<<3 | 2)
	for _, v := range []uint64{key, uint64(len(payload))} {
		for v >= 0x80 {
			out = append(out, byte(v)|0x80)
			v >>= 7
		}
		out = append(out, byte(v))
	}
	return append(out, payload...)
}

// fillStore writes the messages, the root blob and meta row "0".
func fillStore(t testing.TB, db *sql.DB, s *storeSpec) {
	t.Helper()
	var root []byte
	for _, m := range s.archived {
		id := putBlob(t, db, blobData(t, m))
		root = append(root, pbBytes(13, putBlob(t, db, pbBytes(1, id)))...)
	}
	for _, m := range s.messages {
		root = append(root, pbBytes(1, putBlob(t, db, blobData(t, m)))...)
	}
	// Field 9: the workspace URI, as a production-shaped builder writes it;
	// a varint field (26, the start time) too, to be skipped.
	root = append(root, pbBytes(9, []byte("file:///tmp/ws"))...)
	root = append(root, 0xd0, 0x01, 0x96, 0x01) // field 26 varint 150
	rootID := putBlob(t, db, root)
	if s.noMeta {
		return
	}
	meta := map[string]any{}
	for k, v := range s.meta {
		meta[k] = v
	}
	if !s.noRoot {
		meta["latestRootBlobId"] = hex.EncodeToString(rootID)
	}
	raw, _ := json.Marshal(meta)
	if _, err := db.Exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('0', ?)", hex.EncodeToString(raw)); err != nil {
		t.Fatal(err)
	}
}

// Message blob builders in the AI SDK's shape.
func userMsg(text string) map[string]any {
	return map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}
}

func cursorUser(query string) map[string]any {
	return userMsg("<user_info>OS: linux, shell: bash</user_info>\n<user_query>\n" + query + "\n</user_query>")
}

func assistantMsg(parts ...map[string]any) map[string]any {
	list := make([]any, len(parts))
	for i, p := range parts {
		list[i] = p
	}
	return map[string]any{"role": "assistant", "content": list, "id": "1"}
}

func textPart(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func scanAll(t testing.TB, s *Scanner, keep ...string) map[string]session.Info {
	t.Helper()
	infos, err := s.Scan(context.Background(), -1, keep)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]session.Info, len(infos))
	for _, info := range infos {
		if _, dup := out[info.ID]; dup {
			t.Errorf("%s listed twice", info.ID)
		}
		out[info.ID] = info
	}
	return out
}

func ms(t time.Time) int64 { return t.UnixMilli() }
