package certs

import (
	"crypto/x509"
	"net"
	"net/netip"
	"slices"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// A new CA carries X.509 name constraints (RFC 5280 4.2.1.10) so that its
// key, if it ever leaks, cannot be used to intercept the HTTPS traffic of
// paired phones to arbitrary sites: the CA may only sign for the names and
// addresses by which a phone reaches this machine. Go's verifier, Chrome,
// Safari/iOS, Firefox and Android all enforce constraints on a trust anchor,
// and reject a leaf if any one of its SANs falls outside them.
//
// The extension is marked critical, as RFC 5280 requires: a client that
// cannot enforce the constraints must then refuse the CA rather than trust
// it for everything.

// fixedDNSConstraints are the DNS names every new CA may sign for. Each
// covers itself and all its subdomains.
//
//   - localhost: the dashboard opened on the machine itself;
//   - local: mDNS names (hostname.local), how phones usually find it;
//   - home.arpa, internal: reserved for private networks (RFC 8375, and
//     ICANN's 2024 reservation of .internal), so no public site can be
//     under them; home routers name machines there;
//   - ts.net: Tailscale MagicDNS names (laptop.tailnet-1234.ts.net), a
//     common way to reach the dashboard away from home. This is the widest
//     entry: it covers every tailnet's names, not only the user's. It is
//     there only when Tailscale cannot say, as the CA is made, which name
//     this machine has; when it can, that one name replaces it (see
//     newConstraints).
//
// createCA adds the machine's hostname and its first label, and the DNS
// names of Options.Hosts, as they are at that moment.
func fixedDNSConstraints() []string {
	return []string{"localhost", "local", "home.arpa", "internal", tailnetDomain}
}

// tailnetDomain and tailnetRange hold every tailnet's names and IPv4
// addresses.
const tailnetDomain = "ts.net"

var tailnetRange = netip.MustParsePrefix("100.64.0.0/10")

// fixedIPConstraints are the address ranges every new CA may sign for:
// loopback, RFC 1918 private networks, Tailscale's CGNAT range
// (100.64.0.0/10, every tailnet's addresses; replaced by this machine's
// own Tailscale addresses when Tailscale names them as the CA is made; its
// IPv6 addresses are ULAs), IPv6 unique local addresses, and link-local
// addresses (169.254/16, fe80::/10; wantedSANs leaves these out of the
// leaf, but a user may name one with a host).
//
// createCA adds each IP address of Options.Hosts as given at that moment,
// public or not: naming an address explicitly when the CA is created is how
// a user serves on, say, a VPS's public address. A public address that
// turns up later (a global IPv6 address, a --host added after the CA was
// installed) is left out of the leaf instead, with a warning.
func fixedIPConstraints() []netip.Prefix {
	return []netip.Prefix{
		netip.MustParsePrefix("127.0.0.0/8"),
		netip.MustParsePrefix("::1/128"),
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"),
		tailnetRange,
		netip.MustParsePrefix("fc00::/7"),
		netip.MustParsePrefix("169.254.0.0/16"),
		netip.MustParsePrefix("fe80::/10"),
	}
}

// newConstraints is what createCA puts in a new CA: the fixed lists plus the
// hostname (full and first label) and hosts (normalised Options.Hosts). A
// name or address already covered by an earlier entry is not repeated. A
// candidate that is itself a public suffix (a machine called "dev", "app"
// or "box", or a host "*.co.uk") is refused and returned in refused: it
// would let the CA sign for a whole public top-level domain.
//
// When self names this machine on its tailnet, the CA may sign for that
// name and those addresses only, not for every tailnet's (ts.net,
// 100.64.0.0/10): a stolen key then cannot impersonate another machine on
// the user's tailnet, nor anything on someone else's.
func newConstraints(hostname string, hosts []string, self tailnetSelf) (dns []string, ips []*net.IPNet, refused []string) {
	dns = fixedDNSConstraints()
	prefixes := fixedIPConstraints()
	if self.name != "" {
		dns = slices.DeleteFunc(dns, func(n string) bool { return n == tailnetDomain })
		dns = append(dns, self.name)
		prefixes = slices.DeleteFunc(prefixes, func(p netip.Prefix) bool { return p == tailnetRange })
		for _, a := range self.addrs {
			if !slices.ContainsFunc(prefixes, func(p netip.Prefix) bool { return p.Contains(a) }) {
				prefixes = append(prefixes, netip.PrefixFrom(a, a.BitLen()))
			}
		}
	}
	addDNS := func(name string) {
		switch {
		case name == "" || dnsPermitted(dns, nil, name) || slices.Contains(refused, name):
		case isPublicSuffix(name):
			refused = append(refused, name)
		default:
			dns = append(dns, name)
		}
	}
	if names := hostnameSANs(hostname); len(names) > 0 {
		// hostnameSANs gives name.local (covered by "local"), the name,
		// and its first label.
		for _, n := range names {
			addDNS(n)
		}
	}
	for _, h := range hosts {
		if a, err := netip.ParseAddr(h); err == nil {
			if !slices.ContainsFunc(prefixes, func(p netip.Prefix) bool { return p.Contains(a) }) {
				prefixes = append(prefixes, netip.PrefixFrom(a, a.BitLen()))
			}
			continue
		}
		// "*.lan.example" needs "lan.example", which also covers the apex.
		addDNS(strings.TrimPrefix(h, "*."))
	}
	for _, p := range prefixes {
		ips = append(ips, &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())})
	}
	return dns, ips, refused
}

