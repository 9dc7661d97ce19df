package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"paddock/certs"
	"paddock/internal/agent"
	"paddock/internal/agent/registry"
	"paddock/internal/auth"
	"paddock/internal/board"
	"paddock/internal/catalog"
	"paddock/internal/config"
	"paddock/internal/decisions"
	"paddock/internal/decisions/hold"
	"paddock/internal/hookstate"
	"paddock/internal/hosted"
	"paddock/internal/live"
	"paddock/internal/markdown"
	"paddock/internal/procscan"
	"paddock/internal/session"
	"paddock/internal/store"
	"paddock/internal/tmux"
	"paddock/web"
)

// certRefresh is how often the leaf certificate is checked against the
// machine's addresses and its expiry.
const certRefresh = 10 * time.Minute

// app is everything serve and the admin commands open from the data dir.
type app struct {
	cfg   config.Config
	log   *slog.Logger
	store *store.Store
	auth  *auth.Service
}

func openApp(ctx context.Context, cfg config.Config, log *slog.Logger) (*app, error) {
	if err := config.EnsureDataDir(cfg.DataDir); err != nil {
		return nil, fmt.Errorf("data dir %s: %w", cfg.DataDir, err)
	}
	st, err := store.Open(ctx, filepath.Join(cfg.DataDir, "paddock.db"), log)
	if err != nil {
		return nil, err
	}
	svc := auth.New(auth.Options{Store: st, PairingTTL: cfg.PairingTTL, Logger: log})
	return &app{cfg: cfg, log: log, store: st, auth: svc}, nil
}

