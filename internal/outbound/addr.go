package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
)

// The destination rule: webhooks and callbacks reach global unicast addresses only. Every
// range of the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
// updates) is refused, even those the registry marks globally reachable (AS112, AMT, the
// anycast assignments): none is a place a receiver lives. So are multicast, and in IPv6
// everything outside 2000::/3, the only space IANA allocates as global unicast (RFC 4291):
// the rows below that lie outside it are there to name the refusal, not to make it.
//
// Three IPv6 forms carry an IPv4 address that is where the packets end up; for them the
// embedded address is checked instead (see embedding). The others that embed one are
// refused whole: IPv4-compatible addresses (::a.b.c.d, deprecated, and what a host does with
// them is its tunnels' business), Teredo (in 2001::/23), and local-use NAT64 (64:ff9b:1::/48,
// whose translator is someone's private network).

// ErrNotPublic is what every refused destination is (errors.Is).
var ErrNotPublic = errors.New("webhooks and callbacks may only reach public addresses (see --webhook-allow-private)")

// special is a range that is not global unicast, and what its addresses are.
type special struct {
	prefix netip.Prefix
	kind   string // completes "192.0.2.1 is …"
}

func p(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// specials are the refused ranges. Where they nest, the longest prefix names the address.
var specials = []special{
	// IPv4 Special-Purpose Address Registry.
	{p("0.0.0.0/8"), `a "this network" address (RFC 791)`},
	{p("10.0.0.0/8"), "a private-use address (RFC 1918)"},
	{p("100.64.0.0/10"), "a shared address, for carrier-grade NAT (RFC 6598)"},
	{p("127.0.0.0/8"), "a loopback address (RFC 1122)"},
	{p("169.254.0.0/16"), "a link-local address (RFC 3927)"}, // where cloud metadata services answer
	{p("172.16.0.0/12"), "a private-use address (RFC 1918)"},
	{p("192.0.0.0/24"), "an IETF protocol assignment (RFC 6890)"}, // DS-Lite, PCP and TURN anycast, NAT64 discovery
	{p("192.0.2.0/24"), "a documentation address (RFC 5737)"},     // TEST-NET-1
	{p("192.31.196.0/24"), "an AS112 address (RFC 7535)"},
	{p("192.52.193.0/24"), "an AMT relay address (RFC 7450)"},
	{p("192.88.99.0/24"), "a 6to4 relay anycast address, deprecated (RFC 7526)"},
	{p("192.168.0.0/16"), "a private-use address (RFC 1918)"},
	{p("192.175.48.0/24"), "an AS112 direct delegation address (RFC 7534)"},
	{p("198.18.0.0/15"), "a benchmarking address (RFC 2544)"},
	{p("198.51.100.0/24"), "a documentation address (RFC 5737)"}, // TEST-NET-2
	{p("203.0.113.0/24"), "a documentation address (RFC 5737)"},  // TEST-NET-3
	{p("224.0.0.0/4"), "a multicast address (RFC 5771)"},         // the multicast registry
	{p("240.0.0.0/4"), "a reserved address (RFC 1112)"},
	{p("255.255.255.255/32"), "the limited broadcast address (RFC 919)"},

	// IPv6 Special-Purpose Address Registry.
	{p("::/128"), "the unspecified address (RFC 4291)"},
	{p("::1/128"), "the loopback address (RFC 4291)"},
	{p("::/96"), "an IPv4-compatible address, deprecated (RFC 4291)"},
	{p("64:ff9b:1::/48"), "a local-use NAT64 address (RFC 8215)"},
	{p("100::/64"), "a discard-only address (RFC 6666)"},
	// 2001::/23 also holds anycast (2001:1::/48), AMT (2001:3::/32), AS112 (2001:4:112::/48)
	// and ORCHID (2001:10::/28, 2001:20::/28) and drone (2001:30::/28) identifiers.
	{p("2001::/23"), "an IETF protocol assignment (RFC 2928)"},
	{p("2001::/32"), "a Teredo address (RFC 4380)"},
	{p("2001:2::/48"), "a benchmarking address (RFC 5180)"},
	{p("2001:db8::/32"), "a documentation address (RFC 3849)"},
	{p("2620:4f:8000::/48"), "an AS112 direct delegation address (RFC 7534)"},
	{p("3fff::/20"), "a documentation address (RFC 9637)"},
	{p("5f00::/16"), "a segment routing (SRv6) SID (RFC 9602)"},
	{p("fc00::/7"), "a unique local address (RFC 4193)"},
	{p("fe80::/10"), "a link-local address (RFC 4291)"},
	{p("fec0::/10"), "a site-local address, deprecated (RFC 3879)"},
	{p("ff00::/8"), "a multicast address (RFC 4291)"},
}

// globalUnicast6 is the IPv6 global unicast space (RFC 4291 §2.4, the IANA IPv6 Address
// Space registry); all else is reserved or special.
var globalUnicast6 = p("2000::/3")

// embedding are the IPv6 forms whose packets go to the IPv4 address they carry, and where
// it is: the last 4 bytes, or for 6to4 bits 16 to 48.
var embedding = []struct {
	prefix netip.Prefix
	kind   string
	at     int // byte offset of the IPv4 address
}{
	{p("::ffff:0:0/96"), "an IPv4-mapped address (RFC 4291)", 12},
	{p("64:ff9b::/96"), "a NAT64 address (RFC 6052)", 12}, // which RFC 6052 forbids for non-global IPv4
	{p("2002::/16"), "a 6to4 address (RFC 3056)", 2},
}

// AddrError is a refused address, and why.
type AddrError struct {
	Addr netip.Addr
	Host string // the name that resolved to Addr; empty for a literal address
	Kind string // "a documentation address (RFC 5737)"
}

func (e *AddrError) Error() string {
	if e.Host != "" {
		return fmt.Sprintf("%s resolves to %s, %s; %v", e.Host, e.Addr, e.Kind, ErrNotPublic)
	}
	return fmt.Sprintf("%s is %s; %v", e.Addr, e.Kind, ErrNotPublic)
}

func (e *AddrError) Unwrap() error { return ErrNotPublic }

// CheckAddr returns nil when addr is a global unicast address, else an *AddrError that says
// which kind of address it is.
func CheckAddr(addr netip.Addr) error {
	if kind := refusal(addr.WithZone("")); kind != "" {
		return &AddrError{Addr: addr, Kind: kind}
	}
	return nil
}

// refusal names the kind of a non-global address; "" for a global unicast one.
func refusal(addr netip.Addr) string {
	if !addr.IsValid() {
		return "not an IP address"
	}
	if addr.Is6() {
		b := addr.As16()
		for _, e := range embedding {
			if e.prefix.Contains(addr) {
				v4 := netip.AddrFrom4([4]byte(b[e.at : e.at+4]))
				if kind := refusal(v4); kind != "" {
					return fmt.Sprintf("%s of %s, %s", e.kind, v4, kind)
				}
				return ""
			}
		}
	}
	best := -1
	kind := ""
	for _, s := range specials {
		if s.prefix.Contains(addr) && s.prefix.Bits() > best {
			best, kind = s.prefix.Bits(), s.kind
		}
	}
	if kind == "" && addr.Is6() && !globalUnicast6.Contains(addr) {
		kind = "outside the IPv6 global unicast space, 2000::/3 (RFC 4291)"
	}
	return kind
}

// CheckURL validates a webhook or callback URL when it is registered: http or https, a host,
// and, unless allowPrivate, a host that is or resolves to global unicast addresses only.
// DialControl checks again at each connection, so a name that later resolves elsewhere
// gains nothing.
func CheckURL(ctx context.Context, raw string, allowPrivate bool) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return errors.New("must be an absolute http:// or https:// URL")
	}
	if u.User != nil {
		return errors.New("must not carry a user or password")
	}
	if allowPrivate {
		return nil
	}
	host := u.Hostname()
	if addr, err := netip.ParseAddr(host); err == nil {
		return CheckAddr(addr)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("host %s does not resolve", host)
	}
	for _, a := range addrs {
		a = a.Unmap() // how the resolver returns IPv4 addresses
		if kind := refusal(a.WithZone("")); kind != "" {
			return &AddrError{Addr: a, Host: host, Kind: kind}
		}
	}
	return nil
}

// DialControl is a net.Dialer's Control that refuses to connect to what CheckAddr refuses:
// it sees the address actually dialed, whatever a name resolved to.
func DialControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%s is not an IP address and port; %w", address, ErrNotPublic)
	}
	return CheckAddr(ap.Addr())
}
