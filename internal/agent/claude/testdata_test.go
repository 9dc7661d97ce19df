package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddock/internal/session"
)

// The recordings in the repository's testdata/ (make fixtures) come from
// the real, pinned Claude Code driven against the mock model; unlike
// ../shared they are in every clone, so these tests never skip.

// recording is the part of testdata/<cli>-<version>/manifest.json these
// tests read.
type recording struct {
	Cwd      string
	Sessions []struct {
		Name  string
		Turns []struct {
			Prompt, Kind, Outcome, Reply string
		}
		Files []string
	}
}

func claudeRecordings(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "claude-*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no testdata/claude-*/ recordings (make fixtures): %v", err)
	}
	return dirs
}

func readRecording(t *testing.T, dir string) recording {
	t.Helper()
	var m recording
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRecordedSessions lists each recording's Claude dir and checks every
// session against what the recording says was typed and answered: the
// title, prompts and cwd, and a conversation holding exactly the typed
// prompts as user messages and the mock's replies among the assistant's.
// A resumed session continues the same transcript.
func TestRecordedSessions(t *testing.T) {
	for _, dir := range claudeRecordings(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			rec := readRecording(t, dir)
			// What each transcript should hold: the turns of every
			// recorded session that wrote to it, in order.
			var files []string
			turns := map[string][]string{}   // file → prompts
			replies := map[string][]string{} // file → replies
			for _, s := range rec.Sessions {
				for _, f := range s.Files {
					if !strings.HasSuffix(f, ".jsonl") {
						continue
					}
					id := strings.TrimSuffix(filepath.Base(f), ".jsonl")
					if !slices.Contains(files, id) {
						files = append(files, id)
					}
					for _, tn := range s.Turns {
						if strings.HasPrefix(tn.Outcome, "skipped") {
							continue
						}
						turns[id] = append(turns[id], tn.Prompt)
						if tn.Reply != "" {
							replies[id] = append(replies[id], tn.Reply)
						}
					}
				}
			}
			if len(files) < 2 {
				t.Fatalf("manifest names %d transcripts, want at least 2: %+v", len(files), rec)
			}

			s := newTestScanner(filepath.Join(dir, "claude"))
			list, err := s.Scan(t.Context(), -1, nil)
			if err != nil {
				t.Fatal(err)
			}
			var listed []string
			for _, info := range list {
				listed = append(listed, info.ID)
			}
			slices.Sort(listed)
			slices.Sort(files)
			if !slices.Equal(listed, files) {
				t.Fatalf("listed %q, want the recorded %q", listed, files)
			}
			for _, info := range list {
				prompts := turns[info.ID]
				if info.Title != prompts[0] || info.FirstPrompt != prompts[0] || info.LastPrompt != prompts[len(prompts)-1] ||
					info.PromptCount != len(prompts) || info.Cwd != rec.Cwd || info.Live {
					t.Errorf("%s: %+v; want title %q, %d prompts ending %q, cwd %s, not live",
						info.ID, info, prompts[0], len(prompts), prompts[len(prompts)-1], rec.Cwd)
				}
				msgs, err := s.Conversation(t.Context(), info.ID)
				if err != nil {
					t.Fatal(err)
				}
				var users, assistants []string
				for _, m := range msgs {
					switch m.Role {
					case session.RoleUser:
						users = append(users, m.Text)
					case session.RoleAssistant:
						assistants = append(assistants, m.Text)
					}
					if strings.TrimSpace(m.Text) == "" || strings.HasPrefix(m.Text, "<") {
						t.Errorf("%s: message %+v is not conversation", info.ID, m)
					}
				}
				if !slices.Equal(users, prompts) {
					t.Errorf("%s: user messages %q, want the typed %q", info.ID, users, prompts)
				}
				if !inOrder(assistants, replies[info.ID]) {
					t.Errorf("%s: assistant messages %q lack the mock's replies %q in order", info.ID, assistants, replies[info.ID])
				}
			}
		})
	}
}

// inOrder reports whether want is a subsequence of got.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestRecordedPidFile reads the registry file Claude wrote while a session
// waited for approval: it names that session, waiting for a permission
// prompt, in its tmux pane. Its process is long gone, so a scan of a
// config dir holding it must not call the session live.
func TestRecordedPidFile(t *testing.T) {
	for _, dir := range claudeRecordings(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join(dir, "claude", "sessions-waiting", "*.json"))
			if len(files) != 1 {
				t.Fatalf("want one pid file in sessions-waiting, found %q", files)
			}
			p, ok := readPidFile(files[0])
			if !ok || p.pid <= 0 || p.status != "waiting" || p.waitingFor != "permission prompt" || p.tmux == "" {
				t.Fatalf("pid file %+v", p)
			}
			if _, err := os.Stat(filepath.Join(dir, "claude", "projects", "-tmp-paddock-fixtures-home-proj", p.sessionID+".jsonl")); err != nil {
				t.Errorf("pid file names session %s, whose transcript is not recorded: %v", p.sessionID, err)
			}

			// A config dir with that file as a live registry entry.
			cfg := t.TempDir()
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(cfg, "sessions"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cfg, "sessions", filepath.Base(files[0])), b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(mustAbs(t, filepath.Join(dir, "claude", "projects")), filepath.Join(cfg, "projects")); err != nil {
				t.Fatal(err)
			}
			info, err := New(Options{Dir: cfg}).Session(t.Context(), p.sessionID)
			if err != nil {
				t.Fatal(err)
			}
			if info.Live || info.State != "" {
				t.Errorf("a dead process's registry entry made %s live: %+v", p.sessionID, info)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
