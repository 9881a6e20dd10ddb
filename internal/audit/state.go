package audit

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hitl-dev/hitl"
)

// The stored state. The chain proves the log; what the API serves of an inquiry or a session
// is its row, which a change of the database could alter beside an untouched log. hitl writes
// every change of an inquiry or a session in one transaction with its event, whose data is the
// whole inquiry (session) after the change (hitl.Event), so in any one snapshot of the database
// a row is what the data of its newest event says. CheckStates and VerifyStates read each row
// with its first and newest events in one snapshot (hitl.Store.InquiryStates) and compare them
// on every member the API serves, each in canonical form; an inquiry's columns and the rows
// beside it with its document, and what is fixed at its creation with its inquiry.created
// event (rows.go); a session's owner, key and time of creation with its first event.
//
// What is not compared, deliberately:
//   - a session's counts of inquiries and its status awaiting_input (against running): reads
//     derive them from the session's inquiries (SessionStates reads the row without them),
//     and its events hold them as they were at that change; the inquiries they are made from
//     are checked themselves, their status and session columns included;
//   - the id an inquiry's stored document holds: reads take the id of its row (the document
//     was written before the row had one, with 0), and that id is compared with its events';
//   - members of a row that no read returns (a member added to an inquiry's stored document
//     that hitl.Inquiry has no field for): the API never serves them;
//   - an inquiry's idempotency keys (rows.go);
//   - the inquiries and sessions that retention removed: their rows and their events went
//     together, in the transaction that appended the checkpoint saying so, and neither is there
//     to compare. A row without events, or events without a row, is a mismatch.
//
// The row of a pending inquiry that was edited and then changed by hitl (claimed, voted on,
// reminded) goes into that change's event as it was read: from then on its newest event
// agrees with it. What no change alters is still compared with its inquiry.created event, and
// its assignees and deadline with what that event and the changes since make them; what the
// changes themselves set (its votes, claim, chain step, reminders, escalation, answer) is as
// the newest event says. The running check of a node compares each row as soon as an event
// about it is verified, and the hourly check every row, which narrows that window for those;
// only replaying every change would close it.

// StateSource is a store that reads inquiries and sessions as stored with their first and
// newest events.
type StateSource interface {
	InquiryStates(ctx context.Context, q hitl.StateQuery[int64]) ([]*hitl.InquiryState, error)
	SessionStates(ctx context.Context, q hitl.StateQuery[string]) ([]*hitl.SessionState, error)
}

// statePage is how many inquiries, or sessions, one read takes.
const statePage = 500

// Mismatch is an inquiry or a session whose stored state is not the one its events produce.
type Mismatch struct {
	Inquiry int64  // 0 for a session
	Session string // for a session
	Problem string // what differs, in words
}

func (m *Mismatch) Error() string {
	if m.Inquiry == 0 {
		return fmt.Sprintf("session %s: %s", m.Session, m.Problem)
	}
	return fmt.Sprintf("inquiry %d: %s", m.Inquiry, m.Problem)
}

// CompareMismatches orders mismatches as the checks find them: inquiries by id, then
// sessions by key.
func CompareMismatches(a, b *Mismatch) int {
	if (a.Inquiry == 0) != (b.Inquiry == 0) {
		if a.Inquiry == 0 {
			return 1
		}
		return -1
	}
	return cmp.Or(cmp.Compare(a.Inquiry, b.Inquiry), strings.Compare(a.Session, b.Session))
}

// Records names inquiries and sessions whose stored state to check (CheckStates). Its zero
// value names none.
type Records struct {
	inquiries map[int64]struct{}
	sessions  map[string]struct{}
}

// Touch adds the inquiry or the session whose state ev carries, if any.
func (r *Records) Touch(ev *hitl.Event) {
	switch {
	case ev.InquiryID != nil:
		r.AddInquiry(*ev.InquiryID)
	case ev.Session != "":
		r.addSession(ev.Session)
	}
}

// Add adds the inquiry or the session of m.
func (r *Records) Add(m *Mismatch) {
	if m.Inquiry != 0 {
		r.AddInquiry(m.Inquiry)
	} else {
		r.addSession(m.Session)
	}
}

// AddInquiry adds the inquiry id.
func (r *Records) AddInquiry(id int64) {
	if r.inquiries == nil {
		r.inquiries = map[int64]struct{}{}
	}
	r.inquiries[id] = struct{}{}
}

func (r *Records) addSession(key string) {
	if r.sessions == nil {
		r.sessions = map[string]struct{}{}
	}
	r.sessions[key] = struct{}{}
}

// Len is how many inquiries and sessions r names.
func (r *Records) Len() int { return len(r.inquiries) + len(r.sessions) }

