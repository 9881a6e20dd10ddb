package engine

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/hitl-dev/hitl"
)

// SetValidating makes e call f as it validates an answer.
func SetValidating(e *Engine, f func(*hitl.Inquiry)) { e.validating = f }

// Sweep runs the housekeeping once, now, and returns how many idempotency keys it removed.
func Sweep(e *Engine) int { return e.sweep(context.Background()) }

// ReverifyAuditWhenDue runs, once and now, the housekeeping's look at whether the whole log is
// due to be verified again, as it does every minute (the first a minute after the start).
func ReverifyAuditWhenDue(e *Engine) { e.reverifyAudit(context.Background()) }

// ReverifyAudit verifies the whole log and every stored state again now, as the housekeeping
// does hourly.
func ReverifyAudit(e *Engine) {
	e.audit.mu.Lock()
	e.audit.nextFull = time.Time{}
	e.audit.mu.Unlock()
	e.reverifyAudit(context.Background())
}

// SetPurgeFor shortens how long one purge by hand works before it answers.
func SetPurgeFor(e *Engine, d time.Duration) { e.purgeFor = d }

// RetentionBatch is how many inquiries one transaction of retention removes at most.
const RetentionBatch = retentionBatch

// SignLegacyLink signs claims as answer links of the earlier version (v1.) were signed.
func SignLegacyLink(e *Engine, claims map[string]any) string {
	b, _ := json.Marshal(claims)
	payload := base64.RawURLEncoding.EncodeToString(b)
	return legacyLinkPrefix + payload + "." + e.signLink(legacyLinkPrefix, payload)
}
