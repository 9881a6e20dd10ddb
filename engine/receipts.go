package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/receipt"
)

// Decision receipts (docs/receipts.md): when an inquiry ends with a decision, the engine signs
// a receipt of it with the server's Ed25519 key and stores it with the inquiry, so that every
// reader (GET, the wait, callbacks, webhooks, events) carries the same one. The key is a
// stored secret like the audit key, sealed under HITL_SECRET_KEY; the previous key is kept
// beside it so that receipts signed before a rotation still verify until the next one.

// The settings that hold the signing keys: the current one and the one before it ("" none).
const (
	receiptKeySetting         = "receipt_signing_key"
	receiptPreviousKeySetting = "receipt_signing_key_previous"
)

// Receipt validity defaults (serve --receipt-validity, --receipt-max-validity).
const (
	DefaultReceiptValidity    = time.Hour
	DefaultReceiptMaxValidity = 30 * 24 * time.Hour
)

// signingKeys are the keys this node signs with and publishes.
type signingKeys struct {
	mu                sync.RWMutex
	current, previous *receipt.Key
}

func (k *signingKeys) get() (current, previous *receipt.Key) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.current, k.previous
}

func (k *signingKeys) set(current, previous *receipt.Key) {
	k.mu.Lock()
	k.current, k.previous = current, previous
	k.mu.Unlock()
}

// storedSigningKeys reads the signing keys in tx, generating the current one at the first start.
func (e *Engine) storedSigningKeys(tx hitl.Tx) (current, previous *receipt.Key, err error) {
	s, err := e.setting(tx, receiptKeySetting, receipt.NewKey().String())
	if err != nil {
		return nil, nil, err
	}
	if current, err = receipt.ParseKey(s); err != nil {
		return nil, nil, fmt.Errorf("setting %s: %w", receiptKeySetting, err)
	}
	p, err := e.setting(tx, receiptPreviousKeySetting, "")
	if err != nil || p == "" {
		return current, nil, err
	}
	if previous, err = receipt.ParseKey(p); err != nil {
		return nil, nil, fmt.Errorf("setting %s: %w", receiptPreviousKeySetting, err)
	}
	return current, previous, nil
}

// checkReceiptValidity reads receipt_valid_for into the new inquiry.
func (e *Engine) checkReceiptValidity(bad *problems, req *hitl.InquiryRequest, inq *hitl.Inquiry) {
	if req.ReceiptValidFor == "" {
		return
	}
	most := e.receiptMaxValidity
	switch d, err := hitl.ParseDuration(req.ReceiptValidFor); {
	case err != nil || d <= 0:
		bad.add("/receipt_valid_for", "must be a duration like 30m or 2h, more than 0")
	case d.Duration() > most:
		bad.add("/receipt_valid_for", "must be at most %s (this server's --receipt-max-validity)", hitl.Duration(most/time.Second))
	default:
		inq.ReceiptValidFor = &d
	}
}

// JWKS is the public keys receipts are verified with, the current one first: GET
// /.well-known/jwks.json.
func (e *Engine) JWKS() receipt.JWKS {
	return receipt.KeySet(e.signing.get())
}

// ReceiptIssuer is the iss of the receipts this server signs: its public URL.
func (e *Engine) ReceiptIssuer() string { return e.receiptIssuer }

