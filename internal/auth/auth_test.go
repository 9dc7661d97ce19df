package auth

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"paddock/internal/store"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// clock is a settable Now for tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type rig struct {
	svc   *Service
	store *store.Store
	clock *clock
	dir   string
	logs  *syncBuffer
}

// syncBuffer collects log output from concurrent goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func newRig(tb testing.TB, opts Options) *rig {
	tb.Helper()
	dir := tb.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, "paddock.db"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	c := &clock{t: t0}
	logs := &syncBuffer{}
	opts.Store = st
	opts.Now = c.Now
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return &rig{svc: New(opts), store: st, clock: c, dir: dir, logs: logs}
}

func (r *rig) code(tb testing.TB) string {
	tb.Helper()
	code, exp, err := r.svc.NewPairingCode(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	if !exp.Equal(r.clock.Now().Add(DefaultPairingTTL)) {
		tb.Fatalf("expires %v, want now+%v", exp, DefaultPairingTTL)
	}
	return code
}

const iPhoneSafari = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"

func TestNewPairingCode(t *testing.T) {
	r := newRig(t, Options{})
	a, b := r.code(t), r.code(t)
	if a == b {
		t.Fatal("two codes are equal")
	}
	for _, c := range []string{a, b} {
		if !wellFormed(c, 26) {
			t.Errorf("code %q is not 26 lowercase base32 characters", c)
		}
	}
}

func TestPair(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		code    func(real string) string
		before  func(r *rig, real string) // runs before the Pair under test
		wantErr error
	}{
		{"valid", func(c string) string { return c }, nil, nil},
		{"typed in capitals with spaces", func(c string) string { return "  " + strings.ToUpper(c) + "\n" }, nil, nil},
		{"second use", func(c string) string { return c }, func(r *rig, c string) {
			if _, _, err := r.svc.Pair(ctx, c, iPhoneSafari, "192.0.2.1"); err != nil {
				t.Fatal(err)
			}
		}, ErrUsedCode},
		{"expired after 11 minutes", func(c string) string { return c }, func(r *rig, _ string) {
			r.clock.Add(11 * time.Minute)
		}, ErrExpiredCode},
		{"still valid after 9 minutes", func(c string) string { return c }, func(r *rig, _ string) {
			r.clock.Add(9 * time.Minute)
		}, nil},
		{"empty", func(string) string { return "" }, nil, ErrInvalidCode},
		{"garbage", func(string) string { return "'; DROP TABLE devices; --" }, nil, ErrInvalidCode},
		{"well formed but unknown", func(string) string { return strings.Repeat("a", 26) }, nil, ErrInvalidCode},
		{"one character short", func(c string) string { return c[:25] }, nil, ErrInvalidCode},
		{"one character long", func(c string) string { return c + "a" }, nil, ErrInvalidCode},
		{"wrong alphabet", func(c string) string { return "0" + c[1:] }, nil, ErrInvalidCode},
		{"huge", func(string) string { return strings.Repeat("a", 1<<20) }, nil, ErrInvalidCode},
		{"device token is not a code", func(string) string { return newSecret(tokenBytes) }, nil, ErrInvalidCode},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Options{})
			real := r.code(t)
			if tc.before != nil {
				tc.before(r, real)
			}
			token, dev, err := r.svc.Pair(ctx, tc.code(real), iPhoneSafari, "192.0.2.1")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				if token != "" || dev.ID != "" {
					t.Errorf("failed Pair returned token %q, device %+v", token, dev)
				}
				return
			}
			if !wellFormed(token, 52) {
				t.Errorf("token %q is not 52 base32 characters (256 bits)", token)
			}
			if dev.Name != "iPhone · Safari" || dev.LastIP != "192.0.2.1" || !dev.CreatedAt.Equal(r.clock.Now()) {
				t.Errorf("device = %+v", dev)
			}
			got, err := r.svc.Device(ctx, token)
			if err != nil || got.ID != dev.ID {
				t.Errorf("Device(token) = %+v, %v; want %s", got, err, dev.ID)
			}
		})
	}
}

