package receipt

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Type is the typ of a receipt's protected header: a JWT of hitl's receipt kind, so that no
// other token signed by the same key passes for a receipt.
const Type = "hitl-receipt+jwt"

// Decisions a receipt records.
const (
	DecisionApprove = "approve"
	DecisionEdit    = "edit"
	DecisionReject  = "reject"
	DecisionAnswer  = "answer" // any other answer
)

// Claims are a receipt's payload (docs/receipts.md).
type Claims struct {
	Issuer    string `json:"iss"`
	Subject   string `json:"sub"` // the inquiry's id, in decimal
	ID        string `json:"jti"`
	IssuedAt  int64  `json:"iat"`
	ExpiresAt int64  `json:"exp"`
	Decision  string `json:"decision"`
	// Fallback: the deadline's fallback value decided; DecidedBy is then [{"name":"system"}].
	Fallback  bool      `json:"fallback,omitempty"`
	DecidedBy []Decider `json:"decided_by"`
	Tool      string    `json:"tool,omitempty"`
	Template  string    `json:"template,omitempty"`
	// ArgsSHA256 is SHA256Hex of the tool call's arguments as finally approved (or rejected);
	// "" when the inquiry was not about a tool call.
	ArgsSHA256     string `json:"args_sha256,omitempty"`
	ResponseSHA256 string `json:"response_sha256"`
}

// Decider is one person (or rule, or "system") whose answer or vote decided.
type Decider struct {
	Name       string `json:"name"`
	RelayedBy  string `json:"relayed_by,omitempty"`
	OnBehalfOf string `json:"on_behalf_of,omitempty"`
	// Rule and Author: a standing approval rule decided (Name is "rule:<id>").
	Rule   string `json:"rule,omitempty"`
	Author string `json:"author,omitempty"`
}

// Expiry is ExpiresAt as a time.
func (c *Claims) Expiry() time.Time { return time.Unix(c.ExpiresAt, 0).UTC() }

// NewID is a fresh receipt id: "rcpt_" and 26 characters of random lowercase base32.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return "rcpt_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))[:26]
}

// Key is an Ed25519 signing key.
type Key struct {
	private ed25519.PrivateKey
	header  string // the base64url of the protected header of what it signs
}