// issueReceipt signs the receipt of the decision that ends out (an inquiry resolved with an
// answer, a verdict, a rule's approval or a fallback value) and sets out.Receipt. Call it
// after out holds its final Response and before out is stored (tx.ResolveInquiry), so that
// the stored inquiry and its event carry the receipt; where the code path allows, before the
// writer (store.Update), since signing takes a little time.
//
// decidedBy are those whose answers decided, in order: one entry for a single answer, each
// voter on the winning side for a quorum or chain, {Name: "system"} for a fallback (the
// receipt then says fallback: true), and for a standing approval rule
// {Name: "rule:<id>", Rule: "<id>", Author: "<who wrote the rule>"}. now is the iat.
//
// The decision is read from out: approve, edit or reject for a tool call with decisions and
// for an approval ({"approved": false} is reject), answer otherwise.
func (e *Engine) issueReceipt(out *hitl.Inquiry, decidedBy []receipt.Decider, now time.Time) error {
	key, _ := e.signing.get()
	if key == nil {
		return hitl.Errorf(hitl.EUnavailable, "the receipt signing key is not loaded (LoadSecrets)")
	}
	validity := e.receiptValidity
	if out.ReceiptValidFor != nil {
		validity = out.ReceiptValidFor.Duration()
	}
	c := &receipt.Claims{Issuer: e.receiptIssuer, Subject: strconv.FormatInt(out.ID, 10), ID: receipt.NewID(),
		IssuedAt: now.Unix(), ExpiresAt: now.Add(validity).Unix(), Decision: receiptDecision(out),
		Fallback: out.FallbackApplied, DecidedBy: decidedBy, Template: out.Template}
	var err error
	if c.ResponseSHA256, err = receipt.SHA256Hex(out.Response); err != nil {
		return err
	}
	if out.HasDecisions() {
		c.Tool = out.ToolCall.Name
		if c.ArgsSHA256, err = receipt.SHA256Hex(decidedArguments(out)); err != nil {
			return err
		}
	}
	out.Receipt, err = receipt.Sign(key, c)
	return err
}

// receiptDecision is what a receipt says was decided about inq.
func receiptDecision(inq *hitl.Inquiry) string {
	if inq.HasDecisions() {
		// A receipt names hitl's decisions as they are; "respond" (no run, an answer instead) is an answer.
		var a hitl.DecisionAnswer
		if json.Unmarshal(inq.Response, &a) == nil && slices.Contains([]hitl.Decision{hitl.DecisionApprove, hitl.DecisionEdit, hitl.DecisionReject}, a.Decision) {
			return string(a.Decision)
		}
		return receipt.DecisionAnswer
	}
	if inq.RequestType == hitl.RequestApproval {
		var a struct {
			Approved *bool `json:"approved"`
		}
		if json.Unmarshal(inq.Response, &a) == nil && a.Approved != nil {
			if *a.Approved {
				return receipt.DecisionApprove
			}
			return receipt.DecisionReject
		}
	}
	return receipt.DecisionAnswer
}

// decidedArguments are the arguments of inq's tool call as finally decided: the edited ones
// after an edit, the proposed ones otherwise, {} for a call that had none.
func decidedArguments(inq *hitl.Inquiry) json.RawMessage {
	var a hitl.DecisionAnswer
	if json.Unmarshal(inq.Response, &a) == nil && a.Decision == hitl.DecisionEdit && len(a.Args) > 0 {
		return a.Args
	}
	if len(inq.ToolCall.Arguments) == 0 || hitl.IsNull(inq.ToolCall.Arguments) {
		return json.RawMessage(`{}`)
	}
	return inq.ToolCall.Arguments
}

// answerDeciders is who decided an inquiry that one answer resolved.
func answerDeciders(out *hitl.Inquiry) []receipt.Decider {
	d := receipt.Decider{Name: deref(out.RespondedBy)}
	d.RelayedBy, d.OnBehalfOf = deref(out.RelayedBy), deref(out.OnBehalfOf)
	return []receipt.Decider{d}
}

// voteDeciders is each voter on the winning side, in vote order.
func voteDeciders(out *hitl.Inquiry, approved bool) []receipt.Decider {
	var ds []receipt.Decider
	for _, v := range out.Votes {
		if v.Approved == approved {
			ds = append(ds, receipt.Decider{Name: v.By, RelayedBy: v.RelayedBy, OnBehalfOf: v.OnBehalfOf})
		}
	}
	return ds
}

