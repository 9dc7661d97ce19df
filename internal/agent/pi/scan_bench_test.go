package pi

import (
	"bytes"
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
	benchFolders = 50
	benchLimit   = 50
)

// benchTrees are built once per test binary (10,000 files take a few
// seconds to write) and removed by TestMain.
var benchTrees struct {
	mu    sync.Mutex
	paths map[string]string
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, p := range benchTrees.paths {
		os.RemoveAll(p)
	}
	os.Exit(code)
}

// BenchmarkScan lists the newest 50 of n sessions spread over 50 cwd
// folders, copied from the real Pi 0.73.1 recordings under new ids.
// "cold" is a fresh Scanner per list, so every listed file is read;
// "unchanged" reuses one Scanner with nothing changed (the signature
// hit: a stat per file and no read); "one-changed" appends to the newest
// file before each list (one file re-read).
func BenchmarkScan(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{500, 10_000} {
		agent := benchTree(b, n)
		check := func(b *testing.B, s *Scanner) {
			infos, err := s.Scan(ctx, benchLimit, nil)
			if err != nil || len(infos) != benchLimit {
				b.Fatalf("Scan = %d sessions, %v", len(infos), err)
			}
		}
		b.Run(fmt.Sprintf("%d/cold", n), func(b *testing.B) {
			for b.Loop() {
				check(b, benchScanner(agent))
			}
		})
		b.Run(fmt.Sprintf("%d/unchanged", n), func(b *testing.B) {
			s := benchScanner(agent)
			check(b, s)
			for b.Loop() {
				check(b, s)
			}
			if s.parses.Load() != benchLimit {
				b.Fatalf("%d parses, want %d", s.parses.Load(), benchLimit)
			}
		})
		b.Run(fmt.Sprintf("%d/one-changed", n), func(b *testing.B) {
			s := benchScanner(agent)
			check(b, s)
			newest := filepath.Join(agent, "sessions", "newest.jsonl")
			line := []byte(`{"type":"custom","id":"x","parentId":null,"timestamp":"2026-11-29T00:00:00Z","customType":"bench"}` + "\n")
			for b.Loop() {
				b.StopTimer()
				f, err := os.OpenFile(newest, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					b.Fatal(err)
				}
				f.Write(line)
				f.Close()
				b.StartTimer()
				check(b, s)
			}
		})
	}
}

func benchScanner(agent string) *Scanner {
	s := New(Options{Dir: agent})
	s.dirExists = func(string) bool { return true }
	return s
}

// benchTree writes n sessions (once per n) and returns the agent dir.
// sessions/newest.jsonl (a symlink-free copy at the top) is the newest.
func benchTree(b *testing.B, n int) string {
	b.Helper()
	benchTrees.mu.Lock()
	defer benchTrees.mu.Unlock()
	key := fmt.Sprint(n)
	if p, ok := benchTrees.paths[key]; ok {
		return p
	}
	sources := benchSources(b)
	agent, err := os.MkdirTemp("", "paddock-pi-bench-")
	if err != nil {
		b.Fatal(err)
	}
	if benchTrees.paths == nil {
		benchTrees.paths = map[string]string{}
	}
	benchTrees.paths[key] = agent
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		src := sources[i%len(sources)]
		id := fmt.Sprintf("01a20000-0000-7000-8000-%012d", i)
		data := bytes.Replace(src.data, []byte(src.id), []byte(id), 1)
		dir := filepath.Join(agent, "sessions", fmt.Sprintf("--home-u-proj%02d--", i%benchFolders))
		name := filepath.Join(dir, base.Add(time.Duration(i)*time.Minute).Format("2006-01-02T15-04-05-000Z")+"_"+id+".jsonl")
		if i == n-1 {
			name = filepath.Join(agent, "sessions", "newest.jsonl")
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			b.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(name, at, at); err != nil {
			b.Fatal(err)
		}
	}
	return agent
}

