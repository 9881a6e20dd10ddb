package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/receipt"
	"github.com/hitl-dev/hitl/schema"
)

// Standing approvals (issue 31). A rule approves, at creation, each new inquiry its scope
// covers, in the transaction that stores it, until it expires or is revoked:
//
//   - only approvals: a tool call with decisions (approved) or a plain approval
//     ({"approved": true}); never a rejection, a selection or an input;
//   - only while its author may answer the new inquiry (their current keys, its assignment,
//     separation of duties, never an inquiry the author asked);
//   - never an inquiry that needs more approvals (a quorum or a chain's step) than the people
//     who made the rule;
//   - a shadow rule approves nothing: it records inquiry.rule_matched.
//
// Several rules match: the oldest decides. The rules are few and read at every new inquiry, so
// each node keeps them in memory and forgets them at each rule event, its own or another
// node's (as the keys and absences do): a revoked rule stops at once on every node.

// ruleCache holds the stored rules between their changes.
type ruleCache struct {
	mu     sync.Mutex
	loaded bool
	list   []*compiledRule
}

type compiledRule struct {
	*hitl.Rule
	schema  *schema.Schema
	args    map[string]json.RawMessage
	matched int64
}

func (c *ruleCache) forget() {
	c.mu.Lock()
	c.loaded, c.list = false, nil
	c.mu.Unlock()
}

func isRuleEvent(ev *hitl.Event) bool {
	return ev.Type == hitl.EventRuleCreated || ev.Type == hitl.EventRuleRevoked
}

// ruleList returns the stored rules, compiled, oldest first.
func (e *Engine) ruleList(ctx context.Context) ([]*compiledRule, error) {
	c := &e.rules
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded {
		return c.list, nil
	}
	stored, err := e.store.Rules(ctx)
	if err != nil {
		return nil, err
	}
	list := make([]*compiledRule, 0, len(stored))
	for _, r := range stored {
		cr, err := compileRule(r)
		if err != nil { // stored compiled; a rule that no longer does approves nothing
			e.log.Error("a stored rule cannot be compiled", "rule", r.ID, "err", err)
			continue
		}
		list = append(list, cr)
	}
	c.loaded, c.list = true, list
	return list, nil
}

func compileRule(r *hitl.Rule) (*compiledRule, error) {
	cr := &compiledRule{Rule: r}
	if len(r.ArgsSchema) > 0 {
		s, err := schema.Compile(r.ArgsSchema)
		if err != nil {
			return nil, err
		}
		cr.schema = s
	}
	if len(r.Args) > 0 {
		if err := json.Unmarshal(r.Args, &cr.args); err != nil {
			return nil, err
		}
	}
	return cr, nil
}

// ruleArgs are what a rule's args condition looks at: a tool call's arguments, a template
// approval's context.
func ruleArgs(inq *hitl.Inquiry) json.RawMessage {
	var args json.RawMessage
	if inq.ToolCall != nil {
		args = inq.ToolCall.Arguments
	} else {
		args = inq.Context
	}
	if len(args) == 0 || string(args) == "null" {
		return json.RawMessage(`{}`)
	}
	return args
}

// covers tells whether the rule's scope covers the inquiry (not whether it may approve it).
func (r *compiledRule) covers(inq *hitl.Inquiry) bool {
	switch {
	case r.Tool != "" && (inq.ToolCall == nil || inq.ToolCall.Name != r.Tool):
		return false
	case r.Template != "" && inq.Template != r.Template:
		return false
	case r.Agent != "" && inq.CreatedBy != r.Agent:
		return false
	}
	args := ruleArgs(inq)
	if r.schema != nil && len(r.schema.Validate(args)) > 0 {
		return false
	}
	if r.args != nil {
		var got map[string]json.RawMessage
		if json.Unmarshal(args, &got) != nil {
			return false
		}
		for k, want := range r.args {
			v, ok := got[k]
			if !ok || !sameJSON(v, want) {
				return false
			}
		}
	}
	return true
}

// approvalOf is the answer a rule gives the inquiry, nil when the inquiry is not one a rule
// may approve: a tool call whose decisions allow approve, or a plain approval.
func approvalOf(inq *hitl.Inquiry) json.RawMessage {
	switch {
	case inq.HasDecisions():
		if !inq.Allows(hitl.DecisionApprove) {
			return nil
		}
		return json.RawMessage(`{"decision":"approve"}`)
	case inq.IsPlainApproval():
		return json.RawMessage(`{"approved":true}`)
	}
	return nil
}

