// Package auth decides who may use paddock: one-time pairing codes that a
// phone exchanges for a long-lived, revocable device session; API tokens for
// scripts; per-session CSRF tokens; and the pairing rate limit.
//
// paddock can approve an agent's shell commands, so this package guards a
// remote shell. It stores and logs only SHA-256 digests of secrets (a short
// digest prefix at most in logs), never the secrets themselves, and it knows
// nothing of HTTP: the web package adapts it and maps its sentinel errors to
// statuses in one place.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/time/rate"

	"paddock/internal/store"
)

// Errors the web layer maps to statuses. The messages are safe to show.
var (
	ErrInvalidCode     = errors.New("invalid pairing code")
	ErrExpiredCode     = errors.New("pairing code expired")
	ErrUsedCode        = errors.New("pairing code already used")
	ErrRateLimited     = errors.New("too many attempts; wait a minute")
	ErrUnauthenticated = errors.New("not signed in")
	ErrRevoked         = errors.New("access revoked")
	ErrExpired         = errors.New("access expired")
	ErrNotFound        = errors.New("not found")
	ErrInvalidName     = errors.New("invalid name")
)

// Defaults for Options.
const (
	DefaultPairingTTL = 10 * time.Minute
	DefaultPairBurst  = 5
)

// DefaultPairRate is five pairing attempts a minute per client (a constant,
// not rate.Every, so no package state can be changed). 128-bit codes make
// guessing hopeless anyway; the limit keeps a noisy client from burning CPU,
// database writes and log lines.
const DefaultPairRate rate.Limit = 5.0 / 60

// Secret sizes. Codes are 128 bits, short enough to type; session and API
// tokens 256 bits.
const (
	codeBytes  = 16
	tokenBytes = 32
	// TokenPrefix marks API tokens, so a leaked one is recognisable (and
	// greppable by secret scanners) and never confused with a device token.
	TokenPrefix = "pdk_"
)

// Secrets are lowercase base32 without padding: unambiguous to read aloud or
// type on a phone, safe in URLs and cookies, and one double-click selects a
// whole token in a terminal.
var secretEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

var (
	codeLen  = secretEncoding.EncodedLen(codeBytes)  // 26
	tokenLen = secretEncoding.EncodedLen(tokenBytes) // 52
)

// Input caps: anything longer is rejected or cut before it is hashed,
// stored or logged.
const (
	maxUserAgent = 512
	maxIP        = 64
	maxName      = 64 // runes, for API token names
	maxActor     = 80
)

// Options configure a Service. Zero values take the defaults.
type Options struct {
	Store      *store.Store // required
	PairingTTL time.Duration
	Now        func() time.Time
	Logger     *slog.Logger
	PairRate   rate.Limit
	PairBurst  int
	// DeviceIdle ends a device's session once it has not been used for
	// this long (default DefaultDeviceIdle; negative: never).
	DeviceIdle time.Duration
}

// DefaultDeviceIdle is how long a paired device may go unused before it
// must pair again: a phone lost or sold stops being a key after that.
const DefaultDeviceIdle = 90 * 24 * time.Hour

// Service is paddock's authentication. It is safe for concurrent use.
type Service struct {
	store  *store.Store
	ttl    time.Duration
	now    func() time.Time
	logger *slog.Logger
	pairs  *limiter
	idle   time.Duration // 0: devices never expire
}

// New returns a Service. It panics without a Store: that is a wiring bug,
// not a runtime condition.
func New(opts Options) *Service {
	if opts.Store == nil {
		panic("auth: Options.Store is required")
	}
	if opts.PairingTTL <= 0 {
		opts.PairingTTL = DefaultPairingTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.PairRate == 0 {
		opts.PairRate = DefaultPairRate
	}
	if opts.PairBurst <= 0 {
		opts.PairBurst = DefaultPairBurst
	}
	switch {
	case opts.DeviceIdle == 0:
		opts.DeviceIdle = DefaultDeviceIdle
	case opts.DeviceIdle < 0:
		opts.DeviceIdle = 0
	}
	return &Service{
		store:  opts.Store,
		ttl:    opts.PairingTTL,
		now:    opts.Now,
		logger: opts.Logger.WithGroup("auth"),
		pairs:  newLimiter(opts.PairRate, opts.PairBurst),
		idle:   opts.DeviceIdle,
	}
}

// newSecret returns n random bytes from crypto/rand, encoded.
func newSecret(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (Go ≥1.24); crashes the program instead
	return secretEncoding.EncodeToString(b)
}

func digest(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// digestPrefix identifies a secret in logs without revealing it: 32 bits of
// its SHA-256, useless for recovering a 128-bit or larger secret.
func digestPrefix(secret string) string { return hex.EncodeToString(digest(secret)[:4]) }

// wellFormed reports whether s is exactly n characters of the secret alphabet.
// Checking shape first means garbage never reaches the database, and its
// run time depends only on public facts (length, alphabet).
func wellFormed(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// normalizeCode accepts a pairing code as a person might type it: surrounding
// space and upper case are forgiven (phones capitalise), nothing else.
func normalizeCode(code string) (string, bool) {
	if len(code) > 2*codeLen { // cap before any work on attacker input
		return "", false
	}
	c := strings.ToLower(strings.TrimSpace(code))
	return c, wellFormed(c, codeLen)
}

// normalizeIP turns the caller's client address into a canonical, bounded
// string: IPv4-mapped IPv6 is unmapped and zones are dropped. Anything
// unparsable is kept as cleaned text so it still shows up in the audit log.
func normalizeIP(ip string) string {
	if len(ip) > maxIP {
		ip = ip[:maxIP]
	}
	if a, err := netip.ParseAddr(ip); err == nil {
		return a.Unmap().WithZone("").String()
	}
	return cleanText(ip, maxIP)
}

// cleanText makes untrusted text safe to store and show: valid UTF-8, no
// control or invisible formatting characters (which could disguise a device
// name, e.g. right-to-left overrides, or inject terminal escapes), runs of
// white space collapsed to one space and trimmed, at most max bytes, cut on
// a rune boundary.
func cleanText(s string, max int) string {
	if len(s) > 4*max { // bound the work on hostile input
		s = s[:4*max]
	}
	s = strings.ToValidUTF8(s, "")
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			continue // dropped, not spaced: "ab\u202ec" must not become two words
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		if b.Len()+utf8.RuneLen(r) > max {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// audit records a security event. A failure is logged, not returned: the
// action has already happened and must not be reported as failed.
func (s *Service) audit(ctx context.Context, at time.Time, actor, action, detail string) {
	if err := s.store.Audit(ctx, at, actor, action, detail); err != nil {
		s.logger.Error("audit log write failed", "action", action, "err", err)
	}
}

// mapStoreErr turns store errors into this package's; others are wrapped as
// internal errors.
func mapStoreErr(op string, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return ErrNotFound
	default:
		return fmt.Errorf("auth: %s: %w", op, err)
	}
}
