package historytest

import (
	"errors"
	"testing"

	"paddock/internal/session"
)

// CheckStream checks a scanner's streaming read of a record (each, its
// EachEvent for one session) against the record read whole (want, its
// Events): the same events in the same order, and each stops at the
// first error its fn returns, with that error, after the first event and
// after the last.
func CheckStream(tb testing.TB, name string, want []session.Event, each func(fn func(session.Event) error) error) {
	tb.Helper()
	var got []session.Event
	if err := each(func(e session.Event) error { got = append(got, e); return nil }); err != nil {
		tb.Errorf("%s: EachEvent: %v", name, err)
		return
	}
	if len(got) != len(want) {
		tb.Errorf("%s: EachEvent handed %d events, Events has %d", name, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if g, w := got[i], want[i]; !sameEvent(g, w) {
			tb.Errorf("%s: event %d: EachEvent %s %q %q, Events %s %q %q", name, i, g.Kind, g.ToolID, clip(g.Text), w.Kind, w.ToolID, clip(w.Text))
			return
		}
	}
	stop := errors.New("stop")
	for _, k := range []int{1, len(want)} {
		if k == 0 {
			continue
		}
		n := 0
		err := each(func(session.Event) error {
			if n++; n == k {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != k {
			tb.Errorf("%s: stopped at event %d: %d events, %v", name, k, n, err)
		}
	}
}

func sameEvent(a, b session.Event) bool {
	at, bt := a.Time, b.Time
	a.Time, b.Time = at.UTC(), bt.UTC()
	return at.Equal(bt) && a == b
}

func clip(s string) string { return s[:min(len(s), 40)] }
