// Package storetest is the conformance suite every hitl.Store passes: the SQLite store
// today, the PostgreSQL store next. Run it with Run(t, newStore).
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// Run runs every conformance test; open opens an empty store, which the test closes.
func Run(t *testing.T, open func(t *testing.T) (hitl.Store, error)) {
	tests := map[string]func(*testing.T, hitl.Store){
		"InsertAndRead":           testInsertAndRead,
		"ResolveOnlyPending":      testResolveOnlyPending,
		"RollbackKeepsNothing":    testRollbackKeepsNothing,
		"ExclusivePerSession":     testExclusivePerSession,
		"Filters":                 testFilters,
		"Visibility":              testVisibility,
		"Pagination":              testPagination,
		"TextSearchAndCount":      testTextSearchAndCount,
		"SearchBesideDeepContext": testSearchBesideDeepContext,
		"SearchMeaning":           testSearchMeaning,
		"DeadlineOrder":           testDeadlineOrder,
		"Sessions":                testSessions,
		"SessionVersion":          testSessionVersion,
		"Events":                  testEvents,
		"ConcurrentEventsInOrder": testConcurrentEventsInOrder,
		"IdempotencyKeys":         testIdempotencyKeys,
		"Keys":                    testKeys,
		"InboxSessions":           testInboxSessions,
		"Deadlines":               testDeadlines,
		"Nudges":                  testNudges,
		"FailedChangesBesideGood": testFailedChangesBesideGood,
		"LockPending":             testLockPending,
		"Webhooks":                testWebhooks,
		"ClaimDeliveries":         testClaimDeliveries,
		"OutboxCursor":            testOutboxCursor,
		"BrokerBacklog":           testBrokerBacklog,
		"PeopleAndGroups":         testPeopleAndGroups,
		"Absences":                testAbsences,
		"Rules":                   testRules,
		"Notifications":           testNotifications,
		"Identities":              testIdentities,
		"Executions":              testExecutions,
		"ResumedOnce":             testResumedOnce,
		"UpdatePending":           testUpdatePending,
		"IdempotencyKeysExpire":   testIdempotencyKeysExpire,
		"AssigneeLoads":           testAssigneeLoads,
		"Templates":               testTemplates,
		"PushConfigs":             testPushConfigs,
		"WebPush":                 testWebPush,
		"AuditChain":              testAuditChain,
		"Retention":               testRetention,
		"StoredSecrets":           testStoredSecrets,
		"Stats":                   testStats,
		"Decisions":               testDecisions,
		"MoveSequences":           testMoveSequences,
		"StoredStates":            testStoredStates,
		"StoredStatesSnapshot":    testStoredStatesAreOneSnapshot,
		"Receipts":                testReceipts,
		"Dedup":                   testDedup,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := open(t)
			must(t, err)
			t.Cleanup(func() { s.Close() })
			fn(t, s)
		})
	}
}

var base = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func newInquiry(n int, mods ...func(*hitl.Inquiry)) *hitl.Inquiry {
	at := base.Add(time.Duration(n) * time.Second)
	inq := &hitl.Inquiry{
		Status: hitl.StatusPending, Prompt: fmt.Sprintf("question %d", n), RequestType: hitl.RequestInput,
		ResponseSchema: json.RawMessage(`{"type":"string"}`), CreatedBy: "agent-a", AssignedTo: []string{},
		FallbackPolicy: hitl.FallbackFail, Metadata: map[string]string{}, CreatedAt: at, UpdatedAt: at,
	}
	for _, m := range mods {
		m(inq)
	}
	return inq
}

