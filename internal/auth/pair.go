package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"paddock/internal/store"
)

// NewPairingCode makes a single-use pairing code valid for the pairing TTL.
// Only its SHA-256 is stored; the caller shows the code (link, QR) and must
// not log it. Expired codes are pruned on the way.
func (s *Service) NewPairingCode(ctx context.Context) (code string, expires time.Time, err error) {
	now := s.now()
	code = newSecret(codeBytes)
	expires = now.Add(s.ttl)
	if err := s.store.InsertPairingCode(ctx, digest(code), now, expires); err != nil {
		return "", time.Time{}, fmt.Errorf("auth: new pairing code: %w", err)
	}
	if _, err := s.store.PrunePairingCodes(ctx, now); err != nil {
		s.logger.Warn("pruning expired pairing codes failed", "err", err)
	}
	s.audit(ctx, now, "system", "pairing_code.create", "code="+digestPrefix(code)+" expires="+expires.UTC().Format(time.RFC3339))
	s.logger.Info("pairing code created", "code_sha256_prefix", digestPrefix(code), "expires", expires)
	return code, expires, nil
}

// Pair exchanges a pairing code for a new device session, exactly once per
// code. It returns the session token (to be set as the cookie; only its
// SHA-256 is stored) and the device, named from its user agent.
//
// Pair does not rate-limit: the caller must call AllowPairAttempt first, once
// per request, and answer ErrRateLimited itself when it refuses (kept apart
// so a request is charged exactly once however many steps it takes).
// Errors: ErrInvalidCode (malformed or unknown), ErrExpiredCode, ErrUsedCode.
//
// A code is compared by looking up its SHA-256, never in memory, so there is
// no early-exit comparison for a timing attack to measure; the index lookup
// can only reveal something about a digest, which says nothing about a code.
func (s *Service) Pair(ctx context.Context, code, userAgent, clientIP string) (deviceToken string, dev store.Device, err error) {
	ip := normalizeIP(clientIP)
	c, ok := normalizeCode(code)
	if !ok {
		s.logger.Warn("pairing refused: malformed code", "ip", ip)
		return "", store.Device{}, ErrInvalidCode
	}

	ua := cleanText(userAgent, maxUserAgent)
	token := newSecret(tokenBytes)
	now := s.now()
	dev, err = s.store.PairDevice(ctx, digest(c), store.NewDevice{
		Name:      deviceName(ua),
		UserAgent: ua,
		IP:        ip,
		TokenHash: digest(token),
		CreatedAt: now,
	})
	if err != nil {
		reason, mapped := "", error(nil)
		switch {
		case errors.Is(err, store.ErrNotFound):
			reason, mapped = "unknown code", ErrInvalidCode
		case errors.Is(err, store.ErrExpired):
			reason, mapped = "expired code", ErrExpiredCode
		case errors.Is(err, store.ErrUsed):
			reason, mapped = "code already used", ErrUsedCode
		default:
			return "", store.Device{}, fmt.Errorf("auth: pair: %w", err)
		}
		s.logger.Warn("pairing refused: "+reason, "ip", ip, "code_sha256_prefix", digestPrefix(c))
		return "", store.Device{}, mapped
	}

	s.audit(ctx, now, "device:"+dev.ID, "pair",
		fmt.Sprintf("name=%q ip=%s code=%s", dev.Name, ip, digestPrefix(c)))
	s.logger.Info("device paired", "device", dev.ID, "name", dev.Name, "ip", ip)
	return token, dev, nil
}

// AllowPairAttempt takes one token from clientIP's pairing bucket (5 a
// minute, burst 5, by default) and reports whether the attempt may go
// ahead; the caller answers ErrRateLimited when it does not. Clients are
// never banned: a refused client gets a new attempt as its bucket refills.
func (s *Service) AllowPairAttempt(clientIP string) bool {
	ip := normalizeIP(clientIP)
	ok, warn := s.pairs.allow(ip, s.now())
	if warn {
		// Once per client per quiet period, so a flood cannot flood the log.
		s.logger.Warn("pairing rate limit hit", "client", limiterKey(ip))
	}
	return ok
}

// Burn consumes a pairing code without pairing anything. It is for a code
// that is known to have been exposed (e.g. its link was opened over plain
// HTTP, so it crossed the network unencrypted): nobody can use it after.
// An unknown, used or expired code is not an error — it is already useless.
func (s *Service) Burn(ctx context.Context, code string) error {
	c, ok := normalizeCode(code)
	if !ok {
		return nil
	}
	err := s.store.ConsumePairingCode(ctx, digest(c), s.now(), "")
	switch {
	case err == nil:
		s.audit(ctx, s.now(), "system", "pairing_code.burn", "code="+digestPrefix(c))
		s.logger.Warn("pairing code burnt: its link was opened without TLS", "code_sha256_prefix", digestPrefix(c))
		return nil
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrUsed), errors.Is(err, store.ErrExpired):
		return nil
	}
	return fmt.Errorf("auth: burn pairing code: %w", err)
}