// No secret may reach the database file, the audit log or the log output.
func TestSecretsNotStoredOrLogged(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, Options{})
	code := r.code(t)
	token, dev, err := r.svc.Pair(ctx, code, iPhoneSafari, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	apiToken, _, err := r.svc.CreateToken(ctx, "backup")
	if err != nil {
		t.Fatal(err)
	}
	r.svc.Pair(ctx, code, iPhoneSafari, "192.0.2.1") // failed attempt logs too
	if err := r.svc.RevokeDevice(ctx, dev.ID); err != nil {
		t.Fatal(err)
	}
	r.store.Close() // flush; the files are read below

	var haystack bytes.Buffer
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(filepath.Join(r.dir, "paddock.db"+suffix))
		if err == nil {
			haystack.Write(b)
		}
	}
	haystack.WriteString(r.logs.String())
	for name, secret := range map[string]string{"code": code, "device token": token, "api token": apiToken} {
		if bytes.Contains(haystack.Bytes(), []byte(secret)) {
			t.Errorf("%s found in the database or logs", name)
		}
		if bytes.Contains(bytes.ToLower(haystack.Bytes()), []byte(strings.TrimPrefix(secret, TokenPrefix))) {
			t.Errorf("%s body found in the database or logs", name)
		}
	}
}

