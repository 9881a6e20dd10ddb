package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// inquiryEvent is an event at seq whose data is inq, as the engine writes it, with extra
// members beside it when given.
func inquiryEvent(t *testing.T, seq int64, inq *hitl.Inquiry, extra string) *hitl.Event {
	t.Helper()
	data, err := json.Marshal(inq)
	if err != nil {
		t.Fatal(err)
	}
	if extra != "" {
		data = append(data[:len(data)-1], ","+extra+"}"...)
	}
	id := inq.ID
	return &hitl.Event{Seq: seq, Type: hitl.EventInquiryResponded, InquiryID: &id, Data: data}
}

func answered(response string) *hitl.Inquiry {
	at := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	by := "ada"
	return &hitl.Inquiry{ID: 12, Status: hitl.StatusResponded, Prompt: "Ship?", AssignedTo: []string{}, Response: json.RawMessage(response),
		RespondedBy: &by, RespondedAt: &at, CreatedAt: at, UpdatedAt: at, Metadata: map[string]string{}}
}

// An inquiry is compared with its newest event on what the API serves, each member in
// canonical form: a difference of form only is none; a difference of value is named, in
// words, with both values and the event.
func TestCompareInquiry(t *testing.T) {
	ev := inquiryEvent(t, 345, answered(`"no"`), "")
	for _, c := range []struct {
		name   string
		stored *hitl.Inquiry
		event  *hitl.Event
		want   string // "" for no mismatch
	}{
		{"the same", answered(`"no"`), ev, ""},
		{"an event with more beside the inquiry", answered(`"no"`), inquiryEvent(t, 345, answered(`"no"`), `"vote":{"by":"ada"},"added":["bob"]`), ""},
		{"form only", answered(`{"b": [1.0, 2.50e1, -0], "a": "\u0041"}`), inquiryEvent(t, 345, answered(`{"a":"A","b":[1,25,0]}`), ""), ""},
		{"the answer", answered(`"yes"`), ev, `inquiry 12: the stored answer is "yes" but its events say "no" (event 345)`},
		{"numbers beyond a double's precision", answered(`{"n":12345678901234567891}`), inquiryEvent(t, 345, answered(`{"n":12345678901234567890}`), ""),
			`inquiry 12: the stored answer is {"n":12345678901234567891} but its events say {"n":12345678901234567890} (event 345)`},
		{"two members", func() *hitl.Inquiry {
			inq := answered(`"yes"`)
			mallory := "mallory"
			inq.RespondedBy = &mallory
			return inq
		}(), ev, `inquiry 12: the stored answer is "yes" but its events say "no", and the stored responder is "mallory" but its events say "ada" (event 345)`},
		{"a member the event has not", func() *hitl.Inquiry {
			inq := answered(`"no"`)
			relay := "bot"
			inq.RelayedBy = &relay
			return inq
		}(), ev, `inquiry 12: the stored relay is "bot" but its events say none (event 345)`},
		{"an away person the event has not", func() *hitl.Inquiry {
			inq := answered(`"no"`)
			away := "carol"
			inq.OnBehalfOf = &away
			return inq
		}(), ev, `inquiry 12: the stored away person answered for is "carol" but its events say none (event 345)`},
		{"an event that is not an inquiry", answered(`"no"`), &hitl.Event{Seq: 345, Type: "inquiry.odd", Data: json.RawMessage(`[1]`)},
			"inquiry 12: its newest event (345, inquiry.odd) does not carry it"},
	} {
		got := compareInquiry(&hitl.InquiryState{Key: 12, Stored: c.stored, Newest: c.event})
		switch {
		case c.want == "" && got != nil:
			t.Errorf("%s: %v; want no mismatch", c.name, got)
		case c.want != "" && (got == nil || !strings.HasPrefix(got.Error(), c.want)):
			t.Errorf("%s: %v; want %q", c.name, got, c.want)
		}
	}
}

// A row without events, events without a row, and a row that cannot be read are mismatches;
// neither (retention removed both) is none.
func TestCompareWhatIsMissing(t *testing.T) {
	ev := inquiryEvent(t, 7, answered(`"no"`), "")
	for _, c := range []struct {
		st   hitl.InquiryState
		want string
	}{
		{hitl.InquiryState{Key: 12, Stored: answered(`"no"`)}, "inquiry 12: it is stored, but the log has no event of it"},
		{hitl.InquiryState{Key: 12, Newest: ev}, "inquiry 12: it is not stored, but its events say it exists (event 7): it was removed outside hitl"},
		{hitl.InquiryState{Key: 12, Unreadable: errors.New("invalid character 'x'"), Newest: ev}, "inquiry 12: its stored document cannot be read (invalid character 'x')"},
		{hitl.InquiryState{Key: 12}, ""},
	} {
		got := compareInquiry(&c.st)
		if (c.want == "") != (got == nil) || got != nil && !strings.HasPrefix(got.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", c.st, got, c.want)
		}
	}
}