// ruleFor is the rule that answers the new inquiry (nil: none), and whether it is in shadow
// mode. Each candidate's author must be able to answer it now.
func (e *Engine) ruleFor(ctx context.Context, inq *hitl.Inquiry) (*compiledRule, error) {
	list, err := e.ruleList(ctx)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	if approvalOf(inq) == nil {
		return nil, nil
	}
	now := e.clock()
	for _, r := range list {
		if !r.ActiveAt(now) || !r.covers(inq) {
			continue
		}
		if inq.IsVote() && r.Approvers < inq.Required() {
			continue // what needs several people needs a rule several people made
		}
		if r.Author == inq.CreatedBy {
			continue // nobody approves their own question
		}
		author, err := e.recordedPerson(ctx, r.Author)
		if err != nil {
			if hitl.ErrorCode(err) == hitl.EForbidden {
				continue
			}
			return nil, err
		}
		if mayAnswer(author, inq) != nil {
			continue
		}
		if err := e.Separated(ctx, inq, r.Author); err != nil {
			if hitl.ErrorCode(err) == hitl.EForbidden {
				continue
			}
			return nil, err
		}
		return r, nil
	}
	return nil, nil
}

// applyRule, in the transaction that inserted inq, answers it by the rule (or, in shadow mode,
// records that the rule would have) and returns the events it appended and the inquiry as it
// now stands.
func (e *Engine) applyRule(tx hitl.Tx, r *compiledRule, inq *hitl.Inquiry, now time.Time) (*hitl.Inquiry, []*hitl.Event, error) {
	if r.Shadow {
		ev, err := appendInquiryEventWith(tx, hitl.EventInquiryRuleMatched, inq, ruleMatch{inq, hitl.RuleRef{ID: r.ID, Author: r.Author}}, hitl.RuleResponderPrefix+r.ID, now)
		return inq, []*hitl.Event{ev}, err
	}
	by := hitl.RuleResponderPrefix + r.ID
	identity, err := tx.Identity(by)
	if err != nil {
		return nil, nil, err
	}
	out := resolved(inq, hitl.StatusResponded, now)
	out.Response = approvalOf(inq)
	out.RespondedBy, out.RespondedAt, out.RespondedByID = &by, &now, &identity
	out.Rule = &hitl.RuleRef{ID: r.ID, Author: r.Author}
	comment := "approved by standing rule " + r.ID + " of " + r.Author
	out.Comment = &comment
	out.ToolResult = toolResult(out)
	// Signed in the writer, unlike an answer's receipt: the inquiry's id, its subject, is
	// given by the insert just before.
	decider := receipt.Decider{Name: by, Rule: r.ID, Author: r.Author}
	if err := e.issueReceipt(out, []receipt.Decider{decider}, now); err != nil {
		return nil, nil, err
	}
	if err := tx.ResolveInquiry(out); err != nil {
		return nil, nil, err
	}
	responded, err := appendInquiryEvent(tx, hitl.EventInquiryResponded, out, by, now)
	if err != nil {
		return nil, nil, err
	}
	auto, err := appendInquiryEvent(tx, hitl.EventInquiryAutoApproved, out, by, now)
	return out, []*hitl.Event{responded, auto}, err
}

// ruleApplied counts a rule's match on this node, once the transaction committed.
func (e *Engine) ruleApplied(r *compiledRule) {
	e.rules.mu.Lock()
	r.matched++
	e.rules.mu.Unlock()
}

// ruleMatch is the data of inquiry.rule_matched: the inquiry, and the rule that would have
// approved it (matched_rule: "rule" is the inquiry's own member, which only an answer sets).
type ruleMatch struct {
	*hitl.Inquiry
	MatchedRule hitl.RuleRef `json:"matched_rule"`
}

// checkRuleRequest checks a rule request and compiles the rule it asks for.
func (e *Engine) checkRuleRequest(req *hitl.RuleRequest, now time.Time) (*compiledRule, error) {
	var bad problems
	switch {
	case req.Tool == "" && req.Template == "":
		bad.add("/tool", "a rule needs tool (a tool call's name) or template (a template's name)")
	case req.Tool != "" && req.Template != "":
		bad.add("/template", "give tool or template, not both: a rule approves one kind of inquiry")
	}
	if req.Agent != "" && !namePattern.MatchString(req.Agent) {
		bad.add("/agent", "must be 1 to 200 characters of letters, digits, . _ @ -")
	}
	max := e.ruleMaxValidity()
	switch {
	case req.ExpiresAt.IsZero():
		bad.add("/expires_at", "is required: when the rule stops approving, like %s", now.Add(8*time.Hour).UTC().Format(time.RFC3339))
	case !req.ExpiresAt.After(now):
		bad.add("/expires_at", "%s has passed already: a rule must expire in the future", req.ExpiresAt.UTC().Format(time.RFC3339))
	case req.ExpiresAt.After(now.Add(max)):
		bad.add("/expires_at", "is beyond the longest a rule may last, %s (until %s)", max, now.Add(max).UTC().Format(time.RFC3339))
	}
	r := &hitl.Rule{RuleRequest: hitl.RuleRequest{Tool: req.Tool, Template: req.Template, Agent: req.Agent, ExpiresAt: hitl.UTC(req.ExpiresAt), Shadow: req.Shadow}}
	if len(req.ArgsSchema) > 0 && string(req.ArgsSchema) != "null" {
		if _, err := schema.Compile(req.ArgsSchema); err != nil {
			bad.add("/args_schema", "is not a JSON Schema hitl can use: %s", hitl.ErrorMessage(err))
		} else {
			r.ArgsSchema = compactJSON(req.ArgsSchema)
		}
	}
	if len(req.Args) > 0 && string(req.Args) != "null" {
		var m map[string]json.RawMessage
		if json.Unmarshal(req.Args, &m) != nil {
			bad.add("/args", "must be an object of the exact values the arguments must hold, like {\"env\": \"staging\"}")
		} else {
			r.Args = compactJSON(req.Args)
		}
	}
	if err := bad.err("invalid rule"); err != nil {
		return nil, err
	}
	return compileRule(r)
}

