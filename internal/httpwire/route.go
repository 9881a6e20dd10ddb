// Package httpwire is the HTTP plumbing that hitl's own API (httpapi) and the compatibility
// protocols (protocol/...) share: the route a package mounts and the router it mounts on,
// reading request bodies within their limit, path and body ids, JSON answers, and the one
// mapping of domain error codes to HTTP statuses with its problem+json body. It holds no rule:
// what a request may do, the engine decides.
package httpwire

import (
	"net/http"
	"strings"

	"github.com/hitl-dev/hitl"
)

// Handler serves one route for an authenticated principal (nil on a public route); a returned
// error becomes a problem response.
type Handler func(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error

// Route is one entry of the API.
type Route struct {
	Method, Path string
	Public       bool
	// Cookie: the web inbox's session cookie also authenticates (a browser's EventSource
	// cannot send a header). Only for reads: other sites' forms must never act with it. (The
	// WebSocket takes it too, from its own origin only.)
	Cookie bool
	// SubprotocolToken: the token may also come as a WebSocket subprotocol, hitl.bearer.TOKEN
	// (a browser's WebSocket cannot send a header).
	SubprotocolToken bool
	// Query lists the query parameters of a list; any other is refused (a filter that is
	// misspelt must not list everything). A name ending in "." stands for every name it
	// begins (metadata.KEY). nil: the route does not check.
	Query  []string
	Handle Handler
}

// Router is where a protocol mounts its routes: httpapi's server, which authenticates, limits,
// reads the body and records metrics around every route as it does for its own.
type Router interface {
	Handle(Route)
}

// BaseURL is where people reach this server: publicURL (--public-url) when it is set, else
// the scheme and host this request came to.
func BaseURL(r *http.Request, publicURL string) string {
	if publicURL != "" {
		return strings.TrimSuffix(publicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
