// Package audit makes hitl's event log tamper-evident: each event's hash chains it to the one
// before it, so that changing, removing or reordering any stored event, or cutting the log
// short of a head published earlier, shows when the chain is recomputed.
//
// The chain: hash(seq) = SHA-256(hash(seq-1) ‖ canonical(event)), with hash(0), the genesis,
// 32 zero bytes. canonical(event) is the event as one JSON object in the form RFC 8785 (JCS)
// gives it, keys in their sorted order:
//
//	{"actor":A,"data":D,"id":I,"inquiry_id":Q,"seq":S,"session":N,"time":T,"type":Y}
//
// A, I, N and Y are JSON strings in JCS's minimal escaping (N is "" for an event of no session;
// invalid UTF-8, which no writer produces, becomes U+FFFD); Q and S are integers in decimal (Q is
// null for an event of no inquiry); T is the time in UTC with exactly six fractional digits,
// 2026-11-23T07:30:00.123456Z, as both stores keep it. D is the event's data exactly as the
// store holds it — the JSON text the engine wrote, byte for byte, not canonicalized again.
// That is the one departure from JCS, and it is deliberate: the stored text is what the
// database, `hitl audit export` and verification all read, so hashing it covers every byte of
// the record; re-canonicalizing would cost the single writer about 36 µs per KiB (30 times the
// hash itself, and an inquiry's data carries its context of up to 256 KiB), and would round
// numbers beyond 2^53 to doubles, so an edit of such a number in an answer would go unseen.
// Verification requires D to be valid JSON: the object is then read one way only, so no
// different event can produce the same bytes.
//
// The chain proves the log; state.go proves that what is stored of each inquiry and session,
// what the API serves, is the state its events produce.
package audit

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hitl-dev/hitl"
)

// Hash is one link of the chain.
type Hash [sha256.Size]byte

// Genesis is the hash before the first event: 32 zero bytes.
var Genesis Hash

func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// ParseHash reads a hash written as 64 hexadecimal digits.
func ParseHash(s string) (Hash, error) {
	var h Hash
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("%q is not a hash: want 64 hexadecimal digits", s)
	}
	copy(h[:], b)
	return h, nil
}

// TimeLayout is how canonical(event) writes the event's time (always in UTC).
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// Canonical is an event's canonical JSON in two parts around its seq, which a store may learn
// only when it commits: canonical(event) = Before ‖ decimal(seq) ‖ After. Both parts are made
// from what the event says before it reaches the store's writer, so that the writer only hashes.
type Canonical struct {
	Before, After []byte
}

// Canonicalize returns the parts of ev's canonical JSON around its seq.
func Canonicalize(ev *hitl.Event) Canonical {
	b := make([]byte, 0, len(ev.Data)+len(ev.ID)+len(ev.Actor)+64)
	b = append(b, `{"actor":`...)
	b = quote(b, ev.Actor)
	b = append(b, `,"data":`...)
	b = append(b, ev.Data...)
	b = append(b, `,"id":`...)
	b = quote(b, ev.ID)
	b = append(b, `,"inquiry_id":`...)
	if ev.InquiryID == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *ev.InquiryID, 10)
	}
	b = append(b, `,"seq":`...)
	before := len(b)
	b = append(b, `,"session":`...)
	b = quote(b, ev.Session)
	b = append(b, `,"time":`...)
	b = append(b, '"')
	b = ev.Time.UTC().Truncate(time.Microsecond).AppendFormat(b, TimeLayout)
	b = append(b, '"')
	b = append(b, `,"type":`...)
	b = quote(b, ev.Type)
	b = append(b, '}')
	return Canonical{Before: b[:before:before], After: b[before:]}
}

// quote appends s as a JSON string in JCS's minimal escaping. Invalid UTF-8 comes out as
// U+FFFD, the same at every hashing, so the error that says so is not needed.
func quote(b []byte, s string) []byte {
	b, _ = jsontext.AppendQuote(b, s)
	return b
}

// Bytes is the whole canonical JSON of the event at seq.
func (c Canonical) Bytes(seq int64) []byte {
	b := append(append([]byte(nil), c.Before...), strconv.FormatInt(seq, 10)...)
	return append(b, c.After...)
}

// Link is the hash of the event at seq whose canonical JSON is c, following prev.
func Link(prev Hash, c Canonical, seq int64) Hash {
	h := sha256.New()
	h.Write(prev[:])
	h.Write(c.Before)
	var digits [20]byte
	h.Write(strconv.AppendInt(digits[:0], seq, 10))
	h.Write(c.After)
	var out Hash
	h.Sum(out[:0])
	return out
}

