package engine

import (
	"context"
	"crypto/ed25519"
	"errors"
	"sync"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
)

// auditChain is this node's running verification of the event log's audit chain: where it
// has verified to, so that each look at the chain (an inbox page, a signed head) costs only
// the events appended since the last one.
type auditChain struct {
	mu       sync.Mutex // one verification at a time; the others wait for it and reuse it
	verified audit.Verifier
	key      ed25519.PrivateKey
}

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
