package opencode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/history"
)

const benchLimit = 50

// benchDB writes a database of n sessions, each with 5 turns (a prompt; an
// answer with reasoning, a tool call with 2 KB of output and text), in the
// real schema, the writer left open with its -wal and -shm as a running
// OpenCode leaves them, and every file dated an hour ago (so the
// signature cache may be used). One session in ten is noise: a subagent,
// archived, or without a prompt.
func benchDB(b *testing.B, n int) (dataDir, cwd string) {
	b.Helper()
	dataDir, cwd = b.TempDir(), b.TempDir()
	w := newDB(b, dataDir)
	output := fmt.Sprintf("%q", strings.Repeat("output line of a tool\n", 100)) // Go quoting is valid JSON for ASCII
	w.exec("BEGIN")
	for i := range n {
		id := fmt.Sprintf("ses_%06d", i)
		at := t0.Add(time.Duration(i) * time.Minute)
		s := sess{id: id, dir: cwd, created: at, updated: at.Add(30 * time.Second), title: fmt.Sprintf("Session %d", i)}
		switch i % 10 {
		case 3:
			s.parent = "ses_000000"
		case 6:
			s.archived = at
		}
		w.session(s)
		if i%10 == 9 {
			continue // no prompt
		}
		for turn := range 5 {
			t := at.Add(time.Duration(turn) * 5 * time.Second)
			w.message(id, 2*turn, "user", t, text(fmt.Sprintf("prompt %d of session %d: please look at the code", turn, i)))
			w.message(id, 2*turn+1, "assistant", t.Add(time.Second),
				`{"type":"step-start"}`,
				`{"type":"reasoning","text":"thinking about the request"}`,
				`{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"ls"},"output":`+output+`}}`,
				text("Here is what I found."),
				`{"type":"step-finish","reason":"stop"}`)
		}
	}
	w.exec("COMMIT")
	w.exec("PRAGMA wal_checkpoint(PASSIVE)")
	old := time.Now().Add(-time.Hour)
	for _, f := range []string{"opencode.db", "opencode.db-wal"} {
		if err := os.Chtimes(filepath.Join(dataDir, f), old, old); err != nil {
			b.Fatal(err)
		}
	}
	return dataDir, cwd
}

// BenchmarkScan lists the newest 50 sessions. "cold" is a new Scanner per
// list (every list reads the database: open, PRAGMA table_info, the
// session window, the prompts); "cached" reuses one Scanner on an
// unchanged database (the signature hit: stats only).
func BenchmarkScan(b *testing.B) {
	for _, n := range []int{500, 10_000} {
		dataDir, _ := benchDB(b, n)
		ctx := context.Background()
		b.Run(fmt.Sprintf("sessions=%d/cold", n), func(b *testing.B) {
			for b.Loop() {
				infos, err := New(Options{DataDir: dataDir}).Scan(ctx, benchLimit, nil)
				if err != nil || len(infos) != benchLimit {
					b.Fatalf("Scan = %d sessions, %v", len(infos), err)
				}
			}
		})
		b.Run(fmt.Sprintf("sessions=%d/cached", n), func(b *testing.B) {
			s := New(Options{DataDir: dataDir})
			if _, err := s.Scan(ctx, benchLimit, nil); err != nil {
				b.Fatal(err)
			}
			reads := s.reads.Load()
			for b.Loop() {
				infos, err := s.Scan(ctx, benchLimit, nil)
				if err != nil || len(infos) != benchLimit {
					b.Fatalf("Scan = %d sessions, %v", len(infos), err)
				}
			}
			if s.reads.Load() != reads {
				b.Fatal("the cached scans read the database")
			}
		})
	}
}

// BenchmarkConversation loads one 5-turn conversation out of 10,000
// sessions: the tool output and reasoning are skipped in SQL. The
// database is read from a private copy: "copy-per-read" makes one for each
// read (a Scanner without Snapshots, as in tests), "kept-copy" reuses the
// one kept while the files are unchanged (paddock serve's Snapshots).
func BenchmarkConversation(b *testing.B) {
	dataDir, _ := benchDB(b, 10_000)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		keep int64
	}{
		{"copy-per-read", 0},
		{"kept-copy", 1 << 30},
	} {
		b.Run(c.name, func(b *testing.B) {
			snaps := history.NewSnapshots(history.SnapshotOptions{Dir: b.TempDir(), KeepBytes: c.keep})
			defer snaps.Close()
			s := New(Options{DataDir: dataDir, Snapshots: snaps})
			if _, err := s.Conversation(ctx, "ses_005000"); err != nil { // the first copy, untimed
				b.Fatal(err)
			}
			for b.Loop() {
				msgs, err := s.Conversation(ctx, "ses_005000")
				if err != nil || len(msgs) != 10 {
					b.Fatalf("Conversation = %d messages, %v", len(msgs), err)
				}
			}
		})
	}
}
