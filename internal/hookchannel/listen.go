package hookchannel

import (
	"fmt"
	"net"
	"strings"
)

// Listen opens the hook listener on addr, whose host must be loopback:
// 127.0.0.1 (any 127/8 address), ::1 or localhost. Anything else — an
// empty host (every interface), a LAN address, a name — is refused: the
// listener takes events that drive what the dashboard shows, and later
// the answers to agents' permission prompts. "localhost" is bound as
// 127.0.0.1 rather than resolved, so that a hosts file mapping it
// elsewhere cannot widen the listener. Port 0 picks a free port.
func Listen(addr string) (net.Listener, error) {
	host, err := LoopbackAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", host)
	if err != nil {
		return nil, fmt.Errorf("hook listener: %w", err)
	}
	return ln, nil
}

// LoopbackAddr checks addr as Listen does and returns the address Listen
// binds.
func LoopbackAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("hook listener address %q: %w", addr, err)
	}
	switch ip := net.ParseIP(host); {
	case strings.EqualFold(host, "localhost"):
		host = "127.0.0.1"
	case ip == nil || !ip.IsLoopback():
		return "", fmt.Errorf("hook listener address %q: the host must be loopback (127.0.0.1, ::1 or localhost), never %q", addr, host)
	}
	return net.JoinHostPort(host, port), nil
}
