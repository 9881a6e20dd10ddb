package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hitl-dev/hitl"
)

// Nova's interactions (protocol/nova): an inquiry is an interaction, its session the thread and
// task. The rules beyond hitl's own are here: the bound on an answer's size. Its Cancel button
// is Decline; which resolutions fail the task, SessionFailure.

// AnswerInteraction is Nova's answer to an interaction: Respond, once the answer is within
// Limits.NovaAnswerBytes (413 otherwise, in words: "the answer is 40 KB; Nova answers are
// limited to 32 KB").
func (e *Engine) AnswerInteraction(ctx context.Context, p *hitl.Principal, id int64, answer json.RawMessage) (*hitl.Inquiry, error) {
	if limit := e.limits.NovaAnswerBytes; len(answer) > limit {
		size, most := byteSize(len(answer), limit)
		return nil, hitl.Errorf(hitl.ETooLarge, "the answer is %s; Nova answers are limited to %s", size, most)
	}
	return e.Respond(ctx, p, id, &hitl.ResponseRequest{Response: answer})
}

// byteSize writes a size and its limit as people read them: in KB (1,024 bytes) when the limit
// is a whole number of them, the size rounded up so that it never reads as within the limit;
// else both in bytes.
func byteSize(size, limit int) (sizeText, limitText string) {
	const kb = 1024
	if limit%kb != 0 {
		return fmt.Sprintf("%d bytes", size), fmt.Sprintf("%d bytes", limit)
	}
	return fmt.Sprintf("%d KB", (size+kb-1)/kb), fmt.Sprintf("%d KB", limit/kb)
}
