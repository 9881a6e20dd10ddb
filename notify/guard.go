package notify

import (
	"io"
	"net"
	"net/http"
	"time"

	"github.com/hitl-dev/hitl/internal/outbound"
)

// DefaultAttemptTimeout bounds one delivery attempt, connection included.
const DefaultAttemptTimeout = 10 * time.Second

// ResponseLimit is how much of a receiver's answer is read (for the delivery log).
const ResponseLimit = 4 << 10

// NewClient returns the HTTP client deliveries use: timeout per attempt, no redirects
// followed, and, unless allowPrivate, no connection to an address that is not global unicast
// (outbound.CheckAddr), whatever the name resolved to.
func NewClient(allowPrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		dialer.Control = outbound.DialControl
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
