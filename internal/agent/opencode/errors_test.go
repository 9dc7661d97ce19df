package opencode

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/history/historytest"
)

// A session some of whose records (message or part data) are no JSON is
// listed with a reason the user can read (Info.Error), even when its
// prompt was among them; one read whole carries none.
func TestHistoryErrors(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	w := newDB(t, dbDir)
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	w.chat(sess{id: "ses_whole", dir: cwd, created: at(0)}, "hello", "hi")
	w.session(sess{id: "ses_partly", dir: cwd, created: at(10)})
	w.message("ses_partly", 1, "user", at(11), text("hello"))
	w.messageData("ses_partly", 2, at(12), `not json at all`, text("lost"))
	w.messageData("ses_partly", 3, at(13), `{"role":"assistant"}`, `{broken`, text("answer"))
	w.session(sess{id: "ses_garbage", dir: cwd, created: at(20)})
	w.messageData("ses_garbage", 1, at(21), `{"role":"user"`, `{"type":"text","text":"lost`)
	w.Close()

	s := New(Options{DataDir: dbDir})
	for range 2 {
		infos, err := s.Scan(context.Background(), 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, info := range infos {
			got[info.ID] = info.Error
		}
		want := map[string]string{"ses_whole": "", "ses_partly": "2 records could not be read", "ses_garbage": "2 records could not be read"}
		if len(got) != len(want) {
			t.Errorf("listed %v, want %v", got, want)
		}
		for id, w := range want {
			if e, ok := got[id]; !ok || e != w {
				t.Errorf("%s: listed %v with Error %q, want %q", id, ok, e, w)
			}
		}
	}
	info, err := s.Session(context.Background(), "ses_partly")
	if err != nil || info.Error != "2 records could not be read" {
		t.Errorf("Session = Error %q, %v", info.Error, err)
	}
}

// A database that cannot be read beside one that can is a source problem,
// named by Problems, and its sessions are missing; the readable one's are
// listed.
func TestSourceProblems(t *testing.T) {
	junk := func(t testing.TB, path string) {
		if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 300)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		make func(t testing.TB, path string)
		want string
	}{
		{"garbage", junk, "cannot be read: it is not a SQLite database"},
	}
	for _, u := range historytest.Unreadables() {
		cases = append(cases, struct {
			name string
			make func(t testing.TB, path string)
			want string
		}{u.Name, func(t testing.TB, path string) { u.Make(t, path, []byte("x")) }, "cannot be read: " + strings.TrimPrefix(u.Want, "the file cannot be read: ")})
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			cwd, dbDir := t.TempDir(), t.TempDir()
			w := newDB(t, dbDir)
			w.chat(sess{id: "ses_good", dir: cwd, created: t0}, "hello", "hi")
			w.Close()
			bad := filepath.Join(dbDir, "opencode-beta.db")
			tt.make(t, bad)
			s := New(Options{DataDir: dbDir})
			for range 2 {
				infos, err := s.Scan(context.Background(), 10, nil)
				if err != nil || len(infos) != 1 || infos[0].ID != "ses_good" {
					t.Fatalf("Scan = %v, %v", ids(infos), err)
				}
				probs := s.Problems()
				if len(probs) != 1 || probs[0].Source != bad || probs[0].Reason != tt.want {
					t.Fatalf("Problems = %+v, want %s %q", probs, bad, tt.want)
				}
			}
			if err := os.Remove(bad); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Scan(context.Background(), 10, nil); err != nil {
				t.Fatal(err)
			}
			if probs := s.Problems(); len(probs) != 0 {
				t.Errorf("Problems once it went = %+v", probs)
			}
		})
	}
}
