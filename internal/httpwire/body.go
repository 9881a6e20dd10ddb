package httpwire

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/strictjson"
)

// DefaultMaxBodyBytes is the largest request body accepted unless configured otherwise
// (hitl serve --max-body-bytes): the API's bodies, and the inbox's forms.
const DefaultMaxBodyBytes = 1 << 20

// ReadBody reads the whole request body, at most limit bytes, before the route's handler
// runs, so that every route answers a body that is too large (413) or too slow (408) the same
// way. The server's read timeout (http.Server.ReadTimeout, set by internal/server) bounds
// the read; net/http lifts it when the body has ended, so that a long poll, a stream or an
// MCP call that then waits for the human is not cut short.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return hitl.Errorf(hitl.ETooLarge, "the request body is larger than %d bytes", mbe.Limit)
		case errors.Is(err, os.ErrDeadlineExceeded):
			return &hitl.Error{Code: CodeRequestTimeout, Message: "the request body did not arrive in time"}
		default:
			return hitl.Errorf(hitl.EInvalid, "the request body could not be read")
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return nil
}

// Decode reads the body, already read whole by ReadBody (which answered a body too large or
// too slow), into v strictly (see strictjson).
func Decode(r *http.Request, v any) error {
	body, err := io.ReadAll(r.Body) // from memory
	if err != nil {
		return hitl.Errorf(hitl.EInvalid, "the request body could not be read: %v", err)
	}
	return strictjson.Unmarshal(body, v)
}

// DecodeOptional is Decode for bodies that may be empty.
func DecodeOptional(r *http.Request, v any) error {
	if r.ContentLength == 0 {
		return nil
	}
	err := Decode(r, v)
	if r.ContentLength < 0 && errors.Is(err, strictjson.ErrEmpty) {
		return nil
	}
	return err
}
