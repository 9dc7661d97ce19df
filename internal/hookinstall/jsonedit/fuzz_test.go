package jsonedit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzJSONHooks: the JSON editor never panics; whatever parses still parses
// after install and uninstall; install is idempotent; and uninstalling what
// was just installed gives back the same meaning (byte-identical where the
// document had no paddock entries and no empty containers to begin with is
// checked by the unit tests on real files).
func FuzzJSONHooks(f *testing.F) {
	for _, s := range []string{
		claudeSettings, cursorHooks, "{}", "{}\n", `{"hooks":{}}`, `{"hooks":{"Stop":[]}}`, "[]", `{"hooks":null}`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/paddock hook --runtime claude Stop"},{"command":"a"}]}]}}`,
		`{"hooks":{"Stop":[{"command":"/x/paddock hook --runtime cursor stop"}, 1, "s", null]}}`,
		"{\n\t\"a\": [\n\t\t1\n\t],\n\t\"hooks\": {\"Stop\": 3}\n}",
		`{"hooks":{"Stop":[{"hooks":{}}],"Stop":[]}}`,
		"{\r\n  \"a\": 1,\r\n  \"hooks\": {\"Stop\": []}\r\n}\r\n",
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, src []byte, nested bool) {
		s := testHooks(nested)
		in, err := s.Edit(src, true)
		if !json.Valid(src) {
			if err == nil {
				t.Fatalf("invalid JSON accepted: %q", src)
			}
			return
		}
		if err != nil {
			return // structure paddock refuses to edit (not an object, ...)
		}
		if !json.Valid(in.Out) {
			t.Fatalf("install broke the JSON:\n%q\n->\n%q", src, in.Out)
		}
		again, err := s.Edit(in.Out, true)
		if err != nil || !bytes.Equal(again.Out, in.Out) {
			t.Fatalf("install is not idempotent (%v):\n%q\n->\n%q", err, in.Out, again.Out)
		}
		if again.Ours != len(s.Events) {
			t.Fatalf("after install %d paddock entries, want %d", again.Ours, len(s.Events))
		}
		out, err := s.Edit(in.Out, false)
		if err != nil {
			t.Fatalf("uninstall failed on what install wrote: %v", err)
		}
		if !json.Valid(out.Out) {
			t.Fatalf("uninstall broke the JSON:\n%q", out.Out)
		}
		if left, _ := s.Edit(out.Out, false); left.Ours != 0 {
			t.Fatalf("uninstall left %d paddock entries", left.Ours)
		}
		// the meaning round-trips for documents without paddock entries
		orig, err := s.Edit(src, false)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(orig.Out, src) && !reflect.DeepEqual(prune(canonical(src)), prune(canonical(out.Out))) {
			t.Fatalf("uninstall(install(x)) means something else:\n%q\n->\n%q", src, out.Out)
		}
	})
}

// prune drops empty hook lists and an empty "hooks" object, which an
// uninstall may remove when paddock's entry was the last one in them.
func prune(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, x := range m {
		out[k] = x
	}
	if h, ok := out["hooks"].(map[string]any); ok {
		hh := map[string]any{}
		for ev, list := range h {
			if l, ok := list.([]any); ok && len(l) == 0 {
				continue
			}
			hh[ev] = list
		}
		if len(hh) == 0 {
			delete(out, "hooks")
		} else {
			out["hooks"] = hh
		}
	}
	return out
}
