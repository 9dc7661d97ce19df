// Package settings holds the machine's preferences the user changes from
// the phone — idle sleep, hook density, the process-check interval, the
// office view — over the defaults the command line gave. A value the user
// set is stored (SQLite) and outlives a restart; one left alone follows
// the command line. The parts that use a setting read it from here or
// hear its changes (Subscribe); nothing else writes it.
package settings

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"paddock/internal/broadcast"
	"paddock/internal/hookstate"
)

// Values are the machine's settings.
type Values struct {
	// SleepIdle puts hosted sessions idle this long to sleep: 0 (off) or
	// MinSleepIdle to MaxSleepIdle.
	SleepIdle time.Duration
	// Density selects the permission signals used: "low", "medium" or
	// "high" (hookstate.Density).
	Density string
	// ProcessCheck is how often live sessions' processes are checked:
	// MinProcessCheck to MaxProcessCheck.
	ProcessCheck time.Duration
	// Office shows the board's office view (a floor of desks) beside the
	// cards.
	Office bool
}

// The bounds of the durations.
const (
	MinSleepIdle    = 15 * time.Minute
	MaxSleepIdle    = 4 * time.Hour
	MinProcessCheck = time.Second
	MaxProcessCheck = 5 * time.Minute
)

// Error is a value outside its bounds: Field names it as the settings
// form does, Message says what it may be.
type Error struct{ Field, Message string }

func (e *Error) Error() string { return "settings: " + e.Field + ": " + e.Message }

// Validate reports the first value outside its bounds.
func (v Values) Validate() error {
	if v.SleepIdle != 0 && (v.SleepIdle < MinSleepIdle || v.SleepIdle > MaxSleepIdle) {
		return &Error{"sleep_idle", "idle sleep is off or 15 minutes to 4 hours"}
	}
	if _, err := hookstate.ParseDensity(v.Density); err != nil || v.Density == "" {
		return &Error{"density", "hook density is low, medium or high"}
	}
	if v.ProcessCheck < MinProcessCheck || v.ProcessCheck > MaxProcessCheck {
		return &Error{"process_check", "the process check runs every 1 second to 5 minutes"}
	}
	return nil
}

// Store keeps the values the user set, as text by key; SaveSettings
// deletes a key given nil.
type Store interface {
	Settings(ctx context.Context) (map[string]string, error)
	SaveSettings(ctx context.Context, kv map[string]*string, at time.Time) error
}

// The stored keys.
const (
	keySleepIdle    = "sleep_idle"
	keyDensity      = "density"
	keyProcessCheck = "process_check"
	keyOffice       = "office"
)

// encode is v as stored text, by key.
func (v Values) encode() map[string]string {
	return map[string]string{
		keySleepIdle:    v.SleepIdle.String(),
		keyDensity:      v.Density,
		keyProcessCheck: v.ProcessCheck.String(),
		keyOffice:       strconv.FormatBool(v.Office),
	}
}

// decode lays stored text over base; a key it cannot read is reported
// and left at base's value.
func decode(base Values, kv map[string]string) (Values, []error) {
	v := base
	var bad []error
	dur := func(key string, into *time.Duration) {
		if s, ok := kv[key]; ok {
			d, err := time.ParseDuration(s)
			if err != nil {
				bad = append(bad, fmt.Errorf("%s=%q: %w", key, s, err))
				return
			}
			*into = d
		}
	}
	dur(keySleepIdle, &v.SleepIdle)
	dur(keyProcessCheck, &v.ProcessCheck)
	if s, ok := kv[keyDensity]; ok {
		v.Density = s
	}
	if s, ok := kv[keyOffice]; ok {
		b, err := strconv.ParseBool(s)
		if err != nil {
			bad = append(bad, fmt.Errorf("%s=%q: %w", keyOffice, s, err))
		} else {
			v.Office = b
		}
	}
	return v, bad
}

// Service is the settings in force. Create it with Load.
type Service struct {
	st       Store
	defaults Values
	now      func() time.Time
	changes  *broadcast.Broadcaster[Values]

	mu  sync.Mutex // serialises Set
	cur atomic.Pointer[Values]
}

// Load reads the stored settings over defaults (the command line's). A
// stored value that is unreadable or out of bounds is logged and the
// default used: a bad row must not stop paddock from starting.
func Load(ctx context.Context, st Store, defaults Values, log *slog.Logger) (*Service, error) {
	if err := defaults.Validate(); err != nil {
		return nil, fmt.Errorf("settings: the defaults: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	kv, err := st.Settings(ctx)
	if err != nil {
		return nil, err
	}
	v, bad := decode(defaults, kv)
	for _, err := range bad {
		log.Warn("settings: a stored value is unreadable; using the default", "error", err)
	}
	if err := v.Validate(); err != nil {
		log.Warn("settings: the stored values are out of bounds; using the defaults", "error", err)
		v = defaults
	}
	s := &Service{st: st, defaults: defaults, now: time.Now}
	s.cur.Store(&v)
	// A subscriber that fell behind gets the values in force.
	s.changes = broadcast.New(s.Get, nil)
	return s, nil
}

// Get is the settings in force.
func (s *Service) Get() Values { return *s.cur.Load() }

// Defaults is what the command line gave.
func (s *Service) Defaults() Values { return s.defaults }

// Set validates v and makes it the settings in force, storing what
// differs from the defaults (a value equal to its default is deleted, so
// it follows the command line again). Nothing changes on an error.
func (s *Service) Set(ctx context.Context, v Values) error {
	if err := v.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	want, base := v.encode(), s.defaults.encode()
	kv := make(map[string]*string, len(want))
	for k, val := range want {
		if val == base[k] {
			kv[k] = nil
		} else {
			kv[k] = &val
		}
	}
	if err := s.st.SaveSettings(ctx, kv, s.now()); err != nil {
		return err
	}
	s.cur.Store(&v)
	s.changes.Publish(v)
	return nil
}

// Subscribe hears every change of the settings in force: the new values.
func (s *Service) Subscribe() (<-chan Values, func()) { return s.changes.Subscribe() }
