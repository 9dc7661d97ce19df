package push

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/crypto/hkdf"

	"paddock/internal/decisions"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
	"paddock/internal/store"
)

// browser is a subscribed browser's keys: what PushManager keeps, so the
// test can decrypt what paddock sent as the browser would.
type browser struct {
	priv *ecdh.PrivateKey
	auth []byte
}

func newBrowser(t *testing.T) browser {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	a := make([]byte, 16)
	_, _ = rand.Read(a)
	return browser{priv: k, auth: a}
}

func (b browser) subscription(endpoint string, p Prefs) Subscription {
	var s Subscription
	s.Endpoint = endpoint
	s.Keys.P256dh = base64.RawURLEncoding.EncodeToString(b.priv.PublicKey().Bytes())
	s.Keys.Auth = base64.RawURLEncoding.EncodeToString(b.auth)
	s.Prefs = p
	return s
}

// decrypt opens an aes128gcm Web Push body (RFC 8291, RFC 8188) with the
// browser's keys.
func (b browser) decrypt(body []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("body shorter than its header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if len(body) < 21+idlen || idlen != 65 || rs < 18 {
		return nil, errors.New("bad header")
	}
	asPub, err := ecdh.P256().NewPublicKey(body[21 : 21+idlen])
	if err != nil {
		return nil, err
	}
	secret, err := b.priv.ECDH(asPub)
	if err != nil {
		return nil, err
	}
	info := append(append([]byte("WebPush: info\x00"), b.priv.PublicKey().Bytes()...), asPub.Bytes()...)
	ikm := make([]byte, 32)
	if _, err := io.ReadFull(hkdf.New(sha256.New, secret, b.auth, info), ikm); err != nil {
		return nil, err
	}
	cek, nonce := make([]byte, 16), make([]byte, 12)
	if _, err := io.ReadFull(hkdf.New(sha256.New, ikm, salt, []byte("Content-Encoding: aes128gcm\x00")), cek); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(hkdf.New(sha256.New, ikm, salt, []byte("Content-Encoding: nonce\x00")), nonce); err != nil {
		return nil, err
	}
	blk, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(blk)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, body[21+idlen:], nil)
	if err != nil {
		return nil, err
	}
	// The last record ends in 0x02 and zero padding.
	end := bytes.LastIndexFunc(plain, func(r rune) bool { return r != 0 })
	if end < 0 || plain[end] != 2 {
		return nil, errors.New("no last-record delimiter")
	}
	return plain[:end], nil
}

// pushService is a fake push service: it records what it is sent and
// answers each endpoint path with the status set for it (201 by default).
type pushService struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []delivery
	status map[string]int
	cond   *sync.Cond
}

type delivery struct {
	path   string
	header http.Header
	body   []byte
}

func newPushService(t *testing.T) *pushService {
	ps := &pushService{status: map[string]int{}}
	ps.cond = sync.NewCond(&ps.mu)
	ps.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ps.mu.Lock()
		ps.got = append(ps.got, delivery{r.URL.Path, r.Header.Clone(), body})
		st := ps.status[r.URL.Path]
		ps.cond.Broadcast()
		ps.mu.Unlock()
		if st == 0 {
			st = http.StatusCreated
		}
		w.WriteHeader(st)
	}))
	t.Cleanup(ps.srv.Close)
	return ps
}

// wait returns the deliveries once there are n, or fails after 5 s.
func (ps *pushService) wait(t *testing.T, n int) []delivery {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	stop := time.AfterFunc(5*time.Second, func() { ps.mu.Lock(); ps.cond.Broadcast(); ps.mu.Unlock() })
	defer stop.Stop()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for len(ps.got) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries, want %d", len(ps.got), n)
		}
		ps.cond.Wait()
	}
	return append([]delivery(nil), ps.got...)
}

type rig struct {
	st    *store.Store
	items *decisions.Broker
	live  *live.Service
	n     *Notifier
	keys  *Keys
	ps    *pushService
	dev   store.Device
	now   time.Time
	mu    sync.Mutex
}

