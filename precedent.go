package hitl

import (
	"encoding/json"
	"time"
)

// Precedent is how the same question was answered before (answer memory): an answered
// inquiry made from the same template, or asking about the same tool with arguments of the
// same shape (the same top-level member names), shown beside an answer form so that a person
// answers alike questions alike.
type Precedent struct {
	InquiryID int64 `json:"inquiry_id"`
	// Match says why it is alike: PrecedentTemplate or PrecedentTool.
	Match       PrecedentMatch  `json:"match"`
	Prompt      string          `json:"prompt"`
	RespondedBy string          `json:"responded_by"`
	RespondedAt time.Time       `json:"responded_at"`
	Response    json.RawMessage `json:"response"`
	Decision    Decision        `json:"decision,omitempty"`
	Comment     string          `json:"comment,omitempty"`
}

// PrecedentMatch says why an earlier inquiry is a precedent.
type PrecedentMatch string

const (
	PrecedentTemplate PrecedentMatch = "template"
	PrecedentTool     PrecedentMatch = "tool"
)

// Precedents are the precedents of one inquiry, newest first.
type Precedents struct {
	InquiryID  int64       `json:"inquiry_id"`
	Precedents []Precedent `json:"precedents"`
}

const (
	// MaxPrecedents is how many precedents an answer form shows at most.
	MaxPrecedents = 5
	// PrecedentCandidates bounds the answered inquiries read to find them, newest first: a
	// question last answered longer ago than that many alike answers shows none.
	PrecedentCandidates = 500
)
