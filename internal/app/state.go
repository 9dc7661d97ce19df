package app

import (
	"encoding/json"
	"net"
	"net/url"
	"os"
	"paddock/internal/hookchannel"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// State is what a running serve tells the other commands (pair needs
// the real port when serve picked a free one). Written 0600 in the data dir.
type State struct {
	PID       int      `json:"pid"`
	HTTPSPort int      `json:"https_port"`
	HTTPPort  int      `json:"http_port,omitempty"`
	URLs      []string `json:"urls"`
	// The hook listener, read by `paddock hook` (internal/hookchannel) on
	// every agent event.
	HookPort int    `json:"hook_port,omitempty"`
	HookAddr string `json:"hook_addr,omitempty"`
}

// WriteState writes st to dir's serve.json (mode 0600, by atomic rename).
func WriteState(dir string, st State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".serve-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, hookchannel.StateFile))
}

// ReadState reads dir's serve.json.
func ReadState(dir string) (State, error) {
	var st State
	b, err := os.ReadFile(filepath.Join(dir, hookchannel.StateFile))
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(b, &st)
}

// RemoveState removes dir's serve.json.
func RemoveState(dir string) { _ = os.Remove(filepath.Join(dir, hookchannel.StateFile)) }

// DashboardURLs orders the addresses a phone is most likely to reach first:
// LAN IPv4, then names (hostname.local), then IPv6, loopback last.
func DashboardURLs(sans []string, port int) []string {
	rank := func(h string) int {
		ip := net.ParseIP(h)
		switch {
		case ip == nil && h == "localhost":
			return 5
		case ip == nil && strings.HasSuffix(h, ".local"):
			return 1
		case ip == nil:
			return 2
		case ip.IsLoopback():
			return 6
		case ip.To4() != nil:
			return 0
		case ip.IsLinkLocalUnicast():
			return 4
		default:
			return 3
		}
	}
	hosts := append([]string(nil), sans...)
	sort.SliceStable(hosts, func(i, j int) bool { return rank(hosts[i]) < rank(hosts[j]) })
	out := make([]string, 0, len(hosts))
	seen := map[string]bool{}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil && ip.IsLinkLocalUnicast() {
			continue // needs a zone id; useless in a phone's address bar
		}
		if seen[h] || strings.HasPrefix(h, "*.") {
			continue
		}
		seen[h] = true
		out = append(out, "https://"+net.JoinHostPort(h, strconv.Itoa(port))+"/")
	}
	return out
}

// PairLink is the pairing URL for code on the first of urls.
func PairLink(urls []string, code string) string {
	base := "https://localhost/"
	if len(urls) > 0 {
		base = urls[0]
	}
	return strings.TrimSuffix(base, "/") + "/pair?code=" + url.QueryEscape(code)
}