// isPublicSuffix reports whether name is an ICANN suffix ("dev", "co.uk")
// or a listed private one ("github.io"). An unlisted single label such as
// "mybox" is not: the list's default rule makes every last label a suffix,
// flagged non-ICANN.
func isPublicSuffix(name string) bool {
	ps, icann := publicsuffix.PublicSuffix(name)
	return ps == name && (icann || strings.Contains(name, "."))
}

// hasConstraints reports whether ca limits the DNS names or IP addresses
// it may sign for. A CA made before paddock added constraints does not.
func hasConstraints(ca *x509.Certificate) bool {
	return len(ca.PermittedDNSDomains)+len(ca.ExcludedDNSDomains)+
		len(ca.PermittedIPRanges)+len(ca.ExcludedIPRanges) > 0
}

// permitsDNS reports whether ca's name constraints allow a leaf SAN of name
// (lower case, "*." wildcards allowed). The rules follow Go's verifier,
// which matches what browsers do: permitted needs a match when any is
// listed, excluded must not match.
func permitsDNS(ca *x509.Certificate, name string) bool {
	if len(ca.PermittedDNSDomains) > 0 && !dnsPermitted(ca.PermittedDNSDomains, nil, name) {
		return false
	}
	return !dnsPermitted(ca.ExcludedDNSDomains, trimFirstLabels(ca.ExcludedDNSDomains), name)
}

// dnsPermitted reports whether name falls under any of constraints: equal
// to one, or a subdomain of it ("example.com" covers a.example.com), or for
// a leading-dot constraint (".example.com") a subdomain only. parents, for
// excluded subtrees, also counts a wildcard whose parent domain is that of a
// constraint: "*.example.com" can stand for the excluded a.example.com.
func dnsPermitted(constraints, parents []string, name string) bool {
	name = strings.ToLower(name)
	for _, c := range constraints {
		c = strings.ToLower(c)
		switch {
		case c == "":
			return true
		case c[0] == '.':
			if strings.HasSuffix(name, c) && len(name) > len(c) {
				return true
			}
		case name == c || strings.HasSuffix(name, "."+c):
			return true
		}
	}
	if base, ok := strings.CutPrefix(name, "*"); ok && strings.HasPrefix(base, ".") {
		return slices.Contains(parents, base)
	}
	return false
}

// trimFirstLabels maps "a.example.com" to ".example.com", dropping
// single-label and leading-dot names.
func trimFirstLabels(names []string) []string {
	var out []string
	for _, n := range names {
		if i := strings.IndexByte(n, '.'); i > 0 {
			out = append(out, strings.ToLower(n[i:]))
		}
	}
	return out
}

// permitsIP reports whether ca's name constraints allow a leaf SAN of a
// (unmapped). As in Go's verifier, an address must match a permitted range
// of its own family once any range is listed, of either family.
func permitsIP(ca *x509.Certificate, a netip.Addr) bool {
	if len(ca.PermittedIPRanges) > 0 && !inRanges(ca.PermittedIPRanges, a) {
		return false
	}
	return !inRanges(ca.ExcludedIPRanges, a)
}

func inRanges(ranges []*net.IPNet, a netip.Addr) bool {
	ip := net.IP(a.AsSlice())
	for _, r := range ranges {
		// Go's verifier compares the encoded lengths: an IPv4 SAN never
		// matches an IPv6 range, not even ::ffff:0:0/96.
		if len(r.IP) == len(ip) && r.Contains(ip) {
			return true
		}
	}
	return false
}

func ipRangeStrings(ranges []*net.IPNet) []string {
	out := make([]string, len(ranges))
	for i, r := range ranges {
		out[i] = r.String()
	}
	return out
}
