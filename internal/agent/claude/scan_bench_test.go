package claude

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/testkit/sharedtest"
)

const (
	benchSessions = 10_000
	benchProjects = 50
	benchLimit    = 50
)

// benchDir is built once per test binary: 10,000 transcripts take a few
// seconds to write and every benchmark run reads the same tree.
var benchDir struct {
	once sync.Once
	path string
	err  error
}

// BenchmarkScan10k lists the newest 50 of 10,000 sessions spread over 50
// project directories, copied from the real and public Claude fixtures.
// "cold" uses a fresh Scanner per list, so every listed file is read; "warm"
// reuses one Scanner, as paddock's rescans after an fsnotify event do.
func BenchmarkScan10k(b *testing.B) {
	dir := buildBenchDir(b)
	ctx := context.Background()
	// A copy whose cwd was left as recorded would be dropped, and the
	// figures would include reading it: the default scan must read what
	// one that keeps every session reads.
	probe, keepAll := New(Options{Dir: dir}), New(Options{Dir: dir, KeepMissingCwd: true})
	for _, s := range []*Scanner{probe, keepAll} {
		if infos, err := s.Scan(ctx, benchLimit, nil); err != nil || len(infos) != benchLimit {
			b.Fatalf("Scan = %d sessions, %v", len(infos), err)
		}
	}
	if probe.cache.Len() != keepAll.cache.Len() {
		b.Fatalf("a cold scan read %d transcripts, %d when it keeps every session", probe.cache.Len(), keepAll.cache.Len())
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			infos, err := New(Options{Dir: dir}).Scan(ctx, benchLimit, nil)
			if err != nil || len(infos) != benchLimit {
				b.Fatalf("Scan = %d sessions, %v", len(infos), err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		s := New(Options{Dir: dir})
		if _, err := s.Scan(ctx, benchLimit, nil); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			infos, err := s.Scan(ctx, benchLimit, nil)
			if err != nil || len(infos) != benchLimit {
				b.Fatalf("Scan = %d sessions, %v", len(infos), err)
			}
		}
	})
}

func buildBenchDir(b *testing.B) string {
	b.Helper()
	benchDir.once.Do(func() {
		sources := benchSources(b)
		benchDir.path, benchDir.err = os.MkdirTemp("", "paddock-claude-bench-")
		if benchDir.err == nil {
			benchDir.err = writeBenchTree(benchDir.path, sources)
		}
	})
	if benchDir.err != nil {
		b.Fatal(benchDir.err)
	}
	return benchDir.path
}

// TestMain removes the benchmark tree, which outlives any one benchmark.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir.path != "" {
		os.RemoveAll(benchDir.path)
	}
	os.Exit(code)
}

// benchSource is one transcript to copy, with the id its content uses.
type benchSource struct {
	id   string
	data []byte
}

// benchSources returns the fixture transcripts, or generated ones when
// ../shared is absent (a user's clone): the benchmark must still measure
// something. Under SHARED_REQUIRED=1 a missing ../shared fails instead.
func benchSources(b *testing.B) []benchSource {
	if !sharedPresent() && os.Getenv("SHARED_REQUIRED") != "1" {
		return syntheticSources()
	}
	base := sharedtest.Fixtures(b)
	var out []benchSource
	for _, root := range fixtureRoots {
		_ = filepath.WalkDir(filepath.Join(base, root), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") || strings.Contains(path, "/subagents/") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out = append(out, benchSource{id: strings.TrimSuffix(filepath.Base(path), ".jsonl"), data: data})
			return nil
		})
	}
	if len(out) == 0 {
		b.Fatal("no Claude fixtures")
	}
	return out
}

// cwdField is a recorded working directory in a transcript line.
var cwdField = regexp.MustCompile(`"cwd":\s*"(?:[^"\\]|\\.)*"`)

