package engine

import (
	"context"
	"crypto/ed25519"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
)

// auditChain is this node's running verification of the event log: how far it has verified
// the audit chain, so that each look at it (an inquiry page, a signed head) costs only the
// events appended since the last one, whose inquiries and sessions it then compares with what
// is stored of them (internal/audit, the stored state), and the inquiry an inquiry page
// shows. Once an hour the housekeeping verifies the whole log and every stored state again
// (reverifyAudit), so that an edit of what was verified earlier shows here too.
//
// A node that finds an edit refuses to sign heads (AuditHead), and its pages say what is
// wrong, until a later look finds it undone; no restart is needed:
//   - where the chain breaks, the verification stays before the break and reads the log on
//     from there at every look, so the first look after the event is restored passes on;
//   - an inquiry or session whose stored state differs is remembered (up to auditFaultsKept)
//     and compared again at every look, and forgotten once it matches (the edit was undone) or
//     is gone with its events (retention); when more differ than are remembered, the
//     housekeeping compares every stored state again as soon as it may (each minute, or four
//     times as long as the last comparison took, which itself rests between pages: auditpace.go),
//     not each hour, and the node signs again once that finds none.
type auditChain struct {
	mu       sync.Mutex // one verification at a time; the others wait for it and reuse it
	verified audit.Verifier
	key      ed25519.PrivateKey
	// unchecked are the inquiries and sessions of the events verified whose stored state is
	// yet to be compared (a look that could not read them leaves them to the next); all says
	// there were too many to name (more than auditUncheckedMost), so every one is compared.
	unchecked audit.Records
	all       bool
	// faults are the inquiries and sessions found to differ, in order
	// (audit.CompareMismatches), at most auditFaultsKept; more says that more differ.
	faults []*audit.Mismatch
	more   bool
	// nextFull is when the whole log is to be verified again (the zero time: at the next
	// sweep).
	nextFull time.Time
}

const (
	// auditReverifyEvery is how often the whole log is verified again.
	auditReverifyEvery = time.Hour
	// auditFaultsKept is how many inquiries and sessions whose stored state differs a node
	// remembers, to compare them again at each look.
	auditFaultsKept = 100
	// auditUncheckedMost is how many inquiries and sessions a look compares by name; past it
	// (the first look after a start walks the whole log) it compares every stored state, a
	// page at a time, rather than hold so many names.
	auditUncheckedMost = 10000
)

// storedAuditKey is the key that signs the audit heads when none is given (HITL_AUDIT_KEY):
// the one every node reads from the store, generated at the first start.
func (e *Engine) storedAuditKey(tx hitl.Tx) (ed25519.PrivateKey, error) {
	seed, err := e.setting(tx, "audit_key", audit.NewKeySeed())
	if err != nil {
		return nil, err
	}
	return audit.ParseKey(seed)
}

// VerifyAudit verifies the events appended since the last verification, compares what is
// stored of their inquiries and sessions (and of those that differed before, and of the
// inquiries named, which a page shows) with them, and returns how far the chain holds. When
// the chain breaks, or a stored state differs, the error (EConflict) names the first seq,
// inquiry or session that is wrong (one of the inquiries named first), and every later call
// says so again until it is put right.
func (e *Engine) VerifyAudit(ctx context.Context, inquiries ...int64) (audit.Verifier, error) {
	a := &e.audit
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.verified.Follow(ctx, e.store, func(ev *hitl.Event, _ audit.Verifier) error {
		if !a.all {
			a.unchecked.Touch(ev)
			if a.unchecked.Len() > auditUncheckedMost {
				a.unchecked, a.all = audit.Records{}, true
			}
		}
		return nil
	})
	if !a.all {
		for _, id := range inquiries {
			a.unchecked.AddInquiry(id)
		}
	}
	var b *audit.Break
	if err != nil && !errors.As(err, &b) {
		return a.verified, err
	}
	if err := e.compareAuditStates(ctx); err != nil {
		return a.verified, err
	}
	switch {
	case b != nil:
		e.log.Error("the audit chain does not verify", "seq", b.Seq, "err", b.Problem)
		return a.verified, hitl.Errorf(hitl.EConflict, "the audit log does not verify: %s", b)
	case len(a.faults) > 0:
		first := a.faults[0]
		if i := slices.IndexFunc(a.faults, func(m *audit.Mismatch) bool { return slices.Contains(inquiries, m.Inquiry) }); i >= 0 {
			first = a.faults[i]
		}
		return a.verified, hitl.Errorf(hitl.EConflict, "the audit log does not verify: %s", first)
	case a.more:
		return a.verified, hitl.Errorf(hitl.EConflict, "the audit log does not verify: the stored state of more than %d inquiries and sessions differed from their events; "+
			"the housekeeping compares them all again within minutes", auditFaultsKept)
	}
	return a.verified, nil
}

