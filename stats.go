package hitl

import "time"

// Stats are the numbers of how the humans are doing over a window of time that ends now
// (GET /v1/stats): how long they take to answer, how many questions timed out or fell back,
// the oldest question still waiting, and the answers of each day.
//
// An inquiry counts in the window when it became final in it (answered, timed out, cancelled);
// its response time is from its creation to its answer, as hitl_human_response_seconds
// measures it. Percentiles are nearest-rank over the answers counted.
type Stats struct {
	// Since is the length of the window, From and Until its ends.
	Since Duration  `json:"since"`
	From  time.Time `json:"from"`
	Until time.Time `json:"until"`
	// Scope is StatsAll (admins: every inquiry) or StatsOwn (a responder: its own; see
	// StatsOwner).
	Scope     StatsScope `json:"scope"`
	Answered  int        `json:"answered"`
	TimedOut  int        `json:"timed_out"`
	FellBack  int        `json:"fell_back"` // of those timed out, the ones that answered with their fallback value
	Cancelled int        `json:"cancelled"`
	// Pending counts the inquiries waiting now, and OldestPending is the one that has waited
	// longest (nil when none waits), whenever they were asked.
	Pending       int         `json:"pending"`
	OldestPending *PendingAge `json:"oldest_pending"`
	// ResponseTime is over every answer in the window; the others break it down by request
	// type, by the person who answered, and by the group the inquiry was assigned to (an
	// inquiry assigned to two groups counts in both; one assigned to none in no group). The
	// responders and groups are the StatsTop with the most answers, the rest folded into one
	// row named "other".
	ResponseTime  ResponseTimes   `json:"response_time"`
	ByRequestType []ResponseTimes `json:"by_request_type"`
	ByResponder   []ResponseTimes `json:"by_responder"`
	ByGroup       []ResponseTimes `json:"by_group"`
	// PerDay has one entry per UTC day of the window, oldest first, days without any too.
	PerDay []DayCount `json:"per_day"`
	// Decisions are the decision analytics of the window's answers (analytics.go): of the
	// inquiries the caller may see, with rows by person for admins and the caller only.
	Decisions *DecisionAnalytics `json:"decisions"`
	// Sampled is true when the window held more than StatsMaxAnswers answers: the response
	// times are then those of the newest StatsMaxAnswers (the counts are of all of them).
	Sampled bool `json:"sampled"`
}

// StatsScope says whose inquiries Stats count.
type StatsScope string

const (
	StatsAll StatsScope = "all"
	StatsOwn StatsScope = "own"
)

const (
	// StatsTop is how many responders and groups Stats names; the rest are folded into "other".
	StatsTop = 20
	// StatsMaxAnswers bounds the answers a store reads for the response times of one window,
	// so a large database is not read into memory: the newest ones are taken.
	StatsMaxAnswers = 50000
	// StatsOther names the row that the responders or groups beyond StatsTop are folded into.
	StatsOther = "other"
)

// ResponseTimes are the percentiles of how long the humans took to answer, in seconds.
type ResponseTimes struct {
	// Key is the request type, the responder's name or the group's name ("" for the total).
	Key   string `json:"key,omitempty"`
	Count int    `json:"count"`
	// Others is, on the row named "other", how many names are folded into it.
	Others     int     `json:"others,omitempty"`
	P50Seconds float64 `json:"p50_seconds"`
	P90Seconds float64 `json:"p90_seconds"`
}

// PendingAge is the inquiry that has waited longest for an answer.
type PendingAge struct {
	InquiryID  int64     `json:"inquiry_id"`
	CreatedAt  time.Time `json:"created_at"`
	AgeSeconds float64   `json:"age_seconds"`
}

// DayCount is what became of the inquiries of one UTC day (Date is 2026-11-25).
type DayCount struct {
	Date      string `json:"date"`
	Answered  int    `json:"answered"`
	TimedOut  int    `json:"timed_out"`
	FellBack  int    `json:"fell_back"`
	Cancelled int    `json:"cancelled"`
}

// StatsQuery selects what Store.Stats reads: the inquiries that became final from From to
// Until (both included), narrowed to Owner's when it is set.
type StatsQuery struct {
	From, Until time.Time
	Owner       *StatsOwner
	// MaxAnswers is how many answers (the newest) to read at most.
	MaxAnswers int
}

// StatsOwner narrows stats to a responder's own inquiries: those it answered (Name), and
// those assigned to one of Entries (its name and its groups as group:NAME), now or in an
// earlier step or before a reassignment.
type StatsOwner struct {
	Name    string
	Entries []string
}

// StatsData is what a store reads for Stats; the engine computes the rest.
type StatsData struct {
	// Days counts the final inquiries of each UTC day that has any, oldest first.
	Days []DayCount
	// Answers are the newest answers, newest first, at most StatsQuery.MaxAnswers.
	Answers []AnswerTime
	// More is true when the window held more answers than Answers.
	More bool
}

// AnswerTime is one answer in the window: what it was, who gave it, the groups the inquiry
// was assigned to (as group:NAME entries), and when it was asked and answered.
type AnswerTime struct {
	RequestType RequestType
	RespondedBy string
	Groups      []string
	CreatedAt   time.Time
	AnsweredAt  time.Time
}

// MaxStatsWindow is the longest window Stats covers.
const MaxStatsWindow = 366 * 24 * time.Hour

// DefaultStatsWindow is the window of GET /v1/stats without since.
const DefaultStatsWindow = 7 * 24 * time.Hour
