package hitl

import "time"

// Retention removes inquiries and sessions that ended long enough ago, with their events
// (hitl serve --retain-resolved, POST /v1/retention/purge, hitl purge). Each batch it removes
// leaves an audit.checkpoint event, so that the audit chain still verifies across the gaps.

// AuditCheckpoint is the data of an audit.checkpoint event: what one batch of retention
// removed, and for each run of consecutive seqs it removed, the audit hash of the run's last
// event, from which the chain goes on at the next event still in the log (internal/audit).
type AuditCheckpoint struct {
	// Before is the retention's limit: what ended before it was removed.
	Before    time.Time    `json:"before"`
	Inquiries []int64      `json:"inquiries"`
	Sessions  []string     `json:"sessions"`
	Removed   []RemovedRun `json:"removed"`
}

// RemovedRun is a run of consecutive seqs removed together: From to To, both included, and
// the hash of the event at To (64 hexadecimal digits).
type RemovedRun struct {
	From int64  `json:"from"`
	To   int64  `json:"to"`
	Hash string `json:"hash"`
}

// PurgeRequest is the body of POST /v1/retention/purge: remove what ended before Before.
type PurgeRequest struct {
	Before *time.Time `json:"before"`
}

// PurgeResult says what a purge removed, and in how many checkpoints it recorded that.
type PurgeResult struct {
	Before      time.Time `json:"before"`
	Inquiries   int       `json:"inquiries"`
	Sessions    int       `json:"sessions"`
	Events      int       `json:"events"`
	Checkpoints int       `json:"checkpoints"`
	// More: the purge stopped after its time (20 s) with more left to remove; ask again.
	More bool `json:"more"`
}
