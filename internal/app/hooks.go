package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"paddock/internal/config"
	"paddock/internal/hookchannel"
	"paddock/internal/hookstate"
	"time"
)

// hookListener is serve's loopback listener for agent hooks.
type hookListener struct {
	ln     net.Listener
	srv    *http.Server
	intake *hookchannel.Handler
	log    *slog.Logger
}

// openHookListener binds cfg.HookAddr (loopback only; empty: no listener)
// and loads the hook secret, creating it on first start.
func openHookListener(cfg config.Config, decoders hookstate.Decoders, sink hookchannel.Sink, decider hookchannel.Decider, log *slog.Logger) (*hookListener, error) {
	if cfg.HookAddr == "" {
		return nil, nil
	}
	secret, replaced, err := hookchannel.LoadOrCreateSecret(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	if replaced {
		log.Warn("the hook secret was readable by others and has been replaced; Claude http hooks installed with the old one need `paddock hooks install --claude-http` again")
	}
	ln, err := hookchannel.Listen(cfg.HookAddr)
	if err != nil {
		return nil, fmt.Errorf("--hook-addr: %w", err)
	}
	h := &hookListener{ln: ln, log: log}
	h.intake = hookchannel.NewHandler(hookchannel.HandlerOptions{Secret: secret, Decoders: decoders, Sink: sink, Decider: decider, Logger: log})
	// A held decision extends its own deadlines (hookchannel.Handler.hold).
	h.srv = &http.Server{Handler: h.intake, ReadHeaderTimeout: 2 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 15 * time.Second, IdleTimeout: 30 * time.Second, MaxHeaderBytes: 16 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	log.Info("hook listener", "addr", ln.Addr().String())
	return h, nil
}

// Port is the listener's port, 0 without one.
func (h *hookListener) Port() int {
	if h == nil {
		return 0
	}
	return h.ln.Addr().(*net.TCPAddr).Port
}

// Addr is the bound address, "" without a listener.
func (h *hookListener) Addr() string {
	if h == nil {
		return ""
	}
	return h.ln.Addr().String()
}

// Serve serves until Shutdown. Requests live in ctx: when serve stops, a
// hook held for the phone lets go at once (no decision: the agent's own
// prompt takes over) instead of holding up the shutdown.
func (h *hookListener) Serve(ctx context.Context) error {
	h.srv.BaseContext = func(net.Listener) context.Context { return ctx }
	return h.srv.Serve(h.ln)
}

// Shutdown stops the listener and logs what it counted.
func (h *hookListener) Shutdown(ctx context.Context) {
	if h == nil {
		return
	}
	_ = h.srv.Shutdown(ctx)
	st := h.intake.Stats()
	h.log.Info("hook listener stopped", "accepted", st.Accepted, "rejected", st.RejectedTotal(),
		"answered", st.Answers.Count, "answer_p50", st.Answers.P50, "answer_p99", st.Answers.P99, "answer_max", st.Answers.Max)
}

// Close releases the port when serve fails before serving.
func (h *hookListener) Close() {
	if h != nil {
		_ = h.ln.Close()
	}
}
