package session

import "testing"

func TestToolSubject(t *testing.T) {
	for _, tc := range []struct{ input, want string }{
		{`{"command":"go test ./...","description":"run the tests"}`, "go test ./..."},
		{`{"cmd":["bash","-lc","make"]}`, "bash -lc make"},
		{`{"file_path":"/a/b.go","old_string":"x"}`, "/a/b.go"},
		{`{"filePath":"/a/c.ts"}`, "/a/c.ts"},
		{`{"query":"paddock"}`, "paddock"},
		{`{"command":"","path":"/p"}`, "/p"},
		{`{"other":1}`, ""},
		{`*** Begin Patch`, ""},
		{`["not","an","object"]`, ""},
	} {
		if got := ToolSubject([]byte(tc.input)); got != tc.want {
			t.Errorf("ToolSubject(%s) = %q, want %q", tc.input, got, tc.want)
		}
	}
}
