package jsonpeek

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The three sets of rules the agents' readers walk their lines by.
var (
	paired  = Skim{Nested: NestedPaired, Scalars: ScalarsDelimited, MaxDepth: 513}
	counted = Skim{Nested: NestedCounted, Scalars: ScalarsAny, Rest: true}
	walked  = Skim{Nested: NestedWalked, Scalars: ScalarsSpelled, MaxDepth: 256}
)

// skimMembers is "key=value;" per member, or "ERR".
func skimMembers(s Skim, in string) string {
	var got strings.Builder
	err := s.MembersUntil([]byte(in), func(k, v []byte) bool {
		got.WriteString(string(k) + "=" + string(v) + ";")
		return string(k) != "stop"
	})
	if err != nil {
		return "ERR"
	}
	return got.String()
}

func TestSkimMembers(t *testing.T) {
	tests := []struct {
		in                    string
		paired, counted, walk string
	}{
		{`{}`, "", "", ""},
		{` { } `, "", "", ""},
		{`{"a":1}`, "a=1;", "a=1;", "a=1;"},
		{`{"a" : "x" , "b":[1,{"c":"]"}],"d":{"e":"}"} }`, `a="x";b=[1,{"c":"]"}];d={"e":"}"};`, `a="x";b=[1,{"c":"]"}];d={"e":"}"};`, `a="x";b=[1,{"c":"]"}];d={"e":"}"};`},
		{`{"a":"q\"uote","b":"back\\","c":"\\\"x"}`, `a="q\"uote";b="back\\";c="\\\"x";`, `a="q\"uote";b="back\\";c="\\\"x";`, `a="q\"uote";b="back\\";c="\\\"x";`},
		{`{"k\"ey":-1.5e3}`, `k\"ey=-1.5e3;`, `k\"ey=-1.5e3;`, `k\"ey=-1.5e3;`},
		{`{"a":true,"b":false,"c":null,"d":-1.5e3}`, "a=true;b=false;c=null;d=-1.5e3;", "a=true;b=false;c=null;d=-1.5e3;", "a=true;b=false;c=null;d=-1.5e3;"},
		// fn stops the walk (MembersUntil), which then reports no error.
		{`{"stop":1,"b":2}`, "stop=1;", "stop=1;", "stop=1;"},
		{`{"stop":1,"b":}`, "stop=1;", "stop=1;", "stop=1;"},
		{`{"a":1,}`, "ERR", "ERR", "ERR"},
		{`{"a" 1}`, "ERR", "ERR", "ERR"},
		{`{a:1}`, "ERR", "ERR", "ERR"},
		{`{"a":}`, "ERR", "ERR", "ERR"},
		{`{"a":1 "b":2}`, "ERR", "ERR", "ERR"},
		{`{"a":"unterminated}`, "ERR", "ERR", "ERR"},
		// Nested brackets: paired and walked match them, counted counts.
		{`{"a":[1,2}}`, "ERR", `a=[1,2};`, "ERR"},
		{`{"a":{"b":1]}`, "ERR", `a={"b":1];`, "ERR"},
		{`{"a":[1,2}`, "ERR", "ERR", "ERR"},
		{`{"a":{"b":1}`, "ERR", "ERR", "ERR"},
		// Nested members: only walked checks them.
		{`{"a":{"b" 1}}`, `a={"b" 1};`, `a={"b" 1};`, "ERR"},
		{`{"a":[1 2]}`, `a=[1 2];`, `a=[1 2];`, "ERR"},
		// Literals: delimited runs, any runs, or spelled.
		{`{"a":tru}`, "ERR", "a=tru;", "ERR"},
		{`{"a":truex}`, "ERR", "a=truex;", "ERR"},
		{`{"a":1-2}`, "a=1-2;", "a=1-2;", "a=1-2;"},
		{`{"a":1x}`, "ERR", "a=1x;", "ERR"},
		{`{"a":-}`, "a=-;", "a=-;", "a=-;"},
		{`{"a":+1}`, "a=+1;", "a=+1;", "ERR"},
		{`{"a":x"}`, "ERR", `a=x";`, "ERR"},
		// What follows the object: only counted lets anything.
		{`{"a":1} x`, "ERR", "a=1;", "ERR"},
		{`{"a":1}}`, "ERR", "a=1;", "ERR"},
		{`{} x`, "ERR", "", "ERR"},
		{`{"a":1`, "ERR", "ERR", "ERR"},
		{`[1]`, "ERR", "ERR", "ERR"},
		{``, "ERR", "ERR", "ERR"},
		// Depth: 512 levels below the object paired, 256 in all walked.
		{`{"a":` + strings.Repeat("[", 512) + strings.Repeat("]", 512) + `}`, "a=" + strings.Repeat("[", 512) + strings.Repeat("]", 512) + ";", "a=" + strings.Repeat("[", 512) + strings.Repeat("]", 512) + ";", "ERR"},
		{`{"a":` + strings.Repeat("[", 513) + strings.Repeat("]", 513) + `}`, "ERR", "a=" + strings.Repeat("[", 513) + strings.Repeat("]", 513) + ";", "ERR"},
		{`{"a":` + strings.Repeat("[", 255) + strings.Repeat("]", 255) + `}`, "a=" + strings.Repeat("[", 255) + strings.Repeat("]", 255) + ";", "a=" + strings.Repeat("[", 255) + strings.Repeat("]", 255) + ";", "a=" + strings.Repeat("[", 255) + strings.Repeat("]", 255) + ";"},
		{`{"a":` + strings.Repeat("[", 256) + strings.Repeat("]", 256) + `}`, "a=" + strings.Repeat("[", 256) + strings.Repeat("]", 256) + ";", "a=" + strings.Repeat("[", 256) + strings.Repeat("]", 256) + ";", "ERR"},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			name string
			s    Skim
			want string
		}{{"paired", paired, tt.paired}, {"counted", counted, tt.counted}, {"walked", walked, tt.walk}} {
			if got := skimMembers(c.s, tt.in); got != c.want {
				t.Errorf("%s Members(%.60s) = %.60s, want %.60s", c.name, tt.in, got, c.want)
			}
		}
	}
}