// newKey is the Key of private, with the header its receipts carry.
func newKey(private ed25519.PrivateKey) *Key {
	k := &Key{private: private}
	k.header = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"EdDSA","kid":"` + k.ID() + `","typ":"` + Type + `"}`))
	return k
}

// NewKey makes a new random signing key.
func NewKey() *Key {
	_, private, _ := ed25519.GenerateKey(rand.Reader) // never fails (crypto/rand)
	return newKey(private)
}

// ParseKey reads a key written by Key.String.
func ParseKey(s string) (*Key, error) {
	seed, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, errors.New("a receipt signing key is the base64url of a 32-byte Ed25519 seed")
	}
	return newKey(ed25519.NewKeyFromSeed(seed)), nil
}

// String is the key's seed in base64url: what the store keeps (sealed), a secret.
func (k *Key) String() string { return base64.RawURLEncoding.EncodeToString(k.private.Seed()) }

// Public is the key's public half.
func (k *Key) Public() ed25519.PublicKey { return k.private.Public().(ed25519.PublicKey) }

// ID is the key's kid.
func (k *Key) ID() string { return KeyID(k.Public()) }

// KeyID is the kid of a public key: base64url (no padding) of the first 12 bytes of the
// SHA-256 of its 32 bytes.
func KeyID(public ed25519.PublicKey) string {
	sum := sha256.Sum256(public)
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// Sign signs c with k: a compact JWS with the protected header
// {"alg":"EdDSA","kid":...,"typ":"hitl-receipt+jwt"}. It is put together here, the header
// encoded once per key, rather than by the JOSE library, which builds a signer and encodes its
// header anew each time: every answer is signed, and the library's way cost a tenth of an
// answer's allocations. Ed25519 signatures are deterministic, so it is the library's token byte
// for byte (TestSignIsTheJOSELibrarys), and the library verifies it.
func Sign(k *Key, c *Claims) (string, error) {
	payload, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	b64 := base64.RawURLEncoding
	token := make([]byte, 0, len(k.header)+b64.EncodedLen(len(payload))+b64.EncodedLen(ed25519.SignatureSize)+2)
	token = append(token, k.header...)
	token = append(token, '.')
	token = b64.AppendEncode(token, payload)
	signature := ed25519.Sign(k.private, token) // the signing input: header.payload
	token = append(token, '.')
	return string(b64.AppendEncode(token, signature)), nil
}

// JWKS is a JSON Web Key Set of receipt keys, as GET /.well-known/jwks.json serves it: the
// current key first, the previous one (if any) second.
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// JWK is one public key of a JWKS.
type JWK struct {
	Kty string `json:"kty"` // "OKP"
	Crv string `json:"crv"` // "Ed25519"
	X   string `json:"x"`   // the public key, base64url
	Kid string `json:"kid"`
	Alg string `json:"alg"` // "EdDSA"
	Use string `json:"use"` // "sig"
}

// KeySet is the JWKS of keys, in their order.
func KeySet(keys ...*Key) JWKS {
	s := JWKS{Keys: []JWK{}}
	for _, k := range keys {
		if k != nil {
			s.Keys = append(s.Keys, JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(k.Public()), Kid: k.ID(), Alg: "EdDSA", Use: "sig"})
		}
	}
	return s
}

// public is the Ed25519 key of kid in s, nil when s holds none.
func (s *JWKS) public(kid string) ed25519.PublicKey {
	for _, k := range s.Keys {
		if k.Kid != kid || k.Kty != "OKP" || k.Crv != "Ed25519" {
			continue
		}
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if err == nil && len(x) == ed25519.PublicKeySize {
			return x
		}
	}
	return nil
}

// Reasons a receipt fails verification: stable codes, the same in every hitl client.
const (
	ReasonMalformed    = "malformed"
	ReasonUnknownKey   = "unknown_key"
	ReasonBadSignature = "bad_signature"
	ReasonWrongIssuer  = "wrong_issuer"
	ReasonExpired      = "expired"
	ReasonNotYetValid  = "not_yet_valid"
	ReasonArgsMismatch = "args_mismatch"
	ReasonNoArgsHash   = "no_args_hash"
)

// Error is why a receipt does not verify: Reason is one of the Reason codes, Message says it
// for people.
type Error struct {
	Reason  string
	Message string
}

func (e *Error) Error() string { return e.Message }

func fail(reason, format string, args ...any) *Error {
	return &Error{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// Options are what Verify checks beyond the signature.
type Options struct {
	// Issuer is the expected iss (the server's public URL); "" checks none.
	Issuer string
	// Args are the tool call's arguments about to be run: when given, the receipt's
	// args_sha256 must be their hash.
	Args json.RawMessage
	// Now is the time to check exp and iat against; zero: the current time.
	Now time.Time
	// Leeway is how far past exp (or before iat) the receipt still passes; none by default.
	Leeway time.Duration
}

// Verify checks a receipt against a JWKS document (GET /.well-known/jwks.json) and returns
// its claims; a failure is an *Error carrying its reason.
func Verify(token string, jwks []byte, opts Options) (*Claims, error) {
	token = strings.TrimSpace(token)
	// The JOSE library's own words ("go-jose/go-jose: compact JWS format must have three
	// parts") mean nothing to whoever pasted a receipt; say what is wrong with it instead.
	switch {
	case token == "":
		return nil, fail(ReasonMalformed, "the receipt is not a compact JWS hitl issued: it is empty")
	case strings.Count(token, ".") != 2:
		return nil, fail(ReasonMalformed, "the receipt is not a compact JWS hitl issued: it is not three parts joined by dots (header.claims.signature)")
	}
	jws, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil {
		return nil, fail(ReasonMalformed, "the receipt is not a compact JWS hitl issued: %v", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, fail(ReasonMalformed, "the receipt is not a compact JWS hitl issued: it has %d signatures", len(jws.Signatures))
	}
	h := jws.Signatures[0].Protected
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != Type {
		return nil, fail(ReasonMalformed, "the receipt is not a compact JWS hitl issued: its typ is %q, not %q", typ, Type)
	}
	if h.KeyID == "" {
		return nil, fail(ReasonMalformed, "the receipt is not a compact JWS hitl issued: its header names no key (kid)")
	}
	var set JWKS
	if err := json.Unmarshal(jwks, &set); err != nil {
		return nil, fmt.Errorf("the JWKS is not a JSON Web Key Set: %w", err)
	}
	public := set.public(h.KeyID)
	if public == nil {
		return nil, fail(ReasonUnknownKey, "signed with key %s, which the JWKS does not hold (rotated out?)", h.KeyID)
	}
	payload, err := jws.Verify(public)
	if err != nil {
		return nil, fail(ReasonBadSignature, "the signature does not match: the receipt was changed")
	}
	var c Claims
	if err := json.Unmarshal(payload, &c); err != nil || c.Subject == "" || c.ExpiresAt == 0 {
		return nil, fail(ReasonMalformed, "the receipt is not a compact JWS hitl issued: its claims cannot be read")
	}
	if opts.Issuer != "" && strings.TrimSuffix(opts.Issuer, "/") != c.Issuer {
		return nil, fail(ReasonWrongIssuer, "issued by %s, not %s", c.Issuer, strings.TrimSuffix(opts.Issuer, "/"))
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	if exp := c.Expiry(); !now.Before(exp.Add(opts.Leeway)) {
		return nil, fail(ReasonExpired, "expired at %s", exp.Format(time.RFC3339))
	}
	if iat := time.Unix(c.IssuedAt, 0).UTC(); iat.After(now.Add(opts.Leeway)) {
		return nil, fail(ReasonNotYetValid, "issued in the future (%s)", iat.Format(time.RFC3339))
	}
	if opts.Args != nil {
		if c.ArgsSHA256 == "" {
			return nil, fail(ReasonNoArgsHash, "arguments were given but the receipt approves no tool call")
		}
		sum, err := SHA256Hex(opts.Args)
		if err != nil {
			return nil, fmt.Errorf("the arguments are not JSON: %w", err)
		}
		if sum != c.ArgsSHA256 {
			return nil, fail(ReasonArgsMismatch, "the arguments differ from those approved")
		}
	}
	return &c, nil
}

// Unverified reads a receipt's claims without checking anything: for the issuer, which reads
// back what it signed itself. Everyone else calls Verify.
func Unverified(token string) (*Claims, error) {
	jws, err := jose.ParseSignedCompact(strings.TrimSpace(token), []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil {
		return nil, err
	}
	var c Claims
	if err := json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &c); err != nil {
		return nil, err
	}
	return &c, nil
}