// Rechain gives every event of a log its link, in seq order, from the genesis: page reads the
// events after a seq (an empty page ends the log), and set stores the hash of one. The stores'
// migrations chain the events written before the chain existed with it.
func Rechain(page func(after int64) ([]*hitl.Event, error), set func(seq int64, h Hash) error) error {
	head, after := Genesis, int64(0)
	for {
		evs, err := page(after)
		if err != nil || len(evs) == 0 {
			return err
		}
		for _, ev := range evs {
			head = Link(head, Canonicalize(ev), ev.Seq)
			if err := set(ev.Seq, head); err != nil {
				return err
			}
		}
		after = evs[len(evs)-1].Seq
	}
}

// Break is where a chain stops holding: the first seq whose content, order or presence is
// wrong, and what is wrong with it.
type Break struct {
	Seq     int64
	Problem string
	gap     bool // events are missing (see gapBreak)
}

// A Break of a gap that no checkpoint accounts for is marked, so that Follow can tell it from
// the others: retention may have removed those events after the checkpoints were read.
func gapBreak(seq int64, problem string) *Break { return &Break{Seq: seq, Problem: problem, gap: true} }

func (b *Break) Error() string { return fmt.Sprintf("seq %d: %s", b.Seq, b.Problem) }

// Verifier recomputes a chain one event at a time, in seq order. Its zero value starts at
// the genesis.
type Verifier struct {
	// Seq and Hash are the last event that verified (0 and Genesis before the first).
	Seq  int64
	Hash Hash
	// Events counts the events verified; Removed the events retention removed before them,
	// which the checkpoints stand for.
	Events, Removed int64

	// removed are the runs of seqs the checkpoints learned so far removed, merged, in seq
	// order; learnedTo is the seq of the newest checkpoint learned.
	removed   []hitl.RemovedRun
	learnedTo int64
}

// Next checks the next event of the log with the hash the store keeps for it, and moves past
// it when it holds. A gap before it must be a run that a checkpoint learned removed, whose
// last hash the chain goes on from, or the seqs a restore skipped (the event is then the
// audit.restored event that says so, and the chain goes on from the event before them), or
// a removed run followed by the seqs a restore skipped.
func (v *Verifier) Next(ev *hitl.Event, stored []byte) error {
	prev := v.Hash
	if ev.Seq <= v.Seq {
		return &Break{Seq: ev.Seq, Problem: fmt.Sprintf("comes after seq %d: the log is out of order", v.Seq)}
	}
	if r := v.run(ev.Seq); r != nil {
		return &Break{Seq: ev.Seq, Problem: fmt.Sprintf("is in the log, but the checkpoint of the retention that removed seqs %d to %d says it was removed", r.From, r.To)}
	}
	removed := int64(0)
	if ev.Seq > v.Seq+1 {
		gap := v.Seq + 1 // the first seq missing that no removed run accounts for
		r := v.run(gap)
		if r != nil {
			prev, _ = ParseHash(r.Hash) // Learn checked it
			removed, gap = r.To-v.Seq, r.To+1
		}
		if gap < ev.Seq && !skips(ev, gap) {
			return v.missing(r, ev.Seq)
		}
	}
	switch {
	case len(stored) == 0:
		return &Break{Seq: ev.Seq, Problem: "has no hash: it was written outside hitl, or by a hitl without the audit chain"}
	case !json.Valid(ev.Data):
		return &Break{Seq: ev.Seq, Problem: "its data is not valid JSON: it was changed"}
	}
	h := Link(prev, Canonicalize(ev), ev.Seq)
	if string(h[:]) != string(stored) {
		return &Break{Seq: ev.Seq, Problem: "does not match its hash: the event was changed, or moved from another place in the log, or an event before it was"}
	}
	v.Removed += removed
	v.Seq, v.Hash = ev.Seq, h
	v.Events++
	return nil
}

// skips reports whether ev is the audit.restored event of a restore that skipped exactly the
// seqs from from to the one before ev. Its data is covered by its own hash, checked next.
func skips(ev *hitl.Event, from int64) bool {
	var r hitl.AuditRestore
	return ev.Type == hitl.EventAuditRestored && json.Unmarshal(ev.Data, &r) == nil &&
		r.Skipped.From == from && r.Skipped.To == ev.Seq-1
}

