package mockmodel

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"unicode/utf8"

	"paddock/internal/testkit/sharedtest"
)

func TestConform(t *testing.T) {
	tests := []struct {
		name, schema, in, want string
	}{
		{"no schema keeps everything", ``, `{"a":1,"b":[{"c":2}]}`, `{"a":1,"b":[{"c":2}]}`},
		{"an object without properties keeps everything", `{"type":"object"}`, `{"a":1}`, `{"a":1}`},
		{"undefined keys are dropped at every depth",
			`{"type":"object","properties":{"q":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}}}}}}`,
			`{"q":[{"x":"1","y":2}],"z":3}`, `{"q":[{"x":"1"}]}`},
		{"camelCase and snake_case are one name",
			`{"type":"object","properties":{"multi_select":{"type":"boolean"},"fooBar":{"type":"string"}}}`,
			`{"multiSelect":true,"foo-bar":"x"}`, `{"fooBar":"x","multi_select":true}`},
		{"an exact name wins over a respelled one",
			`{"type":"object","properties":{"multi_select":{"type":"boolean"}}}`,
			`{"multiSelect":true,"multi_select":false}`, `{"multi_select":false}`},
		{"missing required keys get default, enum, empty value",
			`{"type":"object","required":["d","e","s","b","n","a","o"],"properties":{
				"d":{"type":"integer","default":60},"e":{"enum":["x","y"]},"s":{"type":"string"},"b":{"type":"boolean"},
				"n":{"type":"number"},"a":{"type":"array"},"o":{"type":"object","required":["k"],"properties":{"k":{"type":"string"}}}}}`,
			`{}`, `{"a":[],"b":false,"d":60,"e":"x","n":0,"o":{"k":""},"s":""}`},
		{"options as plain labels",
			`{"type":"array","items":{"type":"string"}}`,
			`[{"label":"Red","description":"warm"},{"label":"Blue"}]`, `["Red","Blue"]`},
		{"one value where a list is wanted", `{"type":"array","items":{"type":"string"}}`, `"x"`, `["x"]`},
		{"a number where a string is wanted", `{"type":"string"}`, `12`, `"12"`},
		{"a fraction where an integer is wanted", `{"type":"integer"}`, `2.5`, `2`},
		{"a whole number is an integer", `{"type":"integer"}`, `3`, `3`},
		{"an impossible conversion gives the empty value", `{"type":"boolean"}`, `"yes"`, `false`},
		{"maxLength and maxItems cut", `{"type":"array","maxItems":1,"items":{"type":"string","maxLength":3}}`,
			`["Colour","x"]`, `["Col"]`},
		{"a value outside the enum becomes the first", `{"type":"string","enum":["use_default","require_escalated"]}`,
			`"maybe"`, `"use_default"`},
		{"an enum value stays", `{"type":"string","enum":["use_default","require_escalated"]}`,
			`"require_escalated"`, `"require_escalated"`},
		{"type lists", `{"type":["string","null"]}`, `null`, `null`},
		{"anyOf picks the branch of the value's kind",
			`{"anyOf":[{"type":"null"},{"type":"object","properties":{"a":{}}}]}`, `{"a":1,"b":2}`, `{"a":1}`},
		{"a required anyOf gets its non-null branch's empty value",
			`{"type":"object","required":["a"],"properties":{"a":{"anyOf":[{"type":"null"},{"type":"string"}]}}}`,
			`{}`, `{"a":""}`},
		{"boolean and tuple subschemas constrain nothing",
			`{"type":"object","properties":{"a":true,"b":{"type":"array","items":[{"type":"string"}]}}}`,
			`{"a":{"x":1},"b":[1],"c":0}`, `{"a":{"x":1},"b":[1]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := parseSchema(json.RawMessage(tc.schema))
			var in any
			if err := json.Unmarshal([]byte(tc.in), &in); err != nil {
				t.Fatal(err)
			}
			got := string(marshalPlain(s.conform(in)))
			if got != tc.want {
				t.Errorf("conform(%s) = %s, want %s", tc.in, got, tc.want)
			}
			if tc.schema != "" {
				if errs := validate(decode(t, tc.schema), decode(t, got), "$"); len(errs) > 0 {
					t.Errorf("result does not fit the schema: %v", errs)
				}
			}
		})
	}
}

// TestQuestionFitsRecordedSchemas builds the mock's question call against
// the question tools exactly as the real CLIs offered them: the arguments
// must satisfy each schema (Kimi 2.1.0 refused Claude's multiSelect in its
// AskUserQuestion) and still ask the mock's question.
func TestQuestionFitsRecordedSchemas(t *testing.T) {
	tests := []struct {
		source, tool string
		// flag is the multi-select field the schema spells ("" if none).
		flag string
	}{
		{"claude-2.1.328", "AskUserQuestion", "multiSelect"},
		{"kimi-code-2.1.0", "AskUserQuestion", "multi_select"},
		{"codex-0.169.0", "request_user_input", ""},
		{"opencode-1.18.33", "question", "multiple"},
	}
	for _, tc := range tests {
		t.Run(tc.source, func(t *testing.T) {
			raw := recordedSchema(t, tc.source, tc.tool)
			name, in, ok := questionCall([]tool{newTool("Bash", nil), newTool(tc.tool, raw)})
			if !ok || name != tc.tool {
				t.Fatalf("questionCall = %s, %v", name, ok)
			}
			if errs := validate(decode(t, string(raw)), decode(t, string(in)), "$"); len(errs) > 0 {
				t.Errorf("arguments %s do not fit %s's schema: %v", in, tc.source, errs)
			}
			var args struct{ Questions []map[string]any }
			if err := json.Unmarshal(in, &args); err != nil || len(args.Questions) != 1 {
				t.Fatalf("arguments %s (%v)", in, err)
			}
			checkQuestion(t, args.Questions[0])
			for _, f := range []string{"multiSelect", "multi_select", "multiple"} {
				if _, has := args.Questions[0][f]; has != (f == tc.flag) {
					t.Errorf("%s present = %v in %s", f, has, in)
				}
			}
		})
	}
}

// TestQuestionFitsOtherShapes covers question schemas no pinned CLI has:
// one flat question, options as plain labels, a short header limit.
func TestQuestionFitsOtherShapes(t *testing.T) {
	tests := []struct {
		name, tool, schema, want string
	}{
		{"flat question with string options", "ask_user_question",
			`{"type":"object","properties":{"question":{"type":"string"},"options":{"type":"array","items":{"type":"string"}},
				"multi_select":{"type":"boolean"}},"required":["question","options"],"additionalProperties":false}`,
			`{"multi_select":false,"options":["Red","Blue"],"question":"Which color do you prefer?"}`},
		{"questions with a required id and a short header", "AskUserQuestion",
			`{"type":"object","properties":{"questions":{"type":"array","items":{"type":"object","additionalProperties":false,
				"properties":{"id":{"type":"string"},"header":{"type":"string","maxLength":3},"question":{"type":"string"},
				"options":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}},"additionalProperties":false}}},
				"required":["id","question","options"]}}},"required":["questions"],"additionalProperties":false}`,
			`{"questions":[{"header":"Col","id":"","options":[{"label":"Red"},{"label":"Blue"}],"question":"Which color do you prefer?"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name, in, ok := questionCall([]tool{newTool(tc.tool, json.RawMessage(tc.schema))})
			if !ok || name != tc.tool || string(in) != tc.want {
				t.Errorf("questionCall = %s %s %v, want %s", name, in, ok, tc.want)
			}
			if errs := validate(decode(t, tc.schema), decode(t, string(in)), "$"); len(errs) > 0 {
				t.Errorf("arguments do not fit: %v", errs)
			}
		})
	}
}

