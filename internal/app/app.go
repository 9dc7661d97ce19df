// Package app is `paddock serve`: from one Config and the list of agents it
// opens the data dir, binds the listeners and builds every part (the
// history catalog, the live state, the decisions, the hook listener, the
// hosted terminals, the board, the web server), then runs them under one
// supervisor and stops them in order. cmd/paddock only parses flags,
// prints the banner and calls New, Run and Close; tests do the same.
//
// Nothing runs before Run: New binds the ports, reads the data dir and
// writes serve.json there, so that a bad address or an unreadable data dir
// fails before anything is started, and the banner can name the real
// ports.
package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"paddock/internal/agent"
	"paddock/internal/auth"
	"paddock/internal/board"
	"paddock/internal/catalog"
	"paddock/internal/config"
	"paddock/internal/decisions"
	"paddock/internal/decisions/hold"
	"paddock/internal/history"
	"paddock/internal/hookstate"
	"paddock/internal/hosted"
	"paddock/internal/live"
	"paddock/internal/markdown"
	"paddock/internal/procscan"
	"paddock/internal/push"
	"paddock/internal/search"
	"paddock/internal/settings"
	"paddock/internal/tmux"
	"paddock/internal/usage"
	"paddock/web"
)

// Options are what New needs besides the Config.
type Options struct {
	// Agents are the agents paddock reads, hooks into and hosts
	// (required; internal/agent/registry.Default in paddock itself).
	Agents  *agent.Registry
	Logger  *slog.Logger // default: discard
	Version string       // shown in the page footer and the API
}

// snapshotKeepBytes bounds the copies of agents' databases kept between
// reads (history.SnapshotOptions): a database whose copy is evicted is
// copied whole at its next read, so the bound leaves room for a few large
// ones (an OpenCode database grows with every session).
const snapshotKeepBytes = 2 << 30

// App is a built `paddock serve`. Create it with New, start it with Run
// and release it with Close (after Run returns, or instead of Run).
type App struct {
	cfg  config.Config
	log  *slog.Logger
	data *Data

	certs   certManager
	httpsLn net.Listener
	plainLn net.Listener // nil without --http-addr
	hooks   *hookListener

	catalog  *catalog.Catalog
	live     *live.Service
	items    *decisions.Broker
	push     *push.Notifier
	decider  *hold.Service
	hosting  *hosted.Manager // nil when tmux is missing
	terms    *tmux.Server
	sessions *board.Board
	settings *settings.Service
	index    *search.Index
	usage    *usage.Store
	tracker  *usage.Index
	web      *web.Server
	// snapshots are the private copies of the agents' SQLite databases
	// the scanners read.
	snapshots *history.Snapshots

	state        State
	stateWritten bool
}

