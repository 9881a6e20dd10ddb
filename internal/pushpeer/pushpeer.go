// Package pushpeer is a Web Push service for tests: an HTTP server that takes messages for the
// subscriptions it made (RFC 8030), checks each request's VAPID authorization (RFC 8292: an
// ES256 JWT whose audience is the service's origin, unexpired, signed by the key in k=), and
// decrypts each message with the subscription's private key and authentication secret (RFC
// 8291, aes128gcm of RFC 8188), as a browser would. A test can make a subscription's next
// answers fail (404, 410, 5xx). It is written from the RFCs, not from the sender's library, so
// that it checks the sender.
package pushpeer

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Message is one message a subscription received, decrypted.
type Message struct {
	Subscription string // the subscription's ID
	Plaintext    []byte
	TTL, Topic   string
	Urgency      string
	// VAPIDKey is the application server's public key (k=), base64url.
	VAPIDKey string
	// Subject is the JWT's sub (a mailto: or https: contact).
	Subject string
}

// Subscription is what a browser's PushSubscription holds: the endpoint and the public keys,
// base64url, as toJSON() gives them; the private key stays with the peer.
type Subscription struct {
	ID       string
	Endpoint string
	P256DH   string
	Auth     string
	private  *ecdh.PrivateKey
	secret   []byte
}

// JSON is the subscription as a browser's toJSON() gives it.
func (s *Subscription) JSON() string {
	b, _ := json.Marshal(map[string]any{"endpoint": s.Endpoint, "expirationTime": nil, "keys": map[string]string{"p256dh": s.P256DH, "auth": s.Auth}})
	return string(b)
}

// Peer is the push service.
type Peer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	subs map[string]*Subscription
	// fail holds the statuses the next requests to a subscription get, in order.
	fail     map[string][]int
	received chan Message
	// Rejected are the requests refused, and why (a bad VAPID header, a message that does not
	// decrypt), for the test to show.
	rejected []string
	now      func() time.Time
	// serverKey is the application server's key the subscriptions are restricted to (the
	// applicationServerKey a browser subscribes with), base64url; "" when unrestricted.
	serverKey string
}

// New starts a push service; Close stops it.
func New() *Peer {
	p := &Peer{subs: map[string]*Subscription{}, fail: map[string][]int{}, received: make(chan Message, 100), now: time.Now}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	return p
}

// Close stops the service.
func (p *Peer) Close() { p.srv.Close() }

// URL is the service's origin, the audience its VAPID tokens must name.
func (p *Peer) URL() string { return p.srv.URL }

// Received gives the messages as they are accepted.
func (p *Peer) Received() <-chan Message { return p.received }

// Rejected lists the requests refused, and why.
func (p *Peer) Rejected() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.rejected...)
}

// Subscribe makes a subscription, as a browser's pushManager.subscribe does: a new P-256 key
// pair and a 16-byte authentication secret.
func (p *Peer) Subscribe() *Subscription {
	key, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	secret := make([]byte, 16)
	rand.Read(secret)
	id := make([]byte, 12)
	rand.Read(id)
	s := &Subscription{ID: base64.RawURLEncoding.EncodeToString(id), private: key, secret: secret,
		P256DH: base64.RawURLEncoding.EncodeToString(key.PublicKey().Bytes()), Auth: base64.RawURLEncoding.EncodeToString(secret)}
	s.Endpoint = p.srv.URL + "/push/" + s.ID
	p.mu.Lock()
	p.subs[s.ID] = s
	p.mu.Unlock()
	return s
}

// RestrictTo restricts the subscriptions to an application server's public key (base64url),
// as a browser's subscribe with an applicationServerKey does: a message whose VAPID k= is
// another key is refused (RFC 8292 section 4.2).
func (p *Peer) RestrictTo(serverKey string) {
	p.mu.Lock()
	p.serverKey = serverKey
	p.mu.Unlock()
}

// FailNext makes the next requests to a subscription answer these statuses, one each.
func (p *Peer) FailNext(s *Subscription, statuses ...int) {
	p.mu.Lock()
	p.fail[s.ID] = append(p.fail[s.ID], statuses...)
	p.mu.Unlock()
}

// Forget makes the service no longer know a subscription: it answers 410 Gone for it.
func (p *Peer) Forget(s *Subscription) {
	p.mu.Lock()
	delete(p.subs, s.ID)
	p.mu.Unlock()
}

func (p *Peer) reject(w http.ResponseWriter, status int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.mu.Lock()
	p.rejected = append(p.rejected, msg)
	p.mu.Unlock()
	http.Error(w, msg, status)
}

