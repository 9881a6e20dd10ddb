package outbound

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// addrCases are one address (or more, at the edges) from each refused range, each with what
// the refusal must say, and global unicast addresses that must pass ("").
var addrCases = []struct{ addr, refused string }{
	// IPv4 special-purpose ranges.
	{"0.0.0.0", `"this network"`},
	{"0.1.2.3", `"this network"`},
	{"10.1.2.3", "private-use address (RFC 1918)"},
	{"10.255.255.255", "private-use address (RFC 1918)"},
	{"100.64.0.1", "shared address"},
	{"100.127.255.254", "shared address"},
	{"127.0.0.1", "loopback address (RFC 1122)"},
	{"127.255.0.9", "loopback address (RFC 1122)"},
	{"169.254.169.254", "link-local address"},
	{"169.254.255.255", "link-local address"},
	{"172.16.0.1", "private-use address (RFC 1918)"},
	{"172.31.255.255", "private-use address (RFC 1918)"},
	{"192.0.0.8", "IETF protocol assignment (RFC 6890)"},
	{"192.0.0.170", "IETF protocol assignment (RFC 6890)"},
	{"192.0.2.1", "documentation address (RFC 5737)"},
	{"192.31.196.1", "AS112 address (RFC 7535)"},
	{"192.52.193.1", "AMT relay address (RFC 7450)"},
	{"192.88.99.1", "6to4 relay anycast address"},
	{"192.168.1.1", "private-use address (RFC 1918)"},
	{"192.168.255.255", "private-use address (RFC 1918)"},
	{"192.175.48.6", "AS112 direct delegation address (RFC 7534)"},
	{"198.18.0.1", "benchmarking address (RFC 2544)"},
	{"198.19.255.255", "benchmarking address (RFC 2544)"},
	{"198.51.100.7", "documentation address (RFC 5737)"},
	{"203.0.113.9", "documentation address (RFC 5737)"},
	{"224.0.0.1", "multicast address (RFC 5771)"},
	{"239.255.255.250", "multicast address (RFC 5771)"},
	{"240.0.0.1", "reserved address (RFC 1112)"},
	{"255.255.255.254", "reserved address (RFC 1112)"},
	{"255.255.255.255", "limited broadcast address"},

	// IPv6 special-purpose ranges.
	{"::", "unspecified address"},
	{"::1", "the loopback address (RFC 4291)"},
	{"::127.0.0.1", "IPv4-compatible address"},
	{"::8.8.8.8", "IPv4-compatible address"}, // refused whole, whatever it embeds
	{"::ffff:127.0.0.1", "IPv4-mapped address (RFC 4291) of 127.0.0.1, a loopback address"},
	{"::ffff:169.254.169.254", "IPv4-mapped address (RFC 4291) of 169.254.169.254, a link-local address"},
	{"64:ff9b::127.0.0.1", "NAT64 address (RFC 6052) of 127.0.0.1, a loopback address"},
	{"64:ff9b::a9fe:a9fe", "NAT64 address (RFC 6052) of 169.254.169.254, a link-local address"},
	{"64:ff9b::10.0.0.1", "NAT64 address (RFC 6052) of 10.0.0.1, a private-use address"},
	{"64:ff9b::192.0.2.33", "NAT64 address (RFC 6052) of 192.0.2.33, a documentation address"},
	{"64:ff9b:1::808:808", "local-use NAT64 address (RFC 8215)"}, // refused whole
	{"100::1", "discard-only address (RFC 6666)"},
	{"100:0:0:1::1", "outside the IPv6 global unicast space"}, // the dummy prefix (RFC 9780)
	{"2001:3::1", "IETF protocol assignment (RFC 2928)"},
	{"2001:1ff:ffff::1", "IETF protocol assignment (RFC 2928)"},
	{"2001::1", "Teredo address (RFC 4380)"},
	{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo address (RFC 4380)"},
	{"2001:2::1", "benchmarking address (RFC 5180)"},
	{"2001:2:0:ffff::1", "benchmarking address (RFC 5180)"},
	{"2001:db8::1", "documentation address (RFC 3849)"},
	{"2001:db8:ffff:ffff::1", "documentation address (RFC 3849)"},
	{"2002:7f00:1::1", "6to4 address (RFC 3056) of 127.0.0.1, a loopback address"},
	{"2002:a00:1::1", "6to4 address (RFC 3056) of 10.0.0.1, a private-use address"},
	{"2002:a9fe:a9fe::", "6to4 address (RFC 3056) of 169.254.169.254, a link-local address"},
	{"2620:4f:8000::1", "AS112 direct delegation address (RFC 7534)"},
	{"2620:4f:8000:ffff::1", "AS112 direct delegation address (RFC 7534)"},
	{"3fff::1", "documentation address (RFC 9637)"},
	{"3fff:fff:ffff::1", "documentation address (RFC 9637)"},
	{"5f00::1", "(SRv6) SID (RFC 9602)"},
	{"5f00:ffff::1", "(SRv6) SID (RFC 9602)"},
	{"fc00::1", "unique local address (RFC 4193)"},
	{"fd00:ec2::254", "unique local address (RFC 4193)"},
	{"fdff:ffff::1", "unique local address (RFC 4193)"},
	{"fe80::1", "link-local address (RFC 4291)"},
	{"fe80::1%eth0", "link-local address (RFC 4291)"},
	{"febf::1", "link-local address (RFC 4291)"},
	{"fec0::1", "site-local address"},
	{"feff::1", "site-local address"},
	{"ff02::1", "multicast address (RFC 4291)"},
	{"ff0e::fb", "multicast address (RFC 4291)"},
	{"::ffff:0:7f00:1", "outside the IPv6 global unicast space"}, // IPv4-translated (RFC 2765)
	{"4000::1", "outside the IPv6 global unicast space"},

	// Global unicast, some at the edges of the ranges above.
	{"8.8.8.8", ""},
	{"1.1.1.1", ""},
	{"93.184.215.14", ""},
	{"1.0.0.0", ""},
	{"100.63.255.255", ""},
	{"100.128.0.0", ""},
	{"172.32.0.1", ""},
	{"192.0.1.255", ""},
	{"192.0.3.0", ""},
	{"198.17.255.255", ""},
	{"198.20.0.0", ""},
	{"223.255.255.254", ""},
	{"::ffff:8.8.8.8", ""},
	{"2606:4700:4700::1111", ""},
	{"2001:4860:4860::8888", ""},
	{"2001:200::1", ""},  // just past 2001::/23
	{"2001:db9::1", ""},  // just past 2001:db8::/32
	{"3fff:1000::1", ""}, // just past 3fff::/20
	{"2620:4f:8001::1", ""},
	{"64:ff9b::808:808", ""},    // NAT64 of 8.8.8.8
	{"64:ff9b::1.1.1.1", ""},    // NAT64 of 1.1.1.1
	{"2002:808:808::1", ""},     // 6to4 of 8.8.8.8
	{"2002:5db8:d70e:1::1", ""}, // 6to4 of 93.184.215.14
}

func TestCheckAddr(t *testing.T) {
	for _, c := range addrCases {
		err := CheckAddr(netip.MustParseAddr(c.addr))
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s refused: %v", c.addr, err)
		case c.refused != "" && err == nil:
			t.Errorf("%s allowed, want refused as %s", c.addr, c.refused)
		case c.refused != "" && (!errors.Is(err, ErrNotPublic) || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("%s: %q, want it to say %q and to be ErrNotPublic", c.addr, err, c.refused)
		}
	}
}

// Each range of the tables is tried above: by its own address, and by an address in the
// middle of it and its last one (so a mistyped prefix length shows).
func TestEveryRangeIsTried(t *testing.T) {
	tried := map[netip.Prefix]bool{}
	for _, c := range addrCases {
		a := netip.MustParseAddr(c.addr).WithZone("")
		for _, s := range specials {
			if s.prefix.Contains(a) {
				tried[s.prefix] = true
			}
		}
		for _, e := range embedding {
			if e.prefix.Contains(a) {
				tried[e.prefix] = true
			}
		}
	}
	for _, s := range specials {
		if !tried[s.prefix] {
			t.Errorf("no address of %s (%s) in the table test", s.prefix, s.kind)
		}
		for _, a := range []netip.Addr{s.prefix.Addr(), last(s.prefix)} {
			if err := CheckAddr(a); err == nil {
				t.Errorf("%s of %s allowed", a, s.prefix)
			}
		}
	}
	for _, e := range embedding {
		if !tried[e.prefix] {
			t.Errorf("no address of %s (%s) in the table test", e.prefix, e.kind)
		}
	}
}

// last is the highest address of a prefix.
func last(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	for _, raw := range []string{"ftp://example.com/x", "/relative", "http://", "http://user:pw@example.com/"} {
		if err := CheckURL(ctx, raw, true); err == nil {
			t.Errorf("%s was accepted", raw)
		}
	}
	for raw, says := range map[string]string{
		"http://127.0.0.1:8080/hook":              "127.0.0.1 is a loopback address (RFC 1122); webhooks and callbacks may only reach public addresses (see --webhook-allow-private)",
		"https://[::1]/hook":                      "::1 is the loopback address",
		"http://169.254.169.254/latest/meta-data": "169.254.169.254 is a link-local address",
		"https://192.0.2.1/hook":                  "192.0.2.1 is a documentation address (RFC 5737)",
		"https://[64:ff9b::7f00:1]/hook":          "64:ff9b::7f00:1 is a NAT64 address (RFC 6052) of 127.0.0.1, a loopback address",
		"https://[fe80::1%25eth0]/hook":           "fe80::1%eth0 is a link-local address",
		"http://localhost/hook":                   "localhost resolves to ",
	} {
		err := CheckURL(ctx, raw, false)
		if !errors.Is(err, ErrNotPublic) || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v, want refused, saying %q", raw, err, says)
		}
		if err := CheckURL(ctx, raw, true); err != nil {
			t.Errorf("%s with private addresses allowed: %v", raw, err)
		}
	}
	for _, raw := range []string{"https://93.184.215.14/hook", "https://[2606:4700:4700::1111]:8443/", "http://[64:ff9b::808:808]/", "http://[2002:808:808::1]/"} {
		if err := CheckURL(ctx, raw, false); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

// The check at each connection sees the address dialed, whatever a name resolved to.
func TestDialControl(t *testing.T) {
	for _, c := range addrCases {
		a := netip.MustParseAddr(c.addr)
		if a.Zone() != "" {
			continue
		}
		err := DialControl("tcp", netip.AddrPortFrom(a, 443).String(), nil)
		if (err == nil) != (c.refused == "") {
			t.Errorf("dialing %s: %v, want refused: %v", c.addr, err, c.refused != "")
		}
	}
	if err := DialControl("tcp", "example.com:443", nil); !errors.Is(err, ErrNotPublic) {
		t.Errorf("a name that was not resolved: %v", err)
	}
	// A real dialer: refused before it connects, so nothing needs to listen.
	d := net.Dialer{Control: DialControl}
	for _, addr := range []string{"192.0.2.1:80", "198.18.0.1:443", "255.255.255.255:80", "240.0.0.1:80", "127.0.0.1:9"} {
		_, err := d.Dial("tcp", addr)
		var refused *AddrError
		if !errors.As(err, &refused) || !errors.Is(err, ErrNotPublic) {
			t.Errorf("dialing %s: %v, want refused", addr, err)
		}
	}
}
