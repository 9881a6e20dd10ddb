package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
)

// MaxBulkAnswers is how many inquiries one bulk answer may answer: enough for a session's
// worth of approvals, few enough that one request stays short.
const MaxBulkAnswers = 500

// maxBulkAnswers is MaxBulkAnswers, lowered by tests that need more inquiries than it.
var maxBulkAnswers = MaxBulkAnswers

// bulkWorkers answer a bulk request's inquiries side by side: a few, so that their commits
// share the store's group commits without one request taking every writer slot.
const bulkWorkers = 4

// RespondMany gives one answer to several inquiries (ids, or a filter of one session's
// pending inquiries). Each inquiry is answered on its own, exactly as Respond answers it (its
// own checks, its own transaction), so each one either is answered or is left as it was, and
// the results say which, in the order of the ids. What the caller may not see is refused as
// not found, like every other route. Mistakes in the request itself (both or neither of ids
// and filter, more than MaxBulkAnswers, no answer) refuse the whole request before anything
// is answered.
func (e *Engine) RespondMany(ctx context.Context, p *hitl.Principal, req *hitl.BulkResponseRequest) ([]hitl.BulkResult, error) {
	if !CanAnswer(p) {
		return nil, forbidden("answering needs the responder role")
	}
	if err := checkBulkRequest(req); err != nil {
		return nil, err
	}
	ids := req.IDs
	if req.Filter != nil {
		var err error
		if ids, err = e.bulkMatches(ctx, p, req.Filter); err != nil {
			return nil, err
		}
	}
	results := make([]hitl.BulkResult, len(ids))
	answer := &hitl.ResponseRequest{Response: req.Response, Comment: req.Comment}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(bulkWorkers, len(ids)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				inq, err := e.Respond(ctx, p, ids[i], answer)
				results[i] = e.bulkResult(ctx, ids[i], inq, err)
			}
		}()
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	return results, nil
}

// checkBulkRequest reports every mistake of a bulk answer's request at once.
func checkBulkRequest(req *hitl.BulkResponseRequest) error {
	var bad problems
	switch {
	case req.IDs == nil && req.Filter == nil:
		bad.add("", `name the inquiries to answer: "ids" (a list of ids) or "filter" (one session's pending inquiries)`)
	case req.IDs != nil && req.Filter != nil:
		bad.add("", `give either "ids" or "filter", not both`)
	case req.IDs != nil:
		checkBulkIDs(&bad, req.IDs)
	default:
		checkBulkFilter(&bad, req.Filter)
	}
	if len(req.Response) == 0 {
		bad.add("/response", "is required: the answer given to every inquiry")
	}
	if n := utf8.RuneCountInString(req.Comment); n > maxComment {
		bad.add("/comment", "is %d characters long; at most %d are allowed", n, maxComment)
	}
	return bad.err("invalid bulk answer")
}

func checkBulkIDs(bad *problems, ids []int64) {
	switch {
	case len(ids) == 0:
		bad.add("/ids", "is empty: list at least one inquiry id")
		return
	case len(ids) > maxBulkAnswers:
		bad.add("/ids", "lists %d inquiries; at most %d are answered at once: send them in several requests", len(ids), maxBulkAnswers)
		return
	}
	checkIDs(bad, ids)
}

// checkIDs reports the ids of a list that are no ids, and those listed twice.
func checkIDs(bad *problems, ids []int64) {
	seen := make(map[int64]int, len(ids))
	for i, id := range ids {
		if id <= 0 {
			bad.add(fmt.Sprintf("/ids/%d", i), "must be a positive inquiry id, not %d", id)
			continue
		}
		if first, ok := seen[id]; ok {
			bad.add(fmt.Sprintf("/ids/%d", i), "inquiry %d is listed twice (also at /ids/%d)", id, first)
			continue
		}
		seen[id] = i
	}
}