func compactJSON(raw json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	out, _ := json.Marshal(v)
	return out
}

// ruleMaxValidity is the longest a rule may last (--rule-max-validity).
func (e *Engine) ruleMaxValidity() time.Duration {
	if e.ruleMaxValid > 0 {
		return e.ruleMaxValid
	}
	return hitl.DefaultRuleMaxValidity
}

// CreateRule makes a standing approval (admins), whose author is the caller.
func (e *Engine) CreateRule(ctx context.Context, p *hitl.Principal, req *hitl.RuleRequest) (*hitl.Rule, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	now := e.clock()
	cr, err := e.checkRuleRequest(req, now)
	if err != nil {
		return nil, err
	}
	r := cr.Rule
	r.ID = newRuleID()
	r.Author, r.Approvers, r.CreatedAt = p.Name, 1, now
	if err := e.audited(ctx, p, hitl.EventRuleCreated, r, func(tx hitl.Tx) error { return tx.InsertRule(r) }); err != nil {
		return nil, err
	}
	e.log.Info("rule created", "rule", r.ID, "tool", r.Tool, "template", r.Template, "agent", r.Agent, "expires_at", r.ExpiresAt, "actor", p.Name)
	return r, nil
}

// Rules lists the rules, oldest first: every rule to admins, their own to the others.
func (e *Engine) Rules(ctx context.Context, p *hitl.Principal) ([]*hitl.Rule, error) {
	if !p.IsAdmin() && !CanAnswer(p) {
		return nil, forbidden("listing rules needs the admin or responder role")
	}
	list, err := e.ruleList(ctx)
	if err != nil {
		return nil, err
	}
	e.rules.mu.Lock()
	defer e.rules.mu.Unlock()
	out := []*hitl.Rule{}
	for _, r := range list {
		if p.IsAdmin() || r.Author == p.Name {
			shown := *r.Rule
			shown.Matched = r.matched
			out = append(out, &shown)
		}
	}
	return out, nil
}

// RevokeRule stops a rule at once, on every node: admins revoke any, people their own.
func (e *Engine) RevokeRule(ctx context.Context, p *hitl.Principal, id string) (*hitl.Rule, error) {
	list, err := e.ruleList(ctx)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(list, func(r *compiledRule) bool { return r.ID == id })
	if i < 0 || (!p.IsAdmin() && list[i].Author != p.Name) {
		return nil, hitl.Errorf(hitl.ENotFound, "rule %s not found", id)
	}
	cur := list[i].Rule
	if cur.RevokedAt != nil {
		return nil, hitl.Errorf(hitl.EConflict, "rule %s is already revoked at %s by %s", id, cur.RevokedAt.UTC().Format(time.RFC3339), cur.RevokedBy)
	}
	now := e.clock()
	r := *cur
	r.RevokedAt, r.RevokedBy, r.Matched = &now, p.Name, 0
	if err := e.audited(ctx, p, hitl.EventRuleRevoked, &r, func(tx hitl.Tx) error { return tx.RevokeRule(&r) }); err != nil {
		return nil, err
	}
	e.log.Info("rule revoked", "rule", id, "actor", p.Name)
	return &r, nil
}

// Making a rule by answering: a person approving adds "allow_for": "8h" (and "allow_args":
// "exact", the default, or "any") to the answer, and the rule is stored with the answer, in
// its transaction: the inquiry's tool (or template), its asking agent, its arguments (exact
// values, or any), the person as author.

