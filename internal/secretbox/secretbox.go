// Package secretbox encrypts the secrets hitl keeps in its database (webhook secrets, chat
// webhook URLs, the callback and answer-link secrets, the audit key) with AES-256-GCM under the operator's key,
// HITL_SECRET_KEY. A stored value says which it is: "enc:v1:" and base64 for one encrypted
// here, anything else for one stored in plaintext, so that a server never takes ciphertext
// for a secret.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
)

// KeySize is the length of a key: AES-256.
const KeySize = 32

// prefix marks a value encrypted under a key; v1 is AES-256-GCM, a 12-byte random nonce
// before the ciphertext, all in standard base64.
const prefix = "enc:v1:"

var (
	// ErrNoKey: the value is encrypted and there is no key to open it with.
	ErrNoKey = errors.New("it is encrypted and no key was given")
	// ErrWrongKey: the key does not open the value: another key sealed it, or it was altered.
	ErrWrongKey = errors.New("the key does not decrypt it: it was encrypted under another key, or altered")
)

// Key seals and opens stored secrets. A nil *Key is no key: it stores secrets as they are.
type Key struct {
	aead cipher.AEAD
	id   string
}

// ID names the key without giving it away, so that a database can record which key its
// secrets are under: "none" for no key, else a hash of the key.
func (k *Key) ID() string {
	if k == nil {
		return "none"
	}
	return k.id
}

// NewKey makes a key of KeySize raw bytes.
func NewKey(raw []byte) (*Key, error) {
	if len(raw) != KeySize {
		return nil, fmt.Errorf("a key is %d bytes, not %d", KeySize, len(raw))
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(append([]byte("hitl secret key id\n"), raw...))
	return &Key{aead: aead, id: "sha256:" + hex.EncodeToString(sum[:8])}, nil
}

// ParseKey reads a key as HITL_SECRET_KEY gives it: the path of a key file, or the key's 32
// bytes in standard base64 (openssl rand -base64 32). A key file holds the same base64 (a
// trailing newline is fine) or the 32 raw bytes. An empty s is no key (nil, nil).
func ParseKey(s string) (*Key, error) {
	if s == "" {
		return nil, nil
	}
	if _, err := os.Stat(s); err == nil {
		return readKeyFile(s)
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	switch {
	case err == nil && len(raw) != KeySize:
		return nil, fmt.Errorf("the base64 decodes to %d bytes; a key is %d bytes (make one with: openssl rand -base64 32)", len(raw), KeySize)
	case err == nil:
		return NewKey(raw)
	case strings.ContainsAny(s, `/\.`):
		_, err := os.Stat(s)
		return nil, fmt.Errorf("cannot read the key file: %w", err)
	}
	return nil, errors.New("neither the path of a key file nor 32 bytes in base64 (make one with: openssl rand -base64 32)")
}

func readKeyFile(path string) (*Key, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the key file: %w", err)
	}
	if raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b))); err == nil && len(raw) == KeySize {
		return NewKey(raw)
	}
	if len(b) == KeySize {
		return NewKey(b)
	}
	return nil, fmt.Errorf("the key file %s holds neither %d bytes in base64 nor %d raw bytes (make one with: openssl rand -base64 32 > %s)", path, KeySize, KeySize, path)
}

// Sealed reports whether a stored value is encrypted (by any key).
func Sealed(stored string) bool { return strings.HasPrefix(stored, prefix) }

// Seal returns the stored form of a secret: encrypted under k, or the secret itself when k
// is nil. place names where the value is kept ("webhook wh_…"): it is authenticated with the
// value, so that a value moved to another place does not open there.
func (k *Key) Seal(secret, place string) string {
	if k == nil {
		return secret
	}
	nonce := make([]byte, k.aead.NonceSize())
	rand.Read(nonce)
	return prefix + base64.StdEncoding.EncodeToString(k.aead.Seal(nonce, nonce, []byte(secret), []byte(place)))
}

// Open returns the secret of a stored value: a plaintext value as it is, an encrypted one
// decrypted with k, for the same place it was sealed for. It fails with ErrNoKey when k is
// nil and the value is encrypted, and with ErrWrongKey when k does not decrypt it.
func (k *Key) Open(stored, place string) (string, error) {
	b64, ok := strings.CutPrefix(stored, prefix)
	if !ok {
		return stored, nil
	}
	if k == nil {
		return "", ErrNoKey
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	n := k.aead.NonceSize()
	if err != nil || len(raw) < n+k.aead.Overhead() {
		return "", ErrWrongKey
	}
	secret, err := k.aead.Open(nil, raw[:n], raw[n:], []byte(place))
	if err != nil {
		return "", ErrWrongKey
	}
	return string(secret), nil
}