// missing is the break of a gap before seq next that no checkpoint accounts for (r: the run
// removed at its start, if any).
func (v *Verifier) missing(r *hitl.RemovedRun, next int64) error {
	first := v.Seq + 1
	if r != nil {
		first = r.To + 1
	}
	missing := fmt.Sprintf("seqs %d to %d are", first, next-1)
	if next == first+1 {
		missing = fmt.Sprintf("seq %d is", first)
	}
	return gapBreak(first, fmt.Sprintf("missing: %s not in the log, which goes on at seq %d, and no retention checkpoint removed them", missing, next))
}

// run is the removed run that holds seq, nil when none does.
func (v *Verifier) run(seq int64) *hitl.RemovedRun {
	i, found := slices.BinarySearchFunc(v.removed, seq, func(r hitl.RemovedRun, seq int64) int {
		switch {
		case r.To < seq:
			return -1
		case r.From > seq:
			return 1
		}
		return 0
	})
	if !found {
		return nil
	}
	return &v.removed[i]
}

// Learn takes in a checkpoint (an audit.checkpoint event): the seqs it removed may be missing
// from the log. A checkpoint is itself an event of the chain, checked when the walk reaches
// it; one that cannot be read, or that claims to remove seqs at or after its own, is a break.
func (v *Verifier) Learn(ev *hitl.Event) error {
	var cp hitl.AuditCheckpoint
	if err := json.Unmarshal(ev.Data, &cp); err != nil {
		return &Break{Seq: ev.Seq, Problem: "is a retention checkpoint that cannot be read: it was changed"}
	}
	for _, r := range cp.Removed {
		if _, err := ParseHash(r.Hash); err != nil || r.From < 1 || r.From > r.To || r.To >= ev.Seq {
			return &Break{Seq: ev.Seq, Problem: fmt.Sprintf("is a retention checkpoint with an impossible run (seqs %d to %d, hash %q): it was changed", r.From, r.To, r.Hash)}
		}
	}
	v.removed = MergeRuns(append(v.removed, cp.Removed...))
	v.learnedTo = max(v.learnedTo, ev.Seq)
	return nil
}

