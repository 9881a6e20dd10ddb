package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/jsonlimit"
	"github.com/hitl-dev/hitl/receipt"
)

// One question, many askers (docs/dedup.md). Each asker keeps an inquiry of its own (its id,
// deadline, fallback, callback, session), so every way of waiting works unchanged; one of
// them, the primary, is the one people see and answer, and the others name it in Joined.
//
//   - At creation (insertJoining), an inquiry with a dedup key joins the pending primary of its
//     key when their questions are the same (DedupHash), and is a conflict when they are not;
//     without a primary it becomes one. The stores keep one pending primary per key (a unique
//     index), so two askers at once, on two nodes too, make one primary and one joined.
//   - When the primary ends with an answer (appendDecision, in the transaction that ends it),
//     the inquiries that joined it end with that answer; an ending without one (cancelled,
//     declined, timed out with no fallback: followEnding) promotes the oldest of them, and
//     people are told of it anew.
//   - A joined inquiry ends alone when its own asker cancels it or its own deadline passes;
//     it cannot be answered itself (answeringJoined).

// dedupOf sets the dedup key of a new inquiry, the one asked or, with dedup, one made from
// its template and vars or from its tool call, and the fingerprint of its question.
//
// Without a key an inquiry joins nothing unless the request says dedup: joining by default
// would change what existing clients get (their inquiry would suddenly wait on another's
// answer, and not reach people as its own).
func dedupOf(req *hitl.InquiryRequest, inq *hitl.Inquiry) error {
	var bad problems
	key := req.DedupKey
	switch n := utf8.RuneCountInString(key); {
	case n > hitl.MaxDedupKey:
		bad.add("/dedup_key", "is %d characters long; at most %d are allowed", n, hitl.MaxDedupKey)
	case strings.TrimSpace(key) != key || strings.ContainsFunc(key, unicode.IsControl):
		bad.add("/dedup_key", "must not start or end with spaces nor hold control characters")
	case key == "" && req.Dedup && inq.Template != "":
		key = "template:" + inq.Template + ":" + digest(canonicalJSON(req.Vars))
	case key == "" && req.Dedup && inq.ToolCall != nil:
		key = "tool:" + inq.ToolCall.Name + ":" + digest(canonicalJSON(inq.ToolCall.Arguments))
	case key == "" && req.Dedup:
		bad.add("/dedup", "joins equal questions made from a template or about a tool call; give a dedup_key to join others")
	}
	if err := bad.err("invalid inquiry"); err != nil || key == "" {
		return err
	}
	inq.DedupKey, inq.DedupHash = key, questionHash(inq)
	return nil
}

// questionHash is the fingerprint of what an inquiry asks and of whom: two askers join only
// when theirs are the same. A pool counts by its name, not the member it picked.
func questionHash(inq *hitl.Inquiry) string {
	assignees := slices.Clone(inq.AssignedTo)
	if inq.Pool != "" {
		assignees = []string{hitl.PoolPrefix + inq.Pool}
	}
	slices.Sort(assignees)
	q := struct {
		Prompt      string              `json:"prompt"`
		RequestType hitl.RequestType    `json:"request_type"`
		Schema      string              `json:"schema"`
		Options     []hitl.Option       `json:"options"`
		Multiple    bool                `json:"multiple"`
		OptionsFrom string              `json:"options_from"`
		Assignees   []string            `json:"assignees"`
		Quorum      *hitl.Quorum        `json:"quorum"`
		Steps       []hitl.ApprovalStep `json:"steps"`
		Decisions   []hitl.Decision     `json:"decisions"`
		Tool        string              `json:"tool"`
		Arguments   string              `json:"arguments"`
	}{Prompt: inq.Prompt, RequestType: inq.RequestType, Schema: canonicalJSON(inq.ResponseSchema), Options: inq.Options,
		Multiple: inq.Multiple, OptionsFrom: inq.OptionsFrom, Assignees: assignees, Quorum: inq.Quorum, Steps: inq.Steps,
		Decisions: inq.AllowedDecisions}
	if inq.ToolCall != nil {
		q.Tool, q.Arguments = inq.ToolCall.Name, canonicalJSON(inq.ToolCall.Arguments)
	}
	b, _ := json.Marshal(q)
	return digest(string(b))
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// canonicalJSON is one text for equal JSON values: members in order, numbers by value (1 and
// 1.0 are one number). "" for none.
func canonicalJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	_, v, err := jsonlimit.Decode(raw, valueLimits)
	if err != nil {
		return string(raw) // validated before; equal texts are still equal
	}
	b, _ := json.Marshal(canonicalNumbers(v)) // encoding/json orders members by name
	return string(b)
}

func canonicalNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(v)); ok {
			return r.RatString() // a string: 1 and 1.0 alike, and never a rounded float
		}
		return string(v)
	case map[string]any:
		for k, w := range v {
			v[k] = canonicalNumbers(w)
		}
	case []any:
		for i, w := range v {
			v[i] = canonicalNumbers(w)
		}
	}
	return v
}

// insertJoining stores a new inquiry as insertInquiry does, joined to the pending primary of
// its dedup key when there is one. When another asker's primary was stored a moment before
// (on another node: the stores' unique index refuses a second), it joins that one.
func (e *Engine) insertJoining(tx hitl.Tx, p *hitl.Principal, inq *hitl.Inquiry, now time.Time) ([]*hitl.Event, error) {
	if err := joinPrimary(tx, inq); err != nil {
		return nil, err
	}
	evs, err := e.insertInquiry(tx, p, inq, now)
	if hitl.ErrorCode(err) != hitl.EConflict || inq.DedupKey == "" || inq.Joined != nil {
		return evs, err
	}
	if joinErr := joinPrimary(tx, inq); joinErr != nil || inq.Joined == nil {
		return nil, cmp.Or(joinErr, err) // no primary: the conflict was another (an exclusive inquiry's)
	}
	more, err := e.insertInquiry(tx, p, inq, now)
	return append(evs, more...), err
}

// joinPrimary sets inq.Joined to the pending primary of its dedup key, if there is one; a
// primary that asks another question is a conflict.
func joinPrimary(tx hitl.Tx, inq *hitl.Inquiry) error {
	if inq.DedupKey == "" {
		return nil
	}
	primary, err := tx.PendingDedupPrimary(inq.DedupKey)
	switch {
	case hitl.ErrorCode(err) == hitl.ENotFound:
		return nil
	case err != nil:
		return err
	case primary.DedupHash != inq.DedupHash:
		return hitl.Errorf(hitl.EConflict, "dedup key %q is pending with a different question; "+
			"ask the same question (prompt, request type, schema or options, assignees) to join it, or use another key", inq.DedupKey)
	}
	inq.Joined = &primary.ID
	return nil
}

// answeringJoined refuses an answer to a joined inquiry: people answer the one it joined, and
// the answer reaches every asker. (Forwarding it there would answer a question the person did
// not see as such; the conflict names the one to answer.)
func answeringJoined(inq *hitl.Inquiry) error {
	if inq.Joined == nil {
		return nil
	}
	return hitl.Errorf(hitl.EConflict, "inquiry %d joined inquiry %d, which asks the same question: answer inquiry %d, and its answer reaches both", inq.ID, *inq.Joined, *inq.Joined)
}

// answered tells whether an ended inquiry ended with an answer: a person's, a quorum's, or the
// fallback at its deadline.
func answered(inq *hitl.Inquiry) bool {
	return inq.Status == hitl.StatusResponded || (inq.Status == hitl.StatusTimeout && inq.FallbackApplied)
}

// appendDecision appends the event of an ending that decided (ev: an answer, a quorum's
// verdict, or a deadline, whose fallback value answers) and, when the inquiry ended with an
// answer, ends the inquiries that joined it with that answer, in the same transaction, each
// with its own event (so its own callback, webhook and waiters) and its own tool result. Every
// ending that may answer goes through it; an ending without an answer promotes instead
// (followEnding, in appendInquiryEvent).
func (e *Engine) appendDecision(tx hitl.Tx, typ string, out *hitl.Inquiry, actor string, now time.Time) (*hitl.Event, error) {
	ev, err := appendInquiryEvent(tx, typ, out, actor, now)
	if err != nil || out.DedupKey == "" || !answered(out) {
		return ev, err
	}
	joined, err := tx.JoinedInquiries(out.ID)
	if err != nil || len(joined) == 0 {
		return ev, err
	}
	ev.Then, err = e.endJoined(tx, ev, joined)
	return ev, err
}

// followEnding is what the end of a primary without an answer (ev, its ending event: it was
// cancelled, declined, or timed out with no fallback) means to the inquiries that joined it,
// written in the same transaction: the oldest becomes the primary and the others join it. An
// ending with an answer is appendDecision's; any other event asks nothing.
func followEnding(tx hitl.Tx, ev *hitl.Event) ([]*hitl.Event, error) {
	primary := ev.Inquiry
	if primary == nil || primary.DedupKey == "" || !primary.Status.Final() || answered(primary) {
		return nil, nil
	}
	switch ev.Type {
	case hitl.EventInquiryTimeout, hitl.EventInquiryCancelled:
	default:
		return nil, nil
	}
	joined, err := tx.JoinedInquiries(primary.ID)
	if err != nil || len(joined) == 0 {
		return nil, err
	}
	return promote(tx, primary, joined, ev.Time)
}