func TestAuditTrail(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, Options{})
	_, dev, err := r.svc.Pair(ctx, r.code(t), iPhoneSafari, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	_, tok, err := r.svc.CreateToken(WithActor(ctx, "device:"+dev.ID), "ci")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.svc.RevokeToken(ctx, tok.ID); err != nil { // no actor: local
		t.Fatal(err)
	}
	if err := r.svc.RevokeDevice(WithActor(ctx, "cli\x1b[31m"), dev.ID); err != nil {
		t.Fatal(err)
	}
	log, err := r.store.AuditLog(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		got = append(got, e.Actor+" "+e.Action)
	}
	want := []string{
		"cli[31m device.revoke", // control characters stripped from actors
		"local token.revoke",
		"device:" + dev.ID + " token.create",
		"device:" + dev.ID + " pair",
		"system pairing_code.create",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDevice(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, Options{})
	token, dev, err := r.svc.Pair(ctx, r.code(t), iPhoneSafari, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	other, otherDev, err := r.svc.Pair(ctx, r.code(t), "curl/8.0", "192.0.2.2")
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name  string
		token string
		want  error
	}{
		{"empty", "", ErrUnauthenticated},
		{"unknown", newSecret(tokenBytes), ErrUnauthenticated},
		{"upper-cased real token", strings.ToUpper(token), ErrUnauthenticated},
		{"truncated", token[:51], ErrUnauthenticated},
		{"api token shape", TokenPrefix + newSecret(tokenBytes), ErrUnauthenticated},
		{"pairing code", r.code(t), ErrUnauthenticated},
	} {
		if _, err := r.svc.Device(ctx, tc.token); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}

	// Last seen moves only after a minute.
	r.clock.Add(30 * time.Second)
	got, err := r.svc.Device(WithClientIP(ctx, "192.0.2.1"), token)
	if err != nil || !got.LastSeenAt.Equal(t0) {
		t.Errorf("after 30s: last seen %v, %v; want %v", got.LastSeenAt, err, t0)
	}
	r.clock.Add(time.Minute)
	got, err = r.svc.Device(WithClientIP(ctx, "::ffff:192.0.2.7"), token)
	if err != nil || !got.LastSeenAt.Equal(r.clock.Now()) || got.LastIP != "192.0.2.7" {
		t.Errorf("after 90s: %+v, %v", got, err)
	}
	r.clock.Add(time.Minute)
	got, err = r.svc.Device(ctx, token) // address unknown: kept
	if err != nil || !got.LastSeenAt.Equal(r.clock.Now()) || got.LastIP != "192.0.2.7" {
		t.Errorf("after 150s without address: %+v, %v", got, err)
	}

	if err := r.svc.RevokeDevice(ctx, dev.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Device(ctx, token); !errors.Is(err, ErrRevoked) {
		t.Errorf("revoked device: err = %v, want ErrRevoked", err)
	}
	if got, err := r.svc.Device(ctx, other); err != nil || got.ID != otherDev.ID {
		t.Errorf("other device after revoking one: %+v, %v", got, err)
	}
	if err := r.svc.RevokeDevice(ctx, dev.ID); err != nil {
		t.Errorf("revoking twice: %v", err)
	}
	for _, id := range []string{"", "nope", strings.Repeat("0", 32), "../../etc"} {
		if err := r.svc.RevokeDevice(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("RevokeDevice(%q) = %v, want ErrNotFound", id, err)
		}
	}
	list, err := r.svc.ListDevices(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("ListDevices = %+v, %v", list, err)
	}
	for _, d := range list { // both made at t0, so order is by id: check by id
		if d.Revoked() != (d.ID == dev.ID) {
			t.Errorf("device %s revoked = %v", d.ID, d.Revoked())
		}
	}
}

func TestTokens(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, Options{})
	secret, tok, err := r.svc.CreateToken(ctx, "  backup script ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, TokenPrefix) || !wellFormed(strings.TrimPrefix(secret, TokenPrefix), 52) {
		t.Errorf("token %q: want pdk_ + 52 base32 characters", secret)
	}
	if tok.Name != "backup script" {
		t.Errorf("name = %q", tok.Name)
	}
	got, err := r.svc.Token(ctx, secret)
	if err != nil || got.ID != tok.ID || !got.LastUsedAt.Equal(t0) {
		t.Errorf("Token = %+v, %v", got, err)
	}
	for _, bad := range []string{"", secret[len(TokenPrefix):], "PDK_" + secret[len(TokenPrefix):], secret + "a", TokenPrefix + newSecret(tokenBytes)} {
		if _, err := r.svc.Token(ctx, bad); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("Token(%q) = %v, want ErrUnauthenticated", bad, err)
		}
	}
	for _, name := range []string{"", "   ", strings.Repeat("x", 65), "bad\nname", "bad\u202ename", "\xff\xfe"} {
		if _, _, err := r.svc.CreateToken(ctx, name); !errors.Is(err, ErrInvalidName) {
			t.Errorf("CreateToken(%q) = %v, want ErrInvalidName", name, err)
		}
	}
	if _, _, err := r.svc.CreateToken(ctx, strings.Repeat("é", 64)); err != nil {
		t.Errorf("64-rune name refused: %v", err)
	}

	list, err := r.svc.ListTokens(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("ListTokens = %+v, %v", list, err)
	}
	if err := r.svc.RevokeToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Token(ctx, secret); !errors.Is(err, ErrRevoked) {
		t.Errorf("revoked token: err = %v, want ErrRevoked", err)
	}
	if err := r.svc.RevokeToken(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("RevokeToken(nope) = %v", err)
	}
}

func TestPairRateLimit(t *testing.T) {
	r := newRig(t, Options{})
	const ip = "198.51.100.7"
	for i := range DefaultPairBurst {
		if !r.svc.AllowPairAttempt(ip) {
			t.Fatalf("attempt %d refused", i+1)
		}
	}
	if r.svc.AllowPairAttempt(ip) {
		t.Error("6th attempt within a minute allowed")
	}
	if r.svc.AllowPairAttempt("::ffff:" + ip) {
		t.Error("the same address written as IPv4-mapped IPv6 got a fresh bucket")
	}
	if !r.svc.AllowPairAttempt("198.51.100.8") {
		t.Error("another address refused")
	}
	if n := strings.Count(r.logs.String(), "pairing rate limit hit"); n != 1 {
		t.Errorf("rate limit logged %d times, want once", n)
	}
	// One attempt comes back every 12 s; no permanent ban.
	r.clock.Add(12 * time.Second)
	if !r.svc.AllowPairAttempt(ip) {
		t.Error("refused after 12s")
	}
	if r.svc.AllowPairAttempt(ip) {
		t.Error("two attempts back after 12s")
	}
	r.clock.Add(time.Minute)
	for i := range DefaultPairBurst {
		if !r.svc.AllowPairAttempt(ip) {
			t.Fatalf("after a quiet minute, attempt %d refused", i+1)
		}
	}
}

