package jsonpeek

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

// The contract is encoding/json's behaviour, so every test compares with
// it: the tables pin the corners, the fuzz targets look for the rest.

var documents = []string{
	``, ` `, `{}`, ` { } `, `[]`, `null`, ` null `, `nul`, `nullx`, `true`, `false`, `tru`,
	`0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1E-7`, `1e400`, `-1.25e+3`, `1_0`, `0x10`,
	`"a"`, `"a`, `"\u00e9"`, `"\u00g9"`, `"\x"`, `"tab	in"`, "\"\x7f\"", "\"\xff\xfe\"", `"\/\b\f\n\r\t\"\\"`,
	`{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1 "b":2}`, `{"a":[1,2,{"b":null}]}`,
	`[1,2`, `[1,]`, `[,1]`, `{"a":1}}`, `{"a":1} x`, "{\"a\":1}\r\n\t", `{"type":"x","type":5}`,
	`{"Type":"x"}`, `{"TYPE":"x","tyPe":"y"}`, `{"\u0074ype":"x"}`, `{"ſtepUuid":"s"}`, "{\"\u212aind\":1}",
	"{\"typ\xff\":1}", `{"a":"b","a":"c"}`, `["x",{"y":[]},null,true,-1e-2]`, "\v{}", "{}\f",
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
	`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
}

func TestValid(t *testing.T) {
	for _, d := range documents {
		if got, want := Valid([]byte(d)), json.Valid([]byte(d)); got != want {
			t.Errorf("Valid(%.40q) = %v, json.Valid says %v", d, got, want)
		}
	}
}

func TestNull(t *testing.T) {
	for d, want := range map[string]bool{`null`: true, " null\n": true, `nul`: false, `null,`: false, `"null"`: false, ``: false} {
		if got := Null([]byte(d)); got != want {
			t.Errorf("Null(%q) = %v, want %v", d, got, want)
		}
	}
}

func TestMemberAndObject(t *testing.T) {
	for _, d := range documents {
		checkObject(t, []byte(d))
	}
}

func TestArray(t *testing.T) {
	for _, d := range documents {
		checkArray(t, []byte(d))
	}
}

func TestFields(t *testing.T) {
	for _, d := range documents {
		checkFields(t, []byte(d))
		checkNested(t, []byte(d))
	}
	for _, d := range []string{
		`{"a":{"type":"x","Kind":1},"b":2}`, `{"a":{"type":"x"},"A":{"kind":2}}`, `{"a":null}`, `{"a":[1]}`,
		`{"a":5}`, `{"a":{"type":}}`, `{"a":{"type":"x"}`, `{"a":{"a":{"a":{}}}}`, `{"a":"{}"}`,
	} {
		checkFields(t, []byte(d))
		checkNested(t, []byte(d))
	}
}

func TestString(t *testing.T) {
	for _, d := range append(documents, `"plain"`, `"é"`, ` "x" `, `"x" `, `"a\"b"`, `"\ud800"`, `"\ud83d\ude00"`) {
		checkString(t, []byte(d))
	}
}

func TestNumber(t *testing.T) {
	for _, d := range append(documents, `1779999999999`, `1e308`, `1e309`, `-1e309`, `1e-400`, `12 `, ` 12`, `5e-324`) {
		checkNumber(t, []byte(d))
	}
}

func TestKeys(t *testing.T) {
	for _, c := range []struct {
		key, name string
		is, folds bool
	}{
		{`"type"`, "type", true, true},
		{`"Type"`, "type", false, true},
		{`"TYPE"`, "type", false, true},
		{`"typ"`, "type", false, false},
		{`"types"`, "type", false, false},
		{`"\u0074ype"`, "type", true, true},
		{`"\u0054YPE"`, "type", false, true},
		{`"ſtepUuid"`, "stepUuid", false, true},
		{`"STEPUUID"`, "ſtepUuid", false, true},
		{"\"\u212aind\"", "kind", false, true},
		{"\"typ\xff\"", "typ\uFFFD", true, true},
		{`""`, "", true, true},
		{`"`, "", false, false},
	} {
		if got := Is([]byte(c.key), c.name); got != c.is {
			t.Errorf("Is(%s, %q) = %v", c.key, c.name, got)
		}
		if got := KeyFolds([]byte(c.key), c.name); got != c.folds {
			t.Errorf("KeyFolds(%s, %q) = %v", c.key, c.name, got)
		}
	}
}

// checkObject compares Object and Member with decoding into a map.
func checkObject(t *testing.T, data []byte) {
	t.Helper()
	var want map[string]json.RawMessage
	wantOK := json.Unmarshal(data, &want) == nil && want != nil
	got := map[string]json.RawMessage{}
	ok := Object(data, func(k, v []byte) {
		s, sok := String(k)
		if !sok {
			t.Fatalf("Object passed key %q, not a string", k)
		}
		got[s] = v
	})
	if ok != wantOK {
		t.Fatalf("Object(%.60q) ok = %v, json says %v", data, ok, wantOK)
	}
	if !ok {
		if _, found := Member(data, "a"); found {
			t.Errorf("Member found a member of invalid %.60q", data)
		}
		return
	}
	if !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
		t.Errorf("Object(%.60q) = %q, json %q", data, got, want)
	}
	for name, w := range want {
		if v, found := Member(data, name); !found || !bytes.Equal(v, w) {
			t.Errorf("Member(%.60q, %q) = %q %v, want %q", data, name, v, found, w)
		}
	}
}

