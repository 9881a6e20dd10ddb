package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/strictjson"
)

// inquiryMember is the member of an action's result that asks a human (Attune's convention).
const inquiryMember = "__inquiry"

// anyAnswerSchema is the answer of an "__inquiry" that says nothing of its shape: any JSON, as
// Attune takes it (POST /v1/inquiries asks for text instead).
var anyAnswerSchema = json.RawMessage(`{}`)

// IntakeActionResult takes in the result of a workflow execution's action, the way Attune's
// executor does: an action that needs a human returns, in its result, an "__inquiry" object
// (prompt, response_schema, assigned_to as a name or an integer identity, timeout_seconds, and
// any other field of POST /v1/inquiries). Without response_schema (nor request_type, options
// or template, which give hitl's) any JSON answers it, as in Attune. Every way in (REST, RabbitMQ, NATS) calls this one
// method, so they behave alike.
//
// Contract:
//   - result must be valid JSON (EInvalid otherwise). A result that is not an object, has no
//     "__inquiry" member or has "__inquiry": null asks nothing: (nil, false, nil).
//   - Otherwise the inquiry is created by p (who must be allowed to ask, EForbidden) with
//     execution = executionID and context = the rest of the result (every member but
//     "__inquiry"; none when there is no other member): (inq, true, nil).
//   - One execution creates at most one inquiry, on every node: when the execution has one
//     already, that inquiry is returned as it is now, (inq, false, nil), and nothing is
//     created or checked again, so a redelivered message or a retried request is harmless.
//     It is EConflict when p may not see that inquiry.
//   - An invalid "__inquiry" is EInvalid with the same field errors as POST /v1/inquiries,
//     their paths under /__inquiry (e.g. /__inquiry/prompt, /__inquiry/assigned_to/0: "no
//     principal has identity 123"). "__inquiry" may not set context (the rest of the result
//     is the context) nor another execution.
//   - executionID is 1 to 200 characters of A-Z a-z 0-9 . _ : - (EInvalid otherwise).
//
// Other errors are the store's (EUnavailable, internal).
func (e *Engine) IntakeActionResult(ctx context.Context, p *hitl.Principal, executionID string, result json.RawMessage) (inq *hitl.Inquiry, created bool, err error) {
	if err := mayAsk(p); err != nil {
		return nil, false, err
	}
	if !sessionKeyPattern.MatchString(executionID) {
		return nil, false, hitl.Errorf(hitl.EInvalid, "the execution id must be 1 to 200 characters of A-Z a-z 0-9 . _ : -")
	}
	if !json.Valid(result) {
		return nil, false, hitl.Errorf(hitl.EInvalid, "the result of execution %s is not valid JSON", executionID)
	}
	if result = bytes.TrimSpace(result); result[0] != '{' {
		return nil, false, nil
	}
	var members map[string]json.RawMessage
	if err := strictjson.Unmarshal(result, &members); err != nil {
		return nil, false, err // a name given twice
	}
	asked := members[inquiryMember]
	if hitl.IsNull(asked) {
		return nil, false, nil
	}
	if prev, err := e.executionInquiry(ctx, p, executionID); err != nil || prev != nil {
		return prev, false, err
	}
	req, err := inquiryInResult(asked, executionID)
	if err != nil {
		return nil, false, err
	}
	delete(members, inquiryMember)
	if len(members) > 0 {
		req.Context, _ = json.Marshal(members) // raw members of valid JSON marshal
	}
	now := e.clock()
	inq, err = e.buildInquiry(ctx, p, req, now)
	if err != nil {
		return nil, false, underInquiryMember(err)
	}
	var (
		evs  []*hitl.Event
		prev int64
	)
	err = e.store.Update(ctx, func(tx hitl.Tx) error {
		evs, prev = nil, 0
		id, err := tx.ExecutionInquiry(executionID)
		if err == nil {
			prev = id
			return nil
		}
		if hitl.ErrorCode(err) != hitl.ENotFound {
			return err
		}
		if evs, err = e.insertInquiry(tx, p, inq, now); err != nil {
			return err
		}
		if err := tx.InsertExecutionInquiry(executionID, inq.ID); hitl.ErrorCode(err) == hitl.EConflict {
			return errExecutionRace{} // another node took in the same result a moment ago
		} else if err != nil {
			return err
		}
		return nil
	})
	if errors.As(err, &errExecutionRace{}) || (err == nil && prev != 0) {
		found, err := e.executionInquiry(ctx, p, executionID)
		return found, false, err
	}
	if err != nil {
		return nil, false, err
	}
	e.published(evs)
	e.log.Debug("inquiry created from an action result", "inquiry_id", inq.ID, "execution", executionID, "actor", p.Name)
	return inq, true, nil
}

// errExecutionRace: one execution's result was taken in twice at once (on two nodes); the
// one that lost rolls back and answers with the winner's inquiry.
type errExecutionRace struct{}

func (errExecutionRace) Error() string { return "execution result taken in concurrently" }

// executionInquiry returns the inquiry an execution's result created, nil when there is none.
func (e *Engine) executionInquiry(ctx context.Context, p *hitl.Principal, execution string) (*hitl.Inquiry, error) {
	var inq *hitl.Inquiry
	err := e.store.Update(ctx, func(tx hitl.Tx) error {
		inq = nil
		id, err := tx.ExecutionInquiry(execution)
		if hitl.ErrorCode(err) == hitl.ENotFound {
			return nil
		}
		if err != nil {
			return err
		}
		inq, err = tx.Inquiry(id)
		return err
	})
	if err != nil || inq == nil {
		return nil, err
	}
	if !canSee(p, inq) {
		return nil, hitl.Errorf(hitl.EConflict, "execution %s already has an inquiry, which another principal asked", execution)
	}
	return inq, nil
}

// inquiryInResult reads the "__inquiry" member as POST /v1/inquiries reads its body.
func inquiryInResult(asked json.RawMessage, executionID string) (*hitl.InquiryRequest, error) {
	if bytes.TrimSpace(asked)[0] != '{' {
		return nil, problems{{Path: "/" + inquiryMember, Message: "must be an object with a prompt"}}.err("invalid inquiry")
	}
	var req hitl.InquiryRequest
	if err := strictjson.Unmarshal(asked, &req); err != nil {
		return nil, underInquiryMember(err)
	}
	var bad problems
	if !hitl.IsNull(req.Context) {
		bad.add("/"+inquiryMember+"/context", "is the rest of the result; leave it out of %s", inquiryMember)
	}
	if req.Execution != "" && req.Execution != executionID {
		bad.add("/"+inquiryMember+"/execution", "is %s, the execution whose result this is; leave it out", executionID)
	}
	req.Execution = executionID
	if hitl.IsNull(req.ResponseSchema) && req.RequestType == "" && len(req.Options) == 0 && req.Template == "" {
		req.ResponseSchema = anyAnswerSchema // hitl's own fields keep hitl's defaults
	}
	return &req, bad.err("invalid inquiry")
}

// underInquiryMember moves the paths of a request's field errors under /__inquiry, so that
// they point into the result that was sent.
func underInquiryMember(err error) error {
	var he *hitl.Error
	if !errors.As(err, &he) || he.Code != hitl.EInvalid {
		return err
	}
	if len(he.Fields) == 0 {
		return hitl.Errorf(hitl.EInvalid, "/%s: %s", inquiryMember, he.Message)
	}
	bad := make(problems, len(he.Fields))
	for i, f := range he.Fields {
		bad[i] = hitl.FieldError{Path: "/" + inquiryMember + f.Path, Message: f.Message}
	}
	return bad.err("invalid inquiry")
}
