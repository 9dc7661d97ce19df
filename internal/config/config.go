// Package config is paddock's one typed configuration: embedded defaults,
// the environment's say on where data lives, and flags on top. It is loaded
// once in main and passed down; nothing reads it from a global.
package config

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// Config is everything paddock serve needs to start.
type Config struct {
	DataDir    string // paddock's own files: database, keys, certificates
	Addr       string // HTTPS dashboard
	HTTPAddr   string // plain HTTP: CA page and redirect only
	HookAddr   string // loopback hook listener
	CertFile   string // user-supplied certificate (with KeyFile) instead of the local CA
	KeyFile    string
	ExtraHosts []string // more names the dashboard answers to (and the leaf covers)
	// Tailnet serves the machine's Tailscale certificate to clients asking
	// for its tailnet name, when it is on a tailnet with HTTPS enabled.
	Tailnet bool
	// AgentDirs are the agents' own directories given by their flags
	// (agent.DirFlag), by flag name; an agent without one uses its default.
	AgentDirs map[string]string
	ScanLimit int // sessions listed per runtime; 0 lists every session
	// IndexTools puts the tools' calls and output in the search index
	// too (off by default: it is most of a long session's bytes).
	IndexTools    bool
	SweepInterval time.Duration // periodic rescan, which also notices dead processes
	PairingTTL    time.Duration
	// DeviceIdle: a paired device unused this long must pair again
	// (negative: never).
	DeviceIdle time.Duration
	LogLevel   slog.Level
	// ProcessCheck is the process-check interval: how often live
	// sessions' processes are checked (gone → ended) and measured.
	ProcessCheck time.Duration
	// Density selects the permission signals used: "low", "medium" or
	// "high" (hookstate.Density).
	Density string
	// SleepIdle closes hosted sessions idle this long (0: off, the
	// default; else 15 min to 4 h).
	SleepIdle time.Duration
	// Holds are how long the agents' decisions wait for the phone, by
	// their hold flag's name (agent.HoldFlag; 0: never held). A flag not
	// given leaves its agents at their own default.
	Holds map[string]time.Duration
}

// Default returns the embedded defaults, with paths resolved from the
// environment exactly as the README says.
func Default(getenv func(string) string) (Config, error) {
	dir, err := DataDir(getenv)
	if err != nil {
		return Config{}, err
	}
	return Config{
		DataDir:       dir,
		Addr:          ":7443",
		HTTPAddr:      ":7080",
		HookAddr:      "127.0.0.1:7081",
		Tailnet:       true,
		AgentDirs:     map[string]string{},
		SweepInterval: 3 * time.Second,
		PairingTTL:    10 * time.Minute,
		DeviceIdle:    90 * 24 * time.Hour,
		LogLevel:      slog.LevelInfo,
		ProcessCheck:  15 * time.Second,
		Holds:         map[string]time.Duration{},
		Density:       "medium",
	}, nil
}

// DataDir is $PADDOCK_HOME, else $XDG_DATA_HOME/paddock, else
// ~/.local/share/paddock.
func DataDir(getenv func(string) string) (string, error) {
	if d := getenv("PADDOCK_HOME"); d != "" {
		return filepath.Abs(d)
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "paddock"), nil
	}
	home, err := homeDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "paddock"), nil
}

func homeDir(getenv func(string) string) (string, error) {
	if h := getenv("HOME"); h != "" {
		return h, nil
	}
	h, err := os.UserHomeDir()
	if err != nil || h == "" {
		return "", errors.New("config: cannot find the home directory; set HOME or PADDOCK_HOME")
	}
	return h, nil
}

// EnsureDataDir creates the data dir with mode 0700, and tightens an
// existing one: it holds keys and session secrets.
func EnsureDataDir(dir string) error {
	// Tightening a directory the user uses for other things (their home,
	// say) would break it; paddock's data needs a directory of its own.
	if home, err := os.UserHomeDir(); err == nil && filepath.Clean(dir) == filepath.Clean(home) {
		return errors.New("config: the data dir must not be your home directory; set PADDOCK_HOME to a directory of its own")
	}
	if dir == "/" {
		return errors.New("config: the data dir must not be /")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(dir, 0o700)
}
