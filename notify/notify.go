// Package notify calls other servers for hitl, safely: the dispatcher that sends the outbox's
// deliveries (webhooks and resume callbacks) at least once, with Standard Webhooks signatures
// and CloudEvents bodies, through an HTTP client that reaches global unicast addresses only.
// Which event goes where, and what its body is, is the engine's decision (engine/deliveries.go);
// the rules both share, URLs, addresses, secrets and the envelope, are in internal/outbound.
// This package only delivers, and Verify, VerifyRequest and CloudEvent serve receivers written
// in Go.
package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl/internal/outbound"
)

// Sign returns the webhook-signature header value for one delivery attempt: "v1," and the
// base64 HMAC-SHA256, keyed with the secret's decoded bytes, of "id.timestamp.body".
func Sign(secret, id string, timestamp time.Time, body []byte) (string, error) {
	key, err := outbound.SecretKey(secret)
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

// CloudEvent is the body of every delivery, a CloudEvents 1.0 event in structured JSON
// mode; a receiver decodes it after Verify.
type CloudEvent = outbound.CloudEvent

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

// Tolerance is how far from now a received delivery's timestamp may be: the five minutes
// Standard Webhooks recommends against replays.
const Tolerance = 5 * time.Minute

// VerifyRequest checks a received request's body against its webhook-id, webhook-timestamp and
// webhook-signature headers with Verify, at now and within Tolerance; a missing header is
// named, as the sign that the request is not a signed delivery at all.
func VerifyRequest(secret string, h http.Header, body []byte, now time.Time) error {
	headers := map[string]string{}
	for _, name := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
		v := h.Get(name)
		if v == "" {
			return fmt.Errorf("the request has no %s header: it is not a signed delivery", name)
		}
		headers[name] = v
	}
	return Verify(secret, headers, body, now, Tolerance)
}
