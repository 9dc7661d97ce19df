package hookinstall

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func testHooks(nested bool) *jsonHooks {
	o := &resolved{binary: testBinary}
	s := &jsonHooks{nested: nested, ours: o.isOurJSONHandler}
	for _, ev := range []string{"Stop", "PreToolUse"} {
		m := ""
		if nested && ev == "PreToolUse" {
			m = "*"
		}
		h := jobj{{"command", o.command("claude", ev)}}
		if nested {
			h = jobj{{"type", "command"}, {"command", o.command("claude", ev)}}
		}
		s.events = append(s.events, jsonEvent{name: ev, matcher: m, handler: h})
	}
	return s
}

// The inserted text follows each document's own layout, and removing it
// gives back the original bytes.
func TestJSONEditKeepsLayout(t *testing.T) {
	// back is the uninstall's result: the original bytes, except that an
	// event list or "hooks" object paddock leaves empty goes away.
	cases := []struct {
		name, src, want, back string
	}{
		{"empty object", "{}\n", `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/paddock/bin/paddock hook --runtime claude Stop"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/paddock/bin/paddock hook --runtime claude PreToolUse"
          }
        ]
      }
    ]
  }
}
`, "{}\n"},
		{"one-space indent, existing event", "{\n \"a\": 1,\n \"hooks\": {\n  \"Stop\": [\n   {\"hooks\": []}\n  ]\n }\n}", `{
 "a": 1,
 "hooks": {
  "Stop": [
   {"hooks": []},
   {
    "hooks": [
     {
      "type": "command",
      "command": "/opt/paddock/bin/paddock hook --runtime claude Stop"
     }
    ]
   }
  ],
  "PreToolUse": [
   {
    "matcher": "*",
    "hooks": [
     {
      "type": "command",
      "command": "/opt/paddock/bin/paddock hook --runtime claude PreToolUse"
     }
    ]
   }
  ]
 }
}`, "{\n \"a\": 1,\n \"hooks\": {\n  \"Stop\": [\n   {\"hooks\": []}\n  ]\n }\n}"},
		{"tabs", "{\n\t\"hooks\": {}\n}\n", "{\n\t\"hooks\": {\n\t\t\"Stop\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"/opt/paddock/bin/paddock hook --runtime claude Stop\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t],\n\t\t\"PreToolUse\": [\n\t\t\t{\n\t\t\t\t\"matcher\": \"*\",\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"/opt/paddock/bin/paddock hook --runtime claude PreToolUse\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}\n", "{}\n"},
		{"one line", `{"model":"x","hooks":{"Stop":[]}}`, `{"model":"x","hooks":{"Stop":[{"hooks": [{"type": "command", "command": "/opt/paddock/bin/paddock hook --runtime claude Stop"}]}],"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/opt/paddock/bin/paddock hook --runtime claude PreToolUse"}]}]}}`, `{"model":"x"}`},
	}
	s := testHooks(true)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := s.edit([]byte(c.src), true)
			if err != nil {
				t.Fatal(err)
			}
			if string(res.out) != c.want {
				t.Fatalf("install:\n%s\nwant:\n%s", res.out, c.want)
			}
			again, err := s.edit(res.out, true)
			if err != nil || string(again.out) != c.want || again.ours != 2 {
				t.Fatalf("second install changed it (%v, ours %d)", err, again.ours)
			}
			back, err := s.edit(res.out, false)
			if err != nil {
				t.Fatal(err)
			}
			if string(back.out) != c.back {
				t.Fatalf("uninstall:\n%q\nwant:\n%q", back.out, c.back)
			}
		})
	}
}

func TestJSONEditFlatCursorShape(t *testing.T) {
	s := testHooks(false)
	src := cursorHooks
	res, err := s.edit([]byte(src), true)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version int                         `json:"version"`
		Hooks   map[string][]map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(res.out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || len(doc.Hooks["beforeShellExecution"]) != 1 || doc.Hooks["Stop"][0]["command"] != testBinary+" hook --runtime claude Stop" {
		t.Fatalf("%s", res.out)
	}
	back, _ := s.edit(res.out, false)
	if string(back.out) != src {
		t.Fatalf("uninstall:\n%s", back.out)
	}
}

func TestJSONSyntaxErrorPosition(t *testing.T) {
	for src, want := range map[string][2]int{
		"{\n  \"a\": 1,\n}":   {3, 1},
		"{\"a\" 1}":           {1, 6},
		"\n\n  [1, 2,, 3]":    {3, 9},
		"{\"a\": \"\x01\"}":   {1, 8},
		"":                    {1, 1},
		"{\"a\": tru}":        {1, 10},
		"\xef\xbb\xbf{}\n":    {1, 1},
		"{\"k\": [1, 2}\n":    {1, 12},
		"{} {}":               {1, 4},
		"{\"x\":\n\n\n  nul}": {4, 6},
	} {
		_, err := parseJSON([]byte(src))
		se, ok := err.(*syntaxError)
		if !ok {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if [2]int{se.Line, se.Col} != want {
			t.Errorf("%q: line %d col %d, want %v (%s)", src, se.Line, se.Col, want, se.Msg)
		}
	}
}

func TestRecognisesPaddocksCommands(t *testing.T) {
	o := &resolved{binary: "/usr/local/bin/pdk"}
	for cmd, want := range map[string]bool{
		"/usr/local/bin/pdk hook --runtime claude Stop":                   true,
		"/old/paddock hook --runtime claude Stop":                         true,
		"'/a b/paddock' hook --runtime codex --data-dir '/x y' Stop":      true,
		"env A=1 /opt/paddock hook --runtime claude Stop":                 true,
		`"/Users/me/Application Support/paddock" hook --runtime pi x`:     true,
		"/usr/bin/other hook --runtime claude Stop":                       false,
		"/opt/paddock/bin/paddock serve":                                  false,
		"echo paddock hook":                                               false,
		"/usr/local/bin/pdk hook claude":                                  false,
		"paddock-dev hook --runtime claude Stop":                          true,
		"sh -c 'paddock hook --runtime claude Stop'":                      true, // still runs the relay
		"~/bin/audit.sh; /opt/paddock hook --runtime claude Notification": true,
	} {
		if got := o.isOurCommand(cmd); got != want {
			t.Errorf("%q: %v, want %v", cmd, got, want)
		}
	}
	if w := shellWords(`a 'b c' "d \"e\"" f\ g`); !reflect.DeepEqual(w, []string{"a", "b c", `d "e"`, "f g"}) {
		t.Errorf("shellWords: %q", w)
	}
	if q := shellQuote("/a b/it's"); q != `'/a b/it'\''s'` {
		t.Errorf("shellQuote: %s", q)
	}
	if !strings.Contains((&resolved{binary: "/a b/paddock"}).command("claude", "Stop"), "'/a b/paddock' hook --runtime claude Stop") {
		t.Error("command does not quote the binary")
	}
}
