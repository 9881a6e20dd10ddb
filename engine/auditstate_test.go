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
	"github.com/hitl-dev/hitl/internal/clock"
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
	clock *clock.Manual
	db    *sql.DB
}

// onEachStore runs test on an engine over a SQLite file and over a PostgreSQL schema.
func onEachStore(t *testing.T, test func(t *testing.T, n *auditNode)) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			n := &auditNode{clock: clock.NewManual(time.Now().UTC())}
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
			n.e = engine.New(n.st, engine.Options{Clock: n.clock})
			if err := n.e.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				n.e.Stop(ctx)
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
		declined := ask(&hitl.InquiryRequest{Prompt: "may I?", Session: "run-d"})
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
		// A chain whose second step has a time limit of its own, with metadata; an inquiry
		// that an execution's result asked.
		limited := ask(&hitl.InquiryRequest{Prompt: "merge?", RequestType: hitl.RequestApproval, TimeoutSeconds: seconds(86400),
			Steps: []hitl.ApprovalStep{{AssignedTo: []string{"ann"}}, {AssignedTo: []string{"bob"}, TimeoutSeconds: seconds(7200)}}, Metadata: map[string]string{"team": "sre", "env": "prod"}})
		if _, _, err := e.IntakeActionResult(ctx, agent, "exec-1", json.RawMessage(`{"__inquiry":{"prompt":"go on?"},"step":3}`)); err != nil {
			t.Fatal(err)
		}
		late := ask(&hitl.InquiryRequest{Prompt: "by noon?", TimeoutSeconds: seconds(3600), FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`"later"`)})
		cancelled := ask(&hitl.InquiryRequest{Prompt: "never mind"})
		must(e.Cancel(ctx, agent, cancelled.ID, "changed my mind"))
		for range 3 {
			n.clock.Advance(30 * time.Minute) // the claim expires, reminders and the escalation fire, then the deadline
		}
		must(e.Respond(ctx, responder("ann"), limited.ID, approve(true, ""))) // its second step starts
		if got, err := e.Wait(ctx, agent, late.ID, 10*time.Second); err != nil || got.Status != hitl.StatusTimeout {
			t.Fatalf("the inquiry past its deadline: %+v, %v", got, err)
		}
		for typ, want := range map[string]int{hitl.EventInquiryTimeout: 1, hitl.EventInquiryReminded: 1, hitl.EventInquiryEscalated: 1, hitl.EventInquiryAssigned: 1,
			hitl.EventInquiryVoted: 3, hitl.EventInquiryStepCompleted: 2, hitl.EventInquiryResumed: 1, hitl.EventInquiryReleased: 2} {
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

// The columns beside an inquiry's document, which lists, filters, stats, who may see it and
// the conditional writes read, and its rows in the tables beside it: each edited alone is
// found and named, and the node signs again once it is undone. (The review's repro: a status
// edited to cancelled made GET say pending while answering was a conflict; a responder edited
// to mallory showed in the stats; an asker edited lost the inquiry from the asker's list.)
func TestAuditFindsEditedColumnsAndRowsBesideTheDocument(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		if _, _, err := n.e.PutSession(ctx, agent, "run-1", &hitl.SessionRequest{Agent: "deployer"}); err != nil {
			t.Fatal(err)
		}
		answered, _, err := n.e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Ship?", Metadata: map[string]string{"team": "sre"}}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.e.Respond(ctx, human, answered.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"yes"`)}); err != nil {
			t.Fatal(err)
		}
		pending, _, err := n.e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Go on?", Session: "run-1", AssignedTo: []string{"ceo"}}, "")
		if err != nil {
			t.Fatal(err)
		}
		n.signs(t, "an untouched log")
		last := func(id int64) int64 {
			return n.query(t, fmt.Sprintf("SELECT MAX(seq) FROM events WHERE inquiry_id = %d", id))
		}
		for _, c := range []struct {
			edit, undo string
			id         int64
			want       string
		}{
			{fmt.Sprintf("UPDATE inquiries SET status = 'cancelled' WHERE id = %d", pending.ID), fmt.Sprintf("UPDATE inquiries SET status = 'pending' WHERE id = %d", pending.ID),
				pending.ID, "its status column says cancelled but its events say pending"},
			{fmt.Sprintf("UPDATE inquiries SET responded_by = 'mallory' WHERE id = %d", answered.ID), fmt.Sprintf("UPDATE inquiries SET responded_by = 'ann' WHERE id = %d", answered.ID),
				answered.ID, "its responded_by column says mallory but its events say ann"},
			{fmt.Sprintf("UPDATE inquiries SET created_by = 'someone' WHERE id = %d", answered.ID), fmt.Sprintf("UPDATE inquiries SET created_by = 'bot' WHERE id = %d", answered.ID),
				answered.ID, "its created_by column says someone but its events say bot"},
			{fmt.Sprintf("UPDATE inquiries SET session = NULL WHERE id = %d", pending.ID), fmt.Sprintf("UPDATE inquiries SET session = 'run-1' WHERE id = %d", pending.ID),
				pending.ID, "its session column says none but its events say run-1"},
			{fmt.Sprintf("UPDATE inquiries SET unassigned = true WHERE id = %d", pending.ID), fmt.Sprintf("UPDATE inquiries SET unassigned = false WHERE id = %d", pending.ID),
				pending.ID, "its unassigned column says true but its events say false"},
			{fmt.Sprintf("UPDATE inquiries SET timeout_at = created_at WHERE id = %d", pending.ID), fmt.Sprintf("UPDATE inquiries SET timeout_at = NULL WHERE id = %d", pending.ID),
				pending.ID, "its timeout_at column says 20"},
			{fmt.Sprintf("INSERT INTO inquiry_assignees (assignee, inquiry_id) VALUES ('mallory', %d)", pending.ID),
				fmt.Sprintf("DELETE FROM inquiry_assignees WHERE assignee = 'mallory' AND inquiry_id = %d", pending.ID),
				pending.ID, "its rows in inquiry_assignees say ceo, mallory but its events say ceo"},
			{fmt.Sprintf("UPDATE inquiry_assignees SET earlier = true WHERE inquiry_id = %d", pending.ID),
				fmt.Sprintf("UPDATE inquiry_assignees SET earlier = false WHERE inquiry_id = %d", pending.ID),
				pending.ID, "its rows in inquiry_assignees say ceo (earlier) but its events say ceo"},
			{fmt.Sprintf("UPDATE inquiry_metadata SET value = 'web' WHERE inquiry_id = %d", answered.ID), fmt.Sprintf("UPDATE inquiry_metadata SET value = 'sre' WHERE inquiry_id = %d", answered.ID),
				answered.ID, "its rows in inquiry_metadata say team=web but its events say team=sre"},
		} {
			n.exec(t, c.edit)
			engine.ReverifyAudit(n.e)
			n.refuses(t, c.edit, fmt.Sprintf("inquiry %d: %s", c.id, c.want))
			n.refuses(t, c.edit, fmt.Sprintf("(event %d)", last(c.id)))
			n.exec(t, c.undo)
			n.signs(t, "once "+c.edit+" is undone")
		}
	})
}

