package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file grows one recorded session per JSONL runtime (Claude, Codex,
// Pi, Kimi) to about 50 MB by repeating its real turns, each copy with
// its own ids and later times, and linked to the previous copy where the
// format is a tree, so the result is still one valid conversation of the
// CLI's own lines: a very long session, not a file of duplicates.

// growSpec says how to repeat one format's lines.
type growSpec struct {
	// header is how many leading lines are written once (the session
	// header, start-up records); the rest is the body that repeats.
	header int
	// once reports a body line written in the first copy only (Kimi's
	// tool snapshot, which the CLI writes once per start).
	once func(line []byte) bool
	// rules rewrite the ids of every copy after the first, so no two
	// copies share one; times are always shifted (timeRules).
	rules []rule
	// parentNull is the root's "no parent" field; in copies after the
	// first it is pointed at the previous copy's last entry, so the chain
	// a tree-shaped format walks runs through every copy. "" for
	// formats that are not trees.
	parentNull, parentField string
	// entryID is a line's own id (what the next copy's root links to),
	// or "".
	entryID func(line []byte) string
}

// rule is one rewrite of copy k of a body line: every match of re is
// compiled once into a function appending its copy-k form (nil: leave the
// match as it is), so writing thousands of copies costs no regexp work.
type rule struct {
	re      *regexp.Regexp
	compile func(match []byte) func(dst []byte, k int) []byte
}

// copySpan is how much later each copy is than the one before: more
// than any recording lasts, so times keep ascending.
const copySpan = time.Minute

var (
	uuidRe     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	mockIDRe   = regexp.MustCompile(`\b(?:msg|toolu|call)_mock_\d+`)
	isoTimeRe  = regexp.MustCompile(`"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)"`)
	milliRe    = regexp.MustCompile(`"(time|timestamp)":(\d{13})\b`)
	kimiMsgRe  = regexp.MustCompile(`\bmsg_([0-9A-Z]{20})[0-9A-Z]{6}\b`)
	kimiTurnRe = regexp.MustCompile(`"turnId":("?)(\d+)("?)`)
	piIDRe     = regexp.MustCompile(`"(id|parentId)":"([0-9a-f]{8})"`)
)

// uuidRule gives copy k its own uuids (those inside keep, the session's
// id, excepted): their first 8 hex digits become k.
func uuidRule(keep string) rule {
	return rule{uuidRe, func(m []byte) func([]byte, int) []byte {
		if strings.Contains(keep, string(m)) {
			return nil
		}
		rest := slices.Clone(m[8:])
		return func(dst []byte, k int) []byte { return append(fmt.Appendf(dst, "%08x", k), rest...) }
	}}
}

// mockIDRule suffixes the mock model's message and tool-call ids with k.
var mockIDRule = rule{mockIDRe, func(m []byte) func([]byte, int) []byte {
	id := slices.Clone(m)
	return func(dst []byte, k int) []byte {
		return strconv.AppendInt(append(append(dst, id...), '_'), int64(k), 10)
	}
}}

// timeRules move copy k's times k copySpans later: RFC 3339 "timestamp"
// strings and millisecond "time"/"timestamp" numbers.
var timeRules = []rule{
	{isoTimeRe, func(m []byte) func([]byte, int) []byte {
		t, err := time.Parse(time.RFC3339Nano, string(isoTimeRe.FindSubmatch(m)[1]))
		if err != nil {
			return nil
		}
		return func(dst []byte, k int) []byte {
			dst = t.Add(time.Duration(k)*copySpan).UTC().AppendFormat(append(dst, `"timestamp":"`...), "2006-01-02T15:04:05.000Z")
			return append(dst, '"')
		}
	}},
	{milliRe, func(m []byte) func([]byte, int) []byte {
		sub := milliRe.FindSubmatch(m)
		field := fmt.Sprintf(`"%s":`, sub[1])
		ms, _ := strconv.ParseInt(string(sub[2]), 10, 64)
		return func(dst []byte, k int) []byte {
			return strconv.AppendInt(append(dst, field...), ms+int64(k)*copySpan.Milliseconds(), 10)
		}
	}},
}

// edit is one compiled match in a body line.
type edit struct {
	start, end int
	render     func(dst []byte, k int) []byte
}

// bodyLine is a body line with its compiled rewrites.
type bodyLine struct {
	src   []byte
	edits []edit
	once  bool
}

func compileLine(line []byte, rules []rule) bodyLine {
	var edits []edit
	for _, r := range rules {
		for _, loc := range r.re.FindAllIndex(line, -1) {
			if f := r.compile(line[loc[0]:loc[1]]); f != nil {
				edits = append(edits, edit{loc[0], loc[1], f})
			}
		}
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	kept := edits[:0]
	for _, e := range edits {
		if len(kept) == 0 || e.start >= kept[len(kept)-1].end { // first rule wins an overlap
			kept = append(kept, e)
		}
	}
	return bodyLine{src: line, edits: kept}
}

func (l bodyLine) render(dst []byte, k int) []byte {
	if k == 0 {
		return append(dst, l.src...)
	}
	pos := 0
	for _, e := range l.edits {
		dst = e.render(append(dst, l.src[pos:e.start]...), k)
		pos = e.end
	}
	return append(dst, l.src[pos:]...)
}

// grow repeats data's body (after spec.header lines) until the result
// holds at least size bytes; it returns the file and how many copies of
// the body it holds.
func grow(data []byte, size int, spec growSpec) ([]byte, int) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	out := make([]byte, 0, size+len(data))
	for _, l := range lines[:spec.header] {
		out = append(out, l...)
	}
	rules := append(slices.Clone(spec.rules), timeRules...)
	body := make([]bodyLine, 0, len(lines)-spec.header)
	lastEntry, root := -1, -1 // body lines: the last with an id; the first naming no parent
	for i, l := range lines[spec.header:] {
		bl := compileLine(l, rules)
		bl.once = spec.once != nil && spec.once(l)
		if !bl.once && spec.entryID != nil && spec.entryID(l) != "" {
			lastEntry = i
		}
		if root < 0 && spec.parentNull != "" && bytes.Contains(l, []byte(spec.parentNull)) {
			root = i
		}
		body = append(body, bl)
	}
	prev := ""
	k := 0
	for ; k == 0 || len(out) < size; k++ {
		for i, bl := range body {
			if k > 0 && bl.once {
				continue
			}
			start := len(out)
			out = bl.render(out, k)
			if k > 0 && i == root {
				line := bytes.Replace(out[start:], []byte(spec.parentNull), fmt.Appendf(nil, `%s:%q`, spec.parentField, prev), 1)
				out = append(out[:start], line...)
			}
			if i == lastEntry {
				prev = spec.entryID(out[start:])
			}
		}
	}
	return out, k
}

// topLevel reads a line's own id fields.
func topLevel(line []byte) (ids struct {
	UUID string `json:"uuid"`
	ID   string `json:"id"`
}) {
	_ = json.Unmarshal(line, &ids)
	return ids
}

// growClaude: the whole recorded transcript repeats (its resumed session
// appends the same bookkeeping again, so a long session looks like this);
// uuids and the mock's message and tool ids renumbered, each copy's root
// prompt parented to the previous copy's last record.
func growClaude(data []byte, sessionID string, size int) ([]byte, int) {
	return grow(data, size, growSpec{
		rules:      []rule{uuidRule(sessionID), mockIDRule},
		parentNull: `"parentUuid":null`, parentField: `"parentUuid"`,
		entryID: func(l []byte) string { return topLevel(l).UUID },
	})
}

// growCodex: the session_meta line once, then every recorded turn (the
// resumed one included) repeated; turn, message and call ids renumbered.
func growCodex(data []byte, sessionID string, size int) ([]byte, int) {
	return grow(data, size, growSpec{header: 1, rules: []rule{uuidRule(sessionID), mockIDRule}})
}

// growPi: the session header once, then every entry repeated with fresh
// 8-hex entry ids, each copy's root parented to the previous copy's last
// entry (Pi walks that chain back from the last entry).
func growPi(data []byte, size int) ([]byte, int) {
	distinct := map[string]int{}
	for _, m := range piIDRe.FindAllSubmatch(data, -1) {
		if _, ok := distinct[string(m[2])]; !ok {
			distinct[string(m[2])] = len(distinct)
		}
	}
	ids := rule{piIDRe, func(m []byte) func([]byte, int) []byte {
		sub := piIDRe.FindSubmatch(m)
		field, n := fmt.Sprintf(`"%s":`, sub[1]), distinct[string(sub[2])]
		return func(dst []byte, k int) []byte {
			return fmt.Appendf(append(dst, field...), `"%08x"`, 0xb0000000+k*len(distinct)+n)
		}
	}}
	return grow(data, size, growSpec{
		header:     1,
		rules:      []rule{ids, mockIDRule},
		parentNull: `"parentId":null`, parentField: `"parentId"`,
		entryID: func(l []byte) string { return topLevel(l).ID },
	})
}

// growKimi: the wire's start-up records (metadata, binding, mode, profile)
// once, then every turn repeated, except the tool snapshot Kimi writes
// once per start; turn numbers continue, and message, call and approval
// ids are renumbered.
func growKimi(data []byte, sessionID string, size int) ([]byte, int) {
	turns := 0
	for _, m := range kimiTurnRe.FindAllSubmatch(data, -1) {
		n, _ := strconv.Atoi(string(m[2]))
		turns = max(turns, n+1)
	}
	msgIDs := rule{kimiMsgRe, func(m []byte) func([]byte, int) []byte {
		prefix := string(kimiMsgRe.FindSubmatch(m)[1])
		return func(dst []byte, k int) []byte { return fmt.Appendf(dst, "msg_%s%06d", prefix, k) }
	}}
	turnIDs := rule{kimiTurnRe, func(m []byte) func([]byte, int) []byte {
		sub := kimiTurnRe.FindSubmatch(m)
		q := string(sub[1])
		n, _ := strconv.Atoi(string(sub[2]))
		return func(dst []byte, k int) []byte { return fmt.Appendf(dst, `"turnId":%s%d%s`, q, n+k*turns, q) }
	}}
	return grow(data, size, growSpec{
		header: 4,
		once:   func(l []byte) bool { return bytes.Contains(l, []byte(`"type":"llm.tools_snapshot"`)) },
		rules:  []rule{uuidRule(sessionID), mockIDRule, msgIDs, turnIDs},
	})
}

// Preview is one grown session in the preview HOME.
type Preview struct {
	Runtime, ID string
	Path        string
	Copies      int // how many times the recording's turns are in it
}

// previewSource is how one JSONL runtime's preview session is made.
type previewSource struct {
	runtime, glob string
	idOf          func(string) string
	path          func(id string) string
	grow          func(data []byte, id string, size int) ([]byte, int)
	id            func(n int) string
}

// previewSources are the runtimes' preview sessions in project 0 of p,
// written at at.
func previewSources(p Paths, at time.Time) []previewSource {
	cwd := p.Project(0)
	return []previewSource{
		{"claude", "claude-*/claude/projects/*/6acb7d34-*.jsonl", stripExt,
			func(id string) string {
				return filepath.Join(p.Claude(), "projects", claudeProjectDir(cwd), id+".jsonl")
			}, growClaude,
			func(n int) string { return fmt.Sprintf("b16b16b1-0000-4000-8000-%012d", n) }},
		{"codex", "codex-*/codex/sessions/*/*/*/rollout-*-01a22933-bf50-*.jsonl", codexID,
			func(id string) string {
				return filepath.Join(p.Codex(), "sessions", at.Format("2006/01/02"), "rollout-"+at.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
			}, growCodex,
			func(n int) string { return fmt.Sprintf("01a2b16b-0000-7000-8000-%012d", n) }},
		{"pi", "pi-*/pi/sessions/*/*_01a22935-0ceb-*.jsonl", piID,
			func(id string) string {
				return filepath.Join(p.Pi(), "sessions", piFolder(cwd), at.UTC().Format("2006-01-02T15-04-05-000Z")+"_"+id+".jsonl")
			}, func(data []byte, _ string, size int) ([]byte, int) { return growPi(data, size) },
			func(n int) string { return fmt.Sprintf("01a2b16b-0000-7000-8000-%012d", n) }},
		{"kimi", "kimi-*/kimi/sessions/*/session_6852ccb6-*/agents/main/wire.jsonl", kimiSessionID,
			func(id string) string {
				return filepath.Join(p.Kimi(), "sessions", "wd_proj00_000000000000", id, "agents", "main", "wire.jsonl")
			}, growKimi,
			func(n int) string { return fmt.Sprintf("session_b16b16b1-0000-4000-8000-%012d", n) }},
	}
}

// WritePreview writes, for each JSONL runtime, the recording of its
// "tools" session (three turns with tool calls, then a resumed turn)
// grown to size bytes, as session "big", beside the same recording
// once, as session "one" (what one copy contains).
func WritePreview(p Paths, size int) (big, one map[string]Preview, err error) {
	cwd := p.Project(0)
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		return nil, nil, err
	}
	at := time.Now().Add(-time.Hour)
	big, one = map[string]Preview{}, map[string]Preview{}
	for _, s := range previewSources(p, at) {
		recs, err := readRecordings(p, s.glob, s.idOf)
		if err != nil {
			return nil, nil, err
		}
		rec := recs[0]
		for n, want := range []int{size, 0} {
			id := s.id(n)
			data, copies := s.grow(rec.rewrite(id, cwd), id, want)
			path := s.path(id)
			if err := writeFileAt(path, data, at); err != nil {
				return nil, nil, err
			}
			if s.runtime == "kimi" {
				states, err := readRecordings(p, "kimi-*/kimi/sessions/*/"+rec.id+"/state.json", func(string) string { return rec.id })
				if err != nil {
					return nil, nil, err
				}
				if err := writeFileAt(filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(path))), "state.json"), states[0].rewrite(id, cwd), at); err != nil {
					return nil, nil, err
				}
			}
			ps := Preview{Runtime: s.runtime, ID: id, Path: path, Copies: copies}
			if n == 0 {
				big[s.runtime] = ps
			} else {
				one[s.runtime] = ps
			}
		}
	}
	return big, one, nil
}

// Grown is the content of runtime's "big" preview session grown to size
// bytes. Grown to a larger size it begins with the same bytes: the rest
// is what the session appends as it goes on.
func Grown(p Paths, runtime string, size int) ([]byte, error) {
	for _, s := range previewSources(p, time.Now()) {
		if s.runtime != runtime {
			continue
		}
		recs, err := readRecordings(p, s.glob, s.idOf)
		if err != nil {
			return nil, err
		}
		id := s.id(0)
		data, _ := s.grow(recs[0].rewrite(id, p.Project(0)), id, size)
		return data, nil
	}
	return nil, fmt.Errorf("corpus: no grown session of %q", runtime)
}
