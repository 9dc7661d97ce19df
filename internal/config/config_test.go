package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDataDir(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"paddock home wins", map[string]string{"PADDOCK_HOME": "/p", "XDG_DATA_HOME": "/x", "HOME": "/h"}, "/p"},
		{"xdg next", map[string]string{"XDG_DATA_HOME": "/x", "HOME": "/h"}, "/x/paddock"},
		{"home last", map[string]string{"HOME": "/h"}, "/h/.local/share/paddock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DataDir(func(k string) string { return tt.env[k] })
			if err != nil || got != tt.want {
				t.Fatalf("DataDir = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestEnsureDataDirTightensMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDataDir(dir); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v, want 0700", st.Mode().Perm())
	}
}

func TestDefaults(t *testing.T) {
	c, err := Default(func(k string) string { return map[string]string{"HOME": "/h"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != ":7443" || c.HTTPAddr != ":7080" || c.HookAddr != "127.0.0.1:7081" {
		t.Fatalf("addresses %q %q %q", c.Addr, c.HTTPAddr, c.HookAddr)
	}
}
