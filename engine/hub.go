package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/hitl-dev/hitl"
)

// streamBuffer is how many events a subscriber may fall behind before it is reset: the hub
// never blocks on a slow client, and never drops an event silently.
const streamBuffer = 1024

// StreamFilter selects the events a subscription receives, beyond what its principal may see.
type StreamFilter struct {
	Types      []string
	Session    string
	InquiryID  int64
	AssignedTo []string // inquiries assigned to any of these entries
	// AnswerableBy: inquiries that are unassigned or assigned to any of these entries.
	AnswerableBy []string
}

// FromNow, as Subscribe's after, starts a stream at the end of the log: only new events.
const FromNow = -1

// Subscription is one stream of events, in seq order: the stored ones after a seq first, then
// live ones as they commit, with no gap and no duplicate.
type Subscription struct {
	// After is the seq the stream starts after.
	After int64
	// Events delivers the events; it is closed when the subscription ends (see Reset).
	Events <-chan *StreamEvent
	events chan *StreamEvent // fed by the hub, buffered
	p      *hitl.Principal
	filter StreamFilter // its Types hold the stored types the requested aliases derive from
	// requested are the types the subscriber asked for (nil: every type but the aliases); an alias
	// (hitl.IntentAlias) is sent beside its event when asked for.
	requested []string
	hub       *hub
	mu        sync.Mutex
	last      int64 // the last seq the hub delivered
	ended     bool
	reset     bool  // the hub ended it because it fell behind
	sent      int64 // the last seq sent on Events
}

// Reset reports, once Events is closed, whether the subscriber fell too far behind and was
// cut off, and the seq it has received everything up to (where to resume).
func (s *Subscription) Reset() (resumeAfter int64, overflowed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent, s.reset
}

// Close ends the subscription.
func (s *Subscription) Close() { s.hub.remove(s) }

// hub fans the event log out to live subscriptions.
type hub struct {
	mu   sync.Mutex
	subs map[*Subscription]struct{}
}

func (h *hub) add(s *Subscription) {
	h.mu.Lock()
	if h.subs == nil {
		h.subs = make(map[*Subscription]struct{})
	}
	h.subs[s] = struct{}{}
	h.mu.Unlock()
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

func (h *hub) remove(s *Subscription) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
	s.end(false)
}

// inboxSessions lists the inbox sessions that open streams were authenticated with.
func (h *hub) inboxSessions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for s := range h.subs {
		if id := s.p.InboxSession; id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// endInboxSession ends the streams of an inbox session that has ended.
func (h *hub) endInboxSession(idHash string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if s.p.InboxSession == idHash {
			delete(h.subs, s)
			s.end(false)
		}
	}
}

// idle runs fn and reports true when nothing subscribes; it holds the hub's lock meanwhile,
// so no subscription starts in between.
func (h *hub) idle(fn func()) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.subs) > 0 {
		return false
	}
	fn()
	return true
}

// end closes the hub's side of the subscription once; reset marks an overflow.
func (s *Subscription) end(reset bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended, s.reset = true, reset
	close(s.events)
}

// publish delivers one event of the log, in seq order, to every subscription that may see it:
// the same StreamEvent to each, encoded before the first is woken, so that none waits for
// another to encode it.
func (h *hub) publish(raw *hitl.Event, inq *hitl.Inquiry, sess *hitl.Session, revokedKey string) {
	ev := NewStreamEvent(raw)
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if revokedKey != "" && s.p.KeyID == revokedKey {
			delete(h.subs, s)
			s.end(false) // a revoked token's streams end at once
			continue
		}
		if !s.wants(raw, inq, sess) {
			continue
		}
		ev.encode()
		s.mu.Lock()
		skip := ev.Seq <= s.last || s.ended
		s.mu.Unlock()
		if skip {
			continue
		}
		select {
		case s.events <- ev:
			s.mu.Lock()
			s.last = ev.Seq
			s.mu.Unlock()
		default:
			delete(h.subs, s)
			s.end(true)
		}
	}
}

// wants applies the subscription's filter and its principal's visibility, the same rule as
// the lists: inquiry events with their inquiry, session events to the session's creator, key
// events to admins.
func (s *Subscription) wants(ev *hitl.Event, inq *hitl.Inquiry, sess *hitl.Session) bool {
	f := s.filter
	if len(f.Types) > 0 && !slices.Contains(f.Types, ev.Type) {
		return false
	}
	if f.Session != "" && ev.Session != f.Session {
		return false
	}
	if f.InquiryID != 0 && (ev.InquiryID == nil || *ev.InquiryID != f.InquiryID) {
		return false
	}
	switch {
	case inq != nil:
		assigned := func(entries []string) bool {
			return slices.ContainsFunc(inq.AssignedTo, func(a string) bool { return slices.Contains(entries, a) })
		}
		if len(f.AssignedTo) > 0 && !assigned(f.AssignedTo) {
			return false
		}
		if len(f.AnswerableBy) > 0 && len(inq.AssignedTo) > 0 && !assigned(f.AnswerableBy) {
			return false
		}
		return canSee(s.p, inq)
	case len(f.AssignedTo) > 0 || len(f.AnswerableBy) > 0 || f.InquiryID != 0:
		return false
	case sess != nil:
		return ownsSession(s.p, sess) // responders see a session's status, never its events (they carry its state)
	default:
		return s.p.IsAdmin()
	}
}

