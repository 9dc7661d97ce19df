package claude

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEachMember(t *testing.T) {
	tests := []struct {
		in   string
		want string // "k=v;" per member, or "ERR"
	}{
		{`{}`, ""},
		{` { } `, ""},
		{`{"a":1}`, "a=1;"},
		{`{"a" : "x" , "b":[1,{"c":"]"}],"d":{"e":"}"} }`, `a="x";b=[1,{"c":"]"}];d={"e":"}"};`},
		{`{"a":"q\"uote","b":"back\\","c":"\\\"x"}`, `a="q\"uote";b="back\\";c="\\\"x";`},
		{`{"a":true,"b":false,"c":null,"d":-1.5e3}`, "a=true;b=false;c=null;d=-1.5e3;"},
		{`{"a":1,}`, "ERR"},
		{`{"a" 1}`, "ERR"},
		{`{a:1}`, "ERR"},
		{`{"a":"unterminated}`, "ERR"},
		{`{"a":[1,2}`, "ERR"},
		{`{"a":{"b":1]}`, "ERR"},
		{`{"a":tru}`, "ERR"},
		{`{"a":1} x`, "ERR"},
		{`{"a":1}}`, "ERR"},
		{`{"a":1`, "ERR"},
		{`[1]`, "ERR"},
		{``, "ERR"},
		{`{"a":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`, "ERR"},
	}
	for _, tt := range tests {
		var got strings.Builder
		err := eachMember([]byte(tt.in), func(k, v []byte) {
			got.WriteString(string(k) + "=" + string(v) + ";")
		})
		if err != nil {
			got.Reset()
			got.WriteString("ERR")
		}
		if got.String() != tt.want {
			t.Errorf("eachMember(%s) = %s, want %s", tt.in, got.String(), tt.want)
		}
	}
}

func TestEachElement(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[]`, ""},
		{`[1, "a,b" ,{"x":[2]}]`, `1|"a,b"|{"x":[2]}|`},
		{`[1,]`, "ERR"},
		{`[1 2]`, "ERR"},
		{`{}`, "ERR"},
	}
	for _, tt := range tests {
		var got strings.Builder
		if err := eachElement([]byte(tt.in), func(v []byte) { got.WriteString(string(v) + "|") }); err != nil {
			got.Reset()
			got.WriteString("ERR")
		}
		if got.String() != tt.want {
			t.Errorf("eachElement(%s) = %s, want %s", tt.in, got.String(), tt.want)
		}
	}
}

func TestJSONString(t *testing.T) {
	tests := []struct {
		raw  string
		want string
		ok   bool
	}{
		{`"plain"`, "plain", true},
		{`""`, "", true},
		{`"tab\tquote\"uni\u00e9"`, "tab\tquote\"uni\u00e9", true},
		{"\"raw \xff bytes\"", "raw \uFFFD bytes", true},
		{`"\ud800"`, "\uFFFD", true},
		{`"bad \x escape"`, "", false},
		{`null`, "", false},
		{`42`, "", false},
		{`{"a":1}`, "", false},
		{`"`, "", false},
		{``, "", false},
	}
	for _, tt := range tests {
		got, ok := jsonString([]byte(tt.raw))
		if got != tt.want || ok != tt.ok {
			t.Errorf("jsonString(%s) = %q, %v; want %q, %v", tt.raw, got, ok, tt.want, tt.ok)
		}
	}
}

// The scanner must accept everything encoding/json accepts (as far as the
// lines it reads go), or valid history would be counted as broken.
func TestParseLineAcceptsValidJSON(t *testing.T) {
	for _, l := range []string{
		`{"type":"user","message":{"content":[{"type":"text","text":"a"},{"type":"image","source":{"data":"x"}}]}}`,
		`{ "type" : "assistant" , "message" : { "content" : [ ] } }`,
		`{"type":"user","message":{"content":[[1],2,"s",null,true]}}`,
		`{"type":"summary","summary":"s","leafUuid":"u","extra":{"deep":[[[[{"x":[]}]]]]}}`,
		`{"type":"user","uuid":"\u0075","message":{"content":"\\"}}`,
		`{"numbers":[0,-0,1e10,1E-5,-2.5]}`,
	} {
		if !json.Valid([]byte(l)) {
			t.Fatalf("test line is not valid JSON: %s", l)
		}
		if _, err := parseLine([]byte(l)); err != nil {
			t.Errorf("parseLine(%s): %v", l, err)
		}
	}
}
