package history

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"paddock/internal/testkit/sharedtest"
)

// clipAll feeds in to a clipper in pieces of step bytes (all at once for
// step 0) and returns what it makes of it.
func clipAll(in []byte, step int) []byte {
	var c jsonClipper
	c.reset()
	if step <= 0 {
		step = len(in) + 1
	}
	for i := 0; i < len(in); i += step {
		c.Write(in[i:min(i+step, len(in))])
	}
	return bytes.Clone(c.Finish(int64(len(in))))
}

// checkSmall holds the clipper to its contract on a line under every cap:
// valid JSON comes out as json.Compact writes it, anything else comes out
// invalid, and how the line is cut into pieces changes nothing.
func checkSmall(t *testing.T, in []byte) {
	t.Helper()
	got := clipAll(in, 0)
	if json.Valid(in) {
		var want bytes.Buffer
		if err := json.Compact(&want, in); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("clip(%.80q) = %.80q, want %.80q", in, got, want.Bytes())
			return
		}
	} else if json.Valid(got) {
		t.Errorf("clip(%.80q) = %.80q: valid, though the line is not", in, got)
		return
	}
	for _, step := range []int{1, 2, 3, 7, 64} {
		if again := clipAll(in, step); !bytes.Equal(again, got) {
			t.Errorf("clip(%.80q) in pieces of %d = %.80q, all at once %.80q", in, step, again, got)
			return
		}
	}
}

func TestClipSmallLines(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `""`, `0`, `-1.5e+10`, `true`, `false`, `null`,
		` { "a" : [ 1 , 2.5 , "x\"y\\z\u00e9\n" , { } , [ ] , null ] , "b" : false } `,
		`{"type":"user","message":{"content":[{"type":"text","text":"héllo 日本"}]}}`,
		`{"a":1}x`, `{"a":1} {"b":2}`, `{"a":}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`,
		`{"a":tru}`, `{"a":nulll}`, `{"a":truex}`, `{"a":"unterminated`, `{"a":[1,2`, `[1}`, `{"a":1]`,
		`{"a":"tab	in string"}`, `{"a":"\x"}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":"\ud83d"}`,
		"{\"a\":\"\xff\xfe\"}", `nul`, `"x`, `}`, `{"a":1}}`, ``, `   `,
	} {
		checkSmall(t, []byte(in))
	}
}

