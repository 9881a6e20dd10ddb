package hitl

import "time"

// Decision analytics: how people decide (engine/analytics.go). Stats carries them as
// Stats.Decisions.

// DecisionAnalytics are the figures of the answers in a stats window, broken down by the
// person who answered, the group the inquiry was assigned to, the tool it asked about and
// the template it was made from.
type DecisionAnalytics struct {
	// ReadingWordsPerMinute is the reading speed "too fast" is measured against.
	ReadingWordsPerMinute int               `json:"reading_words_per_minute"`
	Total                 DecisionFigures   `json:"total"`
	ByPerson              []DecisionFigures `json:"by_person"`
	ByGroup               []DecisionFigures `json:"by_group"`
	ByTool                []DecisionFigures `json:"by_tool"`
	ByTemplate            []DecisionFigures `json:"by_template"`
}

// DecisionFigures are the figures of one row (Key is the person, group, tool or template;
// "" for the total).
type DecisionFigures struct {
	Key     string `json:"key,omitempty"`
	Answers int    `json:"answers"`
	// FirstView is from the inquiry's creation to the first time anyone who could answer it
	// saw it (over the answers whose inquiry was seen); Decision from the answerer's first
	// view (or the creation, when they never opened it) to the answer.
	FirstView ResponseTimes `json:"time_to_first_view"`
	Decision  ResponseTimes `json:"time_to_decision"`
	// WithDeadline counts the inquiries with a deadline that were answered or timed out in
	// the window, and WithinDeadline is the share of them (0 to 1) answered before it.
	WithDeadline   int      `json:"with_deadline"`
	WithinDeadline *float64 `json:"within_deadline"`
	// ApprovalThisWeek and ApprovalLastWeek are the share of approvals approved (a tool call
	// approved or edited) in the 7 days that end now and the 7 before; ApprovalChange the
	// difference (nil when either week had none).
	ApprovalThisWeek *float64 `json:"approval_rate_this_week"`
	ApprovalLastWeek *float64 `json:"approval_rate_last_week"`
	ApprovalChange   *float64 `json:"approval_rate_change"`
	// TooFast counts the decisions made in less time than reading the prompt and the context
	// takes at ReadingWordsPerMinute.
	TooFast int `json:"too_fast"`
}

// DecisionQuery selects the answered inquiries Store.Decisions reads: answered from From to
// Until, that Visibility allows, at most Max (the newest).
type DecisionQuery struct {
	From, Until time.Time
	Visibility  Visibility
	Max         int
}

// DecisionFacts are an answered inquiry and when it was first seen: by anyone (FirstViewAt)
// and by the person who answered (AnswererViewAt); nil when not.
type DecisionFacts struct {
	Inquiry        *Inquiry
	FirstViewAt    *time.Time
	AnswererViewAt *time.Time
}