// A pending inquiry edited in the database, then changed by hitl: the change's event carries
// the edit, so the newest event agrees with the row; what was fixed at its creation still
// differs from its inquiry.created event, and the node says so. (The review's repro: the
// assignee ceo edited to cfo, then cfo answers.) The same for a session's owner.
func TestAuditFindsAPendingInquiryEditedBeforeHitlChangedIt(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		created := func(id int64) int64 {
			return n.query(t, fmt.Sprintf("SELECT seq FROM events WHERE inquiry_id = %d AND type = '%s'", id, hitl.EventInquiryCreated))
		}
		// The document alone: its assignee rows still say ceo.
		inq, _, err := n.e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Wire the money?", AssignedTo: []string{"ceo"}}, "")
		if err != nil {
			t.Fatal(err)
		}
		n.signs(t, "an untouched log")
		n.exec(t, fmt.Sprintf(`UPDATE inquiries SET doc = replace(doc, '"assigned_to":["ceo"]', '"assigned_to":["cfo"]') WHERE id = %d`, inq.ID))
		if _, err := n.e.Respond(ctx, responder("cfo"), inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"yes"`)}); err != nil {
			t.Fatalf("the test means cfo to answer after the edit: %v", err)
		}
		n.refuses(t, "the document edited, then answered", fmt.Sprintf("inquiry %d: its rows in inquiry_assignees say ceo but its events say ceo (earlier), cfo", inq.ID))

		// Its rows made to agree with the edited document: only its inquiry.created event says
		// ceo.
		n.exec(t, fmt.Sprintf(`UPDATE inquiry_assignees SET earlier = true WHERE inquiry_id = %d`, inq.ID))
		n.exec(t, fmt.Sprintf(`INSERT INTO inquiry_assignees (assignee, inquiry_id) VALUES ('cfo', %d)`, inq.ID))
		n.refuses(t, "the document and its rows edited, then answered",
			fmt.Sprintf(`inquiry %d: the stored assignees are ["cfo"] but its inquiry.created event says ["ceo"] (event %d)`, inq.ID, created(inq.ID)))
	})
}

// The same for a prompt edited in the document and its column, then claimed: found at the
// hourly verification.
func TestAuditFindsAPromptEditedBeforeHitlChangedIt(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		inq, _, err := n.e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Delete the backups?"}, "")
		if err != nil {
			t.Fatal(err)
		}
		n.exec(t, fmt.Sprintf(`UPDATE inquiries SET doc = replace(doc, 'Delete the backups?', 'Keep the backups?'), prompt = 'Keep the backups?' WHERE id = %d`, inq.ID))
		if _, err := n.e.Claim(ctx, human, inq.ID, nil); err != nil {
			t.Fatal(err)
		}
		created := n.query(t, fmt.Sprintf("SELECT seq FROM events WHERE inquiry_id = %d AND type = '%s'", inq.ID, hitl.EventInquiryCreated))
		engine.ReverifyAudit(n.e)
		n.refuses(t, "a prompt edited, then claimed",
			fmt.Sprintf(`inquiry %d: the stored prompt is "Keep the backups?" but its inquiry.created event says "Delete the backups?" (event %d)`, inq.ID, created))
	})
}

// A session's owner edited in the database, then the session changed by the new owner: its
// newest event agrees with the row, its first does not.
func TestAuditFindsASessionOwnerEditedBeforeHitlChangedIt(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		if _, _, err := n.e.PutSession(ctx, agent, "run-1", &hitl.SessionRequest{Agent: "deployer"}); err != nil {
			t.Fatal(err)
		}
		first := n.query(t, "SELECT MIN(seq) FROM events WHERE session = 'run-1'")
		n.signs(t, "an untouched log")
		n.exec(t, `UPDATE sessions SET created_by = 'mallory' WHERE key = 'run-1'`)
		mallory := &hitl.Principal{Name: "mallory", Roles: []string{hitl.RoleAgent}}
		if _, _, err := n.e.PutSession(ctx, mallory, "run-1", &hitl.SessionRequest{State: json.RawMessage(`{"step":2}`)}); err != nil {
			t.Fatalf("the test means mallory to change the session after the edit: %v", err)
		}
		n.refuses(t, "the owner edited, then the session changed",
			fmt.Sprintf(`session run-1: the stored owner is "mallory" but its first event says "bot" (event %d)`, first))
	})
}

// A look for an inquiry's page compares that inquiry too, though no event about it came
// since the last look: its edit is named, before any other inquiry found to differ, and the
// node refuses to sign heads from then on, until it is undone.
func TestAuditLookOfAPageComparesItsInquiry(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		earlier, _ := askAndAnswer(t, n.e, "Ship?")
		inq, _ := askAndAnswer(t, n.e, "Rotate the keys?")
		n.signs(t, "an untouched log")
		n.exec(t, fmt.Sprintf(`UPDATE inquiries SET created_by = 'mallory' WHERE id IN (%d, %d)`, earlier.ID, inq.ID))
		n.signs(t, "before any page of them is shown") // the running check compares what new events are about
		problem := func(id int64) string {
			return fmt.Sprintf("inquiry %d: its created_by column says mallory but its events say bot (event %d)", id,
				n.query(t, fmt.Sprintf("SELECT MAX(seq) FROM events WHERE inquiry_id = %d", id)))
		}
		for _, id := range []int64{earlier.ID, inq.ID} {
			if _, err := n.e.VerifyAudit(ctx, id); hitl.ErrorCode(err) != hitl.EConflict || !strings.Contains(err.Error(), problem(id)) {
				t.Fatalf("the look of inquiry %d's page: %v; want %q", id, err, problem(id))
			}
		}
		n.refuses(t, "once the pages found them", problem(earlier.ID))
		n.exec(t, fmt.Sprintf(`UPDATE inquiries SET created_by = 'bot' WHERE id IN (%d, %d)`, earlier.ID, inq.ID))
		n.signs(t, "once the edit is undone")
	})
}
