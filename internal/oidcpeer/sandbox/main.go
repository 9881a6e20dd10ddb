// Command sandbox is an OpenID Connect provider on your machine, for trying the inbox's single
// sign-on without an identity provider of your own: the provider the tests use, with three
// people to sign in as (ann, an admin; bob, in ops; cy, in no group) and hitl registered as its
// client.
//
//	go run ./internal/oidcpeer/sandbox                 # http://127.0.0.1:7451
//	hitl serve --oidc-issuer http://127.0.0.1:7451 --oidc-client-id hitl \
//	  --oidc-client-secret sandbox-secret --oidc-admin-group hitl-admins
//
// docs/sso.md walks through it.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"

	"github.com/hitl-dev/hitl/internal/oidcpeer"
)

const (
	clientID     = "hitl"
	clientSecret = "sandbox-secret"
)

var people = []oidcpeer.User{
	{Subject: "ann", Email: "ann@example.com", Name: "Ann Lee", PreferredUsername: "ann", Groups: []string{"ops", "hitl-admins"}},
	{Subject: "bob", Email: "bob@example.com", Name: "Bob Ray", PreferredUsername: "bob", Groups: []string{"ops"}},
	{Subject: "cy", Email: "cy@example.com", Name: "Cy Young", PreferredUsername: "cy"},
}

// start runs the provider at addr with hitl at hitlURL as its client.
func start(addr, hitlURL string) (*oidcpeer.Provider, error) {
	p, err := oidcpeer.Start(addr, people...)
	if err != nil {
		return nil, err
	}
	hitlURL = strings.TrimSuffix(hitlURL, "/")
	p.Register(oidcpeer.Client{ID: clientID, Secret: clientSecret,
		RedirectURIs: []string{hitlURL + "/login/oidc/callback"}, LogoutURIs: []string{hitlURL + "/login"}})
	return p, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:7451", "where the provider listens")
	hitlURL := flag.String("hitl", "http://127.0.0.1:7447", "the hitl server's public URL, whose /login/oidc/callback is registered")
	flag.Parse()
	p, err := start(*addr, *hitlURL)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	fmt.Printf("OpenID Connect provider on %s (sign in as ann, bob or cy); hitl at %s is its client.\n", p.Issuer, *hitlURL)
	fmt.Printf("Start hitl with:\n  hitl serve --oidc-issuer %s --oidc-client-id %s --oidc-client-secret %s --oidc-admin-group hitl-admins\n",
		p.Issuer, clientID, clientSecret)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	<-stop
}
