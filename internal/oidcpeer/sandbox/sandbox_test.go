package main

import (
	"encoding/json"
	"net/http"
	"testing"
)

// The sandbox serves discovery with itself as the issuer, and hitl's callback is registered.
func TestSandboxServesDiscovery(t *testing.T) {
	p, err := start("127.0.0.1:0", "http://127.0.0.1:7447/")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := http.Get(p.Issuer + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc struct {
		Issuer     string `json:"issuer"`
		EndSession string `json:"end_session_endpoint"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil || doc.Issuer != p.Issuer || doc.EndSession == "" {
		t.Fatalf("discovery: %+v, %v", doc, err)
	}
	// An authorization request for hitl's callback reaches the login form, not an error.
	res, err = http.Get(p.Issuer + "/authorize?client_id=hitl&response_type=code&scope=openid&state=s&nonce=n&code_challenge=c&code_challenge_method=S256&redirect_uri=http://127.0.0.1:7447/login/oidc/callback")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("authorize for hitl's callback: %d", res.StatusCode)
	}
}
