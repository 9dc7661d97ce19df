package jsonedit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testBinary = "/opt/paddock/bin/paddock"

// command is a relay command line as the installer writes one.
func command(runtime, event string) string {
	return testBinary + " hook --runtime " + runtime + " " + event
}

// ours recognises a relay command, in the files these tests edit.
func ours(h *Node) bool {
	cmd, ok := h.GetString("command")
	return ok && strings.Contains(cmd, "paddock hook --runtime ")
}

// testdataFile is one of the installer's sample configs, which these
// tests share.
func testdataFile(name string) string {
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

var (
	claudeSettings = testdataFile("claude-settings.json")
	cursorHooks    = testdataFile("cursor-hooks.json")
)

func testHooks(nested bool) *Hooks {
	s := &Hooks{Nested: nested, Ours: ours}
	for _, ev := range []string{"Stop", "PreToolUse"} {
		m := ""
		if nested && ev == "PreToolUse" {
			m = "*"
		}
		h := Obj("command", command("claude", ev))
		if nested {
			h = Obj("type", "command", "command", command("claude", ev))
		}
		s.Events = append(s.Events, Event{Name: ev, Matcher: m, Handler: h})
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
			res, err := s.Edit([]byte(c.src), true)
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Out) != c.want {
				t.Fatalf("install:\n%s\nwant:\n%s", res.Out, c.want)
			}
			again, err := s.Edit(res.Out, true)
			if err != nil || string(again.Out) != c.want || again.Ours != 2 {
				t.Fatalf("second install changed it (%v, ours %d)", err, again.Ours)
			}
			back, err := s.Edit(res.Out, false)
			if err != nil {
				t.Fatal(err)
			}
			if string(back.Out) != c.back {
				t.Fatalf("uninstall:\n%q\nwant:\n%q", back.Out, c.back)
			}
		})
	}
}

func TestJSONEditFlatCursorShape(t *testing.T) {
	s := testHooks(false)
	src := cursorHooks
	res, err := s.Edit([]byte(src), true)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version int                         `json:"version"`
		Hooks   map[string][]map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(res.Out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || len(doc.Hooks["beforeShellExecution"]) != 1 || doc.Hooks["Stop"][0]["command"] != testBinary+" hook --runtime claude Stop" {
		t.Fatalf("%s", res.Out)
	}
	back, _ := s.Edit(res.Out, false)
	if string(back.Out) != src {
		t.Fatalf("uninstall:\n%s", back.Out)
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
		_, err := Parse([]byte(src))
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if [2]int{se.Line, se.Col} != want {
			t.Errorf("%q: line %d col %d, want %v (%s)", src, se.Line, se.Col, want, se.Msg)
		}
	}
}
