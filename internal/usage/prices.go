package usage

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// defaultPrices is the committed price table (its header says where the
// prices come from and when they were read).
//
//go:embed prices.toml
var defaultPrices []byte

// PricesFile is the name of the user's price overrides in paddock's data
// dir.
const PricesFile = "prices.toml"

// Price is one model's list price in US dollars per million tokens, and
// its context window.
type Price struct {
	Input, Output, CacheRead, CacheWrite, CacheWrite1h float64
	// LongAbove, when set, is the prompt size (input, cache reads and
	// writes) above which a request is priced at Long, all of it.
	LongAbove int64
	Long      *Price
	// Priced says the model has a price (a model may have only a window).
	Priced bool
	Window int64
}

// Prices is a price table: the committed one with the user's overrides.
// It is read-only once loaded.
type Prices struct {
	models       map[string]Price
	Source, Date string
	// sum identifies the table's content: usage priced under another
	// table is priced again.
	sum uint64
}

// priceFile is a prices.toml as written.
type priceFile struct {
	Source string                `toml:"source"`
	Date   string                `toml:"date"`
	Models map[string]priceEntry `toml:"models"`
}

type priceEntry struct {
	Input            *float64 `toml:"input"`
	Output           *float64 `toml:"output"`
	CacheRead        *float64 `toml:"cache_read"`
	CacheWrite       *float64 `toml:"cache_write"`
	CacheWrite1h     *float64 `toml:"cache_write_1h"`
	Window           int64    `toml:"window"`
	LongAbove        int64    `toml:"long_above"`
	LongInput        *float64 `toml:"long_input"`
	LongOutput       *float64 `toml:"long_output"`
	LongCacheRead    *float64 `toml:"long_cache_read"`
	LongCacheWrite   *float64 `toml:"long_cache_write"`
	LongCacheWrite1h *float64 `toml:"long_cache_write_1h"`
}

// DefaultPrices is the committed price table alone.
func DefaultPrices() *Prices {
	p, err := parsePrices("prices.toml (built in)", defaultPrices, nil)
	if err != nil {
		panic(err) // the embedded file is checked by its tests
	}
	return p
}

// LoadPrices is the committed price table with the overrides in the file
// at path, when it exists. A file that does not parse is an error naming
// its line: paddock refuses to start on it rather than price with half of
// it.
func LoadPrices(path string) (*Prices, error) {
	base := DefaultPrices()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return base, nil
	}
	if err != nil {
		return nil, fmt.Errorf("prices: %w", err)
	}
	return parsePrices(path, data, base)
}

// parsePrices reads a price file over base (nil: none).
func parsePrices(name string, data []byte, base *Prices) (*Prices, error) {
	var f priceFile
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, tomlError(name, err)
	}
	p := &Prices{models: map[string]Price{}}
	h := fnv.New64a()
	if base != nil {
		for k, v := range base.models {
			p.models[k] = v
		}
		p.Source, p.Date = base.Source, base.Date
		fmt.Fprintf(h, "%d\n", base.sum)
	}
	if f.Source != "" {
		p.Source, p.Date = f.Source, f.Date
		if base != nil {
			p.Source, p.Date = base.Source+"; "+f.Source, f.Date
		}
	}
	h.Write(data)
	p.sum = h.Sum64()
	names := make([]string, 0, len(f.Models))
	for k := range f.Models {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, model := range names {
		pr, err := f.Models[model].price()
		if err != nil {
			return nil, fmt.Errorf("%s line %d: model %q: %w", name, lineOf(data, model), model, err)
		}
		p.models[normModel(model)] = pr
	}
	return p, nil
}

// tomlError names the line of a TOML file err is about.
func tomlError(name string, err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return fmt.Errorf("%s line %d: %s", name, row, de.Error())
	}
	var se *toml.StrictMissingError
	if errors.As(err, &se) && len(se.Errors) > 0 {
		row, _ := se.Errors[0].Position()
		return fmt.Errorf("%s line %d: unknown field %q", name, row, strings.Join(se.Errors[0].Key(), "."))
	}
	return fmt.Errorf("%s: %w", name, err)
}

// lineOf is the line of data where model's table starts (0 when it
// cannot be found).
func lineOf(data []byte, model string) int {
	for i, l := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(l, []byte("["+"models.")) && bytes.Contains(l, []byte(model)) {
			return i + 1
		}
	}
	return 0
}

