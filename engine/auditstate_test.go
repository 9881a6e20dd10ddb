package engine_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/audit"
	"github.com/hitl-dev/hitl/internal/pgtest"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/store/postgres"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// auditNode is an engine on a real database, with a connection of its own to change the
// database behind the engine's back, as someone with access to it could.
type auditNode struct {
	e     *engine.Engine
	st    hitl.Store
	clock *clock
	db    *sql.DB
}

// onEachStore runs test on an engine over a SQLite file and over a PostgreSQL schema.
func onEachStore(t *testing.T, test func(t *testing.T, n *auditNode)) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			n := &auditNode{clock: &clock{t: time.Now().UTC()}}
			var err error
			driver, dsn := "pgx", ""
			if kind == "sqlite" {
				path := filepath.Join(t.TempDir(), "db")
				n.st, err = sqlite.Open(ctx, path)
				driver, dsn = "sqlite", "file:"+path+"?_pragma=busy_timeout(10000)"
			} else {
				dsn = pgtest.Schema(t)
				n.st, err = postgres.Open(ctx, dsn, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			if n.db, err = sql.Open(driver, dsn); err != nil {
				t.Fatal(err)
			}
			n.e = engine.New(n.st, engine.Options{Now: n.clock.Now})
			if err := n.e.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				n.e.Stop()
				n.st.Close()
				n.db.Close()
			})
			test(t, n)
		})
	}
}

// exec runs one statement on the database, behind the engine's back.
func (n *auditNode) exec(t *testing.T, stmt string) {
	t.Helper()
	if _, err := n.db.Exec(stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// query reads one number from the database.
func (n *auditNode) query(t *testing.T, q string) (v int64) {
	t.Helper()
	if err := n.db.QueryRow(q).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

// signs fails the test unless the node signs a head, and the head is the newest event.
func (n *auditNode) signs(t *testing.T, when string) {
	t.Helper()
	// Timers and receipts may append events meanwhile: the head covers at least the log as it
	// was before the call.
	last := n.query(t, "SELECT MAX(seq) FROM events")
	head, err := n.e.AuditHead(ctx, agent)
	if err != nil {
		t.Fatalf("%s: the node refuses to sign a head: %v", when, err)
	}
	if head.Seq < last {
		t.Fatalf("%s: the node signed a head at seq %d; the log ends at %d", when, head.Seq, last)
	}
}

// refuses fails the test unless the node refuses to sign a head, and says why in words that
// contain want, at each of two tries and on the inquiry pages' verification too.
func (n *auditNode) refuses(t *testing.T, when, want string) {
	t.Helper()
	for range 2 {
		if head, err := n.e.AuditHead(ctx, agent); hitl.ErrorCode(err) != hitl.EConflict || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: AuditHead = %+v, %v; want a conflict saying %q", when, head, err, want)
		}
	}
	if _, err := n.e.VerifyAudit(ctx); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: VerifyAudit = %v; want %q", when, err, want)
	}
}

// The reproduction of issue 25's point 6: an answer "no" edited to "yes" in the stored
// document. The node finds it, at the hourly verification of everything, or at once when the
// edit follows the answer before the node's next look; it refuses to sign heads while it
// stands, and signs again once the edit is undone, without a restart.
func TestAuditFindsAnEditedAnswerAndSignsAgainOnceUndone(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		inq, _, err := n.e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Delete the production database?"}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.e.Respond(ctx, human, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"no"`)}); err != nil {
			t.Fatal(err)
		}
		n.signs(t, "an untouched log")
		answered := n.query(t, fmt.Sprintf("SELECT seq FROM events WHERE inquiry_id = %d AND type = '%s'", inq.ID, hitl.EventInquiryResponded))
		edit := fmt.Sprintf(`UPDATE inquiries SET doc = replace(doc, '"response":"no"', '"response":"yes"') WHERE id = %d`, inq.ID)
		undo := fmt.Sprintf(`UPDATE inquiries SET doc = replace(doc, '"response":"yes"', '"response":"no"') WHERE id = %d`, inq.ID)
		n.exec(t, edit)
		if got, _ := n.e.Inquiry(ctx, human, inq.ID); string(got.Response) != `"yes"` {
			t.Fatalf("the API serves %s after the edit; the test means it to serve \"yes\"", got.Response)
		}
		// The running verification compares only what new events are about; the hourly one
		// compares everything.
		n.signs(t, "before the hourly verification")
		engine.ReverifyAudit(n.e)
		want := fmt.Sprintf(`inquiry %d: the stored answer is "yes" but its events say "no" (event %d)`, inq.ID, answered)
		n.refuses(t, "after the hourly verification", want)
		n.exec(t, undo)
		n.signs(t, "once the edit is undone")

		// An edit that follows the answer before the node looks again is found at that look.
		other, _, err := n.e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Rotate the keys?"}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.e.Respond(ctx, human, other.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"no"`), Comment: "not today"}); err != nil {
			t.Fatal(err)
		}
		n.exec(t, fmt.Sprintf(`UPDATE inquiries SET doc = replace(replace(doc, '"response":"no"', '"response":"yes"'), '"not today"', '"go"') WHERE id = %d`, other.ID))
		answered = n.query(t, fmt.Sprintf("SELECT seq FROM events WHERE inquiry_id = %d AND type = '%s'", other.ID, hitl.EventInquiryResponded))
		n.refuses(t, "at the next look", fmt.Sprintf(`inquiry %d: the stored answer is "yes" but its events say "no", and the stored comment is "go" but its events say "not today" (event %d)`, other.ID, answered))
		n.exec(t, fmt.Sprintf(`UPDATE inquiries SET doc = replace(replace(doc, '"response":"yes"', '"response":"no"'), '"go"', '"not today"') WHERE id = %d`, other.ID))
		n.signs(t, "once the second edit is undone")
	})
}

