package auth

import (
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxClients bounds the limiter's memory however many addresses an attacker
// can use. Past it, new clients share one overflow bucket: pairing gets
// slower for them but memory does not grow.
const maxClients = 4096

// limiter is a token bucket per client (ntfy-style). It never bans: a client
// that waits gets its tokens back (the Home Assistant lesson: people lock
// themselves out when phones change networks).
type limiter struct {
	limit rate.Limit
	burst int
	// idle is how long after its last attempt a client's bucket is full
	// again; forgetting it then changes nothing, so pruning is lossless.
	idle time.Duration

	mu        sync.Mutex
	clients   map[string]*client
	overflow  *rate.Limiter
	lastSweep time.Time
}

type client struct {
	bucket *rate.Limiter
	seen   time.Time // last attempt
	warned bool      // logged since the bucket last ran dry
}

func newLimiter(limit rate.Limit, burst int) *limiter {
	idle := time.Minute // rate.Inf: buckets never run dry; keep a minute anyway
	switch {
	case limit <= 0:
		idle = time.Hour // never refills; an hour bounds the memory
	case limit != rate.Inf:
		refill := time.Duration(float64(burst) / float64(limit) * float64(time.Second))
		idle = max(min(refill, time.Hour), time.Minute)
	}
	return &limiter{
		limit:    limit,
		burst:    burst,
		idle:     idle,
		clients:  make(map[string]*client),
		overflow: rate.NewLimiter(limit, burst),
	}
}

// limiterKey groups addresses that belong to one client. An IPv6 host
// usually owns a whole /64 and can change address within it at will, so the
// /64 is the client; IPv4 addresses stand alone.
func limiterKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil || !a.Is6() || a.Is4In6() {
		return ip
	}
	p, err := a.WithZone("").Prefix(64)
	if err != nil {
		return ip
	}
	return p.String()
}

// allow takes a token for ip at now. warn is true the first time a client is
// refused after having had tokens, so callers can log once, not per attempt.
func (l *limiter) allow(ip string, now time.Time) (ok, warn bool) {
	key := limiterKey(ip)
	l.mu.Lock()
	defer l.mu.Unlock()

	full := len(l.clients) >= maxClients
	if now.Sub(l.lastSweep) >= l.idle || (full && now.Sub(l.lastSweep) >= time.Second) {
		l.sweep(now)
	}
	c, found := l.clients[key]
	if !found {
		if len(l.clients) >= maxClients {
			return l.overflow.AllowN(now, 1), false
		}
		c = &client{bucket: rate.NewLimiter(l.limit, l.burst)}
		l.clients[key] = c
	}
	c.seen = now
	if c.bucket.AllowN(now, 1) {
		c.warned = false
		return true, false
	}
	warn = !c.warned
	c.warned = true
	return false, warn
}

// sweep forgets clients idle long enough for their bucket to be full again.
func (l *limiter) sweep(now time.Time) {
	for k, c := range l.clients {
		if now.Sub(c.seen) >= l.idle {
			delete(l.clients, k)
		}
	}
	l.lastSweep = now
}

func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clients)
}