// allowRequested checks an answer's allow_for and returns the rule it asks for (nil when it
// asks none). Only an approval makes a rule.
func (e *Engine) allowRequested(cur *hitl.Inquiry, by string, req *hitl.ResponseRequest, response json.RawMessage, now time.Time) (*hitl.Rule, error) {
	if req.AllowFor == "" {
		if req.AllowArgs != "" {
			return nil, invalidAllow("/allow_args", "goes with allow_for, the time the rule lasts")
		}
		return nil, nil
	}
	secs, err := hitl.ParseDuration(req.AllowFor)
	d := time.Duration(secs) * time.Second
	max := e.ruleMaxValidity()
	switch {
	case err != nil || d <= 0:
		return nil, invalidAllow("/allow_for", "must be a duration like 30m, 8h or 2d")
	case d > max:
		return nil, invalidAllow("/allow_for", "is longer than the longest a rule may last, %s", max)
	case !approves(response):
		return nil, invalidAllow("/allow_for", "only an approval makes a standing approval; this answer does not approve")
	case (cur.ToolCall == nil || !cur.HasDecisions()) && cur.Template == "":
		return nil, invalidAllow("/allow_for", "a rule approves tool calls or a template's approvals, and inquiry %d is neither", cur.ID)
	}
	r := &hitl.Rule{RuleRequest: hitl.RuleRequest{Agent: cur.CreatedBy, ExpiresAt: now.Add(d)}, Author: by, Approvers: 1, CreatedAt: now}
	if cur.ToolCall != nil && cur.HasDecisions() {
		r.Tool = cur.ToolCall.Name
	} else {
		r.Template = cur.Template
	}
	switch req.AllowArgs {
	case "", "exact":
		args := ruleArgs(cur)
		var obj map[string]json.RawMessage
		if json.Unmarshal(args, &obj) != nil {
			return nil, invalidAllow("/allow_args", "the arguments are not an object, so exact values cannot be kept: give \"any\"")
		}
		r.Args = compactJSON(args)
	case "any":
	default:
		return nil, invalidAllow("/allow_args", "must be exact (the same arguments only) or any")
	}
	r.ID = newRuleID()
	return r, nil
}

// errChainAllow refuses allow_for on a chain's vote: its steps are different people's
// decisions, one after the other, which one rule cannot stand for.
var errChainAllow = invalidAllow("/allow_for", "a chain's vote cannot make a standing approval; an admin can (POST /v1/rules)")

// quorumRule makes the standing approval that the approving voters of a quorum asked for
// with their votes (allow_for), in the transaction of the quorum's verdict: one rule, made by
// as many people as asked for it (its approvers), so that it may approve inquiries that need
// that many approvals and no more (see covers). It lasts the shortest time any of them asked
// for, and keeps the exact arguments unless every one of them asked for any. Its author is
// the first of them; the votes of the verdict, which the rule.created event follows, name
// the others.
func (e *Engine) quorumRule(tx hitl.Tx, inq *hitl.Inquiry, now time.Time, evs *[]*hitl.Event) error {
	var (
		asked    []string
		shortest time.Duration
		req      = hitl.ResponseRequest{AllowArgs: "any"}
	)
	for _, v := range inq.Votes {
		if !v.Approved || v.AllowFor == "" {
			continue
		}
		secs, err := hitl.ParseDuration(v.AllowFor)
		if err != nil { // checked when the vote was cast
			continue
		}
		if d := time.Duration(secs) * time.Second; len(asked) == 0 || d < shortest {
			shortest, req.AllowFor = d, v.AllowFor
		}
		if v.AllowArgs != "any" {
			req.AllowArgs = "exact"
		}
		asked = append(asked, v.By)
	}
	if len(asked) == 0 {
		return nil
	}
	r, err := e.allowRequested(inq, asked[0], &req, json.RawMessage(`{"approved":true}`), now)
	if err != nil {
		return err
	}
	r.Approvers = len(asked)
	ev, err := insertRuleWith(tx, r, now)
	*evs = append(*evs, ev)
	return err
}

func invalidAllow(path, format string, args ...any) error {
	var bad problems
	bad.add(path, format, args...)
	return bad.err("invalid answer")
}

// approves tells whether an answer approves: a decision approve or {"approved": true}.
func approves(response json.RawMessage) bool {
	var a struct {
		Decision hitl.Decision `json:"decision"`
		Approved *bool         `json:"approved"`
	}
	if json.Unmarshal(response, &a) != nil {
		return false
	}
	return a.Decision == hitl.DecisionApprove || (a.Approved != nil && *a.Approved)
}

func newRuleID() string { return "rule_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:20] }

// insertRuleWith stores a rule that an answer asked for, in the answer's transaction.
func insertRuleWith(tx hitl.Tx, r *hitl.Rule, now time.Time) (*hitl.Event, error) {
	if err := tx.InsertRule(r); err != nil {
		return nil, err
	}
	return appendAuditEvent(tx, hitl.EventRuleCreated, r, r.Author, now)
}
