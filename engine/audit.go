package engine

import (
	"context"
	"crypto/ed25519"
	"errors"
	"sync"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
)

// auditChain is this node's running verification of the event log's audit chain: where it
// has verified to, so that each look at the chain (an inbox page, a signed head) costs only
// the events appended since the last one. Once an hour the housekeeping verifies the whole
// log again (reverifyAudit), so that an edit of events verified earlier shows here too.
type auditChain struct {
	mu       sync.Mutex // one verification at a time; the others wait for it and reuse it
	verified audit.Verifier
	key      ed25519.PrivateKey
	// lastFull is when the whole log was last verified again.
	lastFull time.Time
}

// auditReverifyEvery is how often the whole log is verified again.
const auditReverifyEvery = time.Hour

// storedAuditKey is the key that signs the audit heads when none is given (HITL_AUDIT_KEY):
// the one every node reads from the store, generated at the first start.
func (e *Engine) storedAuditKey(tx hitl.Tx) (ed25519.PrivateKey, error) {
	seed, err := e.setting(tx, "audit_key", audit.NewKeySeed())
	if err != nil {
		return nil, err
	}
	return audit.ParseKey(seed)
}

// VerifyAudit verifies the events appended since the last verification and returns how far
// the chain holds. When it breaks, the error (EConflict) names the first seq that is wrong,
// and the verifier stays before it, so every later call says so again.
func (e *Engine) VerifyAudit(ctx context.Context) (audit.Verifier, error) {
	e.audit.mu.Lock()
	defer e.audit.mu.Unlock()
	err := e.audit.verified.Follow(ctx, e.store, nil)
	var b *audit.Break
	if errors.As(err, &b) {
		e.log.Error("the audit chain does not verify", "seq", b.Seq, "err", b.Problem)
		return e.audit.verified, hitl.Errorf(hitl.EConflict, "the audit log does not verify: %s", b)
	}
	return e.audit.verified, err
}

// reverifyAudit verifies the whole log again, off the lock, when the last time is an hour ago.
// When it breaks where the running verification had passed (an event verified earlier was
// changed since), the running verification goes back to before the break, so that the inbox
// and the signed heads say so from then on.
func (e *Engine) reverifyAudit(ctx context.Context) {
	if e.audit.lastFull.After(time.Now().Add(-auditReverifyEvery)) {
		return
	}
	e.audit.lastFull = time.Now()
	v, err := audit.VerifyLog(ctx, e.store, audit.Published{})
	var b *audit.Break
	if !errors.As(err, &b) {
		if err != nil && ctx.Err() == nil {
			e.log.Warn("verifying the whole audit log again failed; trying again in an hour", "err", err)
		}
		return
	}
	e.audit.mu.Lock()
	defer e.audit.mu.Unlock()
	if v.Seq < e.audit.verified.Seq {
		e.audit.verified = *v
	}
	e.log.Error("the audit chain does not verify", "seq", b.Seq, "err", b.Problem)
}

// AuditHead is the newest event's seq and hash, verified and signed with the server's key.
// Any principal may read it: a head proves what the log held, and says nothing of its content.
func (e *Engine) AuditHead(ctx context.Context, _ *hitl.Principal) (audit.SignedHead, error) {
	v, err := e.VerifyAudit(ctx)
	if err != nil {
		return audit.SignedHead{}, err
	}
	return audit.Sign(e.audit.key, v.Seq, v.Hash, e.clock()), nil
}

// AuditPublicKey is the public half of the key that signs the audit heads.
func (e *Engine) AuditPublicKey() ed25519.PublicKey { return e.audit.key.Public().(ed25519.PublicKey) }