// A session's stored row edited (its state and its status) is found the same way, and the
// node signs again once it is undone.
func TestAuditFindsAnEditedSessionAndSignsAgainOnceUndone(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		if _, _, err := n.e.PutSession(ctx, agent, "run-1", &hitl.SessionRequest{Agent: "deployer", State: json.RawMessage(`{"step":1}`)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := n.e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Go on?", Session: "run-1"}, ""); err != nil {
			t.Fatal(err)
		}
		n.signs(t, "an untouched log") // the session awaits input: derived, not a difference
		updated := n.query(t, "SELECT MAX(seq) FROM events WHERE session = 'run-1' AND inquiry_id IS NULL")
		n.exec(t, `UPDATE sessions SET state = '{"step":99}', status = 'completed' WHERE key = 'run-1'`)
		engine.ReverifyAudit(n.e)
		n.refuses(t, "after the hourly verification", fmt.Sprintf(`session run-1: the stored status is "completed" but its events say "running", and the stored state is {"step":99} but its events say {"step":1} (event %d)`, updated))
		n.exec(t, `UPDATE sessions SET state = '{"step":1}', status = 'running' WHERE key = 'run-1'`)
		n.signs(t, "once the edit is undone")
	})
}

// More edited rows than a node remembers: it refuses to sign until a verification of every
// stored state finds none, even once those it remembers are undone.
func TestAuditRemembersThatMoreRowsDiffered(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 26 { // 104 in all, more than the 100 a node remembers
					if _, _, err := n.e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Ship?"}, ""); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		n.signs(t, "an untouched log")
		n.exec(t, `UPDATE inquiries SET doc = replace(doc, '"prompt":"Ship?"', '"prompt":"Ship now!"')`)
		engine.ReverifyAudit(n.e)
		first := n.query(t, "SELECT MIN(id) FROM inquiries")
		n.refuses(t, "after the hourly verification", fmt.Sprintf(`inquiry %d: the stored prompt is "Ship now!" but its events say "Ship?"`, first))
		n.exec(t, `UPDATE inquiries SET doc = replace(doc, '"prompt":"Ship now!"', '"prompt":"Ship?"')`)
		n.refuses(t, "once those remembered are undone", "the stored state of more than 100 inquiries and sessions differed from their events")
		engine.ReverifyAudit(n.e)
		n.signs(t, "once every stored state is compared again")
	})
}