// A session is compared without what reads derive from its inquiries: its counts, and
// awaiting_input for running. Its other members count.
func TestCompareSession(t *testing.T) {
	at := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	session := func(status hitl.SessionStatus, pending int, state string) *hitl.Session {
		return &hitl.Session{Key: "run-1", Status: status, Agent: "a", State: json.RawMessage(state), Metadata: map[string]string{},
			PendingInquiries: pending, InquiriesAsked: pending + 1, CreatedAt: at, UpdatedAt: at}
	}
	event := func(s *hitl.Session) *hitl.Event {
		data, _ := json.Marshal(s)
		return &hitl.Event{Seq: 9, Type: hitl.EventSessionUpdated, Session: s.Key, Data: data}
	}
	if m := compareSession(&hitl.SessionState{Key: "run-1", Stored: session(hitl.SessionRunning, 0, `{"step": 1}`),
		Newest: event(session(hitl.SessionAwaitingInput, 2, `{"step":1}`))}); m != nil {
		t.Errorf("derived members only: %v", m)
	}
	m := compareSession(&hitl.SessionState{Key: "run-1", Stored: session(hitl.SessionCompleted, 0, `{"step":2}`),
		Newest: event(session(hitl.SessionAwaitingInput, 2, `{"step":1}`))})
	want := `session run-1: the stored status is "completed" but its events say "running", and the stored state is {"step":2} but its events say {"step":1} (event 9)`
	if m == nil || m.Error() != want {
		t.Errorf("an edited session: %v; want %q", m, want)
	}
}

// Numbers compare by their exact value, whatever their form, and never round.
func TestCanonicalNumbers(t *testing.T) {
	same := [][]string{
		{"0", "-0", "0.000", "0e7", "-0.0E-3"},
		{"125", "125.0", "1.25e2", "1.25E+2", "12500e-2", "0.125e3"},
		{"-0.5", "-5e-1", "-0.50", "-50E-2"},
		{"1e400", "10e399", "0.1e401"},
		{"12345678901234567890", "1234567890123456789e1"},
	}
	for i, group := range same {
		for _, n := range group {
			if got, want := canonicalValue([]byte(n)), canonicalValue([]byte(group[0])); got != want {
				t.Errorf("%s is %s, %s is %s: want the same", n, got, group[0], want)
			}
			for _, other := range same[i+1:] {
				if canonicalValue([]byte(n)) == canonicalValue([]byte(other[0])) {
					t.Errorf("%s and %s are the same", n, other[0])
				}
			}
		}
	}
	if canonicalValue([]byte("12345678901234567890")) == canonicalValue([]byte("12345678901234567891")) {
		t.Error("numbers that differ beyond a double's precision are the same")
	}
	if got := canonicalValue([]byte("1e99999999999999999999999")); got != "1e99999999999999999999999" {
		t.Errorf("a vast exponent: %s", got)
	}
}

// states is a StateSource over inquiries 1..n, each stored as its event says except those
// in edited; it records the queries.
type states struct {
	n       int64
	edited  map[int64]bool
	queries []hitl.StateQuery[int64]
}

func (s *states) InquiryStates(_ context.Context, q hitl.StateQuery[int64]) ([]*hitl.InquiryState, error) {
	s.queries = append(s.queries, q)
	ids := q.Only
	for id := q.After + 1; len(q.Only) == 0 && id <= s.n && len(ids) < q.Limit; id++ {
		ids = append(ids, id)
	}
	var out []*hitl.InquiryState
	for _, id := range ids {
		stored, said := answered(`"no"`), answered(`"no"`)
		stored.ID, said.ID = id, id
		if s.edited[id] {
			stored.Response = json.RawMessage(`"yes"`)
		}
		data, _ := json.Marshal(said)
		out = append(out, &hitl.InquiryState{Key: id, Stored: stored, Newest: &hitl.Event{Seq: id * 2, InquiryID: &id, Data: data}})
	}
	return out, nil
}

func (s *states) SessionStates(context.Context, hitl.StateQuery[string]) ([]*hitl.SessionState, error) {
	return nil, nil
}

// VerifyStates reads every inquiry a page at a time and reports each that differs, in
// order; CheckStates reads those named, in order, a page at a time too.
func TestVerifyAndCheckStatesPageThrough(t *testing.T) {
	src := &states{n: 2*statePage + 3, edited: map[int64]bool{2: true, statePage + 1: true, 2*statePage + 3: true}}
	var found []int64
	n, err := VerifyStates(context.Background(), src, func(m *Mismatch) error { found = append(found, m.Inquiry); return nil })
	if err != nil || n.Inquiries != src.n || !slices.Equal(found, []int64{2, statePage + 1, 2*statePage + 3}) {
		t.Fatalf("VerifyStates: %+v, %v, found %v", n, err, found)
	}
	if len(src.queries) != 3 || src.queries[1].After != statePage || src.queries[2].After != 2*statePage {
		t.Fatalf("pages read: %+v", src.queries)
	}
	stop := errors.New("enough")
	if _, err := VerifyStates(context.Background(), src, func(*Mismatch) error { return stop }); err != stop {
		t.Fatalf("an error from found: %v", err)
	}

	src.queries = nil
	var r Records
	for id := src.n; id > 0; id-- {
		r.Touch(&hitl.Event{InquiryID: &id})
	}
	r.Touch(&hitl.Event{Session: "run-1"})
	r.Touch(&hitl.Event{Type: hitl.EventKeyCreated}) // about neither
	if r.Len() != int(src.n)+1 {
		t.Fatalf("touched %d, want %d", r.Len(), src.n+1)
	}
	found = nil
	if err := CheckStates(context.Background(), src, &r, func(m *Mismatch) error { found = append(found, m.Inquiry); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(found, []int64{2, statePage + 1, 2*statePage + 3}) || len(src.queries) != 3 || len(src.queries[0].Only) != statePage || src.queries[0].Only[0] != 1 {
		t.Fatalf("CheckStates found %v with %d queries", found, len(src.queries))
	}
}

// Mismatches order inquiries by id, then sessions by key.
func TestCompareMismatches(t *testing.T) {
	ms := []*Mismatch{{Session: "b"}, {Inquiry: 10}, {Session: "a"}, {Inquiry: 2}}
	slices.SortFunc(ms, CompareMismatches)
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprint(m.Inquiry, m.Session))
	}
	if want := []string{"2", "10", "0a", "0b"}; !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}
