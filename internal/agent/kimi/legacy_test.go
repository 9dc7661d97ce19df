package kimi

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"paddock/internal/procscan"
	"paddock/internal/session"
)

// The Python kimi-cli layout. No sample of it exists in ../shared (see
// fixtures/SOURCES.md), so these files are written here in the shapes of
// kimi-cli's own code (soul/context.py, session_state.py, metadata.py,
// wire/file.py) and of kimi-code's migrator that reads them
// (packages/migration-legacy in its bundle).

const (
	uuidDir      = "1b3a1c84-9a40-4c4e-9b8e-0d2f2b6e1a01"
	uuidFlat     = "2c4b2d95-ab51-4d5f-8c9f-1e3f3c7f2b02"
	uuidArchived = "3d5c3ea6-bc62-4e60-9da0-2f404d803c03"
	uuidMigrated = "4e6d4fb7-cd73-4f71-8eb1-30515e914d04"
	uuidUnknown  = "5f7e50c8-de84-4082-9fc2-41626fa25e05"
)

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// legacyTree writes a kimi-cli share dir and a kimi-code home; it returns
// both and the project directory the sessions belong to.
func legacyTree(t *testing.T) (share, home, proj string) {
	t.Helper()
	share, home, proj = t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(share, "kimi.json"),
		`{"work_dirs": [{"path": "`+proj+`", "kaos": "local", "last_session_id": "`+uuidDir+`"}]}`)
	b := filepath.Join(share, "sessions", md5hex(proj))

	// A session directory: bookkeeping rows, a checkpoint, an injected
	// reminder, a tool exchange with thinking, and a subagent.
	writeFile(t, filepath.Join(b, uuidDir, "context.jsonl"), `{"role": "_system_prompt", "content": "You are Kimi CLI."}
{"role": "_checkpoint", "id": 0}
{"role":"user","content":[{"type":"text","text":"<system>CHECKPOINT 0</system>"}]}
{"role":"user","content":"fix the flaky test"}
{"role":"assistant","content":[{"type":"think","think":"THINKING"},{"type":"text","text":"Looking at it."}],"tool_calls":[{"type":"function","id":"tc_1","function":{"name":"Shell","arguments":"{\"command\":\"go test\"}"}}]}
{"role":"tool","content":[{"type":"text","text":"<system>ERROR</system>"},{"type":"text","text":"TOOL OUTPUT"}],"tool_call_id":"tc_1"}
{"role": "_usage", "token_count": 1234}
{"role": "_checkpoint", "id": 1}
{"role":"user","content":[{"type":"text","text":"<system-reminder>\nPlan mode is active.\n</system-reminder>"},{"type":"text","text":"and the docs too"}]}
{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}
{"role":"assistant","content":"Done."}
`)
	writeFile(t, filepath.Join(b, uuidDir, "wire.jsonl"), `{"type": "metadata", "protocol_version": "1.10"}
{"timestamp": 1770000000.5, "message": {"type": "TurnBegin", "payload": {"user_input": "fix the flaky test"}}}
`)
	writeFile(t, filepath.Join(b, uuidDir, "state.json"), `{"version": 1, "custom_title": "Flaky test", "archived": false, "todos": []}`)
	writeFile(t, filepath.Join(b, uuidDir, "subagents", "agent_1", "context.jsonl"),
		`{"role":"user","content":"SUBAGENT PROMPT"}`+"\n"+`{"role":"assistant","content":"SUBAGENT ANSWER"}`+"\n")

	// The older flat file, with a title only in metadata.json's absence.
	writeFile(t, filepath.Join(b, uuidFlat+".jsonl"), `{"role":"user","content":"old flat question"}
{"role":"assistant","content":[{"type":"text","text":"old flat answer"}]}
`)
	// Archived (metadata.json, as versions before state.json wrote it).
	writeFile(t, filepath.Join(b, uuidArchived, "context.jsonl"), `{"role":"user","content":"archived question"}`+"\n")
	writeFile(t, filepath.Join(b, uuidArchived, "metadata.json"), `{"title": "Untitled", "archived": true}`)
	// Migrated: kimi-code holds it as ses_<uuid>.
	writeFile(t, filepath.Join(b, uuidMigrated, "context.jsonl"), `{"role":"user","content":"migrated question"}`+"\n")
	fake{bucket: workDirKey(proj), id: "ses_" + uuidMigrated,
		state: `{"version":2,"cwd":"` + proj + `","title":"migrated question","titleKind":"replaceable","createdAt":1760000000000}`,
		wire: []string{`{"type":"metadata","protocol_version":"1.0","created_at":1760000000000}`,
			`{"type":"turn.prompt","agentId":"main","input":[{"type":"text","text":"migrated question"}],"origin":{"kind":"user"},"time":1760000000000}`,
			`{"type":"context.append_message","message":{"role":"user","content":[{"type":"text","text":"migrated question"}],"toolCalls":[]}}`,
			`{"type":"context.append_message","message":{"role":"assistant","content":[{"type":"text","text":"migrated answer"}],"toolCalls":[]}}`,
		}}.write(t, home)
	// A bucket kimi.json no longer names.
	writeFile(t, filepath.Join(share, "sessions", md5hex("/somewhere/else"), uuidUnknown, "context.jsonl"),
		`{"role":"user","content":"orphan question"}`+"\n")
	// Not a bucket at all.
	writeFile(t, filepath.Join(share, "sessions", "notes", "x", "context.jsonl"), `{"role":"user","content":"no"}`+"\n")
	return share, home, proj
}