// An edited event that the hourly verification finds stops the signing too, and once the
// event is restored the node signs again, without a restart.
func TestAuditSignsAgainOnceAnEditedEventIsRestored(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		inq, _ := askAndAnswer(t, n.e, "Ship?")
		n.signs(t, "an untouched log")
		seq := n.query(t, fmt.Sprintf("SELECT seq FROM events WHERE inquiry_id = %d AND type = '%s'", inq.ID, hitl.EventInquiryResponded))
		n.exec(t, fmt.Sprintf(`UPDATE events SET actor = 'mallory' WHERE seq = %d`, seq))
		engine.ReverifyAudit(n.e)
		n.refuses(t, "after the hourly verification", fmt.Sprintf("seq %d: does not match its hash", seq))
		n.exec(t, fmt.Sprintf(`UPDATE events SET actor = '%s' WHERE seq = %d`, human.Name, seq))
		n.signs(t, "once the event is restored")
	})
}

// A busy log, untouched, raises no false alarm: answers, votes, a chain of approvals, claims
// released and expired, reminders, escalations, a pool's pick, deadlines, cancellations,
// declines, resumed agents, sessions completed, failed and cancelled, and retention removing
// what ended; with the node looking at the log all along, while the changes commit.
func TestAuditOfABusyUntouchedLogFindsNothing(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		e := n.e
		keys(t, e, []string{"ops"}, "olga", "omar")
		stop := make(chan struct{})
		var looking sync.WaitGroup
		stopLooking := sync.OnceFunc(func() {
			close(stop)
			looking.Wait()
		})
		t.Cleanup(stopLooking) // before the engine stops, when the test fails
		looking.Go(func() {
			every := time.NewTicker(time.Millisecond) // a look each millisecond, as busy pages would
			defer every.Stop()
			for {
				select {
				case <-stop:
					return
				case <-every.C:
				}
				if _, err := e.VerifyAudit(ctx); err != nil {
					t.Errorf("a look while the log grows: %v", err)
					return
				}
			}
		})
		must := func(_ any, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		put := func(key string, req *hitl.SessionRequest) {
			t.Helper()
			if _, _, err := e.PutSession(ctx, agent, key, req); err != nil {
				t.Fatal(err)
			}
		}
		ask := func(req *hitl.InquiryRequest) *hitl.Inquiry {
			t.Helper()
			inq, _, err := e.CreateInquiry(ctx, agent, req, "")
			if err != nil {
				t.Fatal(err)
			}
			return inq
		}
		for i := range 3 {
			key := fmt.Sprintf("run-%d", i)
			put(key, &hitl.SessionRequest{Agent: "a", State: json.RawMessage(`{"n": 1.0}`), Metadata: map[string]string{"team": "sre"}})
			a := ask(&hitl.InquiryRequest{Prompt: "first", Session: key, ResponseSchema: json.RawMessage(`{"type":"object"}`)})
			ask(&hitl.InquiryRequest{Prompt: "second", Session: key})
			must(e.Respond(ctx, human, a.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"b": 2, "a": [1, 2.50]}`), Comment: "ok"}))
			must(e.Wait(ctx, agent, a.ID, time.Second)) // the agent resumes
			put(key, &hitl.SessionRequest{State: json.RawMessage(`{"n": 2}`)})
			end := []engine.SessionEnd{{Status: hitl.SessionCompleted, Result: json.RawMessage(`{"ok":true}`)},
				{Status: hitl.SessionFailed, Error: "boom"}, {Status: hitl.SessionCancelled}}[i]
			must(e.FinishSession(ctx, agent, key, end))
		}
		declined := ask(&hitl.InquiryRequest{Prompt: "may I?", Session: "run-d", CancellableByResponder: true})
		must(e.Decline(ctx, human, declined.ID, "no way"))
		quorum := ask(&hitl.InquiryRequest{Prompt: "deploy?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ann", "bob", "cy"}, Quorum: &hitl.Quorum{Required: 2}})
		must(e.Respond(ctx, responder("ann"), quorum.ID, approve(true, "fine")))
		must(e.Respond(ctx, responder("bob"), quorum.ID, approve(true, "")))
		chain := ask(&hitl.InquiryRequest{Prompt: "pay?", RequestType: hitl.RequestApproval, Steps: []hitl.ApprovalStep{{AssignedTo: []string{"ann"}}, {AssignedTo: []string{"bob"}}}})
		must(e.Respond(ctx, responder("ann"), chain.ID, approve(true, "")))
		ask(&hitl.InquiryRequest{Prompt: "who?", AssignedTo: []string{"pool:ops"}})
		claimed := ask(&hitl.InquiryRequest{Prompt: "mine?"})
		must(e.Claim(ctx, human, claimed.ID, nil))
		must(e.Release(ctx, human, claimed.ID))
		ttl := int64(60)
		expiring := ask(&hitl.InquiryRequest{Prompt: "for a minute", AssignedTo: []string{"ann"}})
		must(e.Claim(ctx, responder("ann"), expiring.ID, &ttl))
		ask(&hitl.InquiryRequest{Prompt: "remind me", AssignedTo: []string{"ann"}, RemindEvery: "30m", EscalateAfter: "45m", EscalateTo: hitl.Assignees{"bob"}})
		late := ask(&hitl.InquiryRequest{Prompt: "by noon?", TimeoutSeconds: seconds(3600), FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`"later"`)})
		cancelled := ask(&hitl.InquiryRequest{Prompt: "never mind"})
		must(e.Cancel(ctx, agent, cancelled.ID, "changed my mind"))
		for range 3 {
			advance(e, n.clock, 30*time.Minute) // the claim expires, reminders and the escalation fire, then the deadline
		}
		if got, err := e.Wait(ctx, agent, late.ID, 10*time.Second); err != nil || got.Status != hitl.StatusTimeout {
			t.Fatalf("the inquiry past its deadline: %+v, %v", got, err)
		}
		for typ, want := range map[string]int{hitl.EventInquiryTimeout: 1, hitl.EventInquiryReminded: 1, hitl.EventInquiryEscalated: 1, hitl.EventInquiryAssigned: 1,
			hitl.EventInquiryVoted: 2, hitl.EventInquiryStepCompleted: 1, hitl.EventInquiryResumed: 1, hitl.EventInquiryReleased: 2} {
			// The timers fire on their own goroutines.
			testserver.Eventually(t, 10*time.Second, fmt.Sprintf("at least %d %s events, which the test means the log to have", want, typ), func() bool {
				evs, err := e.Events(ctx, admin, hitl.EventFilter{Types: []string{typ}, Limit: 100})
				return err == nil && len(evs) >= want
			})
		}
		put("run-live", &hitl.SessionRequest{Agent: "a"}) // still running after the retention
		ask(&hitl.InquiryRequest{Prompt: "still asking", Session: "run-live"})
		clean := func(when string) {
			t.Helper()
			engine.ReverifyAudit(e)
			n.signs(t, when)
			var found []string
			count, err := audit.VerifyStates(ctx, n.st, func(m *audit.Mismatch) error { found = append(found, m.Error()); return nil })
			if err != nil || len(found) > 0 || count.Inquiries == 0 || count.Sessions == 0 {
				t.Fatalf("%s: comparing every stored state: %+v, %v, %q", when, count, err, found)
			}
		}
		clean("a busy log")
		// Retention removes what ended before now, which is most of it, once the outbox has
		// read the events.
		n.clock.Advance(time.Minute)
		var removed hitl.PurgeResult
		testserver.Eventually(t, 10*time.Second, "retention to remove inquiries and sessions", func() bool {
			res, err := e.Purge(ctx, admin, hitl.UTC(n.clock.Now()))
			if err != nil {
				t.Fatalf("purge: %v; removed %+v so far", err, removed)
			}
			removed.Inquiries, removed.Sessions = removed.Inquiries+res.Inquiries, removed.Sessions+res.Sessions
			return removed.Inquiries > 0 && removed.Sessions > 0
		})
		stopLooking()
		clean("after the retention")
	})
}