// writeBenchTree writes benchSessions copies of sources under fresh uuids,
// round-robin over the sources and the project dirs, one minute apart.
// Each project's copies name one existing working directory (under
// dir/work), so the benchmark lists them the default way: the recorded
// ones are on other machines, and a scanner drops sessions whose
// directory is gone.
func writeBenchTree(dir string, sources []benchSource) error {
	now := time.Now()
	cwds := make([]string, benchProjects)
	for p := range benchProjects {
		cwds[p] = filepath.Join(dir, "work", fmt.Sprintf("proj%02d", p))
		for _, d := range []string{filepath.Join(dir, "projects", fmt.Sprintf("-home-user-proj%02d", p)), cwds[p]} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
	}
	rewritten := make(map[[2]int][]byte) // by (source, project)
	for i := range benchSessions {
		src := sources[i%len(sources)]
		id := fmt.Sprintf("%08x-%04x-4000-8000-%012x", i, i%0xffff, i)
		k := [2]int{i % len(sources), i % benchProjects}
		data, ok := rewritten[k]
		if !ok {
			data = cwdField.ReplaceAllLiteral(src.data, []byte(`"cwd":`+strconv.Quote(cwds[k[1]])))
			rewritten[k] = data
		}
		if validID(src.id) && len(src.id) >= 32 {
			// sessionId fields name the file; keep them consistent.
			data = bytes.ReplaceAll(data, []byte(src.id), []byte(id))
		}
		path := filepath.Join(dir, "projects", fmt.Sprintf("-home-user-proj%02d", i%benchProjects), id+".jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		mtime := now.Add(-time.Duration(i) * time.Minute)
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			return err
		}
	}
	return nil
}

// syntheticSources generates transcripts shaped like Claude Code 2.1's:
// bookkeeping records, a large system-prompt record, prompts, answers split
// over lines, tool calls and large tool results.
func syntheticSources() []benchSource {
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 600) // ~16 KB
	var out []benchSource
	for n := range 8 {
		id := fmt.Sprintf("5e55%04d-0000-4000-8000-000000000000", n)
		var buf bytes.Buffer
		line := func(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...) }
		ts := func(s int) string { return time.Date(2026, 1, 1, 10, 0, s, 0, time.UTC).Format(time.RFC3339Nano) }
		line(`{"type":"mode","mode":"normal","sessionId":%q}`, id)
		line(`{"type":"api-request-shape","sessionId":%q,"timestamp":%q,"shape":{"system":[{"type":"text","text":%q}]}}`, id, ts(0), filler+filler)
		parent := "null"
		for turn := range 4 + n {
			u := fmt.Sprintf("u%03d", turn)
			line(`{"parentUuid":%s,"isSidechain":false,"type":"user","message":{"role":"user","content":"prompt number %d"},"uuid":%q,"timestamp":%q,"origin":{"kind":"human"},"cwd":"/home/user/proj","sessionId":%q}`, parent, turn, u, ts(turn*6), id)
			line(`{"parentUuid":%q,"isSidechain":false,"type":"attachment","attachment":{"type":"skill_listing","content":%q},"uuid":"att%03d","timestamp":%q}`, u, filler, turn, ts(turn*6+1))
			line(`{"parentUuid":"att%03d","isSidechain":false,"message":{"id":"msg_%03d","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"working on turn %d"}]},"type":"assistant","uuid":"a%03d","timestamp":%q}`, turn, turn, turn, turn, ts(turn*6+2))
			line(`{"parentUuid":"a%03d","isSidechain":false,"message":{"id":"msg_%03d","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"tu%03d","name":"Bash","input":{"command":"ls"}}]},"type":"assistant","uuid":"b%03d","timestamp":%q}`, turn, turn, turn, turn, ts(turn*6+3))
			line(`{"parentUuid":"b%03d","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu%03d","content":%q}]},"uuid":"r%03d","timestamp":%q}`, turn, turn, filler, turn, ts(turn*6+4))
			parent = fmt.Sprintf("%q", fmt.Sprintf("r%03d", turn))
		}
		line(`{"type":"last-prompt","lastPrompt":"prompt","sessionId":%q}`, id)
		out = append(out, benchSource{id: id, data: buf.Bytes()})
	}
	return out
}

// The generated transcripts stand in for the fixtures when ../shared is
// absent; they must list like real ones or the benchmark measures nothing.
func TestSyntheticBenchSources(t *testing.T) {
	dir := t.TempDir()
	sources := syntheticSources()
	for _, src := range sources {
		writeFile(t, filepath.Join(dir, "projects", "p", src.id+".jsonl"), src.data)
	}
	got := scanAll(t, newTestScanner(dir))
	if len(got) != len(sources) {
		t.Fatalf("%d of %d synthetic sessions listed", len(got), len(sources))
	}
	for _, info := range got {
		checkInfo(t, info)
		if info.Title != "prompt number 0" || info.PromptCount < 4 || info.Model != "claude-opus-5-5" {
			t.Errorf("%s: %+v", info.ID, info)
		}
	}
}