func checkQuestion(t *testing.T, q map[string]any) {
	t.Helper()
	var labels []any
	opts, _ := q["options"].([]any)
	for _, o := range opts {
		labels = append(labels, get(o, "label"))
	}
	if q["question"] != AskQuestion || q["header"] != AskHeader || !slices.Equal(labels, []any{"Red", "Blue"}) {
		t.Errorf("question %v", q)
	}
}

// recordedSchema returns the parameters schema a real CLI offered for tool:
// Claude's from the api-request-shape records of the transcripts in
// testdata/, the others' from the request logs in
// ../shared/fixtures/real/<source>/mock-requests.jsonl.
func recordedSchema(t *testing.T, source, tool string) json.RawMessage {
	t.Helper()
	var files []string
	if source == "claude-2.1.328" {
		files, _ = filepath.Glob(filepath.Join("..", "..", "..", "testdata", source, "claude", "projects", "*", "*.jsonl"))
	} else {
		files = []string{sharedtest.Fixtures(t, "real", source, "mock-requests.jsonl")}
	}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var rec struct {
				Body  json.RawMessage `json:"body"`
				Shape json.RawMessage `json:"shape"` // Claude's api-request-shape
			}
			if json.Unmarshal(sc.Bytes(), &rec) != nil {
				continue
			}
			for _, body := range []json.RawMessage{rec.Body, rec.Shape} {
				if s := offeredSchemas(body)[tool]; s != nil {
					return s
				}
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("no recorded schema for %s in %s (%d files)", tool, source, len(files))
	return nil
}

// offeredSchemas maps each tool offered in a request body to its schema, in
// any of the three APIs' shapes: Anthropic's input_schema, Responses'
// top-level parameters, Chat Completions' function.parameters.
func offeredSchemas(body json.RawMessage) map[string]json.RawMessage {
	var b struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
			Parameters  json.RawMessage `json:"parameters"`
			Function    struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	out := map[string]json.RawMessage{}
	if json.Unmarshal(body, &b) != nil {
		return out
	}
	for _, t := range b.Tools {
		switch {
		case t.Function.Name != "":
			out[t.Function.Name] = t.Function.Parameters
		case t.InputSchema != nil:
			out[t.Name] = t.InputSchema
		default:
			out[t.Name] = t.Parameters
		}
	}
	return out
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON %q: %v", s, err)
	}
	return v
}

