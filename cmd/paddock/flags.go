package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"paddock/internal/agent"
	"paddock/internal/agent/registry"
	"paddock/internal/config"
	"paddock/internal/hookstate"
)

// errUsage means the flag package already printed what was wrong.
var errUsage = errors.New("usage")

type hostList []string

func (h *hostList) String() string { return strings.Join(*h, ",") }
func (h *hostList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*h = append(*h, p)
		}
	}
	return nil
}

// loadConfig parses the flags shared by every command onto the embedded
// defaults. serveOnly adds the flags that matter only to serve.
func loadConfig(name string, args []string, stderr io.Writer, getenv func(string) string, serveOnly bool) (config.Config, *flag.FlagSet, error) {
	return loadConfigFor(registry.Default(), name, args, stderr, getenv, serveOnly)
}

// loadConfigFor is loadConfig with the agents whose flags serve takes.
func loadConfigFor(agents *agent.Registry, name string, args []string, stderr io.Writer, getenv func(string) string, serveOnly bool) (config.Config, *flag.FlagSet, error) {
	cfg, err := config.Default(getenv)
	if err != nil {
		return cfg, nil, err
	}
	fs := flag.NewFlagSet("paddock "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "paddock's data directory (default from $PADDOCK_HOME, $XDG_DATA_HOME/paddock or ~/.local/share/paddock)")
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "HTTPS dashboard address (port 0 picks a free one)")
	// --host is for every command: whichever first creates the CA builds
	// these names into its name constraints.
	fs.BoolVar(&cfg.Tailnet, "tailnet", cfg.Tailnet, "on a tailnet with HTTPS certificates, serve its name with Tailscale's certificate (tailscale cert), trusted by its devices without paddock's CA")
	fs.Var((*hostList)(&cfg.ExtraHosts), "host", "extra host name the dashboard answers to and the certificate covers (repeatable, comma-separated; give it on first start, it becomes part of the CA)")
	fs.BoolVar(&cfg.IndexTools, "index-tools", cfg.IndexTools, "search the tools' calls and output too, not only what was typed and answered (changing it rebuilds the index)")
	var level string
	var dirs map[string]*string         // the agents' directory flags
	var holds map[string]*time.Duration // and their hold flags
	if serveOnly {
		fs.StringVar(&cfg.HTTPAddr, "http-addr", cfg.HTTPAddr, "plain-HTTP address serving only the CA page and a redirect; empty disables it")
		fs.StringVar(&cfg.HookAddr, "hook-addr", cfg.HookAddr, "loopback address (127.0.0.1, ::1 or localhost) of the listener for agent hooks; port 0 picks a free one, empty disables it")
		fs.StringVar(&cfg.CertFile, "cert", "", "use this certificate (PEM) instead of paddock's local CA; needs --key")
		fs.StringVar(&cfg.KeyFile, "key", "", "private key (PEM) for --cert")
		for _, a := range agents.All() {
			if f := a.DirFlag; f != nil {
				if dirs == nil {
					dirs = map[string]*string{}
				}
				dir, err := f.Default(getenv)
				if err != nil {
					return cfg, nil, fmt.Errorf("%s: %w", a.Product, err)
				}
				dirs[f.Name] = fs.String(f.Name, dir, f.Usage)
			}
		}
		fs.IntVar(&cfg.ScanLimit, "scan-limit", cfg.ScanLimit, "sessions listed per agent, the newest first (0: every session)")
		fs.DurationVar(&cfg.DeviceIdle, "device-idle", cfg.DeviceIdle, "a paired device unused this long must pair again (0: never)")
		fs.DurationVar(&cfg.SweepInterval, "sweep", cfg.SweepInterval, "periodic rescan interval (also how soon a dead process shows as ended)")
		fs.DurationVar(&cfg.ProcessCheck, "process-check", cfg.ProcessCheck, "how often live sessions' agent processes are checked (gone → ended) and measured")
		fs.StringVar(&cfg.Density, "density", cfg.Density, "permission signals: low (PermissionRequest and timers), medium (+ permission notifications), high (+ notifications without a known tool call)")
		for _, f := range agents.HoldFlags() {
			if holds == nil {
				holds = map[string]*time.Duration{}
			}
			holds[f.Name] = fs.Duration(f.Name, agents.DefaultHold(f.Name), f.Usage)
		}
		fs.DurationVar(&cfg.SleepIdle, "sleep-idle", cfg.SleepIdle, "put hosted sessions idle this long to sleep to free memory (15m to 4h; 0, the default, is off); Resume brings them back")
		fs.StringVar(&level, "log-level", "info", "debug, info, warn or error")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, fs, errUsage
		}
		return cfg, fs, errUsage
	}
	for name, v := range dirs {
		cfg.AgentDirs[name] = *v
	}
	for name, v := range holds {
		if *v < 0 || *v > agent.MaxHold {
			return cfg, fs, fmt.Errorf("--%s is from 0 (off) to %v", name, agent.MaxHold)
		}
		cfg.Holds[name] = *v
	}
	if level != "" {
		if err := cfg.LogLevel.UnmarshalText([]byte(level)); err != nil {
			return cfg, fs, fmt.Errorf("--log-level: %q is not one of debug, info, warn, error", level)
		}
	}
	if (cfg.CertFile == "") != (cfg.KeyFile == "") {
		return cfg, fs, errors.New("--cert and --key go together")
	}
	if _, err := hookstate.ParseDensity(cfg.Density); err != nil {
		return cfg, fs, fmt.Errorf("--density: %q is not one of low, medium, high", cfg.Density)
	}
	if cfg.ProcessCheck < time.Second {
		return cfg, fs, errors.New("--process-check must be at least 1s")
	}
	if cfg.SleepIdle != 0 && (cfg.SleepIdle < 15*time.Minute || cfg.SleepIdle > 4*time.Hour) {
		return cfg, fs, errors.New("--sleep-idle is 0 (off) or from 15m to 4h")
	}
	if cfg.ScanLimit < 0 {
		return cfg, fs, errors.New("--scan-limit is a count of sessions (0 lists every session)")
	}
	return cfg, fs, nil
}

func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

func splitPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.Atoi(p)
	return host, n, err
}
