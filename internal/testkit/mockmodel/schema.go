package mockmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// schema is the part of a tool's JSON Schema (as offered in the request)
// that the mock needs to write arguments the tool accepts. The CLIs check
// tool calls against the schema they offered, at every level: Kimi 2.1.0
// refuses an AskUserQuestion call whose question carries Claude's
// "multiSelect" ("must NOT have additional property 'multiSelect'"; its
// field is "multi_select"), Codex refuses unknown keys too.
type schema struct {
	Type       schemaTypes        `json:"type"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Items      *schema            `json:"items"`
	AnyOf      []*schema          `json:"anyOf"`
	OneOf      []*schema          `json:"oneOf"`
	Enum       []any              `json:"enum"`
	Default    json.RawMessage    `json:"default"`
	MaxLength  *int               `json:"maxLength"`
	MaxItems   *int               `json:"maxItems"`
}

// UnmarshalJSON reads an object schema; boolean schemas and tuple "items"
// constrain nothing the mock writes and read as the empty schema, so one odd
// corner never loses the rest of a tool's schema.
func (s *schema) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		*s = schema{}
		return nil
	}
	type plain schema
	return json.Unmarshal(b, (*plain)(s))
}

// schemaTypes is "type": one name or a list of them.
type schemaTypes []string

func (t *schemaTypes) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*t = schemaTypes{one}
		return nil
	}
	var many []string
	if json.Unmarshal(b, &many) == nil {
		*t = many
	}
	return nil // an unreadable type constrains nothing
}

// parseSchema reads a tool's parameters; nil when there are none or they
// are not a schema.
func parseSchema(raw json.RawMessage) *schema {
	var s schema
	if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return &s
}

// defines reports whether the object schema s declares property name.
func (s *schema) defines(name string) bool { return s != nil && s.Properties[name] != nil }

// allows reports whether a value of JSON kind k ("object", "array",
// "string", "number", "integer", "boolean", "null") has a type s accepts.
func (s *schema) allows(k string) bool {
	if len(s.Type) == 0 {
		return true
	}
	if slices.Contains(s.Type, k) {
		return true
	}
	return k == "integer" && slices.Contains(s.Type, "number")
}

// kindOf is the JSON kind of a decoded value; whole numbers are integers.
func kindOf(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	}
	return "null"
}

// conform returns v, a decoded JSON value, fitted to s:
//   - object keys s does not define are dropped; a key spelled another way
//     (multiSelect for multi_select) is renamed; a required key that is
//     missing gets the schema's default, its first enum value, or an empty
//     value of its type;
//   - a value of the wrong type is converted where the intent is plain: an
//     {label, description} option to its label, one value to a
//     one-element list; otherwise it is replaced like a missing one;
//   - strings and lists are cut to maxLength and maxItems, and a value
//     outside an enum becomes its first value.
//
// A nil schema, or an object schema without properties, accepts v as is.
func (s *schema) conform(v any) any {
	if s == nil {
		return v
	}
	if len(s.Type) == 0 && (len(s.AnyOf) > 0 || len(s.OneOf) > 0) {
		return s.branch(kindOf(v)).conform(v)
	}
	if !s.allows(kindOf(v)) {
		v = s.convert(v)
	}
	switch x := v.(type) {
	case map[string]any:
		v = s.conformObject(x)
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			out = append(out, s.Items.conform(e))
		}
		if s.MaxItems != nil && len(out) > *s.MaxItems {
			out = out[:*s.MaxItems]
		}
		v = out
	case string:
		if s.MaxLength != nil {
			if r := []rune(x); len(r) > *s.MaxLength {
				v = string(r[:*s.MaxLength])
			}
		}
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		v = s.Enum[0]
	}
	return v
}

func (s *schema) conformObject(m map[string]any) map[string]any {
	if s.Properties == nil {
		return m
	}
	out := map[string]any{}
	for name, ps := range s.Properties {
		if v, ok := lookup(m, name); ok {
			out[name] = ps.conform(v)
		}
	}
	for _, name := range s.Required {
		if _, ok := out[name]; !ok {
			out[name] = s.Properties[name].zero()
		}
	}
	return out
}

// lookup finds key in m as spelled, else under another spelling of the
// same words (camelCase, snake_case, kebab-case), trying m's keys in order
// so the choice is stable.
func lookup(m map[string]any, key string) (any, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	want := fold(key)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if fold(k) == want {
			return m[k], true
		}
	}
	return nil, false
}

func fold(name string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
}

// branch picks the anyOf/oneOf alternative for a value of JSON kind k: the
// first that accepts k, else the first that is not null, else the first.
func (s *schema) branch(k string) *schema {
	alts := append(slices.Clip(s.AnyOf), s.OneOf...)
	for _, a := range alts {
		if a != nil && a.allows(k) {
			return a
		}
	}
	for _, a := range alts {
		if a != nil && !slices.Equal(a.Type, schemaTypes{"null"}) {
			return a
		}
	}
	return alts[0]
}

// convert turns v into s's (first) type where the intent is plain, else
// gives the type's empty value.
func (s *schema) convert(v any) any {
	switch want := s.Type[0]; want {
	case "string":
		switch x := v.(type) {
		case map[string]any: // an option given as a plain label
			if label, ok := x["label"].(string); ok {
				return label
			}
		case float64, bool:
			return fmt.Sprint(x)
		}
	case "array":
		if v != nil {
			return []any{v}
		}
	case "number", "integer":
		if x, ok := v.(float64); ok { // a fraction where an integer is wanted
			return float64(int64(x))
		}
	}
	return s.zero()
}

// zero is the value written for a required property the mock has nothing
// for: the schema's default, its first enum value, or an empty value of
// its type (an object gets its own required properties).
func (s *schema) zero() any {
	if s == nil {
		return nil
	}
	if len(s.Default) > 0 {
		var v any
		if json.Unmarshal(s.Default, &v) == nil {
			return v
		}
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	if len(s.Type) == 0 && (len(s.AnyOf) > 0 || len(s.OneOf) > 0) {
		return s.branch("").zero() // the first branch that is not null
	}
	if len(s.Type) == 0 {
		return nil
	}
	switch s.Type[0] {
	case "string":
		return ""
	case "boolean":
		return false
	case "number", "integer":
		return float64(0)
	case "array":
		return []any{}
	case "object":
		return s.conformObject(map[string]any{})
	}
	return nil
}