func (p *Peer) serve(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutPrefix(r.URL.Path, "/push/")
	if r.Method != http.MethodPost || !ok {
		p.reject(w, http.StatusNotFound, "%s %s: no such resource", r.Method, r.URL.Path)
		return
	}
	p.mu.Lock()
	sub, serverKey := p.subs[id], p.serverKey
	var status int
	if q := p.fail[id]; len(q) > 0 {
		status, p.fail[id] = q[0], q[1:]
	}
	p.mu.Unlock()
	if sub == nil {
		http.Error(w, "no such subscription", http.StatusGone)
		return
	}
	if status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	vapidKey, subject, err := p.checkVAPID(r.Header.Get("Authorization"))
	if err != nil {
		p.reject(w, http.StatusUnauthorized, "VAPID: %v", err)
		return
	}
	if serverKey != "" && vapidKey != serverKey {
		p.reject(w, http.StatusForbidden, "VAPID: k= is %s, not the key the subscription was made with (RFC 8292 section 4.2)", vapidKey)
		return
	}
	if r.Header.Get("TTL") == "" {
		p.reject(w, http.StatusBadRequest, "no TTL header (RFC 8030 section 5.2)")
		return
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "aes128gcm" {
		p.reject(w, http.StatusUnsupportedMediaType, "Content-Encoding %q, want aes128gcm", ce)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 8192))
	if err != nil {
		p.reject(w, http.StatusBadRequest, "body: %v", err)
		return
	}
	if len(body) > 4096 {
		p.reject(w, http.StatusRequestEntityTooLarge, "a push message is at most 4096 bytes (RFC 8030 section 7.2); this one is %d", len(body))
		return
	}
	plain, err := Decrypt(sub, body)
	if err != nil {
		p.reject(w, http.StatusBadRequest, "decrypting: %v", err)
		return
	}
	p.received <- Message{Subscription: id, Plaintext: plain, TTL: r.Header.Get("TTL"), Topic: r.Header.Get("Topic"),
		Urgency: r.Header.Get("Urgency"), VAPIDKey: vapidKey, Subject: subject}
	w.Header().Set("Location", p.srv.URL+"/message/"+id)
	w.WriteHeader(http.StatusCreated)
}

// checkVAPID checks an Authorization header of the vapid scheme (RFC 8292 section 3): the
// JWT's ES256 signature by the k= key, its audience (this origin), its expiry (in the future,
// at most 24 hours ahead) and its subject.
func (p *Peer) checkVAPID(h string) (key, subject string, err error) {
	rest, ok := strings.CutPrefix(h, "vapid ")
	if !ok {
		return "", "", errors.New("the Authorization header is not of the vapid scheme")
	}
	var token string
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			token = v
		case "k":
			key = v
		}
	}
	if token == "" || key == "" {
		return "", "", errors.New("t= or k= is missing")
	}
	point, err := base64.RawURLEncoding.DecodeString(key)
	if err != nil {
		return "", "", fmt.Errorf("k= is not base64url: %v", err)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point)
	if err != nil {
		return "", "", fmt.Errorf("k= is not a P-256 point: %v", err)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", "", errors.New("t= is not a JWT")
	}
	var header struct{ Alg, Typ string }
	var claims struct {
		Aud string `json:"aud"`
		Exp int64  `json:"exp"`
		Sub string `json:"sub"`
	}
	if err := decodeJSON(parts[0], &header); err != nil || header.Alg != "ES256" {
		return "", "", fmt.Errorf("the JWT's header is not ES256: %+v %v", header, err)
	}
	if err := decodeJSON(parts[1], &claims); err != nil {
		return "", "", fmt.Errorf("the JWT's claims: %v", err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return "", "", errors.New("the JWT's signature is not 64 bytes of r||s")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return "", "", errors.New("the JWT's signature does not verify with k=")
	}
	if claims.Aud != p.srv.URL {
		return "", "", fmt.Errorf("aud is %q, want this service's origin %q", claims.Aud, p.srv.URL)
	}
	now := p.now()
	if exp := time.Unix(claims.Exp, 0); !exp.After(now) || exp.After(now.Add(24*time.Hour)) {
		return "", "", fmt.Errorf("exp %s is not within the next 24 hours", exp)
	}
	if !strings.HasPrefix(claims.Sub, "mailto:") && !strings.HasPrefix(claims.Sub, "https:") {
		return "", "", fmt.Errorf("sub %q is neither a mailto: nor an https: URI", claims.Sub)
	}
	return key, claims.Sub, nil
}

func decodeJSON(part string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Decrypt opens a message for the subscription (RFC 8291 section 3.4, RFC 8188 section 2):
// the header holds the salt, the record size and the sender's ephemeral public key; the key
// and nonce come from ECDH with the subscription's private key, the authentication secret and
// HKDF-SHA-256.
func Decrypt(s *Subscription, body []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("shorter than the aes128gcm header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idlen != 65 || len(body) < 21+idlen {
		return nil, fmt.Errorf("the key id is %d bytes, want the sender's 65-byte public key", idlen)
	}
	senderKey, records := body[21:21+idlen], body[21+idlen:]
	if rs < 18 || len(records) > int(rs) {
		return nil, fmt.Errorf("record size %d for %d bytes: a push message is one record", rs, len(records))
	}
	sender, err := ecdh.P256().NewPublicKey(senderKey)
	if err != nil {
		return nil, fmt.Errorf("the sender's key: %v", err)
	}
	shared, err := s.private.ECDH(sender)
	if err != nil {
		return nil, err
	}
	// IKM = HKDF(auth_secret, ecdh_secret, "WebPush: info" || 0x00 || ua_public || as_public, 32)
	info := append(append([]byte("WebPush: info\x00"), s.private.PublicKey().Bytes()...), senderKey...)
	prkKey, err := hkdf.Extract(sha256.New, shared, s.secret)
	if err != nil {
		return nil, err
	}
	ikm, err := hkdf.Expand(sha256.New, prkKey, string(info), 32)
	if err != nil {
		return nil, err
	}
	prk, err := hkdf.Extract(sha256.New, ikm, salt)
	if err != nil {
		return nil, err
	}
	cek, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, records, nil) // the only record is the last: sequence 0
	if err != nil {
		return nil, fmt.Errorf("the record does not open: %v", err)
	}
	// Padding: the content, then the delimiter 0x02 (last record), then zeros.
	i := len(plain) - 1
	for i >= 0 && plain[i] == 0 {
		i--
	}
	if i < 0 || plain[i] != 2 {
		return nil, errors.New("the last record's padding delimiter is not 0x02")
	}
	return plain[:i], nil
}