func (a *app) Close() error { return a.store.Close() }

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, _, err := loadConfig("serve", args, stderr, getenv, true)
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	a, err := openApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()

	csrfKey, err := auth.LoadOrCreateKey(filepath.Join(cfg.DataDir, "csrf.key"))
	if err != nil {
		return err
	}
	cm, err := loadCerts(cfg, log)
	if err != nil {
		return err
	}

	agents := registry.Default()
	// states is set below, before anything runs: the Pi scanner asks it
	// which session a hosted terminal runs.
	var states *live.Service
	// One walk of the process table serves every scanner for a second:
	// they run concurrently, within milliseconds of each other.
	matcher := agents.Processes()
	procs := matcher.Shared(time.Second)
	scanners := agents.Scanners(agent.Env{Processes: procs, Logger: log,
		HostedSession: func(id string) (session.Key, bool) {
			c, ok := states.ByTerminal(id)
			return c.Key, ok
		}}, cfg.AgentDirs)
	cat := catalog.New(catalog.Options{Limit: cfg.ScanLimit, SweepInterval: cfg.SweepInterval, Logger: log.With("component", "catalog"),
		ProcessFingerprint: procscan.Fingerprints(procs, procscan.OpenFiles, time.Second, agents.HoldsHistoryOpen),
		CacheDir:           filepath.Join(cfg.DataDir, "cache", "conversations"),
		// A session running now stays listed however old its history.
		Keep: func(rt string) []string {
			var ids []string
			for _, c := range states.Cards() {
				if c.Key.Runtime == rt && !c.State.Over() {
					ids = append(ids, c.Key.ID)
				}
			}
			return ids
		}}, scanners...)

	httpsLn, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Addr, err)
	}
	defer httpsLn.Close()
	httpsPort := httpsLn.Addr().(*net.TCPAddr).Port
	var plainLn net.Listener
	if cfg.HTTPAddr != "" {
		if plainLn, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
			return fmt.Errorf("listen %s: %w", cfg.HTTPAddr, err)
		}
		defer plainLn.Close()
	}
	density, _ := hookstate.ParseDensity(cfg.Density) // validated with the flags
	// Results from before paddock's first run are not "unread".
	firstRun, err := a.store.FirstRun(ctx, time.Now())
	if err != nil {
		return err
	}
	states = live.New(live.Options{
		State:        hookstate.Config{Density: density, ReadBaseline: firstRun, Rules: agents.HookRules()},
		Persist:      a.store,
		ProcessCheck: cfg.ProcessCheck,
		Observer: &live.ProcObserver{Logger: log.With("component", "process-check"), Lookup: func(ctx context.Context, k session.Key) (session.Info, bool) {
			in, err := cat.Get(ctx, k)
			return in, err == nil
		}},
		Agents: matcher.Agents,
		Logger: log.With("component", "live"),
	})
	// Prompts and questions answered from the phone: held in the hook
	// listener, decided exactly once in the broker.
	items := decisions.New(decisions.Options{Persist: a.store, Logger: log.With("component", "pending")})
	if err := items.Restore(ctx); err != nil {
		log.Warn("prompts left by the last run not marked expired", "error", err)
	}
	decider := hold.New(hold.Options{Broker: items, Logger: log.With("component", "approvals"),
		Policies: agents.Policies(), Holds: agents.Holds(cfg.Holds), Watching: recentlyActive(a.store)})
	hooks, err := openHookListener(cfg, agents.Decoders(), states, decider, log.With("component", "hooks"))
	if err != nil {
		return err
	}
	defer hooks.Close()

	var hosting web.Hosting
	var reattach, sleeper, probe, screens func(context.Context) error
	if terms, err := tmux.New(ctx, cfg.DataDir, tmux.Options{}); err != nil {
		log.Warn("hosted sessions are off: paddock starts agents in tmux", "error", err)
	} else {
		h := hosted.New(hosted.Options{Terminals: terms, Live: states, Recipes: agents.Recipes(), Screens: agents.Screens(), Persist: a.store, Logger: log.With("component", "hosted")})
		hosting = h
		sleeper = func(ctx context.Context) error { return h.RunSleeper(ctx, cfg.SleepIdle) }
		// The CLIs' --help is checked in the background: a CLI whose
		// flags changed refuses resumes from then on.
		probe = func(ctx context.Context) error { h.Probe(ctx); return nil }
		// Dialogs no hook can answer (Kimi's approvals, agents without
		// hooks) are read off the hosted screens and answered with keys.
		screens = func(ctx context.Context) error { return h.WatchScreens(ctx, items, hosted.DefaultScreenEvery) }
		reattach = func(ctx context.Context) error {
			_, err := h.Reattach(ctx, terms, states.Restored())
			if err != nil && ctx.Err() == nil {
				log.Error("hosted terminals not re-attached", "error", err)
			}
			// After the re-attach, watch for a tmux server that dies.
			return h.Watch(ctx, terms, hosted.DefaultWatch)
		}
	}

	sessions := board.New(board.Options{History: cat, Live: states, Items: items, CanHost: hosting != nil, Logger: log.With("component", "board")})
	srv, err := web.New(web.Options{
		Agents:       agents,
		Board:        sessions,
		Hosting:      hosting,
		Approvals:    items,
		Audit:        a.store,
		Auth:         a.auth,
		CSRFKey:      csrfKey,
		CA:           cm,
		AllowedHosts: func() []string { return allowedHosts(cm, cfg.ExtraHosts) },
		HTTPSPort:    httpsPort,
		Logger:       log.With("component", "web"),
		Markdown:     markdown.New(),
		Version:      version,
	})
	if err != nil {
		return err
	}

	st := serveState{PID: os.Getpid(), HTTPSPort: httpsPort, HookPort: hooks.Port(), HookAddr: hooks.Addr()}
	if plainLn != nil {
		st.HTTPPort = plainLn.Addr().(*net.TCPAddr).Port
	}
	st.URLs = dashboardURLs(reachableHosts(httpsLn.Addr(), cm.LeafSANs()), httpsPort)
	if err := writeState(cfg.DataDir, st); err != nil {
		return err
	}
	defer removeState(cfg.DataDir)

	code, expires, err := a.auth.NewPairingCode(ctx)
	if err != nil {
		return err
	}
	printBanner(stdout, st, cm.CAFingerprint(), pairLink(st.URLs, code), expires)
	offerHookInstall(stdout, cfg, getenv)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	goRun := func(name string, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errs <- fmt.Errorf("%s: %w", name, err)
				cancel()
			}
		}()
	}

	tlsCfg := cm.TLSConfig()
	// Timeouts bound what a client that never finishes can hold; the
	// websocket sets its own deadlines after it takes the connection over.
	httpsSrv := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	goRun("catalog", func() error { return cat.Run(ctx) })
	goRun("live state", func() error { return states.Run(ctx) })
	goRun("pending prompts", func() error { return items.Run(ctx) })
	goRun("approvals", func() error { return decider.Run(ctx) })
	if reattach != nil {
		goRun("hosted re-attach and tmux watch", func() error { return reattach(ctx) })
		goRun("idle sleep", func() error { return sleeper(ctx) })
		goRun("agent CLI check", func() error { return probe(ctx) })
		goRun("hosted screen dialogs", func() error { return screens(ctx) })
	}
	goRun("board", func() error { return sessions.Run(ctx) })
	goRun("websocket hub", func() error { return srv.Run(ctx) })
	goRun("https", func() error { return httpsSrv.Serve(tls.NewListener(httpsLn, tlsCfg)) })
	var plainSrv *http.Server
	if plainLn != nil {
		plainSrv = &http.Server{Handler: srv.PlainHandler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second,
			WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
		goRun("http", func() error { return plainSrv.Serve(plainLn) })
	}
	// The hook requests' own context ends only after the approvals know
	// paddock is stopping (below).
	hookCtx, endHooks := context.WithCancel(context.WithoutCancel(ctx))
	defer endHooks()
	if hooks != nil {
		goRun("hook listener", func() error { return hooks.Serve(hookCtx) })
	}
	goRun("certificates", func() error { refreshCerts(ctx, cm, log); return nil })

	<-ctx.Done()
	// Prompts held for the phone stay pending: the next start marks them
	// expired, which is what happened to them.
	decider.Stop()
	endHooks()
	shutdown, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	_ = httpsSrv.Shutdown(shutdown)
	if plainSrv != nil {
		_ = plainSrv.Shutdown(shutdown)
	}
	hooks.Shutdown(shutdown)
	wg.Wait()
	ls := states.Stats()
	log.Info("live state stopped", "received", ls.Received, "dropped", ls.Dropped, "cards", ls.Cards)
	close(errs)
	for err := range errs {
		return err
	}
	log.Info("paddock stopped")
	return nil
}