// CheckStates compares the stored state of the inquiries and sessions r names with their
// events, and calls found with each that differs, inquiries by id, then sessions by
// key; an error from found stops it. Those that have neither a row nor an event any more
// (retention removed them) are passed over.
func CheckStates(ctx context.Context, src StateSource, r *Records, found func(*Mismatch) error) error {
	if err := checkNamed(ctx, src.InquiryStates, slices.Sorted(maps.Keys(r.inquiries)), compareInquiry, found); err != nil {
		return err
	}
	return checkNamed(ctx, src.SessionStates, slices.Sorted(maps.Keys(r.sessions)), compareSession, found)
}

// StateCount is how many inquiries and sessions VerifyStates compared.
type StateCount struct {
	Inquiries, Sessions int64
}

// VerifyStates compares the stored state of every inquiry and session with its events,
// a page at a time (each page one snapshot of the database, so that it can run beside the
// writers), and calls found with each that differs, inquiries by id, then sessions by key; an
// error from found stops it.
func VerifyStates(ctx context.Context, src StateSource, found func(*Mismatch) error) (StateCount, error) {
	var (
		n   StateCount
		err error
	)
	if n.Inquiries, err = verifyAll(ctx, src.InquiryStates, compareInquiry, found); err != nil {
		return n, err
	}
	n.Sessions, err = verifyAll(ctx, src.SessionStates, compareSession, found)
	return n, err
}

// reader reads stored states of one kind (hitl.Store.InquiryStates, SessionStates).
type reader[K int64 | string, T hitl.Inquiry | hitl.Session] func(context.Context, hitl.StateQuery[K]) ([]*hitl.StoredState[K, T], error)

// checkNamed compares the states of keys, a page of them at a time.
func checkNamed[K int64 | string, T hitl.Inquiry | hitl.Session](ctx context.Context, read reader[K, T], keys []K,
	compare func(*hitl.StoredState[K, T]) *Mismatch, found func(*Mismatch) error) error {
	for batch := range slices.Chunk(keys, statePage) {
		page, err := read(ctx, hitl.StateQuery[K]{Only: batch})
		if err != nil {
			return err
		}
		if err := compareEach(page, compare, found); err != nil {
			return err
		}
	}
	return nil
}

// verifyAll compares every state of one kind, a page at a time, and says how many it read.
// Each page is read while the one before it is compared: the reads and the comparisons take a
// core each.
func verifyAll[K int64 | string, T hitl.Inquiry | hitl.Session](ctx context.Context, read reader[K, T],
	compare func(*hitl.StoredState[K, T]) *Mismatch, found func(*Mismatch) error) (int64, error) {
	type pageRead struct {
		page []*hitl.StoredState[K, T]
		err  error
	}
	readAfter := func(after K) chan pageRead {
		c := make(chan pageRead, 1)
		go func() {
			page, err := read(ctx, hitl.StateQuery[K]{After: after, Limit: statePage})
			c <- pageRead{page, err}
		}()
		return c
	}
	var (
		n     int64
		first K
	)
	next := readAfter(first)
	defer func() {
		if next != nil {
			<-next // no read outlives the call
		}
	}()
	for {
		r := <-next
		next = nil
		if r.err != nil {
			return n, r.err
		}
		if len(r.page) == statePage {
			next = readAfter(r.page[len(r.page)-1].Key)
		}
		if err := compareEach(r.page, compare, found); err != nil {
			return n, err
		}
		n += int64(len(r.page))
		if next == nil {
			return n, nil
		}
	}
}