// decodeForStream reads what visibility needs from an event: its inquiry or its session.
func decodeForStream(ev *hitl.Event) (*hitl.Inquiry, *hitl.Session) {
	switch {
	case ev.InquiryID != nil:
		var inq hitl.Inquiry
		if json.Unmarshal(ev.Data, &inq) == nil {
			return &inq, nil
		}
	case ev.Session != "":
		var s hitl.Session
		if json.Unmarshal(ev.Data, &s) == nil {
			return nil, &s
		}
	}
	return nil, nil
}

// Streams returns the number of open event streams, for the metrics gauge.
func (e *Engine) Streams() int { return e.hub.count() }

// Subscribe opens a stream of the events p may see that pass f, after seq after. It is
// registered before the stored events are read, so no event falls between the two.
func (e *Engine) Subscribe(ctx context.Context, p *hitl.Principal, f StreamFilter, after int64) (*Subscription, error) {
	if after < FromNow {
		return nil, hitl.Errorf(hitl.EInvalid, "after must not be negative")
	}
	if after > 0 {
		if err := e.checkPosition(ctx, after); err != nil {
			return nil, err
		}
	}
	out := make(chan *StreamEvent)
	requested := f.Types
	f.Types = nil
	for _, t := range requested {
		if sources := hitl.IntentAliasSources(t); sources != nil {
			f.Types = append(f.Types, sources...)
		} else {
			f.Types = append(f.Types, t)
		}
	}
	s := &Subscription{Events: out, events: make(chan *StreamEvent, streamBuffer), p: p, filter: f, requested: requested, hub: &e.hub}
	e.hub.add(s)
	if after == FromNow {
		var err error
		if after, err = e.store.LastEventSeq(ctx); err != nil {
			e.hub.remove(s)
			return nil, err
		}
	}
	s.After = after
	e.kickFollower()
	go s.run(ctx, e, out, after)
	return s, nil
}

// UnknownPosition is Subscribe's error for a seq this log does not know as a place to resume
// after: one beyond its newest event, or one among the seqs a restore skipped. The events the
// client saw up to it are not this log's: the server the database was restored from gave
// those seqs to events this log does not hold (or the seq is from another server). The client
// resumes after ResumeAfter, the last seq this log shares with what the client may have seen,
// and reads again what it holds.
type UnknownPosition struct {
	After, ResumeAfter int64
}

func (u *UnknownPosition) Error() string {
	return fmt.Sprintf("seq %d is no position of this event log (the database was restored from a backup, or the seq is from another server): resume after seq %d, and read again what you hold",
		u.After, u.ResumeAfter)
}

// checkPosition refuses, with an *UnknownPosition, a seq this log does not know. The event
// after a seq in a restore's gap is the audit.restored event that made the gap.
func (e *Engine) checkPosition(ctx context.Context, after int64) error {
	next, err := e.store.Events(ctx, hitl.EventFilter{After: after, Visibility: hitl.Visibility{All: true}, Limit: 1})
	if err != nil {
		return err
	}
	if len(next) == 0 {
		head, err := e.store.LastEventSeq(ctx)
		if err != nil || after <= head {
			return err
		}
		return &UnknownPosition{After: after, ResumeAfter: head}
	}
	var r hitl.AuditRestore
	if ev := next[0]; ev.Type == hitl.EventAuditRestored && json.Unmarshal(ev.Data, &r) == nil && after >= r.Skipped.From {
		return &UnknownPosition{After: after, ResumeAfter: r.Skipped.From - 1}
	}
	return nil
}

// run sends the stored events after after, then the live ones, skipping what it has sent.
func (s *Subscription) run(ctx context.Context, e *Engine, out chan<- *StreamEvent, after int64) {
	defer close(out)
	defer s.hub.remove(s)
	asked := func(typ string) bool { return s.requested == nil || slices.Contains(s.requested, typ) }
	deliver := func(ev *StreamEvent) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	send := func(ev *StreamEvent) bool {
		if asked(ev.Type) && !deliver(ev) {
			return false
		}
		// Aliases only to who names them: a stream that takes every type keeps one event a seq
		// (the WebSocket's seed protocol and seq-counting clients rely on it).
		if typ := hitl.IntentAliasType(ev.Event); typ != "" && s.requested != nil && asked(typ) && !deliver(ev.intentAlias()) {
			return false
		}
		s.mu.Lock()
		s.sent = ev.Seq
		s.mu.Unlock()
		return true
	}
	last := after
	s.mu.Lock()
	s.sent = after
	s.mu.Unlock()
	for {
		evs, err := e.store.Events(ctx, hitl.EventFilter{After: last, Types: s.filter.Types, Session: s.filter.Session,
			InquiryID: s.filter.InquiryID, Visibility: visibility(s.p), Limit: 500})
		if err != nil {
			if ctx.Err() == nil {
				e.log.Warn("replaying events for a stream failed", "err", err)
			}
			return
		}
		for _, ev := range evs {
			last = ev.Seq
			if inq, sess := decodeForStream(ev); s.wants(ev, inq, sess) && !send(NewStreamEvent(ev)) {
				return
			}
		}
		if len(evs) < 500 {
			break
		}
	}
	for ev := range s.events {
		if ev.Seq <= last {
			continue
		}
		last = ev.Seq
		if !send(ev) {
			return
		}
	}
}
