package settings

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"paddock/internal/store"
)

var defaults = Values{Density: "medium", ProcessCheck: 15 * time.Second}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "paddock.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// What the user set outlives a restart; what equals the command line's
// default is not stored, so a new default reaches it.
func TestSetStoresWhatDiffersFromTheDefaults(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	s, err := Load(ctx, st, defaults, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Get() != defaults {
		t.Fatalf("a new store's settings %+v, want the defaults", s.Get())
	}
	ch, stop := s.Subscribe()
	defer stop()
	want := Values{SleepIdle: 30 * time.Minute, Density: "medium", ProcessCheck: 5 * time.Second, Office: true}
	if err := s.Set(ctx, want); err != nil {
		t.Fatal(err)
	}
	if got := <-ch; got != want {
		t.Fatalf("subscribers heard %+v, want %+v", got, want)
	}
	kv, _ := st.Settings(ctx)
	if _, stored := kv["density"]; stored || kv["sleep_idle"] != "30m0s" || kv["office"] != "true" {
		t.Fatalf("stored %v: density equals its default and must not be stored", kv)
	}
	again, err := Load(ctx, st, Values{Density: "high", ProcessCheck: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Get(); got != (Values{SleepIdle: 30 * time.Minute, Density: "high", ProcessCheck: 5 * time.Second, Office: true}) {
		t.Fatalf("after a restart with new defaults: %+v", got)
	}
}

func TestBadValuesAreRefusedAndChangeNothing(t *testing.T) {
	ctx := context.Background()
	s, err := Load(ctx, openStore(t), defaults, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v     Values
		field string
	}{
		{Values{SleepIdle: 10 * time.Minute, Density: "medium", ProcessCheck: time.Second}, "sleep_idle"},
		{Values{SleepIdle: 5 * time.Hour, Density: "medium", ProcessCheck: time.Second}, "sleep_idle"},
		{Values{Density: "max", ProcessCheck: time.Second}, "density"},
		{Values{Density: "", ProcessCheck: time.Second}, "density"},
		{Values{Density: "low", ProcessCheck: 500 * time.Millisecond}, "process_check"},
		{Values{Density: "low", ProcessCheck: time.Hour}, "process_check"},
	} {
		var e *Error
		if err := s.Set(ctx, tc.v); !errors.As(err, &e) || e.Field != tc.field {
			t.Errorf("Set(%+v) = %v, want an error on %s", tc.v, err, tc.field)
		}
	}
	if s.Get() != defaults {
		t.Fatalf("a refused Set changed the settings: %+v", s.Get())
	}
}

// A stored row paddock cannot use is logged and its default used.
func TestUnreadableStoredValuesFallBack(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	bad, office := "soon", "true"
	if err := st.SaveSettings(ctx, map[string]*string{"sleep_idle": &bad, "office": &office}, time.Now()); err != nil {
		t.Fatal(err)
	}
	s, err := Load(ctx, st, defaults, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Get(); got.SleepIdle != 0 || !got.Office {
		t.Fatalf("settings %+v: the unreadable idle sleep must fall back, office stay", got)
	}
	outOfBounds := "1m0s"
	if err := st.SaveSettings(ctx, map[string]*string{"sleep_idle": &outOfBounds}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if s, err = Load(ctx, st, defaults, nil); err != nil || s.Get() != defaults {
		t.Fatalf("out-of-bounds stored values: %+v %v, want the defaults", s.Get(), err)
	}
}
