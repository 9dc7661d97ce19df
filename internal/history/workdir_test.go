package history

import (
	"maps"
	"testing"
)

func TestEphemeral(t *testing.T) {
	tests := []struct {
		cwd  string
		want bool
	}{
		{"/tmp/oc-manager-codex/run1", true},
		{"/tmp/oc-manager-", true},
		{`C:\work\oc-manager-x\app`, true},
		{"oc-manager-1", true},
		{"/home/me/src/app", false},
		{"/home/me/src/my-oc-manager-notes", false}, // a segment must start with it
		{"/home/me/oc-manager", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := EphemeralDir(tt.cwd); got != tt.want {
			t.Errorf("Ephemeral(%q) = %v, want %v", tt.cwd, got, tt.want)
		}
	}
}

// Each directory is asked about once per Memo: a directory removed
// meanwhile keeps its first answer until a new Memo (a new scan).
func TestMemo(t *testing.T) {
	live := map[string]bool{"/a": true}
	asked := map[string]int{}
	exists := func(d string) bool { asked[d]++; return live[d] }

	m := NewDirMemo(exists)
	if !m.Exists("/a") || m.Exists("/b") {
		t.Fatal("first answers wrong")
	}
	delete(live, "/a")
	if !m.Exists("/a") {
		t.Error("the second check of one directory looked again")
	}
	if !m.Exists("") {
		t.Error("an unknown directory counts as missing")
	}
	if want := map[string]int{"/a": 1, "/b": 1}; !maps.Equal(asked, want) {
		t.Errorf("asked %v, want %v (once each, never about \"\")", asked, want)
	}
	if want := map[string]bool{"/a": true, "/b": false}; !maps.Equal(m.Checked(), want) {
		t.Errorf("Checked() = %v, want %v", m.Checked(), want)
	}
	if NewDirMemo(exists).Exists("/a") {
		t.Error("a new Memo did not look again")
	}
}

func TestListable(t *testing.T) {
	exists := func(d string) bool { return d == "/here" }
	tests := []struct {
		cwd               string
		live, keepMissing bool
		want              bool
	}{
		{"/here", false, false, true},
		{"/gone", false, false, false},
		{"/gone", true, false, true},
		{"/gone", false, true, true},
		{"", false, false, true},
		{"/tmp/oc-manager-1/app", false, false, false},
		{"/tmp/oc-manager-1/app", true, true, false},
	}
	for _, tt := range tests {
		if got := NewDirMemo(exists).Listable(tt.cwd, tt.live, tt.keepMissing); got != tt.want {
			t.Errorf("Listable(%q, live=%v, keepMissing=%v) = %v, want %v", tt.cwd, tt.live, tt.keepMissing, got, tt.want)
		}
	}
}