// Pair leaves rate limiting to AllowPairAttempt, so a request is charged once.
func TestPairDoesNotChargeTheLimiter(t *testing.T) {
	r := newRig(t, Options{})
	for range 2 * DefaultPairBurst {
		if _, _, err := r.svc.Pair(context.Background(), "wrong", "ua", "192.0.2.1"); !errors.Is(err, ErrInvalidCode) {
			t.Fatalf("err = %v", err)
		}
	}
	if !r.svc.AllowPairAttempt("192.0.2.1") {
		t.Error("Pair consumed rate-limit tokens")
	}
}

func TestLimiter(t *testing.T) {
	t.Run("IPv6 /64 is one client", func(t *testing.T) {
		l := newLimiter(DefaultPairRate, DefaultPairBurst)
		for i := range DefaultPairBurst {
			if ok, _ := l.allow("2001:db8:1:2::"+string(rune('a'+i)), t0); !ok {
				t.Fatalf("attempt %d refused", i)
			}
		}
		if ok, _ := l.allow("2001:db8:1:2:ffff::1", t0); ok {
			t.Error("6th address in the same /64 allowed")
		}
		if ok, _ := l.allow("2001:db8:1:3::1", t0); !ok {
			t.Error("another /64 refused")
		}
	})
	t.Run("idle clients are pruned", func(t *testing.T) {
		l := newLimiter(DefaultPairRate, DefaultPairBurst)
		for i := range 1000 {
			l.allow(ipv4(i), t0)
		}
		if l.size() != 1000 {
			t.Fatalf("size = %d", l.size())
		}
		l.allow("192.0.2.1", t0.Add(2*time.Minute))
		if l.size() != 1 {
			t.Errorf("after 2 idle minutes size = %d, want 1", l.size())
		}
	})
	t.Run("size is capped", func(t *testing.T) {
		l := newLimiter(DefaultPairRate, DefaultPairBurst)
		for i := range maxClients + 500 {
			l.allow(ipv4(i), t0)
		}
		if l.size() > maxClients {
			t.Errorf("size = %d, want ≤ %d", l.size(), maxClients)
		}
		// Overflow clients share one bucket: limited, not unlimited.
		allowed := 0
		for i := range 100 {
			if ok, _ := l.allow(ipv4(maxClients+1000+i), t0); ok {
				allowed++
			}
		}
		if allowed > DefaultPairBurst {
			t.Errorf("overflow allowed %d attempts at one instant, want ≤ %d", allowed, DefaultPairBurst)
		}
	})
	t.Run("custom rate", func(t *testing.T) {
		r := newRig(t, Options{PairRate: rate.Every(time.Hour), PairBurst: 2})
		got := []bool{r.svc.AllowPairAttempt("192.0.2.1"), r.svc.AllowPairAttempt("192.0.2.1"), r.svc.AllowPairAttempt("192.0.2.1")}
		if !got[0] || !got[1] || got[2] {
			t.Errorf("burst 2 gave %v", got)
		}
	})
}