type benchSource struct {
	id   string
	data []byte
}

// benchSources are the real session files of the repository's recordings
// and, when ../shared is there, of the proving ground's agent dir.
func benchSources(b *testing.B) []benchSource {
	b.Helper()
	globs := []string{
		filepath.Join("..", "..", "..", "testdata", "pi-*", "pi", "sessions", "*", "*.jsonl"),
		filepath.Join("..", "..", "..", "..", "shared", "fixtures", "real", "pi-*", "pi-agent-dir", "sessions", "*", "*.jsonl"),
	}
	var out []benchSource
	for _, g := range globs {
		paths, _ := filepath.Glob(g)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			id, err := IDOf(p)
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, benchSource{id: id, data: data})
		}
	}
	if len(out) == 0 {
		b.Fatal("no Pi recordings in testdata/")
	}
	return out
}

// bigSession writes a linear v3 session of about size bytes: prompts and
// answers with large tool results between them, the shape of a long
// working session.
func bigSession(b testing.TB, size int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "sessions", "--big--", "big.jsonl")
	var sb strings.Builder
	sb.WriteString(headerLine("big", proj, 0))
	out := strings.Repeat("some tool output line\n", 2000) // ~44 KB
	parent := ""
	for i := 0; sb.Len() < size; i++ {
		u, a, r, a2 := fmt.Sprintf("u%d", i), fmt.Sprintf("a%d", i), fmt.Sprintf("r%d", i), fmt.Sprintf("b%d", i)
		sb.WriteString(msgLine(u, parent, "user", fmt.Sprintf("prompt %d", i), i))
		sb.WriteString(msgLine(a, u, "assistant", "I'll run a command.", i))
		sb.WriteString(jsonLine(map[string]any{"type": "message", "id": r, "parentId": a, "timestamp": ts(i),
			"message": map[string]any{"role": "toolResult", "toolCallId": "c", "toolName": "bash",
				"content": []any{map[string]any{"type": "text", "text": out}}}}))
		sb.WriteString(msgLine(a2, r, "assistant", fmt.Sprintf("done %d", i), i))
		parent = a2
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkBigSession50MB: listing a 50 MB session (header, marker scan of
// the middle, tail), loading its whole conversation, and listing it again
// after each of Pi's appends.
func BenchmarkBigSession50MB(b *testing.B) {
	path := bigSession(b, 50<<20)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("summary", func(b *testing.B) {
		b.SetBytes(st.Size())
		for b.Loop() {
			sum, err := readSummary(path, st.Size())
			if err != nil || !sum.listable {
				b.Fatal(err)
			}
		}
	})
	b.Run("conversation", func(b *testing.B) {
		b.SetBytes(st.Size())
		for b.Loop() {
			msgs, _, err := conversation(context.Background(), path)
			if err != nil || len(msgs) == 0 {
				b.Fatal(err)
			}
		}
	})
	// A live session: Pi appends an entry and the file is listed again.
	// Only the appended bytes are read (resumePoint); last, as it grows
	// the file.
	b.Run("appended", func(b *testing.B) {
		ctx := context.Background()
		s := benchScanner(filepath.Dir(filepath.Dir(filepath.Dir(path))))
		if _, err := s.Scan(ctx, benchLimit, nil); err != nil {
			b.Fatal(err)
		}
		read := s.readBytes.Load()
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			prompt := fmt.Sprintf("live %d", i)
			f.WriteString(msgLine(fmt.Sprintf("live%d", i), "", "user", prompt, 10_000+i))
			f.Close()
			b.StartTimer()
			infos, err := s.Scan(ctx, benchLimit, nil)
			if err != nil || len(infos) != 1 || infos[0].LastPrompt != prompt {
				b.Fatalf("Scan = %+v, %v", infos, err)
			}
		}
		b.ReportMetric(float64(s.readBytes.Load()-read)/float64(b.N), "read-B/op")
	})
}
