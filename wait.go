package hitl

// WaitRequest waits on several inquiries over one connection (POST /v1/inquiries/wait).
type WaitRequest struct {
	IDs []int64 `json:"ids"`
	// Timeout is how long the wait lasts at most, like "30s" (default 30 s, at most 5 min).
	Timeout string `json:"timeout,omitempty"`
}

// The types of WaitMessage.
const (
	WaitInquiry = "inquiry" // one of the inquiries is final: Inquiry
	WaitError   = "error"   // one id cannot be waited on: ID, Error
	WaitWaiting = "waiting" // every id is registered and its state read: Count are still pending
	WaitPing    = "ping"    // a heartbeat
	WaitEnd     = "end"     // the last line: Reason, and Pending, the ids not final yet
)

// Reasons a wait of several inquiries ends with (WaitMessage.Reason).
const (
	WaitDone     = "done"     // every inquiry was reported
	WaitTimedOut = "timeout"  // the wait's timeout passed
	WaitShutdown = "shutdown" // the server is shutting down: wait again, on it or another node
)

// WaitMessage is one line of the answer to a WaitRequest (JSON, one per line): each inquiry
// once, when it is final (at once when it already is), or an error for an id that cannot be
// waited on; "waiting" after all were registered; "end" last.
type WaitMessage struct {
	Type    string     `json:"type"`
	Inquiry *Inquiry   `json:"inquiry,omitempty"`
	ID      int64      `json:"id,omitempty"`
	Error   *BulkError `json:"error,omitempty"`
	Count   *int       `json:"count,omitempty"`
	Reason  string     `json:"reason,omitempty"`
	Pending []int64    `json:"pending,omitempty"`
}