// New builds paddock serve from cfg. It binds the listeners and opens the
// data dir; it starts nothing (Run does).
func New(ctx context.Context, cfg config.Config, o Options) (_ *App, err error) {
	if o.Agents == nil {
		return nil, errors.New("app: no agents")
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &App{cfg: cfg, log: log}
	// What was opened before a failure is released.
	defer func() {
		if err != nil {
			a.Close()
			err = startError(cfg.DataDir, err)
		}
	}()
	if a.data, err = OpenData(ctx, cfg, log); err != nil {
		return nil, err
	}
	csrfKey, err := auth.LoadOrCreateKey(filepath.Join(cfg.DataDir, "csrf.key"))
	if err != nil {
		return nil, err
	}
	if a.certs, err = loadCerts(cfg, log); err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, tailnetStart)
	refreshTailnet(tctx, a.certs, log.With("component", "certs"))
	cancel()
	if a.httpsLn, err = net.Listen("tcp", cfg.Addr); err != nil {
		return nil, fmt.Errorf("listen %s: %w", cfg.Addr, err)
	}
	httpsPort := a.httpsLn.Addr().(*net.TCPAddr).Port
	if cfg.HTTPAddr != "" {
		if a.plainLn, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
			return nil, fmt.Errorf("listen %s: %w", cfg.HTTPAddr, err)
		}
	}

	agents := o.Agents
	// The history and the live state ask each other (which sessions run
	// now, which session a hosted terminal runs, what the history says of
	// a session being checked): the board answers, once it exists.
	links := &board.Links{}
	// One walk of the process table serves every scanner for a second:
	// they run concurrently, within milliseconds of each other.
	matcher := agents.Processes()
	procs := matcher.Shared(time.Second)
	// The agents' databases are read from copies kept in the data dir
	// (private, on disk rather than a RAM-backed /tmp), refreshed when
	// their files change.
	a.snapshots = history.NewSnapshots(history.SnapshotOptions{Dir: filepath.Join(cfg.DataDir, "cache"), KeepBytes: snapshotKeepBytes})
	scanners := agents.Scanners(agent.Env{Processes: procs, Logger: log, HostedSession: links.HostedSession, Snapshots: a.snapshots}, cfg.AgentDirs)
	a.catalog = catalog.New(catalog.Options{Limit: cfg.ScanLimit, SweepInterval: cfg.SweepInterval, Logger: log.With("component", "catalog"),
		ProcessFingerprint: procscan.Fingerprints(procs, procscan.OpenFiles, time.Second, agents.HoldsHistoryOpen),
		CacheDir:           filepath.Join(cfg.DataDir, "cache", "conversations"),
		// A session running now stays listed however old its history.
		Keep: links.Running,
	}, scanners...)

	// The command line's values are the defaults; what the user set from
	// the phone is stored and wins.
	if a.settings, err = settings.Load(ctx, a.data.Store, settings.Values{SleepIdle: cfg.SleepIdle, Density: cfg.Density,
		ProcessCheck: cfg.ProcessCheck}, log.With("component", "settings")); err != nil {
		return nil, err
	}
	set := a.settings.Get()
	density, _ := hookstate.ParseDensity(set.Density) // validated by settings.Load
	// Results from before paddock's first run are not "unread".
	firstRun, err := a.data.Store.FirstRun(ctx, time.Now())
	if err != nil {
		return nil, err
	}
	a.live = live.New(live.Options{
		State:        hookstate.Config{Density: density, ReadBaseline: firstRun, Rules: agents.HookRules()},
		Persist:      a.data.Store,
		ProcessCheck: set.ProcessCheck,
		Observer:     &live.ProcObserver{Logger: log.With("component", "process-check"), Lookup: links.Lookup},
		Agents:       matcher.Agents,
		Logger:       log.With("component", "live"),
	})
	// Prompts and questions answered from the phone: held in the hook
	// listener, decided exactly once in the broker.
	a.items = decisions.New(decisions.Options{Persist: a.data.Store, Logger: log.With("component", "pending")})
	if err := a.items.Restore(ctx); err != nil {
		log.Warn("prompts left by the last run not marked expired", "error", err)
	}
	a.decider = hold.New(hold.Options{Broker: a.items, Logger: log.With("component", "approvals"),
		Policies: agents.Policies(), Holds: agents.Holds(cfg.Holds), Watching: recentlyActive(a.data.Store)})
	if a.hooks, err = openHookListener(cfg, agents.Decoders(), a.live, a.decider, log.With("component", "hooks")); err != nil {
		return nil, err
	}

	var hosting web.Hosting
	if terms, err := tmux.New(ctx, cfg.DataDir, tmux.Options{}); err != nil {
		log.Warn("hosted sessions are off: paddock starts agents in tmux", "error", err)
	} else {
		a.terms = terms
		a.hosting = hosted.New(hosted.Options{Terminals: terms, Live: a.live, Recipes: agents.Recipes(), Screens: agents.Screens(),
			Persist: a.data.Store, Logger: log.With("component", "hosted")})
		hosting = a.hosting
	}

	a.sessions = board.New(board.Options{History: a.catalog, Live: a.live, Items: a.items, CanHost: a.hosting != nil,
		Links: links, Logger: log.With("component", "board")})
	keys, err := push.LoadKeys(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	if a.push, err = push.New(push.Options{Keys: keys, Store: a.data.Store, Items: a.items, Cards: a.live, Agents: agents.Names(),
		Label: agents.Label, Log: log.With("component", "push")}); err != nil {
		return nil, err
	}
	// The search index is derived data beside the store: deleting it
	// loses nothing, it is built again.
	if a.index, err = search.Open(ctx, search.Options{Path: IndexPath(cfg), Source: a.catalog, Tools: cfg.IndexTools,
		Log: log.With("component", "search")}); err != nil {
		return nil, err
	}
	// Usage is derived data too; a price file the user wrote that does
	// not parse stops paddock here, naming its line.
	prices, err := usage.LoadPrices(filepath.Join(cfg.DataDir, usage.PricesFile))
	if err != nil {
		return nil, err
	}
	if a.usage, err = usage.OpenStore(ctx, usage.StoreOptions{Path: UsagePath(cfg), Prices: prices, Log: log.With("component", "usage")}); err != nil {
		return nil, err
	}
	a.tracker = usage.NewIndex(usage.Options{Store: a.usage, Source: a.catalog, Log: log.With("component", "usage"),
		Readers: agents.UsageReaders(agent.Env{Logger: log, Snapshots: a.snapshots}, cfg.AgentDirs)})
	cm := a.certs
	if a.web, err = web.New(web.Options{
		Agents:    agents,
		Board:     a.sessions,
		Hosting:   hosting,
		Approvals: a.items,
		Push:      a.push,
		Settings:  a.settings,
		Search:    a.index,
		Usage:     usageService{a.usage, a.tracker},
		Hooks:     newHookInstaller(agents.InstallSpecs(), cfg.DataDir),
		// a.state is set below, before Run serves anything.
		DashboardURLs: func() []string { return a.state.URLs },
		Audit:         a.data.Store,
		Store:         a.data.Store,
		Auth:          a.data.Auth,
		CSRFKey:       csrfKey,
		CA:            cm,
		AllowedHosts:  func() []string { return allowedHosts(cm, cfg.ExtraHosts) },
		HTTPSPort:     httpsPort,
		Logger:        log.With("component", "web"),
		Markdown:      markdown.New(),
		Version:       o.Version,
	}); err != nil {
		return nil, err
	}

	a.state = State{PID: os.Getpid(), HTTPSPort: httpsPort, HookPort: a.hooks.Port(), HookAddr: a.hooks.Addr()}
	if a.plainLn != nil {
		a.state.HTTPPort = a.plainLn.Addr().(*net.TCPAddr).Port
	}
	a.state.URLs = DashboardURLs(reachableHosts(a.httpsLn.Addr(), cm.LeafSANs()), httpsPort)
	if n := cm.TailnetName(); n != "" {
		// Its devices trust this one without paddock's CA.
		a.state.URLs = append([]string{"https://" + net.JoinHostPort(n, strconv.Itoa(httpsPort)) + "/"}, a.state.URLs...)
	}
	// The other commands and the hook relay find this paddock from here
	// on; its listeners are bound, so what they send queues until Run.
	if err := WriteState(cfg.DataDir, a.state); err != nil {
		return nil, err
	}
	a.stateWritten = true
	return a, nil
}