// validate checks v against a decoded JSON Schema the way the CLIs'
// validators do for the keywords their tool schemas use (type, enum,
// properties, required, additionalProperties, items, min/maxItems,
// min/maxLength, anyOf, oneOf), and returns what does not fit. It is written
// apart from conform so the two do not share a mistake.
func validate(schema, v any, at string) []string {
	s, ok := schema.(map[string]any)
	if !ok {
		return nil // a boolean schema (or none)
	}
	var errs []string
	fail := func(f string, a ...any) { errs = append(errs, at+": "+fmt.Sprintf(f, a...)) }
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[key].([]any); ok && !slices.ContainsFunc(alts, func(a any) bool { return len(validate(a, v, at)) == 0 }) {
			fail("matches no %s branch", key)
		}
	}
	if typ, ok := s["type"]; ok {
		types, _ := typ.([]any)
		if name, ok := typ.(string); ok {
			types = []any{name}
		}
		if !slices.ContainsFunc(types, func(t any) bool { return hasType(v, t.(string)) }) {
			fail("%v is not of type %v", v, typ)
		}
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		fail("%v not in enum %v", v, enum)
	}
	num := func(key string) (int, bool) { f, ok := s[key].(float64); return int(f), ok }
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := x[r.(string)]; !ok {
				fail("required %q missing", r)
			}
		}
		for k, e := range x {
			if ps, ok := props[k]; ok {
				errs = append(errs, validate(ps, e, at+"."+k)...)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					fail("additional property %q", k)
				}
			case map[string]any:
				errs = append(errs, validate(ap, e, at+"."+k)...)
			}
		}
	case []any:
		if n, ok := num("minItems"); ok && len(x) < n {
			fail("%d items, want at least %d", len(x), n)
		}
		if n, ok := num("maxItems"); ok && len(x) > n {
			fail("%d items, want at most %d", len(x), n)
		}
		for i, e := range x {
			errs = append(errs, validate(s["items"], e, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case string:
		n := utf8.RuneCountInString(x)
		if m, ok := num("minLength"); ok && n < m {
			fail("%q shorter than %d", x, m)
		}
		if m, ok := num("maxLength"); ok && n > m {
			fail("%q longer than %d", x, m)
		}
	}
	return errs
}

func hasType(v any, t string) bool {
	switch x := v.(type) {
	case map[string]any:
		return t == "object"
	case []any:
		return t == "array"
	case string:
		return t == "string"
	case bool:
		return t == "boolean"
	case float64:
		return t == "number" || (t == "integer" && x == float64(int64(x)))
	case nil:
		return t == "null"
	}
	return false
}

// TestWriteFitsRecordedSchemas builds the mock's EDIT call against the
// write tools exactly as the real CLIs offered them: each gets its own
// spelling of the path and nothing its schema lacks.
func TestWriteFitsRecordedSchemas(t *testing.T) {
	tests := []struct{ source, tool, pathKey string }{
		{"claude-2.1.328", "Write", "file_path"},
		{"kimi-code-2.1.0", "Write", "path"},
		{"opencode-1.18.33", "write", "filePath"},
		{"pi-0.73.1", "write", "path"},
	}
	for _, tc := range tests {
		t.Run(tc.source, func(t *testing.T) {
			raw := recordedSchema(t, tc.source, tc.tool)
			name, in, ok := writeCall([]tool{newTool("Bash", nil), newTool(tc.tool, raw)}, "/tmp/p/notes.md", EditContent(2))
			if !ok || name != tc.tool {
				t.Fatalf("writeCall = %s, %v", name, ok)
			}
			if errs := validate(decode(t, string(raw)), decode(t, string(in)), "$"); len(errs) > 0 {
				t.Errorf("arguments %s do not fit %s's schema: %v", in, tc.source, errs)
			}
			var args map[string]any
			if err := json.Unmarshal(in, &args); err != nil || args[tc.pathKey] != "/tmp/p/notes.md" || args["content"] != EditContent(2) {
				t.Fatalf("arguments %s (%v)", in, err)
			}
			for _, k := range []string{"file_path", "filePath", "path"} {
				if _, has := args[k]; has != (k == tc.pathKey) {
					t.Errorf("%s present = %v in %s", k, has, in)
				}
			}
		})
	}
}
