package codex

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const benchLimit = 50

// benchTrees are built once per test binary (a 10,000-session tree takes a
// few seconds to write) and removed by TestMain.
var benchTrees struct {
	sync.Mutex
	dirs map[int]string
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range benchTrees.dirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// BenchmarkScan lists the newest 50 of a Codex home built from the real
// 0.169.0 recordings in testdata/ (copied under fresh ids, spread over day
// directories, with a state database and session index naming every
// thread). "cold" is a fresh Scanner per list: every listed rollout is
// read and the state database loaded; "unchanged" is paddock's rescan
// when nothing changed: the stat pass and the signature, no parsing.
func BenchmarkScan(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{500, 10_000} {
		b.Run(fmt.Sprintf("%d/cold", n), func(b *testing.B) {
			dir := benchTree(b, n)
			for b.Loop() {
				infos, err := New(Options{Dir: dir, KeepMissingCwd: true}).Scan(ctx, benchLimit, nil)
				if err != nil || len(infos) != benchLimit {
					b.Fatalf("Scan = %d sessions, %v", len(infos), err)
				}
			}
		})
		b.Run(fmt.Sprintf("%d/unchanged", n), func(b *testing.B) {
			dir := benchTree(b, n)
			s := New(Options{Dir: dir, KeepMissingCwd: true})
			if _, err := s.Scan(ctx, benchLimit, nil); err != nil {
				b.Fatal(err)
			}
			parsed := s.parsed.Load()
			for b.Loop() {
				infos, err := s.Scan(ctx, benchLimit, nil)
				if err != nil || len(infos) != benchLimit {
					b.Fatalf("Scan = %d sessions, %v", len(infos), err)
				}
			}
			if s.parsed.Load() != parsed {
				b.Fatal("an unchanged rescan parsed rollouts")
			}
		})
	}
}

// BenchmarkConversation loads the whole conversation of the largest real
// recording (about 100 KB, 64 lines).
func BenchmarkConversation(b *testing.B) {
	dir := copyTree(b, filepath.Join(repoRecording, "codex"))
	s := New(Options{Dir: dir})
	ctx := context.Background()
	for b.Loop() {
		msgs, err := s.Conversation(ctx, "01a22933-bf50-7ea3-bf85-2f0c612735bb")
		if err != nil || len(msgs) != 10 {
			b.Fatalf("%d messages, %v", len(msgs), err)
		}
	}
}

func benchTree(b *testing.B, n int) string {
	b.Helper()
	benchTrees.Lock()
	defer benchTrees.Unlock()
	if dir, ok := benchTrees.dirs[n]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "paddock-codex-bench-")
	if err != nil {
		b.Fatal(err)
	}
	if err := writeBenchTree(dir, n); err != nil {
		os.RemoveAll(dir)
		b.Fatal(err)
	}
	if benchTrees.dirs == nil {
		benchTrees.dirs = map[int]string{}
	}
	benchTrees.dirs[n] = dir
	return dir
}

// writeBenchTree writes n rollouts, round-robin copies of the recorded
// ones with their ids replaced, one minute apart, 20 per day directory.
func writeBenchTree(dir string, n int) error {
	sources, err := filepath.Glob(filepath.Join(repoRecording, "codex", "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if err != nil || len(sources) == 0 {
		return fmt.Errorf("no recorded rollouts: %v", err)
	}
	type src struct {
		id   string
		data []byte
	}
	var srcs []src
	for _, p := range sources {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		id, _ := rolloutID(filepath.Base(p))
		srcs = append(srcs, src{id, data})
	}
	now := time.Now()
	var index strings.Builder
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: filepath.Join(dir, stateFile)}).EscapedPath()+"?_pragma=journal_mode(WAL)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT, name TEXT, model TEXT, source TEXT, thread_source TEXT)`); err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	for i := range n {
		s := srcs[i%len(srcs)]
		id := fmt.Sprintf("01a20000-%04x-7000-8000-%012x", i%0xffff, i)
		mtime := now.Add(-time.Duration(i) * time.Minute)
		day := mtime.Add(-time.Duration(i/20) * 24 * time.Hour)
		path := filepath.Join(dir, "sessions", day.Format("2006/01/02"), "rollout-"+day.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, bytes.ReplaceAll(s.data, []byte(s.id), []byte(id)), 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO threads VALUES (?, 'first prompt', ?, 'mock-model', 'cli', 'user')`, id, fmt.Sprintf("thread %d", i)); err != nil {
			return err
		}
		if i%2 == 0 {
			fmt.Fprintf(&index, `{"id":%q,"thread_name":"indexed %d","updated_at":%q}`+"\n", id, i, mtime.Format(time.RFC3339Nano))
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, indexFile), []byte(index.String()), 0o644)
}

// The benchmark tree lists like the recordings it is made of.
func TestBenchTree(t *testing.T) {
	dir := t.TempDir()
	if err := writeBenchTree(dir, 60); err != nil {
		t.Fatal(err)
	}
	infos, err := New(Options{Dir: dir, KeepMissingCwd: true}).Scan(context.Background(), benchLimit, nil)
	if err != nil || len(infos) != benchLimit {
		t.Fatalf("%d, %v", len(infos), err)
	}
	for i, info := range infos {
		checkInfo(t, info)
		if info.PromptCount < 2 || !strings.HasPrefix(info.Title, "indexed ") && !strings.HasPrefix(info.Title, "thread ") {
			t.Errorf("%d: %+v", i, info)
		}
	}
}

// BenchmarkConversation50MB loads a 50 MB rollout: 400 turns, each with a
// 128 KB tool output, the shape of a long working session.
// The whole file is read; the outputs are skipped, not decoded.
func BenchmarkConversation50MB(b *testing.B) {
	s, mb := bigRolloutScanner(b)
	for b.Loop() {
		msgs, err := s.Conversation(context.Background(), id(1))
		if err != nil || len(msgs) != 1200 {
			b.Fatalf("%d messages, %v", len(msgs), err)
		}
	}
	b.ReportMetric(mb, "MB")
}
