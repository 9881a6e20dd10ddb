package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// carrierNAT is 100.64.0.0/10 (RFC 6598): shared address space, not the public internet.
var carrierNAT = netip.MustParsePrefix("100.64.0.0/10")

// publicAddr reports whether a webhook may be sent to addr: not loopback, private,
// link-local (which holds the cloud metadata address 169.254.169.254), unspecified,
// multicast or shared.
func publicAddr(addr netip.Addr) bool {
	addr = addr.Unmap()
	return !(addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
		addr.IsInterfaceLocalMulticast() || addr.IsMulticast() || addr.IsUnspecified() || carrierNAT.Contains(addr) ||
		(addr.Is4() && addr.As4()[0] == 0))
}

// ErrPrivateAddress is returned for a URL or connection to an address webhooks may not reach.
var ErrPrivateAddress = errors.New("private, loopback and link-local addresses are not allowed (see --webhook-allow-private)")

// CheckURL validates a webhook or callback URL when it is registered: http or https, a host,
// and, unless allowPrivate, a host that resolves only to public addresses. The dialer checks
// again at each connection, so a name that later resolves elsewhere gains nothing.
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
	if addr, err := netip.ParseAddr(u.Hostname()); err == nil {
		if !publicAddr(addr) {
			return ErrPrivateAddress
		}
		return nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil {
		return fmt.Errorf("host %s does not resolve", u.Hostname())
	}
	for _, a := range addrs {
		if !publicAddr(a) {
			return ErrPrivateAddress
		}
	}
	return nil
}

// DefaultAttemptTimeout bounds one delivery attempt, connection included.
const DefaultAttemptTimeout = 10 * time.Second

// ResponseLimit is how much of a receiver's answer is read (for the delivery log).
const ResponseLimit = 4 << 10

// NewClient returns the HTTP client deliveries use: timeout per attempt, no redirects
// followed, and, unless allowPrivate, no connection to a non-public address, whatever the
// name resolved to.
func NewClient(allowPrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !publicAddr(ap.Addr()) {
				return ErrPrivateAddress
			}
			return nil
		}
	}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:                 nil, // a proxy would hide the address from the guard
			DialContext:           dialer.DialContext,
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
			MaxIdleConnsPerHost:   16, // as many as a target may have attempts in flight by default
			IdleConnTimeout:       time.Minute,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ReadLimited reads at most ResponseLimit bytes of a body and discards the rest.
func ReadLimited(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, ResponseLimit))
	io.Copy(io.Discard, io.LimitReader(r, 1<<20))
	return string(b)
}
