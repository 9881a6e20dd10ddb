package receipt

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

func TestCanonicalVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/canonical.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []struct{ Input, Canonical, SHA256 string }
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 30 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	for _, v := range vectors {
		got, err := Canonical(json.RawMessage(v.Input))
		if err != nil {
			t.Errorf("Canonical(%s): %v", v.Input, err)
			continue
		}
		if string(got) != v.Canonical {
			t.Errorf("Canonical(%s) = %s, want %s", v.Input, got, v.Canonical)
		}
		sum, _ := SHA256Hex(json.RawMessage(v.Input))
		if sum != v.SHA256 {
			t.Errorf("SHA256Hex(%s) = %s, want %s", v.Input, sum, v.SHA256)
		}
	}
}

func TestCanonicalRefusesWhatIsNotOneJSONValue(t *testing.T) {
	for _, in := range []string{``, `{`, `1 2`, `1e400`, `{"a":}`} {
		if _, err := Canonical(json.RawMessage(in)); err == nil {
			t.Errorf("Canonical(%q) passed", in)
		}
	}
}

var t0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func signed(t *testing.T, k *Key, edit func(*Claims)) string {
	t.Helper()
	args, _ := SHA256Hex(json.RawMessage(`{"replicas":3,"env":"prod"}`))
	c := &Claims{Issuer: "https://hitl.example.com", Subject: "42", ID: NewID(), IssuedAt: t0.Unix(), ExpiresAt: t0.Add(time.Hour).Unix(),
		Decision: DecisionApprove, DecidedBy: []Decider{{Name: "alice"}}, Tool: "deploy", ArgsSHA256: args, ResponseSHA256: "00"}
	if edit != nil {
		edit(c)
	}
	tok, err := Sign(k, c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func jwks(t *testing.T, keys ...*Key) []byte {
	b, err := json.Marshal(KeySet(keys...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVerifyReturnsTheClaims(t *testing.T) {
	k := NewKey()
	tok := signed(t, k, nil)
	header, _, _ := strings.Cut(tok, ".")
	h, _ := base64.RawURLEncoding.DecodeString(header)
	var hdr map[string]string
	if err := json.Unmarshal(h, &hdr); err != nil || hdr["alg"] != "EdDSA" || hdr["typ"] != Type || hdr["kid"] != k.ID() {
		t.Fatalf("header %s", h)
	}
	sum := sha256.Sum256(k.Public())
	if want := base64.RawURLEncoding.EncodeToString(sum[:12]); k.ID() != want || len(k.ID()) != 16 {
		t.Fatalf("kid %s, want %s", k.ID(), want)
	}
	c, err := Verify(tok, jwks(t, NewKey(), k), Options{Issuer: "https://hitl.example.com/", Now: t0.Add(time.Minute), Args: json.RawMessage(`{"env": "prod", "replicas": 3.0}`)})
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject != "42" || c.Decision != DecisionApprove || c.DecidedBy[0].Name != "alice" || !strings.HasPrefix(c.ID, "rcpt_") || len(c.ID) != 31 {
		t.Fatalf("claims %+v", c)
	}
	if !c.Expiry().Equal(t0.Add(time.Hour)) {
		t.Fatalf("expiry %v", c.Expiry())
	}
}

// TestSignIsTheJOSELibrarys: Sign puts the token together itself; the JOSE library, given the
// same key, header and claims, makes the same bytes.
func TestSignIsTheJOSELibrarys(t *testing.T) {
	k := NewKey()
	tok := signed(t, k, nil)
	_, claims, _ := strings.Cut(tok, ".")
	claims, _, _ = strings.Cut(claims, ".")
	payload, err := base64.RawURLEncoding.DecodeString(claims)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: k.private},
		(&jose.SignerOptions{}).WithType(Type).WithHeader(jose.HeaderKey("kid"), k.ID()))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	if want, err := jws.CompactSerialize(); err != nil || tok != want {
		t.Fatalf("Sign made\n%s\nthe JOSE library makes\n%s (%v)", tok, want, err)
	}
}

func TestKeyRoundTrip(t *testing.T) {
	k := NewKey()
	back, err := ParseKey(k.String())
	if err != nil || back.ID() != k.ID() {
		t.Fatalf("ParseKey: %v %v", back, err)
	}
	if _, err := ParseKey("short"); err == nil {
		t.Fatal("a bad key parsed")
	}
}

func TestVerifyFailures(t *testing.T) {
	k, other := NewKey(), NewKey()
	good := signed(t, k, nil)
	parts := strings.Split(good, ".")
	reencode := func(part string, edit func(map[string]any)) string {
		b, _ := base64.RawURLEncoding.DecodeString(part)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		edit(m)
		b, _ = json.Marshal(m)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	tamperedPayload := parts[0] + "." + reencode(parts[1], func(m map[string]any) { m["decision"] = "edit" }) + "." + parts[2]
	tamperedHeader := reencode(parts[0], func(m map[string]any) { m["cty"] = "x" }) + "." + parts[1] + "." + parts[2]
	algNone := reencode(parts[0], func(m map[string]any) { m["alg"] = "none" }) + "." + parts[1] + "."
	wrongType := reencode(parts[0], func(m map[string]any) { m["typ"] = "JWT" }) + "." + parts[1] + "." + parts[2]
	now := t0.Add(time.Minute)
	cases := []struct {
		name, token, reason string
		keys                []byte
		opts                Options
		message             string
	}{
		{"changed args", good, ReasonArgsMismatch, jwks(t, k), Options{Now: now, Args: json.RawMessage(`{"env":"prod","replicas":30}`)}, "the arguments differ from those approved"},
		{"no args hash", signed(t, k, func(c *Claims) { c.ArgsSHA256, c.Tool, c.Decision = "", "", DecisionAnswer }), ReasonNoArgsHash, jwks(t, k), Options{Now: now, Args: json.RawMessage(`{}`)}, "arguments were given but the receipt approves no tool call"},
		{"expired", good, ReasonExpired, jwks(t, k), Options{Now: t0.Add(time.Hour)}, "expired at 2026-11-26T13:00:00Z"},
		{"expired within leeway passes nothing else", good, ReasonExpired, jwks(t, k), Options{Now: t0.Add(time.Hour + time.Minute), Leeway: 30 * time.Second}, "expired at 2026-11-26T13:00:00Z"},
		{"not yet valid", good, ReasonNotYetValid, jwks(t, k), Options{Now: t0.Add(-time.Minute)}, "issued in the future (2026-11-26T12:00:00Z)"},
		{"other issuer", good, ReasonWrongIssuer, jwks(t, k), Options{Now: now, Issuer: "https://evil.example.com"}, "issued by https://hitl.example.com, not https://evil.example.com"},
		{"rotated-out key", good, ReasonUnknownKey, jwks(t, other), Options{Now: now}, "signed with key " + k.ID() + ", which the JWKS does not hold (rotated out?)"},
		{"tampered payload", tamperedPayload, ReasonBadSignature, jwks(t, k), Options{Now: now}, "the signature does not match: the receipt was changed"},
		{"tampered header", tamperedHeader, ReasonBadSignature, jwks(t, k), Options{Now: now}, "the signature does not match: the receipt was changed"},
		{"alg none", algNone, ReasonMalformed, jwks(t, k), Options{Now: now}, ""},
		{"another typ", wrongType, ReasonMalformed, jwks(t, k), Options{Now: now}, ""},
		{"not a JWS", "hello", ReasonMalformed, jwks(t, k), Options{Now: now}, "the receipt is not a compact JWS hitl issued: it is not three parts joined by dots (header.claims.signature)"},
		{"empty", " \n", ReasonMalformed, jwks(t, k), Options{Now: now}, "the receipt is not a compact JWS hitl issued: it is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Verify(c.token, c.keys, c.opts)
			var e *Error
			if !errors.As(err, &e) || e.Reason != c.reason {
				t.Fatalf("Verify: %v, want reason %s", err, c.reason)
			}
			if c.message != "" && e.Message != c.message {
				t.Fatalf("message %q, want %q", e.Message, c.message)
			}
			if c.reason == ReasonMalformed && !strings.HasPrefix(e.Message, "the receipt is not a compact JWS hitl issued: ") {
				t.Fatalf("message %q", e.Message)
			}
		})
	}
	// Leeway lets a just-expired receipt through.
	if _, err := Verify(good, jwks(t, k), Options{Now: t0.Add(time.Hour + 10*time.Second), Leeway: 30 * time.Second}); err != nil {
		t.Fatalf("within leeway: %v", err)
	}
}

func TestSHA256HexIsOfTheCanonicalText(t *testing.T) {
	sum := sha256.Sum256([]byte(`{"a":1,"b":[true,null]}`))
	got, err := SHA256Hex(json.RawMessage(` {"b": [true, null], "a": 1.0} `))
	if err != nil || got != hex.EncodeToString(sum[:]) {
		t.Fatalf("%s %v", got, err)
	}
}

// The cases the TypeScript and Python clients run (signed by jose, an independent library:
// clients/typescript/scripts/receipt-fixtures.mjs) give the same outcome here, reason for
// reason, so that every hitl verifier accepts and refuses the same receipts.
func TestSharedCases(t *testing.T) {
	raw, err := os.ReadFile("../clients/python/tests/receipt_fixtures.json")
	if err != nil {
		t.Fatal(err)
	}
	var fixtures struct {
		JWKS  json.RawMessage `json:"jwks"`
		Cases []struct {
			Name     string          `json:"name"`
			Token    string          `json:"token"`
			Issuer   string          `json:"issuer"`
			Args     json.RawMessage `json:"args"`
			ArgsJSON *string         `json:"args_json"`
			Now      float64         `json:"now"`
			Leeway   float64         `json:"leeway"`
			JWKS     json.RawMessage `json:"jwks"`
			Expect   struct {
				OK     bool            `json:"ok"`
				Reason string          `json:"reason"`
				Claims json.RawMessage `json:"claims"`
			} `json:"expect"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &fixtures); err != nil {
		t.Fatal(err)
	}
	if len(fixtures.Cases) < 20 {
		t.Fatalf("only %d cases", len(fixtures.Cases))
	}
	for _, c := range fixtures.Cases {
		t.Run(c.Name, func(t *testing.T) {
			jwks := c.JWKS
			if jwks == nil {
				jwks = fixtures.JWKS
			}
			o := Options{Issuer: c.Issuer, Args: c.Args, Leeway: time.Duration(c.Leeway * float64(time.Second))}
			if c.ArgsJSON != nil {
				o.Args = json.RawMessage(*c.ArgsJSON)
			}
			if c.Now > 0 {
				o.Now = time.Unix(0, int64(c.Now*float64(time.Second)))
			}
			claims, err := Verify(c.Token, jwks, o)
			var e *Error
			switch {
			case c.Expect.OK && err != nil:
				t.Fatalf("refused: %v", err)
			case !c.Expect.OK && !errors.As(err, &e):
				t.Fatalf("passed (%+v); want %s", claims, c.Expect.Reason)
			case !c.Expect.OK && e.Reason != c.Expect.Reason:
				t.Fatalf("refused for %s (%s); want %s", e.Reason, e.Message, c.Expect.Reason)
			case c.Expect.OK && c.Expect.Claims != nil:
				got, _ := json.Marshal(claims)
				var want, have map[string]any
				json.Unmarshal(c.Expect.Claims, &want)
				json.Unmarshal(got, &have)
				if w, h := mustMarshal(t, want), mustMarshal(t, have); w != h {
					t.Errorf("claims %s; want %s", h, w)
				}
			}
		})
	}
}

// mustMarshal is v as JSON with sorted keys (encoding/json sorts map keys).
func mustMarshal(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
