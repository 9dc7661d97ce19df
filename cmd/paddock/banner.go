package main

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"paddock/internal/app"
	"strconv"
	"time"

	qrcode "github.com/skip2/go-qrcode"
)

// printBanner is what a user sees when serve starts: where to point the
// phone, what fingerprint to check, and how to pair.
func printBanner(w io.Writer, st app.State, fingerprint, link string, expires time.Time) {
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
	if link == "" {
		fmt.Fprintln(w, "Devices are paired already; to pair another: paddock pair")
		return
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