func checkArray(t *testing.T, data []byte) {
	t.Helper()
	var want []json.RawMessage
	wantOK := json.Unmarshal(data, &want) == nil && want != nil
	var got []json.RawMessage
	ok := Array(data, func(v []byte) { got = append(got, v) })
	if ok != wantOK {
		t.Fatalf("Array(%.60q) ok = %v, json says %v", data, ok, wantOK)
	}
	if !ok {
		return
	}
	if len(got) != len(want) {
		t.Fatalf("Array(%.60q) = %q, json %q", data, got, want)
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("Array(%.60q)[%d] = %q, json %q", data, i, got[i], want[i])
		}
	}
}

// record is the struct Fields stands in for in the tests.
type record struct {
	Type     json.RawMessage `json:"type"`
	StepUUID json.RawMessage `json:"stepUuid"`
	Kind     json.RawMessage `json:"kind"`
	A        json.RawMessage `json:"a"`
}

var recordNames = []string{"type", "stepUuid", "kind", "a"}

func checkFields(t *testing.T, data []byte) {
	t.Helper()
	var want record
	wantOK := json.Unmarshal(data, &want) == nil
	var got record
	dst := []*json.RawMessage{&got.Type, &got.StepUUID, &got.Kind, &got.A}
	ok := Fields(data, recordNames, func(i int, v []byte) { *dst[i] = v })
	if ok != wantOK {
		t.Fatalf("Fields(%.60q) ok = %v, json says %v", data, ok, wantOK)
	}
	if !ok {
		return
	}
	for i, w := range []json.RawMessage{want.Type, want.StepUUID, want.Kind, want.A} {
		if !bytes.Equal(*dst[i], w) {
			t.Errorf("Fields(%.60q) %s = %q, json %q", data, recordNames[i], *dst[i], w)
		}
	}
}

// checkNested compares reading member "a" in the walk's own pass
// (FieldValues, Value.Fields) with reading its raw value afterwards.
func checkNested(t *testing.T, data []byte) {
	t.Helper()
	type read struct {
		ok     bool
		fields [4]string
	}
	var inPass, after []read
	ok := FieldValues(data, recordNames, func(i int, v *Value) {
		if i != 3 {
			return
		}
		var r read
		r.ok = v.Fields(recordNames, func(j int, val []byte) { r.fields[j] = string(val) })
		inPass = append(inPass, r)
	})
	wantOK := Fields(data, recordNames, func(i int, raw []byte) {
		if i != 3 {
			return
		}
		var r read
		r.ok = Fields(raw, recordNames, func(j int, val []byte) { r.fields[j] = string(val) })
		after = append(after, r)
	})
	if ok != wantOK {
		t.Fatalf("FieldValues(%.60q) ok = %v, Fields says %v", data, ok, wantOK)
	}
	if ok && !slices.Equal(inPass, after) {
		t.Errorf("FieldValues(%.60q) read %v, Fields %v", data, inPass, after)
	}
}

func checkString(t *testing.T, data []byte) {
	t.Helper()
	var want string
	wantOK := json.Unmarshal(data, &want) == nil
	if wantOK && bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("null")) {
		wantOK = false // null leaves a string as it is; String calls it absent
	}
	got, ok := String(data)
	if ok != wantOK || got != want && ok {
		t.Errorf("String(%.60q) = %q %v, json %q %v", data, got, ok, want, wantOK)
	}
}

func checkNumber(t *testing.T, data []byte) {
	t.Helper()
	var want float64
	wantOK := len(data) > 0 && (data[0] == '-' || data[0] >= '0' && data[0] <= '9') && json.Unmarshal(data, &want) == nil
	got, ok := Number(data)
	if ok != wantOK || ok && got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
		t.Errorf("Number(%.60q) = %v %v, json %v %v", data, got, ok, want, wantOK)
	}
}

func FuzzPeek(f *testing.F) {
	for _, d := range documents {
		if len(d) < 1000 {
			f.Add([]byte(d))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", data, got, want)
		}
		checkObject(t, data)
		checkArray(t, data)
		checkFields(t, data)
		checkNested(t, data)
		checkString(t, data)
		checkNumber(t, data)
		// Every member name, as a key, against every field name.
		Object(data, func(k, _ []byte) {
			s, _ := String(k)
			for _, name := range recordNames {
				if got, want := KeyFolds(k, name), s == name || strings.EqualFold(s, name); got != want {
					t.Fatalf("KeyFolds(%s, %q) = %v, want %v", k, name, got, want)
				}
			}
		})
	})
}

// TestStringLanes puts every kind of byte at every offset of a string long
// enough to be scanned eight bytes at a time.
func TestStringLanes(t *testing.T) {
	for c := range 256 {
		for at := range 24 {
			body := []byte(strings.Repeat("a", 24))
			body[at] = byte(c)
			for _, d := range [][]byte{
				append(append([]byte(`"`), body...), '"'),
				append(append([]byte(`["`), body...), `\n"]`...),
				append(append([]byte(`{"k":"`), body...), `","x":1}`...),
			} {
				if got, want := Valid(d), json.Valid(d); got != want {
					t.Fatalf("Valid(%q) = %v, json.Valid says %v", d, got, want)
				}
				checkString(t, d)
			}
		}
	}
}
