package hookinstall

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
		in, err := s.edit(src, true)
		if !json.Valid(src) {
			if err == nil {
				t.Fatalf("invalid JSON accepted: %q", src)
			}
			return
		}
		if err != nil {
			return // structure paddock refuses to edit (not an object, ...)
		}
		if !json.Valid(in.out) {
			t.Fatalf("install broke the JSON:\n%q\n->\n%q", src, in.out)
		}
		again, err := s.edit(in.out, true)
		if err != nil || !bytes.Equal(again.out, in.out) {
			t.Fatalf("install is not idempotent (%v):\n%q\n->\n%q", err, in.out, again.out)
		}
		if again.ours != len(s.events) {
			t.Fatalf("after install %d paddock entries, want %d", again.ours, len(s.events))
		}
		out, err := s.edit(in.out, false)
		if err != nil {
			t.Fatalf("uninstall failed on what install wrote: %v", err)
		}
		if !json.Valid(out.out) {
			t.Fatalf("uninstall broke the JSON:\n%q", out.out)
		}
		if left, _ := s.edit(out.out, false); left.ours != 0 {
			t.Fatalf("uninstall left %d paddock entries", left.ours)
		}
		// the meaning round-trips for documents without paddock entries
		orig, err := s.edit(src, false)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(orig.out, src) && !reflect.DeepEqual(prune(canonical(src)), prune(canonical(out.out))) {
			t.Fatalf("uninstall(install(x)) means something else:\n%q\n->\n%q", src, out.out)
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

// FuzzTOML: the scanner never panics, its statements tile the document, and
// Kimi's edit keeps a scannable document scannable.
func FuzzTOML(f *testing.F) {
	for _, s := range []string{
		"a = 1\n", "[[hooks]]\nevent = \"Stop\"\ncommand = \"/x/paddock hook --runtime kimi Stop\"\n",
		"notify = [\"/x\"]\n[t]\n", "s = \"\"\"\nx\"\"\"\n", "arr = [\n1,\n]\n", "# c\n\n", "a = { b = [ 'c' ] }",
		tomlBegin + "\n[[hooks]]\ncommand = \"/p/paddock hook --runtime kimi X\"\n" + tomlEnd + "\n",
	} {
		f.Add([]byte(s))
	}
	o := &resolved{binary: testBinary}
	k := &tomlHooks{ours: o.isOurCommand, events: []tomlHook{{event: "Stop", command: o.command("kimi", "Stop"), timeout: 10}}}
	n := &notifyEdit{argv: append(o.relayArgv("codex"), "notify"), ours: o.isOurArgv}
	f.Fuzz(func(t *testing.T, src []byte) {
		stmts, err := scanTOML(src)
		if err != nil {
			return
		}
		end := 0
		for _, s := range stmts {
			if s.start != end || s.end < s.start {
				t.Fatalf("statements do not tile the document at line %d", s.line)
			}
			end = s.end
		}
		if end != len(src) {
			t.Fatal("statements do not reach the end")
		}
		for _, install := range []bool{true, false} {
			if res, err := k.edit(src, install); err == nil {
				if _, err := scanTOML(res.out); err != nil {
					t.Fatalf("kimi edit broke the document: %v\n%q", err, res.out)
				}
				if install {
					if again, err := k.edit(res.out, true); err != nil || !bytes.Equal(again.out, res.out) {
						t.Fatalf("kimi install is not idempotent:\n%q", res.out)
					}
				}
			}
			if res, err := n.edit(src, install); err == nil {
				if _, err := scanTOML(res.out); err != nil {
					t.Fatalf("notify edit broke the document: %v\n%q", err, res.out)
				}
			}
		}
	})
}