// applySettings hands the user's changes of the settings to the live
// state until ctx ends (idle sleep reads them itself).
func (a *App) applySettings(ctx context.Context) error {
	ch, stop := a.settings.Subscribe()
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case v := <-ch:
			d, _ := hookstate.ParseDensity(v.Density) // validated by settings.Set
			if err := a.live.Tune(ctx, live.Tuning{Density: d, ProcessCheck: v.ProcessCheck}); err != nil && ctx.Err() == nil {
				a.log.Warn("settings: the live state did not take the new values", "error", err)
			}
		}
	}
}

// State is where this paddock serves (written to the data dir by Run for
// the other commands and the hook relay).
func (a *App) State() State { return a.state }

// CAFingerprint is the local CA's SHA-256 fingerprint ("" with a
// certificate of the user's own).
func (a *App) CAFingerprint() string { return a.certs.CAFingerprint() }

// PairedDevices is how many devices are paired (not revoked).
func (a *App) PairedDevices(ctx context.Context) (int, error) {
	ds, err := a.data.Auth.ListDevices(ctx)
	n := 0
	for _, d := range ds {
		if !d.Revoked() {
			n++
		}
	}
	return n, err
}

// NewPairingCode is a one-time pairing code and when it expires.
func (a *App) NewPairingCode(ctx context.Context) (string, time.Time, error) {
	return a.data.Auth.NewPairingCode(ctx)
}

// shutdownGrace bounds how long the servers get to finish their requests
// once paddock stops.
const shutdownGrace = 5 * time.Second

