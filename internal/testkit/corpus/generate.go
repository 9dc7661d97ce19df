package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Options shape a generated machine. The zero value of each field is its
// default; the same options and seed give the same files (the times are
// counted back from Now).
type Options struct {
	Sessions int     // in all (default 10,000)
	Seed     uint64  // chooses which sessions grow and which carry the markers (default 1)
	Days     int     // the sessions' times spread over this many days (default 90)
	Share    float64 // of the sessions that are Claude Code's, and as many Codex's; the rest split evenly (default 0.35)
	Big      int     // Claude and Codex sessions grown to BigSize (default 4; negative: none)
	BigSize  int     // bytes (default 50 MB)
	Grown    int     // Claude and Codex sessions grown to between GrownMin and GrownMax (default none)
	GrownMin int     // bytes (default 64 KB)
	GrownMax int     // bytes (default 1 MB)
	Marked   int     // sessions whose later turn carries Marker and Phrase (default 20; never a grown one)
	Testdata string  // the recordings (DefaultTestdata)
	Now      time.Time
}

// The words the generator writes into the marked sessions' later turns:
// a word found nowhere else, and a phrase.
const (
	Marker = "quokkamarker"
	Phrase = "purple harbor migration"
)

// laterPrompts are the prompts after the first that the recordings hold
// (each recording has one of them); in a marked session they are written
// with the markers.
var laterPrompts = [][]byte{[]byte("second turn please"), []byte("one more turn after resume")}

// Report is what Generate wrote.
type Report struct {
	Counts map[string]int
	Bytes  int64            // of every file written
	Big    []string         // the grown-to-BigSize files
	Grown  int              // files grown to between GrownMin and GrownMax
	Marked []string         // the files carrying the markers
	Sizes  map[string]int64 // bytes per runtime
}

func (o *Options) defaults() {
	if o.Sessions <= 0 {
		o.Sessions = 10_000
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Days <= 0 {
		o.Days = 90
	}
	if o.Share <= 0 || o.Share > 0.5 {
		o.Share = 0.35
	}
	if o.Big < 0 {
		o.Big = 0
	} else if o.Big == 0 {
		o.Big = 4
	}
	if o.BigSize <= 0 {
		o.BigSize = 50 << 20
	}
	o.Grown = max(o.Grown, 0)
	if o.GrownMin <= 0 {
		o.GrownMin = 64 << 10
	}
	if o.GrownMax < o.GrownMin {
		o.GrownMax = max(1<<20, o.GrownMin)
	}
	if o.Marked == 0 {
		o.Marked = 20
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
}

// Generate writes a machine's worth of sessions under home: o.Sessions
// over every agent (most of them Claude Code's and Codex's), across 50
// projects whose directories it creates and o.Days days, some grown by
// repeating their real turns, some carrying the markers in a later turn.
func Generate(home string, o Options) (*Corpus, Report, error) {
	o.defaults()
	var rep Report
	if o.Big+o.Grown+o.Marked > o.Sessions {
		return nil, rep, errors.New("corpus: more sessions to grow and mark than sessions")
	}
	counts := map[string]int{}
	rest := o.Sessions
	for _, rt := range []string{"claude", "codex"} {
		counts[rt] = int(float64(o.Sessions) * o.Share)
		rest -= counts[rt]
	}
	others := slices.DeleteFunc(Runtimes(), func(rt string) bool { return rt == "claude" || rt == "codex" })
	for i, rt := range others {
		counts[rt] = rest / len(others)
		if i < rest%len(others) {
			counts[rt]++
		}
	}
	p := Paths{Home: home, Testdata: o.Testdata}
	step := time.Duration(o.Days) * 24 * time.Hour / time.Duration(o.Sessions)
	c, err := write(p, counts, step, o.Now)
	if err != nil {
		return nil, rep, err
	}
	rep.Counts = counts
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))

	// The JSONL sessions, in a fixed order, then shuffled by the seed:
	// the first are grown, the next marked.
	claude, _ := filepath.Glob(filepath.Join(p.Claude(), "projects", "*", "*.jsonl"))
	codex, _ := filepath.Glob(filepath.Join(p.Codex(), "sessions", "*", "*", "*", "rollout-*.jsonl"))
	pi, _ := filepath.Glob(filepath.Join(p.Pi(), "sessions", "*", "*.jsonl"))
	kimi, _ := filepath.Glob(filepath.Join(p.Kimi(), "sessions", "*", "*", "agents", "main", "wire.jsonl"))
	slices.Sort(claude)
	growable := slices.Concat(claude, codex)
	markable := slices.Concat(pi, kimi)
	slices.Sort(growable)
	rng.Shuffle(len(growable), func(i, j int) { growable[i], growable[j] = growable[j], growable[i] })
	isClaude := func(path string) bool { _, ok := slices.BinarySearch(claude, path); return ok }
	grow := func(path string, size int) error {
		return rewriteKeepingTime(path, func(data []byte) ([]byte, error) {
			var out []byte
			if isClaude(path) {
				out, _ = growClaude(data, stripExt(path), size)
			} else {
				out, _ = growCodex(data, codexID(path), size)
			}
			return out, nil
		})
	}
	n := 0
	for ; n < min(o.Big, len(growable)); n++ {
		if err := grow(growable[n], o.BigSize); err != nil {
			return nil, rep, err
		}
		rep.Big = append(rep.Big, growable[n])
	}
	for end := min(n+o.Grown, len(growable)); n < end; n++ {
		if err := grow(growable[n], o.GrownMin+rng.IntN(o.GrownMax-o.GrownMin+1)); err != nil {
			return nil, rep, err
		}
		rep.Grown++
	}
	markable = append(markable, growable[n:]...)
	slices.Sort(markable)
	rng.Shuffle(len(markable), func(i, j int) { markable[i], markable[j] = markable[j], markable[i] })
	for _, path := range markable[:min(o.Marked, len(markable))] {
		if err := rewriteKeepingTime(path, mark); err != nil {
			return nil, rep, err
		}
		rep.Marked = append(rep.Marked, path)
	}
	slices.Sort(rep.Marked)
	rep.Sizes = map[string]int64{}
	err = filepath.Walk(home, func(path string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() {
			return err
		}
		rep.Bytes += fi.Size()
		for _, rt := range Runtimes() {
			if dir := p.dir(rt); dir != "" && len(path) > len(dir) && path[:len(dir)+1] == dir+string(filepath.Separator) {
				rep.Sizes[rt] += fi.Size()
			}
		}
		return nil
	})
	return c, rep, err
}

// mark writes the markers into a session's later turn: every copy of the
// prompt the recordings hold after their first.
func mark(data []byte) ([]byte, error) {
	out := data
	for _, p := range laterPrompts {
		out = bytes.ReplaceAll(out, p, append(slices.Clone(p), ": does the "+Marker+" module survive the "+Phrase+"?"...))
	}
	if len(out) == len(data) {
		return nil, errors.New("no later turn to mark")
	}
	return out, nil
}

// rewriteKeepingTime replaces a file's content by edit's, keeping its
// mtime (the session's time).
func rewriteKeepingTime(path string, edit func([]byte) ([]byte, error)) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := edit(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return err
	}
	return os.Chtimes(path, fi.ModTime(), fi.ModTime())
}

// dir is runtime rt's directory under the HOME.
func (p Paths) dir(rt string) string {
	switch rt {
	case "claude":
		return p.Claude()
	case "codex":
		return p.Codex()
	case "opencode":
		return p.OpenCode()
	case "kimi":
		return p.Kimi()
	case "cursor":
		return p.Cursor()
	case "pi":
		return p.Pi()
	}
	return ""
}