func TestSkimElements(t *testing.T) {
	tests := []struct{ in, paired, counted string }{
		{`[]`, "", ""},
		{`[1, "a,b" ,{"x":[2]}]`, `1|"a,b"|{"x":[2]}|`, `1|"a,b"|{"x":[2]}|`},
		{`[1,]`, "ERR", "ERR"},
		{`[1 2]`, "ERR", "ERR"},
		{`[1] x`, "ERR", "1|"},
		{`{}`, "ERR", "ERR"},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			s    Skim
			want string
		}{{paired, tt.paired}, {counted, tt.counted}} {
			var got strings.Builder
			if err := c.s.Elements([]byte(tt.in), func(v []byte) { got.WriteString(string(v) + "|") }); err != nil {
				got.Reset()
				got.WriteString("ERR")
			}
			if got.String() != c.want {
				t.Errorf("%+v Elements(%s) = %s, want %s", c.s, tt.in, got.String(), c.want)
			}
		}
	}
}

func TestSkimNotObject(t *testing.T) {
	for _, in := range []string{``, ` `, `[]`, `"x"`, `null`} {
		if err := walked.WalkMembers([]byte(in), nil); err != ErrNotObject {
			t.Errorf("WalkMembers(%q) = %v, want ErrNotObject", in, err)
		}
	}
	if err := walked.WalkMembers([]byte(`{"a"`), nil); err != ErrSyntax {
		t.Errorf("a broken object: %v, want ErrSyntax", err)
	}
}

func TestSkimString(t *testing.T) {
	tests := []struct {
		raw  string
		want string
		ok   bool
	}{
		{`"plain"`, "plain", true},
		{`""`, "", true},
		{`"esc\"aped\n\u00e9"`, "esc\"aped\né", true},
		{"\"bad \xff utf8\"", "bad \ufffd utf8", true},
		{"\"tab\tin\"", "tab\tin", true}, // a control byte, as the walk passed it
		{`"\q invalid"`, "", false},
		{`null`, "", false},
		{`12`, "", false},
		{`{"a":"b"}`, "", false},
		{`"`, "", false},
	}
	for _, tt := range tests {
		got, ok := SkimString([]byte(tt.raw))
		if got != tt.want || ok != tt.ok {
			t.Errorf("SkimString(%q) = %q, %v; want %q, %v", tt.raw, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzSkim: no input makes a walk panic, and every Skim reads a valid
// object (nested within its bounds) as encoding/json does: the same
// members, each value as written.
func FuzzSkim(f *testing.F) {
	for _, d := range documents {
		if len(d) < 1000 {
			f.Add([]byte(d))
		}
	}
	f.Add([]byte(`{"type":"message","message":{"content":[{"type":"text","text":"a\"b"}]},"n":-1.5e-3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var want []string
		valid := Object(data, func(k, v []byte) {
			want = append(want, string(k[1:len(k)-1])+"="+string(v))
		}) && nesting(data) < 200
		for _, s := range []Skim{paired, counted, walked} {
			var got []string
			err := s.Members(data, func(k, v []byte) {
				got = append(got, string(k)+"="+string(v))
			})
			if valid && (err != nil || !slices.Equal(got, want)) {
				t.Fatalf("%+v: valid %q read as %q, %v; want %q", s, data, got, err, want)
			}
			_ = s.Elements(data, func([]byte) {})
			for i := range min(len(data), 4) {
				_, _ = s.ValueEnd(data, i, 1)
			}
		}
		if valid && !json.Valid(data) {
			t.Fatalf("Object accepted what json.Valid refuses: %q", data)
		}
	})
}

// nesting is the most brackets open at once outside strings.
func nesting(data []byte) int {
	most, open := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			end, err := stringEnd(data, i)
			if err != nil {
				return most
			}
			i = end - 1
		case '{', '[':
			open++
			most = max(most, open)
		case '}', ']':
			open--
		}
	}
	return most
}
