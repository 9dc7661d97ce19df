package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	qrcode "github.com/skip2/go-qrcode"

	"paddock/internal/hookchannel"
)

// serveState is what a running serve tells the other commands (pair needs
// the real port when serve picked a free one). Written 0600 in the data dir.
type serveState struct {
	PID       int      `json:"pid"`
	HTTPSPort int      `json:"https_port"`
	HTTPPort  int      `json:"http_port,omitempty"`
	URLs      []string `json:"urls"`
	// The hook listener, read by `paddock hook` (internal/hookchannel) on
	// every agent event.
	HookPort int    `json:"hook_port,omitempty"`
	HookAddr string `json:"hook_addr,omitempty"`
}

const stateFile = hookchannel.StateFile

func writeState(dir string, st serveState) error {
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
	return os.Rename(tmp.Name(), filepath.Join(dir, stateFile))
}

func readState(dir string) (serveState, error) {
	var st serveState
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(b, &st)
}

func removeState(dir string) { _ = os.Remove(filepath.Join(dir, stateFile)) }

// dashboardURLs orders the addresses a phone is most likely to reach first:
// LAN IPv4, then names (hostname.local), then IPv6, loopback last.
func dashboardURLs(sans []string, port int) []string {
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

func pairLink(urls []string, code string) string {
	base := "https://localhost/"
	if len(urls) > 0 {
		base = urls[0]
	}
	return strings.TrimSuffix(base, "/") + "/pair?code=" + url.QueryEscape(code)
}

// printBanner is what a user sees when serve starts: where to point the
// phone, what fingerprint to check, and how to pair.
func printBanner(w io.Writer, st serveState, fingerprint, link string, expires time.Time) {
	fmt.Fprintln(w, "paddock is serving the dashboard at:")
	for _, u := range st.URLs {
		fmt.Fprintln(w, "  "+u)
	}
	if st.HTTPPort != 0 && len(st.URLs) > 0 {
		if u, err := url.Parse(st.URLs[0]); err == nil {
			fmt.Fprintf(w, "Trust the certificate first (iPhone/Android): http://%s/\n", net.JoinHostPort(u.Hostname(), strconv.Itoa(st.HTTPPort)))
		}
	}
	if fingerprint != "" {
		fmt.Fprintln(w, "CA fingerprint (SHA-256):", fingerprint)
	}
	printPairing(w, link, expires)
}

func printPairing(w io.Writer, link string, expires time.Time) {
	fmt.Fprintf(w, "Pair a device (one use, expires %s):\n", expires.Local().Format("15:04"))
	if q, err := qrcode.New(link, qrcode.Medium); err == nil {
		fmt.Fprint(w, q.ToSmallString(false))
	}
	fmt.Fprintln(w, "pair link:", link)
}