// certManager is what serve needs from the certificate code.
type certManager interface {
	TLSConfig() *tls.Config
	CAPEM() []byte
	CAFingerprint() string
	LeafSANs() []string
	Refresh() (bool, error)
}

func loadCerts(cfg config.Config, log *slog.Logger) (certManager, error) {
	if cfg.CertFile != "" {
		return certs.Custom(cfg.CertFile, cfg.KeyFile)
	}
	return certs.Load(certs.Options{Dir: cfg.DataDir, Hosts: cfg.ExtraHosts, Logger: log.With("component", "certs")})
}

// refreshCerts reissues the leaf when the machine's addresses change or
// its expiry nears; the TLS config picks up the new leaf on its own.
func refreshCerts(ctx context.Context, cm certManager, log *slog.Logger) {
	t := time.NewTicker(certRefresh)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if re, err := cm.Refresh(); err != nil {
				log.Error("certificate refresh failed", "error", err)
			} else if re {
				log.Info("reissued the dashboard certificate", "sans", cm.LeafSANs())
			}
		}
	}
}

// reachableHosts is where a browser can reach the listener: every name and
// address of the machine when it listens on all interfaces, else only the
// address it is bound to.
func reachableHosts(addr net.Addr, sans []string) []string {
	if ta, ok := addr.(*net.TCPAddr); ok && !ta.IP.IsUnspecified() {
		return []string{ta.IP.String()}
	}
	return sans
}

// allowedHosts is every name the dashboard answers to: the certificate's
// names and addresses plus configured extras.
func allowedHosts(cm certManager, extra []string) []string {
	out := append(slices.Clone(cm.LeafSANs()), extra...)
	return append(out, "localhost", "127.0.0.1", "::1")
}

// activeWithin is how recently a paired device (or an API token) must
// have been used for paddock to hold a Codex prompt for it (Codex shows its
// own prompt only once the hook answered).
const activeWithin = 15 * time.Minute

// recentlyActive reports whether a paired device or an API token was used
// lately, read at most every few seconds.
func recentlyActive(st *store.Store) func() bool {
	var mu sync.Mutex
	var at time.Time
	var active bool
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(at) < 5*time.Second {
			return active
		}
		at = time.Now()
		devs, err := st.ListDevices(context.Background())
		if err != nil {
			return true // unsure: hold, the hold is bounded
		}
		active = false
		for _, d := range devs {
			if !d.Revoked() && time.Since(d.LastSeenAt) < activeWithin {
				active = true
			}
		}
		if toks, err := st.ListAPITokens(context.Background()); err == nil {
			for _, t := range toks {
				if !t.Revoked() && time.Since(t.LastUsedAt) < activeWithin {
					active = true
				}
			}
		}
		return active
	}
}
