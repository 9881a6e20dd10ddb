// Command verifyhead checks a signed audit head of hitl with the server's public key, as
// someone who kept the head elsewhere would: with nothing of hitl's code, only the documented
// message and the standard library. Usage: verifyhead HEAD.json KEY.json; exit 0 when the
// signature holds, 1 when it does not.
package main

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
)

func main() {
	var head struct {
		Seq       int64  `json:"seq"`
		Hash      string `json:"hash"`
		SignedAt  string `json:"signed_at"`
		Signature string `json:"signature"`
	}
	var key struct {
		PublicKey string `json:"public_key"`
		PEM       string `json:"pem"`
	}
	read(os.Args[1], &head)
	read(os.Args[2], &key)
	raw, err := base64.StdEncoding.DecodeString(key.PublicKey)
	check(err)
	block, _ := pem.Decode([]byte(key.PEM))
	if block == nil {
		fail("the PEM key does not decode")
	}
	parsed, err := x509.ParsePKIXPublicKey(block.Bytes)
	check(err)
	if !ed25519.PublicKey(raw).Equal(parsed) {
		fail("the raw and PEM keys differ")
	}
	sig, err := base64.StdEncoding.DecodeString(head.Signature)
	check(err)
	msg := fmt.Sprintf("hitl-audit-head\n%d\n%s\n%s", head.Seq, head.Hash, head.SignedAt)
	if !ed25519.Verify(ed25519.PublicKey(raw), []byte(msg), sig) {
		fail("the signature does not hold")
	}
	fmt.Printf("signature valid: seq %d, hash %s\n", head.Seq, head.Hash)
}

func read(path string, v any) {
	b, err := os.ReadFile(path)
	check(err)
	check(json.Unmarshal(b, v))
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(why string) {
	fmt.Fprintln(os.Stderr, "verifyhead:", why)
	os.Exit(1)
}
