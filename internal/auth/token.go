package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"paddock/internal/store"
)

// CreateToken makes an API token for scripts: "pdk_" followed by 256 random
// bits. The token is returned once and only its SHA-256 is stored, so it
// cannot be shown again. The context's actor (WithActor) is recorded in the
// audit log: a token is a lasting credential, and one minted by a stolen
// phone must be traceable. ErrInvalidName unless name is 1–64 printable
// characters.
func (s *Service) CreateToken(ctx context.Context, name string) (token string, t store.APIToken, err error) {
	return s.CreateTokenFor(ctx, name, 0)
}

// CreateTokenFor is CreateToken for a token that ends after ttl (0: lasts
// until revoked).
func (s *Service) CreateTokenFor(ctx context.Context, name string, ttl time.Duration) (token string, t store.APIToken, err error) {
	name, ok := validName(name)
	if !ok {
		return "", store.APIToken{}, ErrInvalidName
	}
	if ttl < 0 {
		return "", store.APIToken{}, errors.New("auth: a token's lifetime cannot be negative")
	}
	token = TokenPrefix + newSecret(tokenBytes)
	now := s.now()
	var expires time.Time
	if ttl > 0 {
		expires = now.Add(ttl)
	}
	t, err = s.store.InsertAPIToken(ctx, name, digest(token), now, expires)
	if err != nil {
		return "", store.APIToken{}, fmt.Errorf("auth: create token: %w", err)
	}
	actor := actorFrom(ctx)
	s.audit(ctx, now, actor, "token.create", fmt.Sprintf("token=%s name=%q", t.ID, name))
	s.logger.Info("api token created", "token", t.ID, "name", name, "by", actor)
	return token, t, nil
}

// Token returns the API token a bearer credential belongs to and records its
// use (at most once a minute). ErrUnauthenticated for a malformed or unknown
// token, ErrRevoked for a revoked one.
func (s *Service) Token(ctx context.Context, token string) (store.APIToken, error) {
	secret, ok := strings.CutPrefix(token, TokenPrefix)
	if !ok || !wellFormed(secret, tokenLen) {
		return store.APIToken{}, ErrUnauthenticated
	}
	t, err := s.store.APITokenByHash(ctx, digest(token))
	if errors.Is(err, store.ErrNotFound) {
		return store.APIToken{}, ErrUnauthenticated
	}
	if err != nil {
		return store.APIToken{}, fmt.Errorf("auth: token: %w", err)
	}
	if t.Revoked() {
		return store.APIToken{}, ErrRevoked
	}
	now := s.now()
	if !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt) {
		return store.APIToken{}, ErrExpired
	}
	if wrote, err := s.store.TouchAPIToken(ctx, t.ID, now); err != nil {
		s.logger.Warn("recording token use failed", "token", t.ID, "err", err)
	} else if wrote {
		t.LastUsedAt = now.UTC().Truncate(time.Millisecond)
	}
	return t, nil
}

// ListTokens returns every API token, revoked ones included, newest first.
func (s *Service) ListTokens(ctx context.Context) ([]store.APIToken, error) {
	ts, err := s.store.ListAPITokens(ctx)
	if err != nil {
		return nil, fmt.Errorf("auth: list tokens: %w", err)
	}
	return ts, nil
}

// RevokeToken revokes an API token by ID, recording the context's actor in
// the audit log; idempotent, ErrNotFound for an unknown id.
func (s *Service) RevokeToken(ctx context.Context, id string) error {
	if !validID(id) {
		return ErrNotFound
	}
	now := s.now()
	if err := s.store.RevokeAPIToken(ctx, id, now); err != nil {
		return mapStoreErr("revoke token", err)
	}
	actor := actorFrom(ctx)
	s.audit(ctx, now, actor, "token.revoke", "token="+id)
	s.logger.Info("api token revoked", "token", id, "by", actor)
	return nil
}

// validName trims name and accepts 1–64 runes of valid UTF-8 with no control
// or invisible formatting characters. It rejects rather than cleans: the
// user typed it and should see exactly what is stored.
func validName(name string) (string, bool) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 4*maxName || !utf8.ValidString(name) || utf8.RuneCountInString(name) > maxName {
		return "", false
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", false
		}
	}
	return name, true
}