func TestLegacyLayout(t *testing.T) {
	share, home, proj := legacyTree(t)
	s := New(Options{Home: home, LegacyHome: share})
	infos := byID(scanAll(t, s))
	want := []string{uuidDir, uuidFlat, uuidUnknown, "ses_" + uuidMigrated}
	if got := slices.Sorted(func(y func(string) bool) {
		for id := range infos {
			if !y(id) {
				return
			}
		}
	}); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Fatalf("listed %v, want %v", got, want)
	}

	d := infos[uuidDir]
	if d.Title != "Flaky test" || d.TitleSource != session.TitleCustom || d.Cwd != proj ||
		d.FirstPrompt != "fix the flaky test" || d.LastPrompt != "and the docs too" || d.PromptCount != 2 ||
		!d.Created.Equal(time.UnixMilli(1770000000500)) || filepath.Base(d.Path) != "context.jsonl" {
		t.Errorf("directory session: %+v", d)
	}
	got := texts(conversation(t, s, uuidDir))
	wantConv := []string{"user: fix the flaky test", "assistant: Looking at it.", "user: and the docs too", "assistant: Done."}
	if !slices.Equal(got, wantConv) {
		t.Errorf("conversation\n got %q\nwant %q", got, wantConv)
	}

	f := infos[uuidFlat]
	if f.Title != "old flat question" || f.TitleSource != session.TitlePrompt || f.Cwd != proj {
		t.Errorf("flat session: %+v", f)
	}
	if got := texts(conversation(t, s, uuidFlat)); !slices.Equal(got, []string{"user: old flat question", "assistant: old flat answer"}) {
		t.Errorf("flat conversation %q", got)
	}
	if u := infos[uuidUnknown]; u.Cwd != "" || u.Title != "orphan question" {
		t.Errorf("unknown bucket: %+v", u)
	}
	if m := infos["ses_"+uuidMigrated]; m.Title != "migrated question" ||
		!slices.Equal(texts(conversation(t, s, m.ID)), []string{"user: migrated question", "assistant: migrated answer"}) {
		t.Errorf("migrated: %+v", m)
	}
	for _, id := range []string{uuidArchived, uuidMigrated} {
		if _, err := s.Session(context.Background(), id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%s) = %v, want ErrNotFound", id, err)
		}
	}
	if info, err := s.Session(context.Background(), uuidDir); err != nil || info.Title != "Flaky test" {
		t.Errorf("Session(dir) = %+v, %v", info, err)
	}

	// A kimi-cli TUI started before its session was created binds it.
	p := procscan.AgentProcess{PID: 99, Runtime: "kimi", Argv: []string{"python3", "/home/u/.local/bin/kimi"},
		Cwd: proj, TTY: "/dev/pts/2", Interactive: true, Started: time.UnixMilli(1770000000000)}
	s = New(Options{Home: home, LegacyHome: share, Processes: procsOf(p)})
	if got := byID(scanAll(t, s))[uuidDir]; !got.Live || got.PID != 99 {
		t.Errorf("kimi-cli TUI: live %v pid %d", got.Live, got.PID)
	}
}

// The legacy store is a side source: when it cannot be listed kimi-code's
// sessions are still listed.
func TestLegacyUnreadable(t *testing.T) {
	_, home, _ := legacyTree(t)
	share := t.TempDir()
	writeFile(t, filepath.Join(share, "sessions"), "not a directory")
	infos, err := New(Options{Home: home, LegacyHome: share}).Scan(context.Background(), -1, nil)
	if err != nil || len(infos) != 1 {
		t.Errorf("Scan = %v, %v", ids(infos), err)
	}
}

// DefaultOptions follows Kimi's own resolution of its directories.
func TestDefaultOptions(t *testing.T) {
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	t.Setenv("KIMI_CODE_HOME", "")
	t.Setenv("KIMI_SHARE_DIR", "")
	o := DefaultOptions()
	if o.Home != filepath.Join(userHome, ".kimi-code") || o.LegacyHome != filepath.Join(userHome, ".kimi") || o.Processes != nil {
		t.Errorf("defaults: %+v", o)
	}

	t.Setenv("KIMI_CODE_HOME", "/data/kimi-code")
	t.Setenv("KIMI_SHARE_DIR", "rel/share")
	o = DefaultOptions()
	wd, _ := os.Getwd()
	if o.Home != "/data/kimi-code" || o.LegacyHome != filepath.Join(wd, "rel", "share") {
		t.Errorf("from the environment: %+v", o)
	}

	// KIMI_SHARE_DIR pointing at kimi-code's home is one store, read once.
	t.Setenv("KIMI_SHARE_DIR", "/data/kimi-code/")
	if o := DefaultOptions(); o.LegacyHome != "" {
		t.Errorf("same directory: %+v", o)
	}
}
