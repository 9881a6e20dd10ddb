package hitl

import "time"

// EventAuditRestored records that the database was restored from a backup (Data:
// AuditRestore): the sequences whose numbers clients hold moved past every number the server
// the backup came from may have given out after the backup, and the log goes on at a seq of
// its own beyond a gap. The audit chain goes on across that gap from the event before it
// (internal/audit); a stream resuming from a seq inside the gap is told to reset. Visible to
// admins only.
const EventAuditRestored = "audit.restored"

// AuditRestore is the data of an audit.restored event.
type AuditRestore struct {
	// BackupTakenAt is when the backup was taken, when the backup says so (hitl backup marks
	// its copies); nil when it does not (a pg_dump, a copied file).
	BackupTakenAt *time.Time `json:"backup_taken_at,omitempty"`
	// Skipped are the seqs no event of this log will ever have: from the one after the
	// backup's newest event to the one before this event. The server the backup came from may
	// have used them after the backup, for events this log does not hold.
	Skipped SeqRange `json:"skipped"`
	// NextInquiryID and NextIdentity are the first inquiry id and integer identity given out
	// after the restore.
	NextInquiryID int64 `json:"next_inquiry_id"`
	NextIdentity  int64 `json:"next_identity"`
}

// SeqRange is the seqs From to To, both included.
type SeqRange struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// Sequences are where the numbers a client may hold stand: inquiry ids, integer identities
// (Attune names people by them) and event seqs. The other ids hitl gives out — of keys,
// webhooks, chat webhooks, inbox sessions, deliveries — are random, and sessions and
// templates are named by their clients: none of those has a sequence to move.
type Sequences struct {
	// Inquiry and Identity are the last id given out (0: none yet); Event the newest event's
	// seq (0: none).
	Inquiry, Identity, Event int64
	// EventTime is the newest event's time (zero when there is none).
	EventTime time.Time
}
