package openintent

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// isoTime is a time as OpenIntent's SDK parses it: datetime.fromisoformat, which before
// Python 3.11 takes neither a Z nor more than six digits of a second.
type isoTime time.Time

func (t isoTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format("2006-01-02T15:04:05.000000+00:00") + `"`), nil
}

// isoTimeOf is t as an isoTime, nil for nil.
func isoTimeOf(t *time.Time) *isoTime {
	if t == nil {
		return nil
	}
	it := isoTime(*t)
	return &it
}

// pyTime is a time as the SDK writes it (datetime.isoformat()): with or without its zone;
// without, it is UTC, as the SDK's datetime.utcnow() is.
type pyTime time.Time

func (t *pyTime) UnmarshalJSON(b []byte) error {
	var s string
	err := json.Unmarshal(b, &s)
	var parsed time.Time
	if err == nil {
		parsed, err = parseISOTime(s)
	}
	if err != nil {
		return hitl.Errorf(hitl.EInvalid, "state._suspension.expires_at must be a time such as 2026-01-02T15:04:05+00:00 (ISO 8601, as datetime.isoformat() writes it), not %s", b)
	}
	*t = pyTime(parsed)
	return nil
}

// parseISOTime reads a time as Python's isoformat() writes it, with or without its zone
// (then UTC).
func parseISOTime(s string) (time.Time, error) {
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		var t time.Time
		if t, err = time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, err
}

// ifMatch reads the version the SDK sends in If-Match (its intent's version, "3"; an ETag's
// quotes are taken too): nil when there is none, and the change is then made whatever the
// version (hitl's own Python client sends none).
func ifMatch(r *http.Request) (*int64, error) {
	h := strings.TrimSpace(r.Header.Get("If-Match"))
	if h == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(strings.Trim(strings.TrimPrefix(h, "W/"), `"`), 10, 64)
	if err != nil || n < 0 {
		return nil, hitl.Errorf(hitl.EInvalid, "If-Match must be the version of the intent you read (a whole number, the version field of GET /api/v1/intents/{id}), not %q", h)
	}
	return &n, nil
}

// sdkProblem is a problem as OpenIntent's SDK reads it: it shows message, and a stale
// version's ConflictError carries current_version.
type sdkProblem struct {
	httpwire.Problem
	CurrentVersion *int64 `json:"current_version,omitempty"`
}

// sdkErrors writes a stale version's refusal as the SDK's ConflictError reads it, with
// current_version and in an intent's words. Every other error goes back to the router, which
// writes problem+json with the message the SDK shows (and logs what is no domain error).
func sdkErrors(h httpwire.Handler) httpwire.Handler {
	return func(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
		err := h(w, r, p)
		var stale *engine.StaleVersion
		if !errors.As(err, &stale) {
			return err
		}
		body := sdkProblem{Problem: httpwire.ProblemOf(err).WithMessage(r.URL.Path), CurrentVersion: &stale.Current}
		body.Detail = fmt.Sprintf("intent %s is at version %d, not %d: it changed since you read it; read it again (GET /api/v1/intents/%s) and retry",
			stale.Key, stale.Current, stale.Given, stale.Key)
		body.Message = body.Detail
		httpwire.WriteProblemBody(w, body.Status, body)
		return nil
	}
}

// withHint is err, a refusal of a request's body, with hint added: what the body should be.
func withHint(err error, hint string) error {
	var de *hitl.Error
	if !errors.As(err, &de) {
		return err
	}
	out := *de
	out.Message = de.Message + "; " + hint
	return &out
}
