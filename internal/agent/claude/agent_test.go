package claude

import "testing"

func TestConfigDir(t *testing.T) {
	got, _ := ConfigDir(func(k string) string { return map[string]string{"HOME": "/h"}[k] })
	if got != "/h/.claude" {
		t.Fatalf("got %q", got)
	}
	got, _ = ConfigDir(func(k string) string { return map[string]string{"HOME": "/h", "CLAUDE_CONFIG_DIR": "/c"}[k] })
	if got != "/c" {
		t.Fatalf("got %q", got)
	}
}