// endJoined ends the joined inquiries with the answer their primary ended with (ev), each
// with a receipt of its own (its id the receipt's sub) naming those the primary's names.
func (e *Engine) endJoined(tx hitl.Tx, ev *hitl.Event, joined []*hitl.Inquiry) ([]*hitl.Event, error) {
	primary := ev.Inquiry
	var decidedBy []receipt.Decider
	if primary.Receipt != "" {
		c, err := receipt.Unverified(primary.Receipt) // signed by this node a moment ago
		if err != nil {
			return nil, err
		}
		decidedBy = c.DecidedBy
	}
	evs := make([]*hitl.Event, 0, len(joined))
	for _, cur := range joined {
		out := resolved(cur, primary.Status, ev.Time)
		out.Response, out.Chosen, out.FallbackApplied = primary.Response, primary.Chosen, primary.FallbackApplied
		out.RespondedBy, out.RespondedByID, out.RespondedAt = primary.RespondedBy, primary.RespondedByID, primary.RespondedAt
		out.RelayedBy, out.OnBehalfOf, out.Comment = primary.RelayedBy, primary.OnBehalfOf, primary.Comment
		out.Votes = primary.Votes
		out.ToolResult = toolResult(out) // its own tool call's id
		if decidedBy != nil {
			if err := e.issueReceipt(out, decidedBy, ev.Time); err != nil {
				return nil, err
			}
		}
		if err := tx.ResolveInquiry(out); err != nil {
			return nil, err
		}
		e, err := appendInquiryEvent(tx, ev.Type, out, ev.Actor, ev.Time)
		if err != nil {
			return nil, err
		}
		evs = append(evs, e)
	}
	return evs, nil
}

// promote makes the oldest joined inquiry the primary in the place of one that ended without an
// answer, and the others join it: the question is still asked, of people who are told anew.
func promote(tx hitl.Tx, ended *hitl.Inquiry, joined []*hitl.Inquiry, now time.Time) ([]*hitl.Event, error) {
	next := *joined[0]
	next.Joined, next.UpdatedAt = nil, now
	if err := tx.SetJoined(&next); err != nil {
		return nil, err
	}
	ev, err := appendInquiryEventWith(tx, hitl.EventInquiryPromoted, &next, struct {
		*hitl.Inquiry
		After int64 `json:"after"`
	}{&next, ended.ID}, "system", now)
	if err != nil {
		return nil, err
	}
	evs := []*hitl.Event{ev}
	for _, cur := range joined[1:] {
		out := *cur
		out.Joined, out.UpdatedAt = &next.ID, now
		if err := tx.SetJoined(&out); err != nil {
			return nil, err
		}
		ev, err := appendInquiryEvent(tx, hitl.EventInquiryRejoined, &out, "system", now)
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// withThen is evs with the events each wrote because of it (Event.Then) after it.
func withThen(evs []*hitl.Event) []*hitl.Event {
	var n int
	for _, ev := range evs {
		n += len(ev.Then)
	}
	if n == 0 {
		return evs
	}
	out := make([]*hitl.Event, 0, len(evs)+n)
	for _, ev := range evs {
		out = append(out, ev)
		out = append(out, withThen(ev.Then)...)
	}
	return out
}

// Askers is how many agents wait for the answer to a pending inquiry people see: its own asker
// and those of the inquiries that joined it (the inbox says so); 1 for any other.
func (e *Engine) Askers(ctx context.Context, inq *hitl.Inquiry) (int, error) {
	if inq.Status != hitl.StatusPending || inq.Joined != nil || inq.DedupKey == "" {
		return 1, nil
	}
	// A count, and nothing of the joined inquiries: those who see this one may not see theirs.
	n, err := e.store.CountInquiries(ctx, hitl.InquiryFilter{Status: hitl.StatusPending, JoinedTo: inq.ID, Visibility: hitl.Visibility{All: true}})
	return n + 1, err
}

// markChanged adds to changed the inquiries that evs (and what each wrote because of it)
// changed: a timer that ends a primary ends or promotes the inquiries that joined it, which
// the same batch of timers may hold as they were before.
func markChanged(changed map[int64]bool, evs []*hitl.Event) {
	for _, ev := range withThen(evs) {
		if ev.InquiryID != nil {
			changed[*ev.InquiryID] = true
		}
	}
}
