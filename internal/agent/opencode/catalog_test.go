package opencode_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"paddock/internal/agent/opencode"
	"paddock/internal/catalog"
	"paddock/internal/session"

	_ "modernc.org/sqlite"
)

// Through the catalog, as paddock runs it: a database that fails to read
// keeps the previous list (the scanner reports an error, never an empty
// list), and the conversation preview is read again when the -wal grows
// (the catalog's cache signature includes the -wal of Info.Path).
func TestCatalogKeepsLastGoodList(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "opencode.db")
	src := filepath.Join("..", "..", "..", "testdata", "opencode-1.18.33", "opencode", "opencode.db")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c := catalog.New(catalog.Options{DisableWatch: true},
		opencode.New(opencode.Options{DataDir: dir, KeepMissingCwd: true}))
	ctx := context.Background()
	c.Rescan(ctx)
	before := c.List(catalog.Filter{})
	if len(before) != 2 {
		t.Fatalf("first scan listed %d sessions, want 2", len(before))
	}
	key := before[1].Key() // the chat session

	// An OpenCode writer appends a turn to the chat (into the -wal).
	u := url.URL{Path: filepath.ToSlash(db)}
	w, err := sql.Open("sqlite", "file:"+u.EscapedPath()+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	msgs, err := c.Messages(ctx, key)
	if err != nil || len(msgs) != 4 {
		t.Fatalf("Messages = %d, %v", len(msgs), err)
	}
	for _, q := range []string{
		`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_zzz', '` + key.ID + `', 1795987700000, 1795987700000, '{"role":"user"}')`,
		`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_zzz', 'msg_zzz', '` + key.ID + `', 1795987700000, 1795987700000, '{"type":"text","text":"a third prompt"}')`,
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err = c.Messages(ctx, key)
	if err != nil || len(msgs) != 5 || msgs[4].Text != "a third prompt" {
		t.Fatalf("after the write, Messages = %+v, %v", msgs, err)
	}
	w.Close() // checkpoints and removes the -wal

	if err := os.WriteFile(db, []byte("torn file, not a database....................................................................."), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Rescan(ctx)
	after := c.List(catalog.Filter{})
	if !slices.EqualFunc(after, before, func(a, b session.Info) bool { return a.Key() == b.Key() }) {
		t.Errorf("after a failed read the list is %v, want the previous %v", after, before)
	}
}
