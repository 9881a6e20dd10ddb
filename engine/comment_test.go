package engine_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/clock"
)

// An answer's comment is set whichever way the answer came: given beside the answer, or, for a
// plain approval, inside it as its default schema has it ({"approved": …, "comment": …}),
// which older clients send. The answer itself is kept as it was sent; a form's answer with a
// field named comment is the form's, not a comment.
func TestTheAnswersCommentIsSetWhicheverWayItCame(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), clock.NewManual(time.Now()))
	defer stop()
	form := json.RawMessage(`{"type":"object","properties":{"comment":{"type":"string"}}}`)
	for _, c := range []struct {
		name             string
		req              hitl.InquiryRequest
		answer           hitl.ResponseRequest
		wantComment      string
		wantStoredAnswer string
	}{
		{"in the approval's answer only", hitl.InquiryRequest{RequestType: hitl.RequestApproval},
			hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true,"comment":"ship it"}`)}, "ship it", `{"approved":true,"comment":"ship it"}`},
		{"beside the approval's answer only", hitl.InquiryRequest{RequestType: hitl.RequestApproval},
			hitl.ResponseRequest{Response: json.RawMessage(`{"approved":false}`), Comment: "not today"}, "not today", `{"approved":false}`},
		{"in both, as the channels send it", hitl.InquiryRequest{RequestType: hitl.RequestApproval},
			*hitl.ApprovalResponse(true, "green"), "green", `{"approved":true,"comment":"green"}`},
		{"in both, different: the one beside it", hitl.InquiryRequest{RequestType: hitl.RequestApproval},
			hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true,"comment":"in the answer"}`), Comment: "beside it"}, "beside it", `{"approved":true,"comment":"in the answer"}`},
		{"no comment", hitl.InquiryRequest{RequestType: hitl.RequestApproval},
			hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`)}, "", `{"approved":true}`},
		{"a form's field named comment", hitl.InquiryRequest{ResponseSchema: form},
			hitl.ResponseRequest{Response: json.RawMessage(`{"comment":"a field"}`)}, "", `{"comment":"a field"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := c.req
			req.Prompt = "Ship it?"
			inq, _, err := e.CreateInquiry(ctx, agent, &req, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Respond(ctx, human, inq.ID, &c.answer)
			if err != nil {
				t.Fatal(err)
			}
			comment := ""
			if got.Comment != nil {
				comment = *got.Comment
			}
			if comment != c.wantComment || string(got.Response) != c.wantStoredAnswer {
				t.Errorf("answered %s with comment %q; want %s with comment %q", got.Response, comment, c.wantStoredAnswer, c.wantComment)
			}
		})
	}
}