// Every line of the shared fixtures (the real agents' histories): a
// record parser that gets a clipped line reads what it would have read.
func TestClipFixtureLines(t *testing.T) {
	root := sharedtest.Fixtures(t)
	lines := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for line := range bytes.Lines(data) {
			if len(line) > clipSmall*1000 {
				continue // long strings are clipped: TestClipLongLines
			}
			lines++
			checkSmall(t, bytes.TrimSuffix(line, []byte("\n")))
			if t.Failed() {
				t.Fatalf("in %s", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d lines", lines)
}

// decode parses a clipped line, which must be valid JSON.
func decode(t *testing.T, out []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("clipped line is no JSON (%v): %.200q", err, out)
	}
	return v
}

// Lines over every cap: the output stays small and valid, each long text
// keeps its start and says how long it was, and nothing is split that a
// decoder would choke on.
func TestClipLongLines(t *testing.T) {
	mb := func(n int, s string) string { return strings.Repeat(s, n/len(s)) }
	cases := []struct {
		name  string
		in    string
		check func(t *testing.T, v any)
	}{
		{"one long text", `{"type":"user","message":{"content":"` + mb(5<<20, "x") + `"}}`, func(t *testing.T, v any) {
			text := v.(map[string]any)["message"].(map[string]any)["content"].(string)
			if !strings.HasPrefix(text, mb(clipString, "x")+"…") || !strings.HasSuffix(text, "[paddock clipped this text: it is 5.0 MB, the first 256 KB are shown]") {
				t.Errorf("text %.40q…%q", text, text[max(len(text)-100, 0):])
			}
		}},
		{"escapes are never split", `{"a":"` + mb(3<<20, `\n\u00e9\"`) + `"}`, func(t *testing.T, v any) {
			text := v.(map[string]any)["a"].(string)
			if !strings.HasPrefix(text, "\né\"\né") || !strings.Contains(text, "[paddock clipped") {
				t.Errorf("text %.40q", text)
			}
		}},
		{"characters are never split", `{"a":"` + mb(3<<20, "é日") + `"}`, func(t *testing.T, v any) {
			text := v.(map[string]any)["a"].(string)
			if !utf8.ValidString(text) || !strings.HasPrefix(text, "é日é日") {
				t.Errorf("text %.40q, valid UTF-8 %v", text, utf8.ValidString(text))
			}
		}},
		{"many small parts", `{"content":[` + strings.TrimSuffix(mb(5<<20, `{"type":"text","text":"`+mb(100, "y")+`"},`), ",") + `],"after":1}`, func(t *testing.T, v any) {
			m := v.(map[string]any)
			parts := m["content"].([]any)
			last := parts[len(parts)-1].(map[string]any)["text"].(string)
			if len(parts) < 1000 || len(parts) > 20000 || !strings.HasSuffix(last, "[paddock left out the rest of this record: it is 5.0 MB]") {
				t.Errorf("%d parts, last %q", len(parts), last)
			}
			if _, ok := m["after"]; ok {
				t.Error("a member after the budget was kept")
			}
		}},
		{"too deep", strings.Repeat("[", 200) + `"` + mb(5<<20, "z") + `"` + strings.Repeat("]", 200), func(t *testing.T, v any) {
			depth := 0
			for a, ok := v.([]any); ok; a, ok = a[0].([]any) {
				depth++
				if a[0] == nil {
					break
				}
			}
			if depth != clipDepth {
				t.Errorf("kept %d levels, want %d", depth, clipDepth)
			}
		}},
		{"a long number", `{"n":` + mb(100, "1") + `,"s":"` + mb(5<<20, "s") + `"}`, func(t *testing.T, v any) {
			if n := v.(map[string]any)["n"]; n != 0.0 {
				t.Errorf("n = %v, want 0", n)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := clipAll([]byte(c.in), 64<<10)
			if len(out) > clipBudget+clipString+64<<10 {
				t.Errorf("clipped to %d bytes", len(out))
			}
			c.check(t, decode(t, out))
			if again := clipAll([]byte(c.in), 4093); !bytes.Equal(again, out) {
				t.Error("pieces of another size clip differently")
			}
		})
	}
}

// Broken long lines stay broken: their parser rejects them as it would
// the whole line.
func TestClipLongBrokenLines(t *testing.T) {
	big := strings.Repeat("x", 5<<20)
	for _, in := range []string{
		`{"a":"` + big + `"} trailing`,
		`{"a":"` + big + `"`,
		`{"a":"` + big,
		`{"a":["` + big + `",]}`,
		`not json ` + big,
		`{"a":"` + big + `"}}`,
	} {
		if out := clipAll([]byte(in), 64<<10); json.Valid(out) || len(out) > clipBudget+clipString+64<<10 {
			t.Errorf("clip(%.20q…%q) = %d bytes, valid %v", in, in[len(in)-10:], len(out), json.Valid(out))
		}
	}
}

// FuzzJSONClipper: any line under the caps is compacted when it is JSON
// and stays invalid when it is not, however it is cut into pieces.
func FuzzJSONClipper(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x\"",{"b":null}]}`, `{"a":tru}`, `[1,]`, `"\u00e9"`} {
		f.Add([]byte(s))
	}
	longNumber := regexp.MustCompile(`[-+.eE0-9]{65}`) // may be a number over clipNumber
	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.Count(in, []byte("["))+bytes.Count(in, []byte("{")) >= clipDepth || longNumber.Match(in) {
			return // deeper values become null, longer numbers 0
		}
		checkSmall(t, in)
	})
}