func ipv4(i int) string {
	return "10." + itoa(i>>16&255) + "." + itoa(i>>8&255) + "." + itoa(i&255)
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestDeviceName(t *testing.T) {
	tests := []struct{ ua, want string }{
		{iPhoneSafari, "iPhone · Safari"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1", "iPhone · Chrome"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/127.0 Mobile/15E148 Safari/605.1.15", "iPhone · Firefox"},
		{"Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Mobile/15E148 Safari/604.1", "iPad · Safari"},
		{"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36", "Android · Chrome"},
		{"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36", "Android · Samsung Internet"},
		{"Mozilla/5.0 (Android 14; Mobile; rv:127.0) Gecko/127.0 Firefox/127.0", "Android · Firefox"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:127.0) Gecko/20100101 Firefox/127.0", "Mac · Firefox"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15", "Mac · Safari"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0", "Windows · Edge"},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 OPR/111.0.0.0", "Linux · Opera"},
		{"Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36", "ChromeOS · Chrome"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", "iPhone"}, // in-app web view
		{"curl/8.5.0", "curl/8.5.0"},
		{"", "Unknown device"},
		{"SomeVeryLongCustomClient/1.0 (build 1234567890; extra details here)", "SomeVeryLongCustomClient/1.0 (build 123…"},
	}
	for _, tc := range tests {
		if got := deviceName(cleanText(tc.ua, maxUserAgent)); got != tc.want {
			t.Errorf("deviceName(%q) = %q, want %q", tc.ua, got, tc.want)
		}
	}
}

func TestCleanText(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"  a \t\n b  ", 64, "a b"},
		{"evil\u202eexe.txt", 64, "evilexe.txt"},
		{"bell\x07\x1b[31m", 64, "bell[31m"},
		{"bad\xffutf8", 64, "badutf8"},
		{"ééé", 5, "éé"}, // cut on a rune boundary
	}
	for _, tc := range tests {
		if got := cleanText(tc.in, tc.max); got != tc.want {
			t.Errorf("cleanText(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestNormalizeIP(t *testing.T) {
	tests := []struct{ in, want string }{
		{"192.0.2.1", "192.0.2.1"},
		{"::ffff:192.0.2.1", "192.0.2.1"},
		{"fe80::1%eth0", "fe80::1"},
		{"2001:DB8::1", "2001:db8::1"},
		{"", ""},
		{"not an ip\n", "not an ip"},
		{strings.Repeat("9", 100), strings.Repeat("9", maxIP)},
	}
	for _, tc := range tests {
		if got := normalizeIP(tc.in); got != tc.want {
			t.Errorf("normalizeIP(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCSRF(t *testing.T) {
	key := bytes.Repeat([]byte{7}, KeySize)
	otherKey := bytes.Repeat([]byte{8}, KeySize)
	session := newSecret(tokenBytes)
	tok := CSRFToken(session, key)
	if tok == "" || tok == CSRFToken(newSecret(tokenBytes), key) || tok != CSRFToken(session, key) {
		t.Fatalf("CSRFToken not a deterministic per-session value: %q", tok)
	}
	flipped := []byte(tok)
	flipped[0] ^= 1
	tests := []struct {
		name    string
		got     string
		session string
		key     []byte
		want    bool
	}{
		{"round trip", tok, session, key, true},
		{"tampered", string(flipped), session, key, false},
		{"truncated", tok[:len(tok)-1], session, key, false},
		{"other session", tok, newSecret(tokenBytes), key, false},
		{"other key", tok, session, otherKey, false},
		{"empty token", "", session, key, false},
		{"empty session", CSRFToken("", key), "", key, false},
		{"empty key", CSRFToken(session, nil), session, nil, false},
	}
	for _, tc := range tests {
		if got := CheckCSRF(tc.got, tc.session, tc.key); got != tc.want {
			t.Errorf("%s: CheckCSRF = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestLoadOrCreateKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub")
	path := filepath.Join(dir, "secret.key")
	k1, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(k1) != KeySize || bytes.Equal(k1, make([]byte, KeySize)) {
		t.Fatalf("key = %x", k1)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v; want 0600", st.Mode().Perm(), err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("key dir mode %v, %v; want 0700", st.Mode().Perm(), err)
	}
	k2, err := LoadOrCreateKey(path)
	if err != nil || !bytes.Equal(k1, k2) {
		t.Fatalf("reload = %x, %v; want the same key", k2, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}

	// World-readable: replaced with a fresh key, 0600.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	k3, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(k3, k1) {
		t.Error("exposed key was kept")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode after fix = %v", st.Mode().Perm())
	}
	if k4, err := LoadOrCreateKey(path); err != nil || !bytes.Equal(k4, k3) {
		t.Errorf("replacement key not persisted")
	}

	// Wrong size and non-regular files are refused, not overwritten.
	short := filepath.Join(dir, "short.key")
	os.WriteFile(short, []byte("short"), 0o600)
	if _, err := LoadOrCreateKey(short); err == nil {
		t.Error("short key accepted")
	}
	if b, _ := os.ReadFile(short); string(b) != "short" {
		t.Error("short key file was overwritten")
	}
	link := filepath.Join(dir, "link.key")
	if err := os.Symlink(path, link); err == nil {
		if _, err := LoadOrCreateKey(link); err == nil {
			t.Error("symlinked key accepted")
		}
	}
	if _, err := LoadOrCreateKey(dir); err == nil {
		t.Error("a directory accepted as key")
	}
}

// Server and CLI starting at once must end up with the same key.
func TestLoadOrCreateKeyConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret.key")
	const n = 10
	keys := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { keys[i], errs[i] = LoadOrCreateKey(path) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || !bytes.Equal(keys[i], keys[0]) {
			t.Errorf("caller %d: key %x, err %v; want %x", i, keys[i], errs[i], keys[0])
		}
	}
}

func TestNewRequiresStore(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New without a store did not panic")
		}
	}()
	New(Options{})
}

func TestBurnMakesACodeUseless(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "p.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := New(Options{Store: st})
	ctx := context.Background()
	code, _, err := s.NewPairingCode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{code, code, "garbage", ""} {
		if err := s.Burn(ctx, c); err != nil {
			t.Fatalf("Burn(%q): %v", c, err)
		}
	}
	if _, _, err := s.Pair(ctx, code, "ua", "192.0.2.1"); !errors.Is(err, ErrUsedCode) {
		t.Fatalf("pairing with a burnt code: %v", err)
	}
}

// TestCredentialsExpire: a device unused for longer than DeviceIdle must
// pair again (its session is revoked and audited, still used it lasts); a
// token made with a lifetime stops at its end; negative DeviceIdle keeps
// devices forever.
func TestCredentialsExpire(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, Options{DeviceIdle: 48 * time.Hour})
	token, dev, err := r.svc.Pair(ctx, r.code(t), iPhoneSafari, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	r.clock.Add(47 * time.Hour)
	if _, err := r.svc.Device(ctx, token); err != nil {
		t.Fatalf("used within its idle time: %v", err)
	}
	r.clock.Add(47 * time.Hour) // 47 h since it was last seen
	if _, err := r.svc.Device(ctx, token); err != nil {
		t.Fatalf("used again within its idle time: %v", err)
	}
	r.clock.Add(49 * time.Hour)
	if _, err := r.svc.Device(ctx, token); !errors.Is(err, ErrExpired) {
		t.Fatalf("unused for 49 h: %v, want ErrExpired", err)
	}
	if _, err := r.svc.Device(ctx, token); !errors.Is(err, ErrRevoked) {
		t.Errorf("after expiring: %v, want ErrRevoked (for good)", err)
	}
	if log, _ := r.store.AuditOf(ctx, "device.expire", 5); len(log) != 1 || !strings.Contains(log[0].Detail, dev.ID) {
		t.Errorf("audit: %+v", log)
	}

	tok, _, err := r.svc.CreateTokenFor(ctx, "nightly", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Token(ctx, tok); err != nil {
		t.Fatalf("a fresh token: %v", err)
	}
	r.clock.Add(time.Hour)
	if _, err := r.svc.Token(ctx, tok); !errors.Is(err, ErrExpired) {
		t.Errorf("a token at its end: %v, want ErrExpired", err)
	}
	if _, _, err := r.svc.CreateTokenFor(ctx, "x", -time.Second); err == nil {
		t.Error("a negative lifetime accepted")
	}

	forever := newRig(t, Options{DeviceIdle: -1})
	token, _, err = forever.svc.Pair(ctx, forever.code(t), iPhoneSafari, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	forever.clock.Add(400 * 24 * time.Hour)
	if _, err := forever.svc.Device(ctx, token); err != nil {
		t.Errorf("DeviceIdle < 0: a device unused for 400 days: %v", err)
	}
}