// Run serves until ctx ends or a part fails, then stops every part: the
// held hooks let go first (their prompts stay pending for the next start
// to mark expired), then the listeners close, and Run returns once every
// goroutine has ended. The error is the first part's that failed.
func (a *App) Run(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	part := func(name string, run func(context.Context) error) {
		g.Go(func() error {
			if err := run(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("%s: %w", name, err)
			}
			return nil
		})
	}
	part("store health", a.data.Store.Watch)
	part("catalog", a.catalog.Run)
	part("live state", a.live.Run)
	part("pending prompts", a.items.Run)
	part("approvals", a.decider.Run)
	if h := a.hosting; h != nil {
		part("hosted re-attach and tmux watch", func(ctx context.Context) error {
			if _, err := h.Reattach(ctx, a.terms, a.live.Restored()); err != nil && ctx.Err() == nil {
				a.log.Error("hosted terminals not re-attached", "error", err)
			}
			// After the re-attach, watch for a tmux server that dies.
			return h.Watch(ctx, a.terms, hosted.DefaultWatch)
		})
		part("idle sleep", func(ctx context.Context) error {
			return h.RunSleeper(ctx, func() time.Duration { return a.settings.Get().SleepIdle })
		})
		// The CLIs' --help is checked in the background: a CLI whose
		// flags changed refuses resumes from then on.
		part("agent CLI check", func(ctx context.Context) error { h.Probe(ctx); return nil })
		// Dialogs no hook can answer (Kimi's approvals, agents without
		// hooks) are read off the hosted screens and answered with keys.
		part("hosted screen dialogs", func(ctx context.Context) error { return h.WatchScreens(ctx, a.items, hosted.DefaultScreenEvery) })
	}
	part("settings", a.applySettings)
	part("board", a.sessions.Run)
	part("push notifications", a.push.Run)
	part("search index", a.index.Run)
	part("usage", a.tracker.Run)
	part("websocket hub", a.web.Run)
	part("certificates", func(ctx context.Context) error { refreshCerts(ctx, a.certs, a.log); return nil })

	// Timeouts bound what a client that never finishes can hold; the
	// websocket sets its own deadlines after it takes the connection over.
	errLog := slog.NewLogLogger(a.log.Handler(), slog.LevelWarn)
	httpsSrv := &http.Server{Handler: a.web.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: errLog}
	tlsCfg := a.certs.TLSConfig()
	part("https", func(context.Context) error { return httpsSrv.Serve(tls.NewListener(a.httpsLn, tlsCfg)) })
	var plainSrv *http.Server
	if a.plainLn != nil {
		plainSrv = &http.Server{Handler: a.web.PlainHandler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second,
			WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: errLog}
		part("http", func(context.Context) error { return plainSrv.Serve(a.plainLn) })
	}
	// The hook requests' own context ends only after the approvals know
	// paddock is stopping (below).
	hookCtx, endHooks := context.WithCancel(context.WithoutCancel(ctx))
	defer endHooks()
	if a.hooks != nil {
		part("hook listener", func(context.Context) error { return a.hooks.Serve(hookCtx) })
	}

	// Stopping, in order: once ctx ends (a signal, or a part failed).
	g.Go(func() error {
		<-ctx.Done()
		// Prompts held for the phone stay pending: the next start marks
		// them expired, which is what happened to them.
		a.decider.Stop()
		endHooks()
		shutdown, done := context.WithTimeout(context.Background(), shutdownGrace)
		defer done()
		_ = httpsSrv.Shutdown(shutdown)
		if plainSrv != nil {
			_ = plainSrv.Shutdown(shutdown)
		}
		a.hooks.Shutdown(shutdown)
		return nil
	})
	err := g.Wait()
	ls := a.live.Stats()
	a.log.Info("live state stopped", "received", ls.Received, "dropped", ls.Dropped, "cards", ls.Cards)
	if err == nil {
		a.log.Info("paddock stopped")
	}
	return err
}

// Close releases what New opened: the listeners, the state file and the
// data dir.
func (a *App) Close() error {
	if a.stateWritten {
		RemoveState(a.cfg.DataDir)
	}
	if a.hooks != nil {
		a.hooks.Close()
	}
	if a.plainLn != nil {
		_ = a.plainLn.Close()
	}
	if a.httpsLn != nil {
		_ = a.httpsLn.Close()
	}
	if a.index != nil {
		_ = a.index.Close()
	}
	if a.usage != nil {
		_ = a.usage.Close()
	}
	if a.snapshots != nil {
		_ = a.snapshots.Close()
	}
	if a.data != nil {
		return a.data.Close()
	}
	return nil
}