// fallbackDeciders: nobody decided; the fallback value set in advance did.
var fallbackDeciders = []receipt.Decider{{Name: "system"}}

// RotateSigningKey makes a new current receipt signing key (admins): the current one becomes
// the previous, and the one before it is dropped, so that receipts it signed no longer verify.
// Every node picks the new keys up from the event (signing_key.rotated). It returns the new
// key's id.
func (e *Engine) RotateSigningKey(ctx context.Context, p *hitl.Principal) (string, error) {
	if err := mayAdmin(p); err != nil {
		return "", err
	}
	next := receipt.NewKey()
	var (
		evs      []*hitl.Event
		previous *receipt.Key
	)
	err := e.store.Update(ctx, func(tx hitl.Tx) error {
		cur, _, err := e.storedSigningKeys(tx)
		if err != nil {
			return err
		}
		previous = cur
		for _, s := range []struct{ name, value string }{{receiptPreviousKeySetting, cur.String()}, {receiptKeySetting, next.String()}} {
			sealed, err := e.seal(tx, s.value, hitl.StoredSecret{Kind: hitl.SecretSetting, Name: s.name}.Place())
			if err != nil {
				return err
			}
			if err := tx.SetStoredSecret(hitl.StoredSecret{Kind: hitl.SecretSetting, Name: s.name, Value: sealed}); err != nil {
				return err
			}
		}
		ev, err := appendAuditEvent(tx, hitl.EventSigningKeyRotated, map[string]string{"kid": next.ID(), "previous": cur.ID()}, p.Name, e.clock())
		evs = []*hitl.Event{ev}
		return err
	})
	if err != nil {
		return "", err
	}
	e.signing.set(next, previous)
	e.published(evs)
	return next.ID(), nil
}

// signingKeyRotated reloads the keys after another node rotated them.
func (e *Engine) signingKeyRotated(ev *hitl.Event) {
	var cur, prev *receipt.Key
	err := e.store.Update(context.Background(), func(tx hitl.Tx) (err error) {
		cur, prev, err = e.storedSigningKeys(tx)
		return err
	})
	if err != nil {
		e.log.Error("the rotated receipt signing keys cannot be read", "seq", ev.Seq, "err", err)
		return
	}
	e.signing.set(cur, prev)
}

// RedeemReceipt records that the receipt jti was used (any authenticated key), once across
// every node: ENotFound for no such receipt, EConflict when it expired or was redeemed
// before (the message says when and by whom).
func (e *Engine) RedeemReceipt(ctx context.Context, p *hitl.Principal, jti string) (*hitl.ReceiptRedemption, error) {
	now := e.clock()
	var (
		first    hitl.ReceiptRedemption
		redeemed bool
	)
	err := e.store.Update(ctx, func(tx hitl.Tx) error {
		inq, err := tx.ReceiptInquiry(jti)
		if err != nil {
			return err
		}
		if exp, err := receiptExpiry(inq.Receipt); err == nil && !now.Before(exp) {
			return hitl.Errorf(hitl.EConflict, "receipt %s expired at %s", jti, exp.Format(time.RFC3339))
		}
		first, redeemed, err = tx.RedeemReceipt(hitl.ReceiptRedemption{ID: jti, InquiryID: inq.ID, RedeemedAt: now, RedeemedBy: p.Name})
		return err
	})
	if err != nil {
		return nil, err
	}
	if !redeemed {
		return nil, hitl.Errorf(hitl.EConflict, "receipt %s already redeemed at %s by %s", jti, first.RedeemedAt.Format(time.RFC3339), first.RedeemedBy)
	}
	return &first, nil
}

// receiptExpiry reads a stored receipt's exp: the engine signed it, so its payload is trusted.
func receiptExpiry(token string) (time.Time, error) {
	c, err := receipt.Unverified(token)
	if err != nil {
		return time.Time{}, err
	}
	return c.Expiry(), nil
}
