package usage

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultPrices: the committed table parses, says where it comes
// from, and prices by the vendors' rules.
func TestDefaultPrices(t *testing.T) {
	p := DefaultPrices()
	if p.Source == "" || p.Date == "" {
		t.Errorf("the table names no source or date: %q %q", p.Source, p.Date)
	}
	for _, tt := range []struct {
		name string
		r    Record
		want float64
	}{
		// Claude Code's own cost in the recordings: 24 in and 12 out of
		// Opus 5.5 cost it 0.000336 — the table agrees.
		{"opus 5.5", Record{Model: "claude-opus-5-5", Input: 24, Output: 12}, 0.000336},
		{"dated id", Record{Model: "claude-sonnet-4-5-20250929", Input: 1_000_000}, 3},
		{"provider prefix and 1m tag", Record{Model: "anthropic/claude-opus-5-5[1m]", Output: 1_000_000}, 20},
		{"1h cache writes", Record{Model: "claude-opus-5-5", CacheWrite: 2_000_000, CacheWrite1h: 1_000_000}, 5 + 8},
		// Over 272K of prompt, all of the request at the long rates.
		{"gpt-6.1-sol short", Record{Model: "gpt-6.1-sol", Input: 100_000, CacheRead: 172_000, Output: 10_000}, 0.2 + 0.0172 + 0.1},
		{"gpt-6.1-sol long", Record{Model: "gpt-6.1-sol", Input: 100_000, CacheRead: 172_001, Output: 10_000}, 0.4 + 0.0344002 + 0.15},
		// Kimi charges no cache writes beyond input.
		{"kimi-k3 write", Record{Model: "kimi-k3", CacheWrite: 1_000_000}, 3},
	} {
		got, ok := p.Cost(tt.r)
		if !ok || math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: %v %v, want %v", tt.name, got, ok, tt.want)
		}
	}
	if _, ok := p.Cost(Record{Model: "mock-model", Input: 1}); ok {
		t.Error("a model the table does not know was priced")
	}
	if w := p.Window("gpt-6-sol-2026-09-22"); w != 1_050_000 {
		t.Errorf("gpt-6-sol window %d", w)
	}
}

// TestPriceOverrides: the user's file replaces or adds entries; one that
// does not parse is refused with its line.
func TestPriceOverrides(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, PricesFile)
	if p, err := LoadPrices(path); err != nil || p.Sum() != DefaultPrices().Sum() {
		t.Fatalf("no override file: %v", err)
	}
	os.WriteFile(path, []byte(`# my prices
[models."mock-model"]
input = 1.0
output = 2.0
window = 2000

[models."claude-opus-5-5"]
window = 500000
`), 0o600)
	p, err := LoadPrices(path)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := p.Cost(Record{Model: "mock-model", Input: 1_000_000, Output: 1_000_000}); !ok || c != 3 || p.Window("mock-model") != 2000 {
		t.Errorf("mock-model: %v %v", c, ok)
	}
	if _, ok := p.Cost(Record{Model: "claude-opus-5-5", Input: 1}); ok || p.Window("claude-opus-5-5") != 500000 {
		t.Error("an entry with a window only replaces the table's: no price, its window")
	}
	if p.Sum() == DefaultPrices().Sum() {
		t.Error("the overridden table sums as the committed one")
	}
	for _, tt := range []struct {
		name, file, want string
	}{
		{"syntax", "[models.\"a\"]\ninput = 1.0\noutput = = 2\n", "line 3"},
		{"unknown field", "[models.\"a\"]\ninput = 1.0\noutput = 2.0\ncahce_read = 0.1\n", "line 4"},
		{"not a number", "\n\n[models.\"a\"]\ninput = \"cheap\"\noutput = 2.0\n", "line 4"},
		{"negative", "[models.\"a\"]\n\n[models.\"b\"]\ninput = -1.0\noutput = 2.0\n", "line 3"},
		{"input alone", "[models.\"a\"]\ninput = 1.0\n", "line 1"},
	} {
		os.WriteFile(path, []byte(tt.file), 0o600)
		_, err := LoadPrices(path)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v; want an error naming %s of %s", tt.name, err, tt.want, path)
		}
	}
}