func newRig(t *testing.T) *rig {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "paddock.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := &rig{st: st, ps: newPushService(t), now: time.Now()}
	r.dev, err = st.InsertDevice(ctx, store.NewDevice{Name: "phone", TokenHash: bytes.Repeat([]byte{1}, 32), CreatedAt: r.now})
	if err != nil {
		t.Fatal(err)
	}
	r.items = decisions.New(decisions.Options{Persist: st, Now: r.clock})
	go r.items.Run(ctx)
	r.live = live.New(live.Options{Now: r.clock})
	go r.live.Run(ctx)
	if r.keys, err = LoadKeys(dir); err != nil {
		t.Fatal(err)
	}
	r.n, err = New(Options{Keys: r.keys, Store: st, Items: r.items, Cards: r.live, Agents: []string{"claude", "codex"},
		Label:      func(string) string { return "Claude Code" },
		ExtraHosts: []string{"127.0.0.1"}, Client: r.ps.srv.Client(), Now: r.clock, Tick: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	go r.n.Run(ctx)
	<-r.n.subscribed
	return r
}

func (r *rig) clock() time.Time { r.mu.Lock(); defer r.mu.Unlock(); return r.now }
func (r *rig) advance(d time.Duration) {
	r.mu.Lock()
	r.now = r.now.Add(d)
	r.mu.Unlock()
}

func (r *rig) open(t *testing.T, cmd string) decisions.Item {
	t.Helper()
	it, _, err := r.items.Open(context.Background(), decisions.Item{Kind: decisions.KindApproval, Key: session.Key{Runtime: "claude", ID: "s1"},
		Tool: "Bash", Input: json.RawMessage(`{"command":` + string(must(json.Marshal(cmd))) + `}`), Cwd: "/home/dev/shop",
		Can: []string{decisions.VerbAllow, decisions.VerbDeny}})
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// A waiting approval reaches the push service encrypted for the browser
// (it decrypts) and signed with a VAPID JWT for that service; it names
// the agent, project and command within 100 characters, carries a
// capability for that item and device only, and its resolution closes it.
func TestApprovalReachesThePushServiceAndCloses(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	br := newBrowser(t)
	if err := r.n.Subscribe(ctx, r.dev.ID, br.subscription(r.ps.srv.URL+"/sub/1", DefaultPrefs())); err != nil {
		t.Fatal(err)
	}
	long := "make deploy ENV=production " + strings.Repeat("--flag ", 30)
	it := r.open(t, long)
	d := r.ps.wait(t, 1)[0]

	if d.header.Get("Content-Encoding") != "aes128gcm" || d.header.Get("Urgency") != "high" || d.header.Get("TTL") == "" {
		t.Errorf("headers %v", d.header)
	}
	checkVAPID(t, d.header.Get("Authorization"), r.ps.srv.URL, r.keys.Public)
	plain, err := br.decrypt(d.body)
	if err != nil {
		t.Fatalf("the payload does not decrypt: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(plain, &m); err != nil {
		t.Fatalf("payload %q: %v", plain, err)
	}
	if m["title"] != "Claude Code needs approval · shop" || m["url"] != "/s/claude/s1#item-"+it.ID || m["tag"] != it.ID {
		t.Errorf("payload %v", m)
	}
	if body, _ := m["body"].(string); len([]rune(body)) > 100 || !strings.HasPrefix(body, "Bash: make deploy ENV=production") {
		t.Errorf("body %q: want the command, at most 100 characters", body)
	}
	// Only these fields: nothing else (no token, key or full input) rides along.
	for k := range m {
		switch k {
		case "type", "tag", "title", "body", "url", "item", "actions", "device", "cap":
		default:
			t.Errorf("payload carries %q", k)
		}
	}
	for _, secret := range []string{r.keys.Private, base64.StdEncoding.EncodeToString(r.keys.Cap), strings.Repeat("--flag ", 30)} {
		if bytes.Contains(plain, []byte(secret)) {
			t.Errorf("payload carries %q", secret)
		}
	}
	cap, _ := m["cap"].(string)
	if !r.n.CheckCapability(r.dev.ID, it.ID, cap) || r.n.CheckCapability(r.dev.ID, "itm_other", cap) || r.n.CheckCapability("other-device", it.ID, cap) {
		t.Error("the capability is not bound to exactly this item and device")
	}

	if _, err := r.items.Decide(ctx, it.ID, decisions.Decision{Verb: decisions.VerbAllow, By: "desk"}); err != nil {
		t.Fatal(err)
	}
	d = r.ps.wait(t, 2)[1]
	plain, err = br.decrypt(d.body)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(plain, []byte(`"type":"close"`)) || !bytes.Contains(plain, []byte(it.ID)) {
		t.Fatalf("after the answer: %s, want a close of %s", plain, it.ID)
	}
}

// checkVAPID verifies the Authorization header: an ES256 JWT for the push
// service's origin, signed by the key it names, which is paddock's.
func checkVAPID(t *testing.T, h, origin, public string) {
	t.Helper()
	tok, k, ok := strings.Cut(strings.TrimPrefix(h, "vapid t="), ", k=")
	if !ok || k != public {
		t.Fatalf("Authorization %q: want vapid t=…, k=<paddock's key>", h)
	}
	raw, err := base64.RawURLEncoding.DecodeString(k)
	if err != nil || len(raw) != 65 {
		t.Fatalf("k=%q", k)
	}
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(raw[1:33]), Y: new(big.Int).SetBytes(raw[33:])}
	claims := jwt.MapClaims{}
	if _, err := jwt.ParseWithClaims(tok, claims, func(*jwt.Token) (any, error) { return pub, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(origin), jwt.WithExpirationRequired()); err != nil {
		t.Fatalf("VAPID JWT: %v", err)
	}
	if exp, _ := claims.GetExpirationTime(); exp == nil || time.Until(exp.Time) > 24*time.Hour {
		t.Errorf("VAPID JWT expires %v: at most 24 h ahead", exp)
	}
	if sub, _ := claims.GetSubject(); sub == "" {
		t.Error("VAPID JWT without a subject")
	}
}

// The escalation delay gives the desk the first chance: nothing is sent
// until the item has waited that long; a subscription the service says is
// gone (410) is forgotten.
func TestEscalationDelayAndGoneSubscriptions(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	p := DefaultPrefs()
	p.DelaySeconds = 60
	if err := r.n.Subscribe(ctx, r.dev.ID, newBrowser(t).subscription(r.ps.srv.URL+"/delayed", p)); err != nil {
		t.Fatal(err)
	}
	r.ps.mu.Lock()
	r.ps.status["/gone"] = http.StatusGone
	r.ps.mu.Unlock()
	if err := r.n.Subscribe(ctx, r.dev.ID, newBrowser(t).subscription(r.ps.srv.URL+"/gone", DefaultPrefs())); err != nil {
		t.Fatal(err)
	}
	r.open(t, "make test")
	if d := r.ps.wait(t, 1); d[0].path != "/gone" {
		t.Fatalf("first delivery to %s, want only the undelayed /gone", d[0].path)
	}
	time.Sleep(100 * time.Millisecond) // ten ticks: the delayed one still waits
	if n := len(r.ps.wait(t, 1)); n != 1 {
		t.Fatalf("%d deliveries before the delay passed", n)
	}
	r.advance(61 * time.Second)
	if d := r.ps.wait(t, 2); d[1].path != "/delayed" {
		t.Fatalf("after the delay: %s", d[1].path)
	}
	subs, err := r.st.PushSubscriptions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 1 || !strings.HasSuffix(subs[0].Endpoint, "/delayed") {
		t.Fatalf("subscriptions after a 410: %+v", subs)
	}
}

// turn feeds the live state one Claude turn of session s1 in /home/dev/shop.
func (r *rig) turn(t *testing.T, prompt string, failed bool) {
	t.Helper()
	ctx := context.Background()
	ev := func(kind hookstate.Kind, name string) hookstate.Event {
		return hookstate.Event{Runtime: "claude", SessionID: "s1", Name: name, Kind: kind, Cwd: "/home/dev/shop", Prompt: prompt}
	}
	r.live.HookEvent(ctx, ev(hookstate.KindPrompt, "UserPromptSubmit"))
	stop := ev(hookstate.KindStop, "Stop")
	if failed {
		stop.Name, stop.Failed = "StopFailure", true
	}
	r.live.HookEvent(ctx, stop)
}

func (r *rig) payload(t *testing.T, br browser, d delivery) map[string]any {
	t.Helper()
	plain, err := br.decrypt(d.body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(plain, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A finished turn reaches the devices that want finished turns, a turn
// that ended on an error those that want errors; the next prompt closes
// the notification.
func TestTurnsAndErrorsByPreference(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	turns, errs := newBrowser(t), newBrowser(t)
	if err := r.n.Subscribe(ctx, r.dev.ID, turns.subscription(r.ps.srv.URL+"/turns", Prefs{Turns: true})); err != nil {
		t.Fatal(err)
	}
	if err := r.n.Subscribe(ctx, r.dev.ID, errs.subscription(r.ps.srv.URL+"/errors", Prefs{Errors: true})); err != nil {
		t.Fatal(err)
	}
	r.turn(t, "refactor the cart", false)
	d := r.ps.wait(t, 1)
	if d[0].path != "/turns" || d[0].header.Get("Urgency") != "normal" {
		t.Fatalf("a finished turn went to %s (%s)", d[0].path, d[0].header.Get("Urgency"))
	}
	m := r.payload(t, turns, d[0])
	if m["type"] != "turn" || m["title"] != "Claude Code finished · shop" || m["body"] != "Your turn. You asked: refactor the cart" || m["url"] != "/s/claude/s1" {
		t.Fatalf("turn payload %v", m)
	}
	tag := m["tag"].(string)
	r.advance(time.Minute)
	r.turn(t, "now the checkout", true)
	d = r.ps.wait(t, 3)
	byPath := map[string]map[string]any{}
	for _, x := range d[1:] {
		if x.path == "/turns" {
			byPath[x.path] = r.payload(t, turns, x)
		} else {
			byPath[x.path] = r.payload(t, errs, x)
		}
	}
	if c := byPath["/turns"]; c == nil || c["type"] != "close" || c["tag"] != tag {
		t.Fatalf("the next prompt did not close the finished turn: %v", byPath)
	}
	if e := byPath["/errors"]; e == nil || e["title"] != "Claude Code stopped on an error · shop" || e["tag"] != tag {
		t.Fatalf("a failed turn: %v", byPath)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(r.ps.wait(t, 3)); n != 3 {
		t.Fatalf("%d deliveries: a failed turn went to the device that wants only finished ones", n)
	}
}

// A device hears only of the agents it chose, never of a muted project,
// and nothing in its quiet hours — what still waits when they end is sent
// then.
func TestAgentsMutedProjectsAndQuietHours(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.mu.Lock()
	r.now = time.Date(2026, 12, 2, 23, 30, 0, 0, time.UTC)
	r.mu.Unlock()
	sub := func(path string, edit func(*Prefs)) {
		p := DefaultPrefs()
		edit(&p)
		if err := r.n.Subscribe(ctx, r.dev.ID, newBrowser(t).subscription(r.ps.srv.URL+path, p)); err != nil {
			t.Fatal(err)
		}
	}
	sub("/codex-only", func(p *Prefs) { p.Agents = []string{"codex"} })
	sub("/mutes-shop", func(p *Prefs) { p.MuteProjects = []string{"Shop"} })
	sub("/quiet", func(p *Prefs) { p.QuietFrom, p.QuietTo, p.TZ = "22:00", "07:00", "Europe/London" })
	sub("/everything", func(*Prefs) {})
	r.open(t, "make deploy")
	if d := r.ps.wait(t, 1); d[0].path != "/everything" {
		t.Fatalf("first delivery to %s", d[0].path)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(r.ps.wait(t, 1)); n != 1 {
		t.Fatalf("%d deliveries during quiet hours and to filtered devices", n)
	}
	r.advance(7*time.Hour + 31*time.Minute) // 07:01 in London
	if d := r.ps.wait(t, 2); d[1].path != "/quiet" {
		t.Fatalf("after the quiet hours: %s", d[1].path)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(r.ps.wait(t, 2)); n != 2 {
		t.Fatalf("%d deliveries: a filtered device was told", n)
	}
}

func TestQuietHours(t *testing.T) {
	p := Prefs{QuietFrom: "22:00", QuietTo: "07:00", TZ: "America/New_York"}
	day := Prefs{QuietFrom: "12:00", QuietTo: "13:30", TZ: "UTC"}
	for _, tc := range []struct {
		p    Prefs
		at   string
		want bool
	}{
		{p, "2026-12-02T03:30:00Z", true},  // 22:30 in New York
		{p, "2026-12-02T11:59:00Z", true},  // 06:59
		{p, "2026-12-02T12:00:00Z", false}, // 07:00
		{p, "2026-12-02T20:00:00Z", false}, // 15:00
		{day, "2026-12-02T12:45:00Z", true},
		{day, "2026-12-02T13:30:00Z", false},
		{Prefs{}, "2026-12-02T03:30:00Z", false},
	} {
		at, _ := time.Parse(time.RFC3339, tc.at)
		if got := tc.p.quiet(at); got != tc.want {
			t.Errorf("%+v at %s: quiet %v, want %v", tc.p, tc.at, got, tc.want)
		}
	}
}

func TestSubscriptionsRefused(t *testing.T) {
	good := newBrowser(t).subscription("https://fcm.googleapis.com/fcm/send/abc", DefaultPrefs())
	tests := []struct {
		name string
		edit func(*Subscription)
		want string
	}{
		{"plain http", func(s *Subscription) { s.Endpoint = "http://fcm.googleapis.com/fcm/send/abc" }, "https"},
		{"unknown host", func(s *Subscription) { s.Endpoint = "https://evil.example/push" }, "not a known push service"},
		{"a lookalike host", func(s *Subscription) { s.Endpoint = "https://fcm.googleapis.com.evil.example/x" }, "not a known push service"},
		{"bad p256dh", func(s *Subscription) { s.Keys.P256dh = "AAAA" }, "p256dh"},
		{"bad auth", func(s *Subscription) { s.Keys.Auth = "!!" }, "auth"},
		{"delay too long", func(s *Subscription) { s.Prefs.DelaySeconds = 7200 }, "delay_seconds"},
		{"an unknown agent", func(s *Subscription) { s.Prefs.Agents = []string{"claude", "skynet"} }, `"skynet" is not one of claude, codex`},
		{"an empty muted project", func(s *Subscription) { s.Prefs.MuteProjects = []string{" "} }, "mute_projects"},
		{"too many muted projects", func(s *Subscription) { s.Prefs.MuteProjects = slices.Repeat([]string{"p"}, 51) }, "at most 50"},
		{"quiet hours half given", func(s *Subscription) { s.Prefs.QuietFrom = "22:00" }, "both given"},
		{"quiet hours not a time", func(s *Subscription) {
			s.Prefs.QuietFrom, s.Prefs.QuietTo, s.Prefs.TZ = "10pm", "07:00", "Europe/Berlin"
		}, "quiet_from is a time of day"},
		{"quiet hours without a zone", func(s *Subscription) { s.Prefs.QuietFrom, s.Prefs.QuietTo = "22:00", "07:00" }, "prefs.tz"},
		{"quiet hours in no zone", func(s *Subscription) {
			s.Prefs.QuietFrom, s.Prefs.QuietTo, s.Prefs.TZ = "22:00", "07:00", "Mars/Olympus"
		}, "prefs.tz"},
		{"quiet hours, agents and muted projects", func(s *Subscription) {
			s.Prefs.QuietFrom, s.Prefs.QuietTo, s.Prefs.TZ = "22:00", "07:00", "America/New_York"
			s.Prefs.Agents, s.Prefs.MuteProjects = []string{"codex"}, []string{"scratch"}
		}, ""},
		{"apple", func(s *Subscription) { s.Endpoint = "https://web.push.apple.com/QGx" }, ""},
		{"mozilla", func(s *Subscription) { s.Endpoint = "https://updates.push.services.mozilla.com/wpush/v2/x" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good
			tt.edit(&s)
			err := s.Check(nil, []string{"claude", "codex"})
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("Check: %v, want %q", err, tt.want)
			}
		})
	}
}

func TestKeysPersistPrivately(t *testing.T) {
	dir := t.TempDir()
	k1, err := LoadKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, keysFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("keys file: %v %v", fi, err)
	}
	k2, err := LoadKeys(dir)
	if err != nil || k2.Public != k1.Public || !bytes.Equal(k2.Cap, k1.Cap) {
		t.Fatalf("keys not kept: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, keysFile), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKeys(dir); err == nil || !strings.Contains(err.Error(), "move it away") {
		t.Fatalf("a garbage keys file: %v", err)
	}
}
