// Package outbound holds what hitl sends to other servers, as rules and formats without the
// sending: which destinations may be reached (addr.go), the CloudEvents envelope a
// delivery's body is, and the format of the secrets that sign deliveries and links.
//
// It is one package, not three, because its parts are small and have one reason to change,
// the contract with receivers; it is its own package, and a leaf that imports only the
// standard library, because both sides need it: the engine decides and records deliveries
// (checking URLs when they are registered, wrapping events, generating secrets), and notify
// sends them (checking addresses again at each connection, signing with the secrets). The
// engine does not import notify.
package outbound

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix marks a Standard Webhooks secret; what follows is the base64 of the key.
const SecretPrefix = "whsec_"

// NewSecret returns a random signing secret (192-bit key) in the Standard Webhooks format.
func NewSecret() string {
	key := make([]byte, 24)
	rand.Read(key)
	return SecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// SecretKey returns the key of a secret: the base64 after the prefix (or the whole secret,
// when it has no prefix).
func SecretKey(secret string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
}

// CheckSecret reports whether secret is a usable signing secret: whsec_ and the base64 of
// 16 to 64 bytes.
func CheckSecret(secret string) error {
	key, err := SecretKey(secret)
	switch {
	case !strings.HasPrefix(secret, SecretPrefix):
		return errors.New("must start with " + SecretPrefix)
	case err != nil:
		return errors.New("must be " + SecretPrefix + " and base64")
	case len(key) < 16 || len(key) > 64:
		return fmt.Errorf("its key is %d bytes; want 16 to 64", len(key))
	}
	return nil
}

// CloudEvent is a CloudEvents 1.0 event in structured JSON mode: the body of every delivery.
type CloudEvent struct {
	SpecVersion     string          `json:"specversion"`
	ID              string          `json:"id"`
	Source          string          `json:"source"`
	Type            string          `json:"type"`
	Time            time.Time       `json:"time"`
	Subject         string          `json:"subject,omitempty"`
	DataContentType string          `json:"datacontenttype"`
	Data            json.RawMessage `json:"data"`
}

// NewCloudEvent wraps data as the event id of hitl's log, of type typ (sent as "hitl."+typ),
// that happened at at, from source (the server's URL), about subject (see Subject).
func NewCloudEvent(source, id, typ string, at time.Time, subject string, data json.RawMessage) CloudEvent {
	return CloudEvent{SpecVersion: "1.0", ID: id, Source: source, Type: "hitl." + typ, Time: at,
		Subject: subject, DataContentType: "application/json", Data: data}
}

// Subject names what an event is about: its inquiry ("inquiries/42"), else its session
// ("sessions/s1"), else nothing.
func Subject(inquiryID *int64, session string) string {
	switch {
	case inquiryID != nil:
		return "inquiries/" + strconv.FormatInt(*inquiryID, 10)
	case session != "":
		return "sessions/" + session
	}
	return ""
}
