package hitltemporal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/notify"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
)

// maxCallbackBody bounds the body of one callback.
const maxCallbackBody = 8 << 20

// CallbackHandler returns the HTTP handler that receives hitl's resume callbacks for the
// inquiries AskHuman made and signals each ended one to its workflow. secret is hitl's
// callback secret (whsec_..., `hitl webhooks callback-secret`, GET /v1/callback-secret):
// a callback whose signature does not verify with it is refused with 401.
//
// It answers 200 once the workflow has the signal (or has ended, or the event is not an
// end: nothing to do); 503 when Temporal did not take the signal, so that hitl delivers the
// callback again later; 4xx for what is not a callback of hitl's for a workflow.
func CallbackHandler(tc client.Client, secret string) (http.Handler, error) {
	if tc == nil {
		return nil, errors.New("hitltemporal: no Temporal client: pass the client.Client the worker uses")
	}
	if !strings.HasPrefix(secret, "whsec_") {
		return nil, errors.New("hitltemporal: the callback secret must be hitl's, which starts with whsec_ (see `hitl webhooks callback-secret`)")
	}
	if _, err := notify.Sign(secret, "check", time.Unix(0, 0), nil); err != nil {
		return nil, fmt.Errorf("hitltemporal: the callback secret is not valid: %w", err)
	}
	return &callbackHandler{temporal: tc, secret: secret}, nil
}

type callbackHandler struct {
	temporal client.Client
	secret   string
}

// callbackBody is the part of a callback (a CloudEvent with the resume data) the handler reads.
type callbackBody struct {
	Type string `json:"type"`
	Data struct {
		Inquiry *hitl.Inquiry `json:"inquiry"`
	} `json:"data"`
}

func (h *callbackHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		problem(w, http.StatusMethodNotAllowed, "hitl's callbacks are POSTs; this address takes nothing else")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCallbackBody))
	if err != nil {
		problem(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes, or could not be read: %v", maxCallbackBody, err))
		return
	}
	if err := notify.VerifyRequest(h.secret, r.Header, body, time.Now()); err != nil {
		problem(w, http.StatusUnauthorized, "the callback's signature does not verify ("+err.Error()+"): is this handler given hitl's callback secret?")
		return
	}
	var cb callbackBody
	if err := json.Unmarshal(body, &cb); err != nil {
		problem(w, http.StatusBadRequest, "the body is not a hitl callback: "+err.Error())
		return
	}
	inq := cb.Data.Inquiry
	if inq == nil || !inq.Status.Final() {
		ok(w, "nothing to do: the event "+cb.Type+" does not end an inquiry")
		return
	}
	wid, run := inq.Metadata[MetaWorkflowID], inq.Metadata[MetaRunID]
	if wid == "" {
		problem(w, http.StatusUnprocessableEntity, fmt.Sprintf("inquiry %d has no %s in its metadata: it was not asked by hitltemporal.AskHuman, so no workflow waits for it here", inq.ID, MetaWorkflowID))
		return
	}
	err = h.temporal.SignalWorkflow(r.Context(), wid, run, SignalName(inq.ID), inq)
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		ok(w, fmt.Sprintf("nothing to do: workflow %s (run %s) has ended", wid, run))
	case err != nil:
		w.Header().Set("Retry-After", "5")
		problem(w, http.StatusServiceUnavailable, fmt.Sprintf("Temporal did not take the signal for workflow %s: %v", wid, err))
	default:
		ok(w, fmt.Sprintf("signalled workflow %s (run %s) on %s", wid, run, SignalName(inq.ID)))
	}
}

func ok(w http.ResponseWriter, detail string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"detail": detail})
}

func problem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"title": http.StatusText(status), "status": status, "detail": detail})
}