func compareEach[S any](page []S, compare func(S) *Mismatch, found func(*Mismatch) error) error {
	for _, st := range page {
		if m := compare(st); m != nil {
			if err := found(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// compareInquiry says how an inquiry's stored state differs from what its events say, nil
// when it does not: its document from its newest event, then its columns and the rows beside
// it from its document, then what is fixed at its creation from its inquiry.created event.
func compareInquiry(st *hitl.InquiryState) *Mismatch {
	m := compare(st, &Mismatch{Inquiry: st.Key}, "document", func(inq *hitl.Inquiry) any { return inq }, inquiryWords)
	if m != nil || st.Stored == nil || st.Newest == nil {
		return m
	}
	created, problem := createdOf(st)
	if problem == "" {
		problem = compareColumns(st.Stored, st.Columns, created, st.Newest)
	}
	if problem == "" && created != st.Stored {
		problem = compareFixed(st.Stored, created, st.First)
	}
	if problem == "" {
		return nil
	}
	return &Mismatch{Inquiry: st.Key, Problem: problem}
}

// compareSession says how a session's stored state differs from its newest event's, nil
// when it does not, and then how its owner, key and time of creation differ from its first
// event's. Its derived counts and status are left out (see above).
func compareSession(st *hitl.SessionState) *Mismatch {
	m := compare(st, &Mismatch{Session: st.Key}, "row", withoutDerived, sessionWords)
	if m != nil || st.Stored == nil || st.First == nil || st.Newest == nil || st.First.Seq == st.Newest.Seq {
		return m
	}
	first := new(hitl.Session)
	if err := json.Unmarshal(st.First.Data, first); err != nil {
		return &Mismatch{Session: st.Key, Problem: fmt.Sprintf("its first event (%d, %s) does not carry it: %v", st.First.Seq, st.First.Type, err)}
	}
	fixed := func(s *hitl.Session) *hitl.Session {
		return &hitl.Session{Key: s.Key, CreatedBy: s.CreatedBy, CreatedAt: s.CreatedAt}
	}
	stored, err := json.Marshal(fixed(st.Stored))
	if problem := differences(stored, err, fixed(first), st.First, sessionWords, "its first event says"); problem != "" {
		return &Mismatch{Session: st.Key, Problem: problem}
	}
	return nil
}

// compare fills m in with how st differs from its newest event, and returns it; nil when it
// does not. served is what is compared of a state (row: what of it is stored).
func compare[K int64 | string, T hitl.Inquiry | hitl.Session](st *hitl.StoredState[K, T], m *Mismatch, row string, served func(*T) any, words map[string]string) *Mismatch {
	if m.Problem = presence(st.Stored != nil, st.Unreadable, st.Newest, row); m.Problem != "" {
		return m
	}
	if st.Newest == nil {
		return nil
	}
	stored, err := json.Marshal(served(st.Stored))
	if err == nil && bytes.Equal(stored, st.Newest.Data) {
		return nil // the event is the state alone, as most are: no need to read it
	}
	want := new(T)
	if err := json.Unmarshal(st.Newest.Data, want); err != nil {
		m.Problem = fmt.Sprintf("its newest event (%d, %s) does not carry it: %v", st.Newest.Seq, st.Newest.Type, err)
		return m
	}
	if m.Problem = differences(stored, err, served(want), st.Newest, words, "its events say"); m.Problem == "" {
		return nil
	}
	return m
}

func withoutDerived(s *hitl.Session) any {
	out := *s
	out.PendingInquiries, out.InquiriesAsked = 0, 0
	if out.Status == hitl.SessionAwaitingInput {
		out.Status = hitl.SessionRunning
	}
	return &out
}

// presence says what is wrong when a row or its events are missing, or the row cannot be
// read (row names what of it: its document, its row); "" when both are there, or neither is
// (retention removed them; or, for a session, it has only its inquiries' events, checked
// with them).
func presence(stored bool, unreadable error, newest *hitl.Event, row string) string {
	switch {
	case newest == nil && (stored || unreadable != nil):
		return "it is stored, but the log has no event of it: it was added outside hitl, or its events were removed"
	case newest == nil:
		return ""
	case unreadable != nil:
		return fmt.Sprintf("its stored %s cannot be read (%v), but its events say it exists (event %d): it was changed outside hitl", row, unreadable, newest.Seq)
	case !stored:
		return fmt.Sprintf("it is not stored, but its events say it exists (event %d): it was removed outside hitl (retention removes the events with it)", newest.Seq)
	}
	return ""
}

// differences says in words how the stored state (marshaled, or the error of marshaling it)
// differs from want, the state that ev carries ("the stored answer is "yes" but " + says +
// " "no""), "" when it does not. Both are compared as the API serves them (marshaled from
// their type, so that only members it reads count), member by member, each in canonical
// form: texts that differ only in form (spacing, the order of an object's members, escapes,
// 1.0 against 1) are the same state.
func differences(stored []byte, err error, want any, ev *hitl.Event, words map[string]string, says string) string {
	b, errB := json.Marshal(want)
	if err := errors.Join(err, errB); err != nil {
		return fmt.Sprintf("it cannot be compared with its events (event %d): %v", ev.Seq, err)
	}
	if bytes.Equal(stored, b) {
		return ""
	}
	names, have := members(stored)
	more, values := members(b)
	for _, name := range more {
		if _, ok := have[name]; !ok {
			names = append(names, name)
		}
	}
	var diffs []string
	for _, name := range names {
		x, y := canonicalValue(have[name]), canonicalValue(values[name])
		if x == y {
			continue
		}
		what := words[name]
		if what == "" {
			what = name
		}
		diffs = append(diffs, fmt.Sprintf("the stored %s %s %s but %s %s", what, be(what), shown(have[name]), says, shown(values[name])))
	}
	if len(diffs) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (event %d)", strings.Join(diffs, ", and "), ev.Seq)
}

// inquiryWords and sessionWords name the members of an inquiry and of a session in words;
// the others go by their name.
var (
	inquiryWords = map[string]string{"status": "status", "response": "answer", "responded_by": "responder",
		"responded_by_id": "responder's identity", "relayed_by": "relay", "on_behalf_of": "away person answered for", "responded_at": "time of the answer", "comment": "comment",
		"cancel_reason": "reason for the cancellation", "declined_by": "person who declined", "votes": "votes", "assigned_to": "assignees", "timeout_at": "deadline",
		"prompt": "prompt", "context": "context", "tool_result": "tool result", "claim": "claim", "created_at": "time of creation",
		"updated_at": "time of the last change", "resumed_at": "time the agent resumed", "fallback_applied": "use of the fallback",
		"created_by": "asker", "session": "session", "request_type": "request type", "response_schema": "response schema",
		"options": "options", "escalate_to": "assignees to escalate to", "steps": "steps of its chain", "metadata": "metadata",
		"exclude_requester": "exclusion of the asker", "exclude_session_owner": "exclusion of the session's owner",
		"allowed_decisions": "decisions allowed", "tool_call": "tool call", "fallback_value": "fallback answer",
		"receipt": "receipt"}
	sessionWords = map[string]string{"status": "status", "state": "state", "result": "result", "error": "error",
		"metadata": "metadata", "agent": "agent", "created_by": "owner", "callback_url": "callback URL",
		"created_at": "time of creation", "updated_at": "time of the last change", "completed_at": "time of completion"}
	// plural are the words above that take "are".
	plural = map[string]bool{"assignees": true, "votes": true, "options": true, "assignees to escalate to": true,
		"steps of its chain": true, "decisions allowed": true}
)

// be is the verb of what: "is", or "are" for a plural.
func be(what string) string {
	if plural[what] {
		return "are"
	}
	return "is"
}

// members reads a JSON object's members: their names in order, and their values.
func members(obj []byte) ([]string, map[string]jsontext.Value) {
	dec := jsontext.NewDecoder(bytes.NewReader(obj))
	values := map[string]jsontext.Value{}
	var names []string
	if _, err := dec.ReadToken(); err != nil { // {
		return nil, values
	}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			break
		}
		name := tok.String() // before the next read voids the token
		v, err := dec.ReadValue()
		if err != nil {
			break
		}
		if _, seen := values[name]; !seen {
			names = append(names, name)
		}
		values[name] = slices.Clone(v)
	}
	return names, values
}

// shown is a member's value as a message says it: "none" when it is null or absent, its JSON
// text otherwise, cut short when long.
func shown(v jsontext.Value) string {
	const most = 80
	if len(v) == 0 || string(v) == "null" {
		return "none"
	}
	if len(v) <= most {
		return string(v)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return string(v[:cut]) + "…"
}

// canonicalValue is the canonical form of a JSON value (null when there is none): see
// appendCanonical. A value that cannot be read stands for itself.
func canonicalValue(v []byte) string {
	if len(v) == 0 {
		return "null"
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return string(v)
	}
	if _, err := dec.Token(); err != io.EOF {
		return string(v)
	}
	return string(appendCanonical(nil, x))
}

// appendCanonical appends x, a JSON value as encoding/json reads it with UseNumber, in one
// form of its value: objects' members sorted by name (of a name given twice, the last, as
// reads keep), no space, strings in JCS's escaping, numbers exactly (see appendNumber). Two
// texts of the same value give the same bytes, and two values never do.
func appendCanonical(b []byte, x any) []byte {
	switch x := x.(type) {
	case map[string]any:
		b = append(b, '{')
		for i, name := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(quote(b, name), ':')
			b = appendCanonical(b, x[name])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, v := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, v)
		}
		return append(b, ']')
	case string:
		return quote(b, x)
	case json.Number:
		return appendNumber(b, string(x))
	case bool:
		return fmt.Appendf(b, "%t", x)
	}
	return append(b, "null"...)
}

// appendNumber appends a JSON number as its digits without leading or trailing zeros and the
// power of ten they are multiplied by: "-12.50e1", "-125" and "-1.25E2" are all "-125e0", zero
// in any form "0". It never rounds: reading numbers as float64, as JCS does, would make two
// answers that differ beyond 2^53 the same, and it stays linear in the text, whatever its
// exponent.
func appendNumber(b []byte, n string) []byte {
	neg := strings.HasPrefix(n, "-")
	n = strings.TrimPrefix(n, "-")
	mantissa, exp := n, "0"
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		mantissa, exp = n[:i], n[i+1:]
	}
	whole, frac, _ := strings.Cut(mantissa, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return append(b, '0')
	}
	power, ok := new(big.Int).SetString(exp, 10)
	if !ok {
		return append(b, n...)
	}
	power.Sub(power, big.NewInt(int64(len(frac))))
	trimmed := strings.TrimRight(digits, "0")
	power.Add(power, big.NewInt(int64(len(digits)-len(trimmed))))
	if neg {
		b = append(b, '-')
	}
	b = append(b, trimmed...)
	b = append(b, 'e')
	return power.Append(b, 10)
}