// compareAuditStates compares the stored state of the inquiries and sessions unchecked names,
// and of those that differed, with their events, under a.mu.
func (e *Engine) compareAuditStates(ctx context.Context) error {
	a := &e.audit
	for _, m := range a.faults {
		a.unchecked.Add(m)
	}
	if a.unchecked.Len() == 0 && !a.all {
		return nil
	}
	var found faultsFound
	var err error
	if a.all {
		_, err = audit.VerifyStates(ctx, e.store, found.add)
	} else {
		err = audit.CheckStates(ctx, e.store, &a.unchecked, found.add)
	}
	if err != nil {
		return err
	}
	e.logFaults(found.kept)
	// Every fault kept was compared again, so the ones found are all that still differ; a
	// comparison by name cannot say that none differs among those it did not name.
	more := found.over || (a.more && !a.all)
	if more && !a.more {
		a.nextFull = time.Time{} // the next sweep compares every stored state
	}
	a.faults, a.more = found.kept, more
	a.unchecked, a.all = audit.Records{}, false
	return nil
}

// faultsFound gathers what a comparison of stored states finds: the first auditFaultsKept,
// and whether there were more.
type faultsFound struct {
	kept []*audit.Mismatch
	over bool
}

func (f *faultsFound) add(m *audit.Mismatch) error {
	if len(f.kept) == auditFaultsKept {
		f.over = true
	} else {
		f.kept = append(f.kept, m)
	}
	return nil
}

// logFaults logs the stored states found to differ that were not known to already.
func (e *Engine) logFaults(found []*audit.Mismatch) {
	for _, m := range found {
		if !slices.ContainsFunc(e.audit.faults, func(known *audit.Mismatch) bool { return audit.CompareMismatches(known, m) == 0 }) {
			e.log.Error("a stored state does not match the audit log", "err", m)
		}
	}
}

// reverifyAudit verifies the whole log and every stored state again, off the lock, when it is
// due: an hour after the last time, or sooner while more stored states differ than are
// remembered (see auditChain). When the chain breaks where the running verification had passed (an event verified earlier
// was changed since), the running verification goes back to before the break; the stored
// states found to differ join those it compares at each look. From then on the inquiry pages
// and the signed heads say so.
func (e *Engine) reverifyAudit(ctx context.Context) {
	began := time.Now()
	e.audit.mu.Lock()
	due := !began.Before(e.audit.nextFull)
	if due { // also when it fails: it is tried again then
		e.audit.nextFull = began.Add(auditReverifyEvery)
		if e.audit.more {
			e.audit.nextFull = began.Add(housekeepingEvery)
		}
	}
	e.audit.mu.Unlock()
	if !due {
		return
	}
	paced := newPacedAudit(e.store)
	v, err := audit.VerifyLog(ctx, paced, audit.Published{})
	var b *audit.Break
	if err != nil && !errors.As(err, &b) {
		if ctx.Err() == nil {
			e.log.Warn("verifying the whole audit log again failed; trying again later", "err", err)
		}
		return
	}
	var found faultsFound
	if _, err := audit.VerifyStates(ctx, paced, found.add); err != nil {
		if ctx.Err() == nil {
			e.log.Warn("comparing every stored state with the audit log failed; trying again later", "err", err)
		}
		return
	}
	e.audit.mu.Lock()
	defer e.audit.mu.Unlock()
	if b != nil && v.Seq < e.audit.verified.Seq {
		e.audit.verified = *v
	}
	if b != nil {
		e.log.Error("the audit chain does not verify", "seq", b.Seq, "err", b.Problem)
	}
	e.logFaults(found.kept)
	// Those found and those known, each once: the next look compares them all again.
	faults := slices.SortedFunc(slices.Values(append(found.kept, e.audit.faults...)), audit.CompareMismatches)
	faults = slices.CompactFunc(faults, func(x, y *audit.Mismatch) bool { return audit.CompareMismatches(x, y) == 0 })
	e.audit.faults, e.audit.more = faults[:min(len(faults), auditFaultsKept)], found.over || len(faults) > auditFaultsKept
	if e.audit.more {
		e.audit.nextFull = time.Now().Add(max(housekeepingEvery, 4*time.Since(began)))
	}
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
