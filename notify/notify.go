// Package notify calls other servers for hitl, safely: the dispatcher that sends the outbox's
// deliveries (webhooks and resume callbacks) at least once, with Standard Webhooks signatures
// and CloudEvents bodies, through an HTTP client that refuses private addresses. Which event
// goes where is the engine's decision (engine/outbox.go); this package only delivers.
package notify

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// secretPrefix marks a Standard Webhooks secret; what follows is the base64 of the key.
const secretPrefix = "whsec_"

// NewSecret returns a random signing secret (192-bit key) in the Standard Webhooks format.
func NewSecret() string {
	key := make([]byte, 24)
	rand.Read(key)
	return secretPrefix + base64.StdEncoding.EncodeToString(key)
}

// CheckSecret reports whether secret is a usable signing secret: whsec_ and the base64 of
// 16 to 64 bytes.
func CheckSecret(secret string) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	switch {
	case !strings.HasPrefix(secret, secretPrefix):
		return errors.New("must start with " + secretPrefix)
	case err != nil:
		return errors.New("must be " + secretPrefix + " and base64")
	case len(key) < 16 || len(key) > 64:
		return fmt.Errorf("its key is %d bytes; want 16 to 64", len(key))
	}
	return nil
}

// Sign returns the webhook-signature header value for one delivery attempt: "v1," and the
// base64 HMAC-SHA256, keyed with the secret's decoded bytes, of "id.timestamp.body".
func Sign(secret, id string, timestamp time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil {
		return "", fmt.Errorf("webhook secret is not base64: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, timestamp.Unix())
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Headers returns the Standard Webhooks headers of one attempt: webhook-id stays the same
// across retries, the timestamp and signature are those of this attempt.
func Headers(secret, id string, now time.Time, body []byte) (map[string]string, error) {
	sig, err := Sign(secret, id, now, body)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"webhook-id":        id,
		"webhook-timestamp": strconv.FormatInt(now.Unix(), 10),
		"webhook-signature": sig,
		"Content-Type":      "application/cloudevents+json",
	}, nil
}

// CloudEvent is a CloudEvents 1.0 event in structured JSON mode.
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

// NewCloudEvent wraps an event of the log, from source (the server's URL), with data.
func NewCloudEvent(ev *hitl.Event, source string, data json.RawMessage) CloudEvent {
	subject := ""
	switch {
	case ev.InquiryID != nil:
		subject = "inquiries/" + strconv.FormatInt(*ev.InquiryID, 10)
	case ev.Session != "":
		subject = "sessions/" + ev.Session
	}
	return CloudEvent{SpecVersion: "1.0", ID: ev.ID, Source: source, Type: "hitl." + ev.Type, Time: ev.Time,
		Subject: subject, DataContentType: "application/json", Data: data}
}

var errNoSignature = errors.New("no valid signature")

// Verify checks a received body against its headers, as a receiver does: the signature
// (any of the space-separated ones) and a timestamp within tolerance of now.
func Verify(secret string, headers map[string]string, body []byte, now time.Time, tolerance time.Duration) error {
	ts, err := strconv.ParseInt(headers["webhook-timestamp"], 10, 64)
	if err != nil {
		return errors.New("webhook-timestamp is not a number")
	}
	at := time.Unix(ts, 0)
	if d := now.Sub(at); d > tolerance || d < -tolerance {
		return fmt.Errorf("webhook-timestamp is %s away from now", d.Round(time.Second))
	}
	want, err := Sign(secret, headers["webhook-id"], at, body)
	if err != nil {
		return err
	}
	for _, sig := range strings.Fields(headers["webhook-signature"]) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errNoSignature
}
