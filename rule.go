package hitl

import (
	"encoding/json"
	"time"
)

// Standing approvals: a person who may answer says "and allow this for a while". A Rule
// approves, when it is created, each new inquiry its scope covers, until it expires or is
// revoked. The rules of when one applies are the engine's (engine/rules.go); these are their
// shapes.

// Events of rules. rule.created and rule.revoked are the audit trail of the rules (admins see
// them) and tell every node to forget the rules it remembers. inquiry.auto_approved follows
// the inquiry.responded of an inquiry that a rule answered at creation; inquiry.rule_matched
// records that a rule in shadow mode would have approved a new inquiry (which stays pending).
const (
	EventRuleCreated         = "rule.created"
	EventRuleRevoked         = "rule.revoked"
	EventInquiryAutoApproved = "inquiry.auto_approved"
	EventInquiryRuleMatched  = "inquiry.rule_matched"
	RuleResponderPrefix      = "rule:"
	DefaultRuleMaxValidity   = 7 * 24 * time.Hour
)

// Rule is a standing approval: its scope, expiry and mode as asked (RuleRequest), and who
// made it when.
type Rule struct {
	ID string `json:"id"`
	RuleRequest
	// Author is the person whose approval the rule gives; Approvers how many people made it
	// (1 today; a quorum's voters who ask for it together, later): a rule approves no inquiry
	// that needs more approvals than that.
	Author    string     `json:"author"`
	Approvers int        `json:"approvers"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	RevokedBy string     `json:"revoked_by,omitempty"`
	// Matched counts the inquiries it approved (or, in shadow mode, would have) on this node
	// since it started; it is not stored.
	Matched int64 `json:"matched"`
}

// ActiveAt tells whether the rule approves at t: not revoked, not expired.
func (r *Rule) ActiveAt(t time.Time) bool { return r.RevokedAt == nil && t.Before(r.ExpiresAt) }

// RuleRequest is the body of POST /v1/rules: what a rule approves, until when, and how.
type RuleRequest struct {
	// Tool or Template (exactly one) is what it approves: tool calls of that name, or the
	// approvals made from that template.
	Tool     string `json:"tool,omitempty"`
	Template string `json:"template,omitempty"`
	// Agent is the asking principal it approves for; "" approves any agent's.
	Agent string `json:"agent,omitempty"`
	// ArgsSchema is a JSON Schema the tool call's arguments (a template's context) must
	// satisfy; Args lists exact values: each of its members must be equal in the arguments.
	// Neither: any arguments.
	ArgsSchema json.RawMessage `json:"args_schema,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	ExpiresAt  time.Time       `json:"expires_at"`
	// Shadow rules approve nothing: they record inquiry.rule_matched, "would have approved".
	Shadow bool `json:"shadow"`
}

// RuleRef is, on an inquiry a rule answered, which rule and whose approval it gave.
type RuleRef struct {
	ID     string `json:"id"`
	Author string `json:"author"`
}

// RuleSuggestion is the standing approval the inbox offers a person who approved the same
// thing several times in a row (GET /v1/rules/suggestions): approving with AllowFor and
// AllowArgs makes it. Tool or Template, Agent and Args are what it would cover; Count is how
// many identical approvals in a row it follows.
type RuleSuggestion struct {
	Tool      string          `json:"tool,omitempty"`
	Template  string          `json:"template,omitempty"`
	Agent     string          `json:"agent"`
	Args      json.RawMessage `json:"args"`
	Count     int             `json:"count"`
	AllowFor  string          `json:"allow_for"`
	AllowArgs string          `json:"allow_args"`
}