func checkBulkFilter(bad *problems, f *hitl.BulkFilter) {
	switch {
	case f.Session == "":
		bad.add("/filter/session", "is required: a filter answers one session's inquiries (list ids to answer across sessions)")
	case !sessionKeyPattern.MatchString(f.Session):
		bad.add("/filter/session", "must be 1 to 200 characters of letters, digits, . _ : -")
	}
	if f.Status != "" && f.Status != hitl.StatusPending {
		bad.add("/filter/status", "may only be pending: only pending inquiries can be answered")
	}
	if f.AssignedTo != "" && f.AssignedTo != "me" {
		bad.add("/filter/assigned_to", `may only be "me" (the inquiries assigned to you or one of your groups), or left out for every inquiry you may answer`)
	}
	if f.RequestType != "" && !f.RequestType.Valid() {
		bad.add("/filter/request_type", "must be approval, clarification, selection or input")
	}
}

// bulkMatches lists the ids of the pending inquiries a filter matches among those p may
// answer (unassigned, or assigned to p or one of its groups: admins too, as Respond has it),
// newest first. More than maxBulkAnswers is refused, saying how many, rather than answering
// some of them: which ones would be an accident of order.
func (e *Engine) bulkMatches(ctx context.Context, p *hitl.Principal, bf *hitl.BulkFilter) ([]int64, error) {
	f := hitl.InquiryFilter{Status: hitl.StatusPending, Session: bf.Session, RequestType: bf.RequestType,
		Visibility: hitl.Visibility{Responder: true, AnswerableBy: p.Entries()}}
	if bf.AssignedTo == "me" {
		f.AssignedTo = p.Entries()
	}
	n, err := e.store.CountInquiries(ctx, f)
	if err != nil {
		return nil, err
	}
	tooMany := func(n int) error {
		return hitl.Errorf(hitl.EInvalid, "the filter matches %d pending inquiries; at most %d are answered at once: narrow the filter, or list ids", n, maxBulkAnswers)
	}
	if n > maxBulkAnswers {
		return nil, tooMany(n)
	}
	f.Page = hitl.Page{Limit: maxBulkAnswers}
	items, next, err := e.store.Inquiries(ctx, f)
	if err != nil {
		return nil, err
	}
	if next != "" { // more were asked since they were counted
		return nil, tooMany(len(items) + 1)
	}
	ids := make([]int64, len(items))
	for i, inq := range items {
		ids[i] = inq.ID
	}
	return ids, nil
}

// bulkResult is one inquiry's outcome in words: answered, a vote that still waits for others'
// (inq pending), or refused. Errors that are not domain errors are logged and said only as
// "internal error", as the API says them.
func (e *Engine) bulkResult(ctx context.Context, id int64, inq *hitl.Inquiry, err error) hitl.BulkResult {
	switch {
	case err == nil && inq.Status == hitl.StatusPending:
		return hitl.BulkResult{ID: id, Status: hitl.BulkVoted}
	case err == nil:
		return hitl.BulkResult{ID: id, Status: hitl.BulkResponded}
	}
	var de *hitl.Error
	switch {
	case errors.As(err, &de):
	case ctx.Err() != nil: // the caller went away; the inquiries not reached yet were left alone
		return hitl.BulkResult{ID: id, Status: hitl.BulkRefused, Error: &hitl.BulkError{Code: hitl.EUnavailable, Message: "not answered: the request ended before this inquiry was reached"}}
	default:
		e.log.Error("bulk answer failed", "inquiry_id", id, "err", err)
		return hitl.BulkResult{ID: id, Status: hitl.BulkRefused, Error: &hitl.BulkError{Code: hitl.EInternal, Message: "internal error: look at the inquiry, and answer it again if it is still pending"}}
	}
	return hitl.BulkResult{ID: id, Status: hitl.BulkRefused, Error: &hitl.BulkError{Code: de.Code, Message: de.Message, Errors: slices.Clone(de.Fields)}}
}
