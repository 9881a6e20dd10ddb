package hitl

// One question, many askers (docs/dedup.md): an inquiry asked with a dedup key while an equal
// one is pending joins it (Inquiry.Joined) instead of asking people again, and ends with its
// answer. When the one people see ends without an answer, the oldest that joined it takes its
// place.
const (
	// EventInquiryPromoted: an inquiry that had joined another is now the one people see,
	// because that one ended without an answer (Data: the inquiry, and "after", the ID of the
	// one that ended). People are told of it as of a new inquiry.
	EventInquiryPromoted = "inquiry.promoted"
	// EventInquiryRejoined: a joined inquiry now joins the one promoted in the place of the
	// one it had joined (Data: the inquiry).
	EventInquiryRejoined = "inquiry.rejoined"
)

// MaxDedupKey is the longest dedup key, in characters.
const MaxDedupKey = 200
