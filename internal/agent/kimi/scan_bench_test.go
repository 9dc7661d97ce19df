package kimi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	benchSessions = 600
	benchBuckets  = 20
	benchLimit    = 50
)

// benchHome is built once per test binary and removed by TestMain.
var benchHome struct {
	once  sync.Once
	path  string
	wires []string
	err   error
}

// buildBenchHome writes benchSessions kimi-code sessions over benchBuckets
// workspaces, each a copy of one of the real wires Kimi Code 2.1.0 wrote
// for testdata/ (90–100 KB, with its system prompt and tool snapshot
// lines) and a state.json, with mtimes a minute apart.
func buildBenchHome(b *testing.B) (string, []string) {
	b.Helper()
	benchHome.once.Do(func() {
		srcs, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "kimi-*", "kimi", "sessions", "*", "*", "agents", "main", "wire.jsonl"))
		if len(srcs) == 0 {
			benchHome.err = fmt.Errorf("no testdata/kimi-* wires")
			return
		}
		var data [][]byte
		for _, src := range srcs {
			d, err := os.ReadFile(src)
			if err != nil {
				benchHome.err = err
				return
			}
			data = append(data, d)
		}
		home, err := os.MkdirTemp("", "paddock-kimi-bench-")
		if err != nil {
			benchHome.err = err
			return
		}
		benchHome.path = home
		base := time.Now().Add(-benchSessions * time.Minute)
		for i := range benchSessions {
			bk := fmt.Sprintf("wd_proj%02d_%012x", i%benchBuckets, i%benchBuckets)
			id := fmt.Sprintf("session_%08d-0000-4000-8000-000000000000", i)
			dir := filepath.Join(home, "sessions", bk, id)
			at := base.Add(time.Duration(i) * time.Minute)
			wire := filepath.Join(dir, "agents", "main", "wire.jsonl")
			if err := os.MkdirAll(filepath.Dir(wire), 0o755); err != nil {
				benchHome.err = err
				return
			}
			if err := os.WriteFile(wire, data[i%len(data)], 0o644); err != nil {
				benchHome.err = err
				return
			}
			if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(stateJSON(id, "/tmp/proj", "", at.UnixMilli())), 0o644); err != nil {
				benchHome.err = err
				return
			}
			if err := os.Chtimes(wire, at, at); err != nil {
				benchHome.err = err
				return
			}
			benchHome.wires = append(benchHome.wires, wire)
		}
	})
	if benchHome.err != nil {
		b.Fatal(benchHome.err)
	}
	return benchHome.path, benchHome.wires
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchHome.path != "" && strings.Contains(benchHome.path, "paddock-kimi-bench-") {
		os.RemoveAll(benchHome.path)
	}
	os.Exit(code)
}

// BenchmarkScan lists the newest 50 of 600 real-sized sessions. "cold" is
// a new Scanner per list (every listed session read); "unchanged" reuses
// one, so the signature matches and nothing is read; "one-append" appends
// a line to the newest wire before each list, so exactly one summary is
// read again.
func BenchmarkScan(b *testing.B) {
	home, wires := buildBenchHome(b)
	ctx := context.Background()
	check := func(b *testing.B, s *Scanner) {
		infos, err := s.Scan(ctx, benchLimit, nil)
		if err != nil || len(infos) != benchLimit {
			b.Fatalf("Scan = %d sessions, %v", len(infos), err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			check(b, newTest(home))
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		s := newTest(home)
		check(b, s)
		for b.Loop() {
			check(b, s)
		}
	})
	b.Run("one-append", func(b *testing.B) {
		s := newTest(home)
		check(b, s)
		newest := wires[len(wires)-1]
		f, err := os.OpenFile(newest, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		for b.Loop() {
			if _, err := f.WriteString(`{"type":"token_counting.measured","agentId":"main","length":3,"tokens":1,"time":1}` + "\n"); err != nil {
				b.Fatal(err)
			}
			check(b, s)
		}
	})
}

// BenchmarkConversation rebuilds the conversation of a real 100 KB wire.
func BenchmarkConversation(b *testing.B) {
	home, wires := buildBenchHome(b)
	s := newTest(home)
	id := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(wires[0]))))
	for b.Loop() {
		msgs, err := s.Conversation(context.Background(), id)
		if err != nil || len(msgs) == 0 {
			b.Fatalf("Conversation = %d, %v", len(msgs), err)
		}
	}
}