// MergeRuns sorts runs and joins those that touch or overlap, each joined run keeping the
// hash of its last seq: the one the chain goes on from after it.
func MergeRuns(runs []hitl.RemovedRun) []hitl.RemovedRun {
	slices.SortFunc(runs, func(a, b hitl.RemovedRun) int { return cmp.Compare(a.From, b.From) })
	out := runs[:0]
	for _, r := range runs {
		if n := len(out); n > 0 && r.From <= out[n-1].To+1 {
			if r.To > out[n-1].To {
				out[n-1].To, out[n-1].Hash = r.To, r.Hash
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// Runs groups removed events, in seq order, into the runs of consecutive seqs a checkpoint
// records.
func Runs(evs []hitl.RemovedEvent) []hitl.RemovedRun {
	var out []hitl.RemovedRun
	for _, ev := range evs {
		var h Hash
		copy(h[:], ev.Hash)
		if n := len(out); n > 0 && out[n-1].To+1 == ev.Seq {
			out[n-1].To, out[n-1].Hash = ev.Seq, h.String()
			continue
		}
		out = append(out, hitl.RemovedRun{From: ev.Seq, To: ev.Seq, Hash: h.String()})
	}
	return out
}

// Source is a store whose events carry their hashes (hitl.Store.ChainedEvents), and that
// lists events by type (the checkpoints).
type Source interface {
	ChainedEvents(ctx context.Context, after int64, fn func(ev *hitl.Event, hash []byte) error) error
	Events(ctx context.Context, f hitl.EventFilter) ([]*hitl.Event, error)
}

// checkpointPage is how many checkpoints one read takes.
const checkpointPage = 200

// learnCheckpoints takes in the checkpoints after the newest learned.
func (v *Verifier) learnCheckpoints(ctx context.Context, src Source) error {
	for {
		cps, err := src.Events(ctx, hitl.EventFilter{After: v.learnedTo, Types: []string{hitl.EventAuditCheckpoint}, Visibility: hitl.Visibility{All: true}, Limit: checkpointPage})
		if err != nil {
			return err
		}
		for _, cp := range cps {
			if err := v.Learn(cp); err != nil {
				return err
			}
		}
		if len(cps) < checkpointPage {
			return nil
		}
	}
}

// Follow verifies the events appended after the last one verified. It learns the
// checkpoints first; when a gap turns up that they do not account for, it learns those
// written since (retention may have removed events after they were learned) and goes on from
// where it stopped, as often as that finds new ones: a long walk (the housekeeping's, paced,
// or one beside several nodes' retention) can meet several such runs. A gap that no new
// checkpoint explains is a break.
// each, when not nil, is called after each event that verified, with the verifier as it stood
// before the event; an error from it stops the walk.
func (v *Verifier) Follow(ctx context.Context, src Source, each func(ev *hitl.Event, before Verifier) error) error {
	if err := v.learnCheckpoints(ctx, src); err != nil {
		return err
	}
	for {
		err := src.ChainedEvents(ctx, v.Seq, func(ev *hitl.Event, stored []byte) error {
			before := *v
			if err := v.Next(ev, stored); err != nil {
				return err
			}
			if each != nil {
				return each(ev, before)
			}
			return nil
		})
		var b *Break
		if !errors.As(err, &b) || !b.gap {
			return err
		}
		learned := v.learnedTo
		if lerr := v.learnCheckpoints(ctx, src); lerr != nil {
			return lerr
		}
		if v.learnedTo == learned {
			return err
		}
	}
}

// Published is a head published earlier (GET /v1/audit/head): the log must still reach Seq,
// and hold Hash (at Seq, when both are given).
type Published struct {
	Seq  int64
	Hash *Hash
}

// VerifyLog recomputes the whole chain of src, reading it a page at a time, and checks it
// against a head published earlier. It returns the verifier, at the last event that holds, and
// a *Break when something does not. A published head at a seq that retention has removed
// since is checked as far as the log still can: the log must reach past it.
func VerifyLog(ctx context.Context, src Source, pub Published) (*Verifier, error) {
	v := new(Verifier)
	var foundAt int64 // where pub.Hash was met
	err := v.Follow(ctx, src, func(ev *hitl.Event, before Verifier) error {
		if pub.Hash != nil && v.Hash == *pub.Hash {
			foundAt = v.Seq
		}
		if pub.Seq > 0 && v.Seq == pub.Seq && pub.Hash != nil && v.Hash != *pub.Hash {
			got := v.Hash
			*v = before
			return &Break{Seq: ev.Seq, Problem: fmt.Sprintf("its hash is %s, not %s as published: the log up to it was rewritten", got, pub.Hash)}
		}
		return nil
	})
	if err != nil {
		return v, err
	}
	switch {
	case pub.Seq > v.Seq:
		return v, &Break{Seq: v.Seq + 1, Problem: fmt.Sprintf("missing: the log ends at seq %d, but a head at seq %d was published, so the events after seq %d were removed", v.Seq, pub.Seq, v.Seq)}
	case pub.Hash != nil && foundAt == 0 && v.run(pub.Seq) == nil:
		return v, &Break{Seq: v.Seq + 1, Problem: fmt.Sprintf("missing: no event of the log has the published hash %s, so the log was cut short or rewritten", pub.Hash)}
	}
	return v, nil
}

// HeadMessage is what the signature of a head covers: the lines "hitl-audit-head", the seq in
// decimal, the hash in hexadecimal and the time of signing in RFC 3339 (UTC, whole seconds),
// joined by "\n" with none at the end.
func HeadMessage(seq int64, hash Hash, signedAt string) []byte {
	return fmt.Appendf(nil, "hitl-audit-head\n%d\n%s\n%s", seq, hash, signedAt)
}

// SignedHead is the newest event's seq and hash, signed by the server (GET /v1/audit/head).
type SignedHead struct {
	Seq       int64  `json:"seq"`
	Hash      string `json:"hash"`
	SignedAt  string `json:"signed_at"`
	Signature string `json:"signature"` // Ed25519 over HeadMessage, in standard base64
}

// Sign signs the head at seq with key.
func Sign(key ed25519.PrivateKey, seq int64, hash Hash, at time.Time) SignedHead {
	signedAt := at.UTC().Truncate(time.Second).Format(time.RFC3339)
	sig := ed25519.Sign(key, HeadMessage(seq, hash, signedAt))
	return SignedHead{Seq: seq, Hash: hash.String(), SignedAt: signedAt, Signature: base64.StdEncoding.EncodeToString(sig)}
}

// NewKeySeed returns a new signing key as its 32-byte seed in standard base64 (the form of
// HITL_AUDIT_KEY and of the key the server keeps in its database).
func NewKeySeed() string {
	seed := make([]byte, ed25519.SeedSize)
	rand.Read(seed)
	return base64.StdEncoding.EncodeToString(seed)
}

// ParseKey reads a signing key given as its 32-byte seed in standard base64.
func ParseKey(s string) (ed25519.PrivateKey, error) {
	seed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("the audit key is not an Ed25519 key: want its 32-byte seed in base64 (%d characters)", base64.StdEncoding.EncodedLen(ed25519.SeedSize))
	}
	return ed25519.NewKeyFromSeed(seed), nil
}