// deleteOnce deletes what del deletes, which is not found when deleted again.
func deleteOnce(t *testing.T, s hitl.Store, del func(tx hitl.Tx) error) {
	t.Helper()
	must(t, s.Update(context.Background(), del))
	if err := s.Update(context.Background(), del); code(err) != hitl.ENotFound {
		t.Fatalf("deleting twice: %v, want not found", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func code(err error) string { return hitl.ErrorCode(err) }

func insert(t *testing.T, s hitl.Store, inq *hitl.Inquiry) *hitl.Inquiry {
	t.Helper()
	must(t, s.Update(context.Background(), func(tx hitl.Tx) error {
		if inq.Session != "" {
			if _, err := tx.Session(inq.Session); code(err) == hitl.ENotFound {
				if err := tx.InsertSession(newSession(inq.Session)); err != nil {
					return err
				}
			}
		}
		return tx.InsertInquiry(inq)
	}))
	return inq
}

func newSession(key string) *hitl.Session {
	return &hitl.Session{Key: key, Status: hitl.SessionRunning, Agent: "bot", CreatedBy: "agent-a", Metadata: map[string]string{}, CreatedAt: base, UpdatedAt: base}
}

func resolve(t *testing.T, s hitl.Store, inq *hitl.Inquiry, status hitl.Status) error {
	t.Helper()
	next := *inq
	next.Status, next.UpdatedAt = status, next.UpdatedAt.Add(time.Minute)
	next.Response = json.RawMessage(`"ok"`)
	return s.Update(context.Background(), func(tx hitl.Tx) error { return tx.ResolveInquiry(&next) })
}

func testInsertAndRead(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	conf := 0.5
	deadline := base.Add(time.Hour)
	inq := insert(t, s, newInquiry(1, func(i *hitl.Inquiry) {
		i.Context = json.RawMessage(`{"plan":{"v":"2.5.0"}}`)
		i.Options = []hitl.Option{{Value: "a", Label: "A"}, {Value: "b"}}
		i.AssignedTo = []string{"alice", "group:sre"}
		i.Confidence = &conf
		i.TimeoutAt = &deadline
		i.Metadata = map[string]string{"team": "web"}
		i.ToolCall = &hitl.ToolCall{ID: "call_1", Name: "ask_human", Arguments: json.RawMessage(`{"q":1}`)}
	}))
	if inq.ID <= 0 {
		t.Fatalf("InsertInquiry left ID %d", inq.ID)
	}
	got, err := s.Inquiry(ctx, inq.ID)
	must(t, err)
	want, _ := json.Marshal(inq)
	have, _ := json.Marshal(got)
	if string(want) != string(have) {
		t.Fatalf("read back differs:\nwant %s\nhave %s", want, have)
	}
	if _, err := s.Inquiry(ctx, inq.ID+100); code(err) != hitl.ENotFound {
		t.Fatalf("unknown id: got %v, want not_found", err)
	}
	if n, err := s.PendingCount(ctx); err != nil || n != 1 {
		t.Fatalf("PendingCount = %d, %v; want 1", n, err)
	}
}

func testResolveOnlyPending(t *testing.T, s hitl.Store) {
	inq := insert(t, s, newInquiry(1))
	must(t, resolve(t, s, inq, hitl.StatusResponded))
	if err := resolve(t, s, inq, hitl.StatusCancelled); code(err) != hitl.EConflict {
		t.Fatalf("second resolve: got %v, want conflict", err)
	}
	got, err := s.Inquiry(context.Background(), inq.ID)
	must(t, err)
	if got.Status != hitl.StatusResponded || string(got.Response) != `"ok"` {
		t.Fatalf("after conflict: status %s response %s", got.Status, got.Response)
	}
	// Racing writers: exactly one wins.
	inq2 := insert(t, s, newInquiry(2))
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 20 {
		wg.Go(func() {
			if resolve(t, s, inq2, hitl.StatusResponded) == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d concurrent resolves won, want 1", wins)
	}
}

func testRollbackKeepsNothing(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	boom := errors.New("boom")
	inq := newInquiry(1, func(i *hitl.Inquiry) { i.Session = "s1" })
	err := s.Update(ctx, func(tx hitl.Tx) error {
		must(t, tx.InsertSession(newSession("s1")))
		must(t, tx.InsertInquiry(inq))
		must(t, tx.AppendEvent(&hitl.Event{ID: "e1", Type: hitl.EventInquiryCreated, Time: base, InquiryID: &inq.ID, Actor: "a", Data: json.RawMessage(`{}`)}))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v, want the function's error", err)
	}
	if _, err := s.Inquiry(ctx, inq.ID); code(err) != hitl.ENotFound {
		t.Fatalf("inquiry of a failed transaction is there: %v", err)
	}
	if _, err := s.Session(ctx, "s1"); code(err) != hitl.ENotFound {
		t.Fatalf("session of a failed transaction is there: %v", err)
	}
	evs, err := s.Events(ctx, hitl.EventFilter{Visibility: hitl.Visibility{All: true}, Limit: 10})
	must(t, err)
	if len(evs) != 0 {
		t.Fatalf("events of a failed transaction are there: %d", len(evs))
	}
	// A panic inside a change is an error, not a crash, and the store goes on working.
	err = s.Update(ctx, func(tx hitl.Tx) error { panic("bad change") })
	if err == nil {
		t.Fatal("a panicking change returned no error")
	}
	insert(t, s, newInquiry(2))
}

// testResumedOnce: a final inquiry's resumption is written once; a pending one has none.
func testResumedOnce(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	inq := insert(t, s, newInquiry(1))
	mark := func() error {
		return s.Update(ctx, func(tx hitl.Tx) error {
			cur, err := tx.Inquiry(inq.ID)
			if err != nil {
				return err
			}
			at := base.Add(time.Hour)
			cur.ResumedAt = &at
			return tx.MarkInquiryResumed(cur)
		})
	}
	if err := mark(); code(err) != hitl.EConflict {
		t.Fatalf("resuming a pending inquiry: got %v, want conflict", err)
	}
	must(t, resolve(t, s, inq, hitl.StatusResponded))
	must(t, mark())
	if err := mark(); code(err) != hitl.EConflict {
		t.Fatalf("resuming twice: got %v, want conflict", err)
	}
	got, err := s.Inquiry(ctx, inq.ID)
	must(t, err)
	if got.ResumedAt == nil || !got.ResumedAt.Equal(base.Add(time.Hour)) || got.Status != hitl.StatusResponded || string(got.Response) != `"ok"` {
		t.Fatalf("after resuming: %v %s %s", got.ResumedAt, got.Status, got.Response)
	}
}

func testExclusivePerSession(t *testing.T, s hitl.Store) {
	excl := func(i *hitl.Inquiry) { i.Session, i.Exclusive = "run-1", true }
	first := insert(t, s, newInquiry(1, excl))
	err := s.Update(context.Background(), func(tx hitl.Tx) error { return tx.InsertInquiry(newInquiry(2, excl)) })
	if code(err) != hitl.EConflict {
		t.Fatalf("second pending exclusive inquiry: got %v, want conflict", err)
	}
	must(t, resolve(t, s, first, hitl.StatusResponded))
	insert(t, s, newInquiry(3, excl)) // allowed once the first is final
	insert(t, s, newInquiry(4, func(i *hitl.Inquiry) { i.Session, i.Exclusive = "run-2", true }))
}

func list(t *testing.T, s hitl.Store, f hitl.InquiryFilter) []int64 {
	t.Helper()
	if f.Page.Limit == 0 {
		f.Page.Limit = 100
	}
	items, _, err := s.Inquiries(context.Background(), f)
	must(t, err)
	ids := []int64{}
	for _, i := range items {
		ids = append(ids, i.ID)
	}
	return ids
}

func same(a, b []int64) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func testFilters(t *testing.T, s hitl.Store) {
	all := hitl.Visibility{All: true}
	a := insert(t, s, newInquiry(1, func(i *hitl.Inquiry) {
		i.Session, i.Origin = "s1", "deployer"
		i.Metadata = map[string]string{"env": "prod"}
	}))
	b := insert(t, s, newInquiry(2, func(i *hitl.Inquiry) { i.RequestType = hitl.RequestApproval; i.AssignedTo = []string{"alice"} }))
	c := insert(t, s, newInquiry(3, func(i *hitl.Inquiry) { i.CreatedBy = "agent-b"; i.AssignedTo = []string{"group:sre"} }))
	must(t, resolve(t, s, b, hitl.StatusResponded))
	cases := []struct {
		name string
		f    hitl.InquiryFilter
		want []int64
	}{
		{"all newest first", hitl.InquiryFilter{}, []int64{c.ID, b.ID, a.ID}},
		{"status", hitl.InquiryFilter{Status: hitl.StatusPending}, []int64{c.ID, a.ID}},
		{"session", hitl.InquiryFilter{Session: "s1"}, []int64{a.ID}},
		{"origin", hitl.InquiryFilter{Origin: "deployer"}, []int64{a.ID}},
		{"type", hitl.InquiryFilter{RequestType: hitl.RequestApproval}, []int64{b.ID}},
		{"created_by", hitl.InquiryFilter{CreatedBy: "agent-b"}, []int64{c.ID}},
		{"assigned_to", hitl.InquiryFilter{AssignedTo: []string{"alice", "group:sre"}}, []int64{c.ID, b.ID}},
		{"metadata", hitl.InquiryFilter{Metadata: map[string]string{"env": "prod"}}, []int64{a.ID}},
		{"metadata other value", hitl.InquiryFilter{Metadata: map[string]string{"env": "dev"}}, []int64{}},
		{"created_after", hitl.InquiryFilter{CreatedAfter: &b.CreatedAt}, []int64{c.ID}},
		{"created_before", hitl.InquiryFilter{CreatedBefore: &b.CreatedAt}, []int64{a.ID}},
	}
	for _, tc := range cases {
		tc.f.Visibility = all
		if got := list(t, s, tc.f); !same(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func testVisibility(t *testing.T, s hitl.Store) {
	open := insert(t, s, newInquiry(1))
	alice := insert(t, s, newInquiry(2, func(i *hitl.Inquiry) { i.AssignedTo = []string{"alice"} }))
	sre := insert(t, s, newInquiry(3, func(i *hitl.Inquiry) { i.AssignedTo = []string{"group:sre"}; i.CreatedBy = "agent-b" }))
	cases := []struct {
		name string
		v    hitl.Visibility
		want []int64
	}{
		{"admin", hitl.Visibility{All: true}, []int64{sre.ID, alice.ID, open.ID}},
		{"agent sees what it created", hitl.Visibility{CreatedBy: "agent-b"}, []int64{sre.ID}},
		{"responder alice", hitl.Visibility{Responder: true, AnswerableBy: []string{"alice"}}, []int64{alice.ID, open.ID}},
		{"responder in sre", hitl.Visibility{Responder: true, AnswerableBy: []string{"bob", "group:sre"}}, []int64{sre.ID, open.ID}},
		{"nobody", hitl.Visibility{}, []int64{}},
	}
	for _, tc := range cases {
		if got := list(t, s, hitl.InquiryFilter{Visibility: tc.v}); !same(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func testPagination(t *testing.T, s hitl.Store) {
	var want []int64
	for n := range 7 {
		want = append([]int64{insert(t, s, newInquiry(n)).ID}, want...)
	}
	if got := allPages(t, s, hitl.InquiryFilter{Visibility: hitl.Visibility{All: true}}, 3); !same(got, want) {
		t.Fatalf("pages gave %v, want %v", got, want)
	}
	if _, _, err := s.Inquiries(context.Background(), hitl.InquiryFilter{Page: hitl.Page{Cursor: "garbage", Limit: 3}}); code(err) != hitl.EInvalid {
		t.Fatalf("bad cursor: got %v, want invalid", err)
	}
}

// allPages lists the ids of every page of f, limit at a time, following the cursors.
func allPages(t *testing.T, s hitl.Store, f hitl.InquiryFilter, limit int) []int64 {
	t.Helper()
	var got []int64
	for pages := 0; ; pages++ {
		if pages > 20 {
			t.Fatal("pagination does not end")
		}
		f.Page.Limit = limit
		items, next, err := s.Inquiries(context.Background(), f)
		must(t, err)
		for _, i := range items {
			got = append(got, i.ID)
		}
		if next == "" {
			return got
		}
		f.Page.Cursor = next
	}
}

func testTextSearchAndCount(t *testing.T, s hitl.Store) {
	all := hitl.Visibility{All: true}
	deploy := insert(t, s, newInquiry(1, func(i *hitl.Inquiry) { i.Prompt = "Deploy v2 to PRODUCTION?" }))
	percent := insert(t, s, newInquiry(2, func(i *hitl.Inquiry) { i.Prompt = "Raise the limit by 50% for prod_eu?" }))
	insert(t, s, newInquiry(3, func(i *hitl.Inquiry) {
		i.Prompt = "Raise the limit by 500 for prodXeu?"
		i.AssignedTo = []string{"alice"}
	}))
	cases := []struct {
		text string
		want []int64
	}{
		{"production", []int64{deploy.ID}}, // any case
		{"50%", []int64{percent.ID}},       // % is matched as itself, not as a wildcard
		{"prod_eu", []int64{percent.ID}},   // so is _
		{`\`, []int64{}},
		{"nothing like it", []int64{}},
	}
	for _, tc := range cases {
		f := hitl.InquiryFilter{Text: tc.text, Visibility: all}
		if got := list(t, s, f); !same(got, tc.want) {
			t.Errorf("text %q: got %v, want %v", tc.text, got, tc.want)
		}
		n, err := s.CountInquiries(context.Background(), f)
		must(t, err)
		if n != len(tc.want) {
			t.Errorf("count of text %q: got %d, want %d", tc.text, n, len(tc.want))
		}
	}
	for _, tc := range []struct {
		f    hitl.InquiryFilter
		want int
	}{
		{hitl.InquiryFilter{Visibility: all}, 3},
		{hitl.InquiryFilter{Visibility: all, Text: "raise"}, 2},
		{hitl.InquiryFilter{Visibility: all, AssignedTo: []string{"alice"}}, 1},
		{hitl.InquiryFilter{Visibility: hitl.Visibility{Responder: true, AnswerableBy: []string{"bob"}}}, 2},
		{hitl.InquiryFilter{Visibility: all, Status: hitl.StatusResponded}, 0},
		// A count up to a bound stops there, and counts all below it.
		{hitl.InquiryFilter{Visibility: all, CountUpTo: 2}, 2},
		{hitl.InquiryFilter{Visibility: all, Text: "raise", CountUpTo: 5}, 2},
		{hitl.InquiryFilter{Visibility: hitl.Visibility{Responder: true, AnswerableBy: []string{"bob"}}, CountUpTo: 1}, 1},
	} {
		n, err := s.CountInquiries(context.Background(), tc.f)
		must(t, err)
		if n != tc.want {
			t.Errorf("count %+v: got %d, want %d", tc.f, n, tc.want)
		}
	}
}

func testDeadlineOrder(t *testing.T, s hitl.Store) {
	at := func(min int) func(*hitl.Inquiry) {
		return func(i *hitl.Inquiry) { d := base.Add(time.Duration(min) * time.Minute); i.TimeoutAt = &d }
	}
	none1 := insert(t, s, newInquiry(1))
	late := insert(t, s, newInquiry(2, at(30)))
	soon := insert(t, s, newInquiry(3, at(5)))
	none2 := insert(t, s, newInquiry(4))
	tie := insert(t, s, newInquiry(5, at(5)))
	mid := insert(t, s, newInquiry(6, at(10)))
	want := []int64{soon.ID, tie.ID, mid.ID, late.ID, none1.ID, none2.ID}
	for _, limit := range []int{1, 2, 4, 10} {
		if got := allPages(t, s, hitl.InquiryFilter{Order: hitl.OrderDeadline, Visibility: hitl.Visibility{All: true}}, limit); !same(got, want) {
			t.Errorf("pages of %d: got %v, want %v", limit, got, want)
		}
	}
}

func testSessions(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	inq := insert(t, s, newInquiry(1, func(i *hitl.Inquiry) { i.Session = "run-1" }))
	insert(t, s, newInquiry(2, func(i *hitl.Inquiry) { i.Session = "run-1" }))
	sess, err := s.Session(ctx, "run-1")
	must(t, err)
	if sess.Status != hitl.SessionAwaitingInput || sess.PendingInquiries != 2 || sess.InquiriesAsked != 2 {
		t.Fatalf("session = %s pending %d asked %d; want awaiting_input 2 2", sess.Status, sess.PendingInquiries, sess.InquiriesAsked)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.InsertSession(newSession("run-1")); code(err) != hitl.EConflict {
			return fmt.Errorf("inserting an existing session: got %v, want conflict", err)
		}
		return nil
	}))
	pending := 0
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		p, err := tx.PendingInquiries("run-1")
		pending = len(p)
		return err
	}))
	if pending != 2 {
		t.Fatalf("PendingInquiries = %d, want 2", pending)
	}
	hist, err := s.SessionInquiries(ctx, "run-1", hitl.Visibility{All: true})
	must(t, err)
	if len(hist) != 2 || hist[0].ID != inq.ID {
		t.Fatalf("history is not oldest first: %v", hist)
	}
	now := base.Add(time.Hour)
	sess.Status, sess.Result, sess.CompletedAt, sess.UpdatedAt = hitl.SessionCompleted, json.RawMessage(`{"ok":true}`), &now, now
	sess.State = json.RawMessage(`{"step":3}`)
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.UpdateSession(sess) }))
	got, err := s.Session(ctx, "run-1")
	must(t, err)
	if got.Status != hitl.SessionCompleted || string(got.Result) != `{"ok":true}` || string(got.State) != `{"step":3}` || got.CompletedAt == nil || !got.CompletedAt.Equal(now) {
		t.Fatalf("updated session read back as %+v", got)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertSession(newSession("run-2")) }))
	for status, want := range map[hitl.SessionStatus]string{hitl.SessionCompleted: "run-1", hitl.SessionRunning: "run-2", hitl.SessionAwaitingInput: ""} {
		items, _, err := s.Sessions(ctx, hitl.SessionFilter{Status: status, Page: hitl.Page{Limit: 10}})
		must(t, err)
		keys := ""
		for _, it := range items {
			keys += it.Key
		}
		if keys != want {
			t.Errorf("sessions with status %s: %q, want %q", status, keys, want)
		}
	}
	if _, err := s.Session(ctx, "nope"); code(err) != hitl.ENotFound {
		t.Fatalf("unknown session: %v", err)
	}
}

// testSessionVersion: a session's version counts its events but its log entries, and within
// a transaction the events it has appended too.
func testSessionVersion(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	inq := insert(t, s, newInquiry(1, func(i *hitl.Inquiry) { i.Session = "v-1" }))
	version := func() int64 {
		t.Helper()
		n, err := s.SessionVersion(ctx, "v-1")
		must(t, err)
		return n
	}
	if n := version(); n != 0 {
		t.Fatalf("a session without events is at version %d, want 0", n)
	}
	sessionEvent := func(typ string) *hitl.Event {
		return &hitl.Event{ID: fmt.Sprintf("ev-v-1-%s-%d", typ, time.Now().UnixNano()), Type: typ, Time: base, Session: "v-1", Actor: "a", Data: json.RawMessage(`{}`)}
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.AppendEvent(sessionEvent(hitl.EventSessionUpdated)) }))
	appendEvent(t, s, inq, hitl.EventInquiryCreated)
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.AppendEvent(sessionEvent(hitl.EventSessionLogged)) }))
	if n := version(); n != 2 {
		t.Fatalf("version = %d after a change, a question and a log entry; want 2", n)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.AppendEvent(sessionEvent(hitl.EventSessionUpdated)); err != nil {
			return err
		}
		n, err := tx.SessionVersion("v-1")
		if err == nil && n != 3 {
			err = fmt.Errorf("inside the transaction that appended a change, version = %d, want 3", n)
		}
		return err
	}))
	if n, err := s.SessionVersion(ctx, "no-such-session"); err != nil || n != 0 {
		t.Fatalf("unknown session: %d %v, want 0", n, err)
	}
}

func appendEvent(t *testing.T, s hitl.Store, inq *hitl.Inquiry, typ string) *hitl.Event {
	t.Helper()
	id := inq.ID
	ev := &hitl.Event{ID: fmt.Sprintf("ev-%d-%s-%d", id, typ, time.Now().UnixNano()), Type: typ, Time: base, InquiryID: &id, Session: inq.Session, Actor: "a", Data: json.RawMessage(`{"x":1}`)}
	must(t, s.Update(context.Background(), func(tx hitl.Tx) error { return tx.AppendEvent(ev) }))
	return ev
}

func testEvents(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	a := insert(t, s, newInquiry(1, func(i *hitl.Inquiry) { i.Session = "s1" }))
	b := insert(t, s, newInquiry(2, func(i *hitl.Inquiry) { i.CreatedBy = "agent-b"; i.AssignedTo = []string{"alice"} }))
	e1 := appendEvent(t, s, a, hitl.EventInquiryCreated)
	e2 := appendEvent(t, s, b, hitl.EventInquiryCreated)
	e3 := appendEvent(t, s, a, hitl.EventInquiryResponded)
	if !(e1.Seq < e2.Seq && e2.Seq < e3.Seq) {
		t.Fatalf("seqs not increasing: %d %d %d", e1.Seq, e2.Seq, e3.Seq)
	}
	seqs := func(f hitl.EventFilter) []int64 {
		if f.Limit == 0 {
			f.Limit = 100
		}
		evs, err := s.Events(ctx, f)
		must(t, err)
		out := []int64{}
		for _, e := range evs {
			out = append(out, e.Seq)
		}
		return out
	}
	all := hitl.Visibility{All: true}
	cases := []struct {
		name string
		f    hitl.EventFilter
		want []int64
	}{
		{"all", hitl.EventFilter{Visibility: all}, []int64{e1.Seq, e2.Seq, e3.Seq}},
		{"after", hitl.EventFilter{Visibility: all, After: e1.Seq}, []int64{e2.Seq, e3.Seq}},
		{"type", hitl.EventFilter{Visibility: all, Types: []string{hitl.EventInquiryResponded}}, []int64{e3.Seq}},
		{"session", hitl.EventFilter{Visibility: all, Session: "s1"}, []int64{e1.Seq, e3.Seq}},
		{"inquiry", hitl.EventFilter{Visibility: all, InquiryID: b.ID}, []int64{e2.Seq}},
		{"limit", hitl.EventFilter{Visibility: all, Limit: 1}, []int64{e1.Seq}},
		{"agent-b sees its own", hitl.EventFilter{Visibility: hitl.Visibility{CreatedBy: "agent-b"}}, []int64{e2.Seq}},
		{"alice sees what she may answer", hitl.EventFilter{Visibility: hitl.Visibility{Responder: true, AnswerableBy: []string{"alice"}}}, []int64{e1.Seq, e2.Seq, e3.Seq}},
		{"bob only the unassigned", hitl.EventFilter{Visibility: hitl.Visibility{Responder: true, AnswerableBy: []string{"bob"}}}, []int64{e1.Seq, e3.Seq}},
	}
	for _, tc := range cases {
		if got := seqs(tc.f); !same(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	evs, err := s.Events(ctx, hitl.EventFilter{Visibility: all, After: e2.Seq, Limit: 1})
	must(t, err)
	if e := evs[0]; e.ID != e3.ID || e.Type != e3.Type || *e.InquiryID != a.ID || e.Session != "s1" || e.Actor != "a" || string(e.Data) != `{"x":1}` || !e.Time.Equal(base) {
		t.Fatalf("event read back as %+v", e)
	}
}

// testConcurrentEventsInOrder: a reader that has seen seq N never later sees an event below N.
func testConcurrentEventsInOrder(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	inq := insert(t, s, newInquiry(1))
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range each {
				appendEvent(t, s, inq, hitl.EventInquiryCreated)
			}
		})
	}
	done := make(chan struct{})
	var readErr error
	go func() {
		defer close(done)
		var last int64
		seen := 0
		for seen < writers*each {
			evs, err := s.Events(ctx, hitl.EventFilter{Visibility: hitl.Visibility{All: true}, After: last, Limit: 500})
			if err != nil {
				readErr = err
				return
			}
			for _, e := range evs {
				if e.Seq != last+1 {
					readErr = fmt.Errorf("after seq %d the reader saw %d: a gap or a late event", last, e.Seq)
					return
				}
				last = e.Seq
				seen++
			}
		}
	}()
	wg.Wait()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("reader did not see every event")
	}
	if readErr != nil {
		t.Fatal(readErr)
	}
}

func testIdempotencyKeys(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	inq := insert(t, s, newInquiry(1))
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertIdempotencyKey("agent-a", "k1", "h1", inq.ID, base) }))
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		id, hash, err := tx.IdempotencyKey("agent-a", "k1")
		if err != nil || id != inq.ID || hash != "h1" {
			return fmt.Errorf("IdempotencyKey = %d %q %v", id, hash, err)
		}
		if _, _, err := tx.IdempotencyKey("agent-b", "k1"); code(err) != hitl.ENotFound {
			return fmt.Errorf("another principal's key: %v, want not_found", err)
		}
		if err := tx.InsertIdempotencyKey("agent-a", "k1", "h2", inq.ID, base); code(err) != hitl.EConflict {
			return fmt.Errorf("reusing a key: %v, want conflict", err)
		}
		return nil
	}))
}

func testKeys(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	k := &hitl.Key{ID: "key_1", Name: "alice", Roles: []string{"responder"}, Groups: []string{"sre"}, CreatedAt: base}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		has, err := tx.HasAdminKey()
		if err != nil || has {
			return fmt.Errorf("HasAdminKey on an empty store = %v, %v", has, err)
		}
		return tx.InsertKey(k, "hash-1")
	}))
	got, err := s.KeyByTokenHash(ctx, "hash-1")
	must(t, err)
	if got.Name != "alice" || fmt.Sprint(got.Roles) != "[responder]" || fmt.Sprint(got.Groups) != "[sre]" {
		t.Fatalf("key read back as %+v", got)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.InsertKey(k, "hash-2"); code(err) != hitl.EConflict {
			return fmt.Errorf("duplicate key id: %v, want conflict", err)
		}
		admin := &hitl.Key{ID: "key_2", Name: "root", Roles: []string{"admin"}, Groups: []string{}, CreatedAt: base}
		if err := tx.InsertKey(admin, "hash-3"); err != nil {
			return err
		}
		has, err := tx.HasAdminKey()
		if err != nil || !has {
			return fmt.Errorf("HasAdminKey = %v, %v; want true", has, err)
		}
		return tx.RevokeKey("key_1", base.Add(time.Hour))
	}))
	if _, err := s.KeyByTokenHash(ctx, "hash-1"); code(err) != hitl.ENotFound {
		t.Fatalf("revoked key still authenticates: %v", err)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.SetKeyToken("key_1", "hash-4") }))
	if _, err := s.KeyByTokenHash(ctx, "hash-4"); err != nil {
		t.Fatalf("key with a new token: %v", err)
	}
	keys, err := s.Keys(ctx)
	must(t, err)
	if len(keys) != 2 {
		t.Fatalf("Keys = %d, want 2", len(keys))
	}
	if err := s.Update(ctx, func(tx hitl.Tx) error { return tx.RevokeKey("nope", base) }); code(err) != hitl.ENotFound {
		t.Fatalf("revoking an unknown key: %v", err)
	}
}

func testDeadlines(t *testing.T, s hitl.Store) {
	later, sooner := base.Add(2*time.Hour), base.Add(time.Hour)
	a := insert(t, s, newInquiry(1, func(i *hitl.Inquiry) { i.TimeoutAt = &later }))
	b := insert(t, s, newInquiry(2, func(i *hitl.Inquiry) { i.TimeoutAt = &sooner }))
	c := insert(t, s, newInquiry(3, func(i *hitl.Inquiry) { i.TimeoutAt = &sooner }))
	insert(t, s, newInquiry(4))
	must(t, resolve(t, s, c, hitl.StatusResponded))
	ds, err := s.PendingDeadlines(context.Background())
	must(t, err)
	if len(ds) != 2 || ds[0].InquiryID != b.ID || !ds[0].At.Equal(sooner) || ds[1].InquiryID != a.ID {
		t.Fatalf("PendingDeadlines = %+v", ds)
	}
}

// testNudges: the timers of reminders and escalations are listed at the sooner of the two;
// writing them is conditional on where they stood, so a second node that fires the same
// timer gets EConflict; an escalation's new assignees see the inquiry.
func testNudges(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	every, after := hitl.Duration(1800), hitl.Duration(3600)
	first := base.Add(30 * time.Minute)
	a := insert(t, s, newInquiry(1, func(i *hitl.Inquiry) {
		i.AssignedTo, i.RemindEvery, i.NextReminderAt = []string{"ann"}, &every, &first
		i.EscalateAfter, i.EscalateTo = &after, []string{"bob"}
	}))
	late := base.Add(2 * time.Hour)
	b := insert(t, s, newInquiry(2, func(i *hitl.Inquiry) {
		i.AssignedTo, i.EscalateAfter, i.EscalateTo, i.NextReminderAt = []string{"carol"}, &after, []string{"bob"}, &late
	}))
	open := insert(t, s, newInquiry(3))
	ds, err := s.PendingNudges(ctx)
	must(t, err)
	want := map[int64]time.Time{a.ID: first, b.ID: *b.EscalationAt()}
	if len(ds) != 2 || !ds[0].At.Equal(want[ds[0].InquiryID]) || !ds[1].At.Equal(want[ds[1].InquiryID]) {
		t.Fatalf("PendingNudges = %+v, want %v", ds, want)
	}
	// a escalates and is reminded.
	next, now := first.Add(time.Hour), base.Add(time.Hour)
	out := *a
	out.NextReminderAt, out.RemindersSent, out.EscalatedAt, out.UpdatedAt = &next, 1, &now, now
	out.AssignedTo = []string{"ann", "bob"}
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.NudgeInquiry(&out, a) }))
	again := out
	if err := s.Update(ctx, func(tx hitl.Tx) error { return tx.NudgeInquiry(&again, a) }); code(err) != hitl.EConflict {
		t.Fatalf("firing the same timers twice: %v, want conflict", err)
	}
	got, err := s.Inquiry(ctx, a.ID)
	must(t, err)
	if got.RemindersSent != 1 || !got.NextReminderAt.Equal(next) || got.EscalationAt() != nil {
		t.Fatalf("after the nudge: %+v", got)
	}
	if ids := list(t, s, hitl.InquiryFilter{Visibility: hitl.Visibility{Responder: true, AnswerableBy: []string{"bob"}}}); !same(ids, []int64{open.ID, a.ID}) {
		t.Fatalf("bob sees %v after the escalation", ids)
	}
	must(t, resolve(t, s, got, hitl.StatusResponded))
	ds, err = s.PendingNudges(ctx)
	must(t, err)
	if len(ds) != 1 || ds[0].InquiryID != b.ID {
		t.Fatalf("PendingNudges after an answer = %+v", ds)
	}
}

// testFailedChangesBesideGood: changes that fail on a database error (here a foreign key) run
// at the same time as good ones; a store that commits changes together must keep the good
// ones and lose the failed ones, and go on working.
func testFailedChangesBesideGood(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var good []int64
	var badOK int
	for i := range 40 {
		wg.Go(func() {
			inq := newInquiry(i)
			if i%2 == 1 {
				inq.Session = "no-such-session" // violates the foreign key
			}
			err := s.Update(ctx, func(tx hitl.Tx) error {
				if err := tx.InsertInquiry(inq); err != nil {
					return err
				}
				id := inq.ID
				return tx.AppendEvent(&hitl.Event{ID: fmt.Sprintf("ev-%d-%d", i, time.Now().UnixNano()), Type: hitl.EventInquiryCreated, Time: base, InquiryID: &id, Actor: "a", Data: json.RawMessage(`{}`)})
			})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case i%2 == 0 && err != nil:
				t.Errorf("a good change failed: %v", err)
			case i%2 == 0:
				good = append(good, inq.ID)
			case err == nil:
				badOK++
			}
		})
	}
	wg.Wait()
	if badOK > 0 {
		t.Fatalf("%d changes that violate a foreign key succeeded", badOK)
	}
	for _, id := range good {
		if _, err := s.Inquiry(ctx, id); err != nil {
			t.Fatalf("good change's inquiry %d: %v", id, err)
		}
	}
	evs, err := s.Events(ctx, hitl.EventFilter{Visibility: hitl.Visibility{All: true}, Limit: 100})
	must(t, err)
	if len(evs) != len(good) {
		t.Fatalf("%d events for %d good changes", len(evs), len(good))
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event seqs are not 1..n: %d at %d", ev.Seq, i)
		}
	}
}

func testLockPending(t *testing.T, s hitl.Store) {
	a := insert(t, s, newInquiry(1))
	b := insert(t, s, newInquiry(2))
	c := insert(t, s, newInquiry(3))
	must(t, resolve(t, s, b, hitl.StatusResponded))
	must(t, s.Update(context.Background(), func(tx hitl.Tx) error {
		got, err := tx.LockPending([]int64{a.ID, b.ID, c.ID, 9999})
		if err != nil {
			return err
		}
		if len(got) != 2 || got[0].ID != a.ID || got[1].ID != c.ID {
			return fmt.Errorf("LockPending = %v, want the two pending ones", got)
		}
		return nil
	}))
}

// testUpdatePending: a vote, a chain's next step or a claim rewrites a pending inquiry whole:
// its deadline and claim timers follow, its assignees only grow (those of earlier steps keep
// seeing it), and a final inquiry is not rewritten.
func testUpdatePending(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	deadline := base.Add(time.Hour)
	a := insert(t, s, newInquiry(1, func(i *hitl.Inquiry) {
		i.RequestType, i.TimeoutAt = hitl.RequestApproval, &deadline
		i.Steps = []hitl.ApprovalStep{{AssignedTo: []string{"group:sre"}, Required: 1}, {AssignedTo: []string{"group:finance"}, Required: 1}}
		i.CurrentStep, i.AssignedTo = 1, []string{"group:sre"}
	}))
	next := *a
	sooner, expires := base.Add(10*time.Minute), base.Add(5*time.Minute)
	next.CurrentStep, next.AssignedTo, next.TimeoutAt = 2, []string{"group:finance"}, &sooner
	next.Votes = []hitl.Vote{{By: "sam", Approved: true, At: base, Step: 1}}
	next.Claim = &hitl.InquiryClaim{By: "fay", At: base, ExpiresAt: expires}
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.UpdatePendingInquiry(&next) }))
	got, err := s.Inquiry(ctx, a.ID)
	must(t, err)
	if got.CurrentStep != 2 || len(got.Votes) != 1 || got.Claim == nil || got.Claim.By != "fay" {
		t.Fatalf("after the update: %+v", got)
	}
	ds, err := s.PendingDeadlines(ctx)
	must(t, err)
	if len(ds) != 1 || !ds[0].At.Equal(sooner) {
		t.Fatalf("deadlines after the update: %+v", ds)
	}
	claims, err := s.PendingClaims(ctx)
	must(t, err)
	if len(claims) != 1 || claims[0].InquiryID != a.ID || !claims[0].At.Equal(expires) {
		t.Fatalf("PendingClaims = %+v", claims)
	}
	for _, who := range []string{"group:sre", "group:finance"} {
		if ids := list(t, s, hitl.InquiryFilter{Visibility: hitl.Visibility{Responder: true, AnswerableBy: []string{who}}}); !same(ids, []int64{a.ID}) {
			t.Fatalf("%s sees %v", who, ids)
		}
	}
	if ids := list(t, s, hitl.InquiryFilter{AssignedTo: []string{"group:sre"}, Visibility: hitl.Visibility{All: true}}); len(ids) != 0 {
		t.Fatalf("still assigned to the earlier step's group: %v", ids)
	}
	if ids := list(t, s, hitl.InquiryFilter{AssignedTo: []string{"group:finance"}, Visibility: hitl.Visibility{All: true}}); !same(ids, []int64{a.ID}) {
		t.Fatalf("assigned to the current step's group: %v", ids)
	}
	must(t, resolve(t, s, got, hitl.StatusResponded))
	if err := s.Update(ctx, func(tx hitl.Tx) error { return tx.UpdatePendingInquiry(&next) }); code(err) != hitl.EConflict {
		t.Fatalf("updating a final inquiry: %v, want conflict", err)
	}
	if claims, err = s.PendingClaims(ctx); err != nil || len(claims) != 0 {
		t.Fatalf("PendingClaims of a final inquiry = %+v, %v", claims, err)
	}
}

// testAssigneeLoads: pending inquiries per assignee by name, and the newest assignment.
func testAssigneeLoads(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	insert(t, s, newInquiry(1, func(i *hitl.Inquiry) { i.AssignedTo = []string{"ann"} }))
	done := insert(t, s, newInquiry(2, func(i *hitl.Inquiry) { i.AssignedTo = []string{"ann"} }))
	insert(t, s, newInquiry(3, func(i *hitl.Inquiry) { i.AssignedTo = []string{"bob", "group:ops"} }))
	must(t, resolve(t, s, done, hitl.StatusResponded))
	loads, err := s.AssigneeLoads(ctx, []string{"ann", "bob", "cy"})
	must(t, err)
	if len(loads) != 2 || loads["ann"].Pending != 1 || !loads["ann"].LastAssignedAt.Equal(base.Add(2*time.Second)) ||
		loads["bob"].Pending != 1 || !loads["bob"].LastAssignedAt.Equal(base.Add(3*time.Second)) {
		t.Fatalf("AssigneeLoads = %+v", loads)
	}
}

// testIdempotencyKeysExpire: keys recorded before a time are removed, at most limit at once.
func testIdempotencyKeysExpire(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	inq := insert(t, s, newInquiry(1))
	for i := range 5 {
		must(t, s.Update(ctx, func(tx hitl.Tx) error {
			return tx.InsertIdempotencyKey("agent-a", fmt.Sprintf("k%d", i), "h", inq.ID, base.Add(time.Duration(i)*time.Hour))
		}))
	}
	removed := func(before time.Time, limit int) int {
		t.Helper()
		var n int
		must(t, s.Update(ctx, func(tx hitl.Tx) (err error) { n, err = tx.DeleteIdempotencyKeys(before, limit); return err }))
		return n
	}
	if n := removed(base.Add(3*time.Hour), 2); n != 2 {
		t.Fatalf("removed %d, want 2 (the limit)", n)
	}
	if n := removed(base.Add(3*time.Hour), 10); n != 1 {
		t.Fatalf("removed %d, want the third key older than 3 h", n)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if _, _, err := tx.IdempotencyKey("agent-a", "k3"); err != nil {
			return fmt.Errorf("a younger key is gone: %w", err)
		}
		if _, _, err := tx.IdempotencyKey("agent-a", "k0"); code(err) != hitl.ENotFound {
			return fmt.Errorf("an older key is still there: %v", err)
		}
		return nil
	}))
}