func (e priceEntry) price() (Price, error) {
	if e.Window < 0 || e.Window > MaxTokens {
		return Price{}, fmt.Errorf("window %d outside 0 to %d", e.Window, MaxTokens)
	}
	p := Price{Window: e.Window}
	if e.Input == nil && e.Output == nil {
		if e.CacheRead != nil || e.CacheWrite != nil || e.LongAbove != 0 {
			return Price{}, errors.New("cache or long-prompt prices without input and output prices")
		}
		return p, nil
	}
	if e.Input == nil || e.Output == nil {
		return Price{}, errors.New("an input price needs an output price, and the other way round")
	}
	rates, err := rateSet(*e.Input, *e.Output, e.CacheRead, e.CacheWrite, e.CacheWrite1h)
	if err != nil {
		return Price{}, err
	}
	rates.Window, rates.Priced = e.Window, true
	if e.LongAbove == 0 {
		if e.LongInput != nil || e.LongOutput != nil {
			return Price{}, errors.New("long-prompt prices without long_above")
		}
		return rates, nil
	}
	if e.LongAbove < 0 || e.LongInput == nil || e.LongOutput == nil {
		return Price{}, errors.New("long_above needs long_input and long_output, and a positive size")
	}
	long, err := rateSet(*e.LongInput, *e.LongOutput, e.LongCacheRead, e.LongCacheWrite, e.LongCacheWrite1h)
	if err != nil {
		return Price{}, err
	}
	rates.LongAbove, rates.Long = e.LongAbove, &long
	return rates, nil
}

// maxRate bounds a price per million tokens.
const maxRate = 10_000.0

// rateSet is one set of rates: a cache read without a price costs
// nothing more than the model has said (0), a cache write without one
// costs as input, an hour's write as a short one.
func rateSet(in, out float64, read, write, write1h *float64) (Price, error) {
	p := Price{Input: in, Output: out, CacheWrite: in}
	if read != nil {
		p.CacheRead = *read
	}
	if write != nil {
		p.CacheWrite = *write
	}
	p.CacheWrite1h = p.CacheWrite
	if write1h != nil {
		p.CacheWrite1h = *write1h
	}
	for _, r := range []float64{p.Input, p.Output, p.CacheRead, p.CacheWrite, p.CacheWrite1h} {
		if r < 0 || r > maxRate || r != r {
			return Price{}, fmt.Errorf("price %v outside 0 to %v per million tokens", r, maxRate)
		}
	}
	return p, nil
}

// datedSuffix is a snapshot's date after a model's name
// ("-20250929", "-2026-09-29").
var datedSuffix = regexp.MustCompile(`-(\d{8}|\d{4}-\d\d-\d\d)$`)

// normModel is the name a model is priced under: lower case, without a
// provider's prefix ("openai/"), a snapshot date or a context-size tag
// ("[1m]").
func normModel(m string) string {
	m = strings.ToLower(strings.TrimSpace(m))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.IndexByte(m, '['); i > 0 {
		m = m[:i]
	}
	return datedSuffix.ReplaceAllString(m, "")
}

// Lookup is model's price and window; false when the table does not
// know the model.
func (p *Prices) Lookup(model string) (Price, bool) {
	pr, ok := p.models[normModel(model)]
	return pr, ok
}

// Window is model's context window, 0 when unknown.
func (p *Prices) Window(model string) int64 {
	pr, _ := p.Lookup(model)
	return pr.Window
}

// Cost prices r's tokens at model's list price; false when the table has
// no price for it.
func (p *Prices) Cost(r Record) (float64, bool) {
	pr, ok := p.Lookup(r.Model)
	if !ok || !pr.Priced {
		return 0, false
	}
	if pr.Long != nil && r.Input+r.CacheRead+r.CacheWrite > pr.LongAbove {
		pr = *pr.Long
	}
	short := r.CacheWrite - r.CacheWrite1h
	c := float64(r.Input)*pr.Input + float64(r.Output)*pr.Output + float64(r.CacheRead)*pr.CacheRead +
		float64(short)*pr.CacheWrite + float64(r.CacheWrite1h)*pr.CacheWrite1h
	return c / 1e6, true
}

// Sum identifies the table's content.
func (p *Prices) Sum() uint64 { return p.sum }
