package storetest

import (
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// Older is a database that an older hitl left, at the version of the migration before one
// that fills what it adds from what was stored, into which RunUpgrades writes rows as that
// hitl did, in the words of Dialect; then it closes DB and calls Open, which opens the store
// on the database, which migrates it.
type Older struct {
	Dialect *sqlstore.Dialect
	DB      *sql.DB
	Open    func() (hitl.Store, error)
}

func (o Older) exec(stmt string, args ...any) error {
	_, err := o.DB.Exec(stmt, args...)
	return err
}

// insertInquiry writes an inquiry's row: its status, times and stored document, and the
// columns every inquiry had (no origin, input, by agent-a, unassigned, not exclusive).
func (o Older) insertInquiry(inq *hitl.Inquiry, doc []byte) error {
	d := o.Dialect
	return o.exec(`INSERT INTO inquiries (status, origin, request_type, created_by, unassigned, exclusive, created_at, updated_at, doc)
		VALUES (`+sqlPlaceholders(d, 9)+`)`,
		inq.Status, "", hitl.RequestInput, "agent-a", d.Bool(true), d.Bool(false), d.Time(inq.CreatedAt), d.Time(inq.UpdatedAt), string(doc))
}

// insertEvent writes an event without a hash.
func (o Older) insertEvent(ev *hitl.Event) error {
	d := o.Dialect
	var session *string
	if ev.Session != "" {
		session = &ev.Session
	}
	return o.exec("INSERT INTO events (seq, id, type, time, inquiry_id, session, actor, data) VALUES ("+sqlPlaceholders(d, 8)+")",
		ev.Seq, ev.ID, ev.Type, d.Time(ev.Time), ev.InquiryID, session, ev.Actor, string(ev.Data))
}

// sqlPlaceholders are the placeholders of n arguments.
func sqlPlaceholders(d *sqlstore.Dialect, n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = d.Placeholder(i + 1)
	}
	return strings.Join(ps, ", ")
}

// RunUpgrades checks the Go migrations, each on a database of the version before it that
// older gives: they fill what they add from what an older hitl stored, deep context or not,
// so that it reads as what the store stores now. nul: a prompt may hold a NUL, which the
// search passes over.
func RunUpgrades(t *testing.T, older func(t *testing.T, version int64) Older, nul bool) {
	deep := json.RawMessage(strings.Repeat("[", 2000) + strings.Repeat("]", 2000))
	ann, plain := "ann", "Plain question"
	if nul {
		plain = "Plain question \x00 with a NUL"
	}
	tests := []struct {
		name      string
		version   int64
		inquiries []*hitl.Inquiry
		events    []*hitl.Event
		check     func(t *testing.T, s hitl.Store)
	}{
		// Migration 3 fills the prompt column of the inquiries stored before it.
		{"PromptColumn", 2, []*hitl.Inquiry{
			{Prompt: "Deep context here", Context: deep},
			{Prompt: plain},
		}, nil, func(t *testing.T, s hitl.Store) {
			searches := map[string]int{"deep": 1, "PLAIN": 1, "e": 2, "nothing": 0}
			if nul {
				searches["with a"] = 1
			}
			for text, want := range searches {
				n, err := s.CountInquiries(context.Background(), hitl.InquiryFilter{Text: text, Visibility: hitl.Visibility{All: true}})
				if err != nil || n != want {
					t.Errorf("search %q after the migration: %d, %v; want %d", text, n, err, want)
				}
			}
		}},
		// Migration 13 chains the events an older hitl wrote, so an upgraded database
		// verifies, and the events written after the upgrade chain on from them.
		{"EventsChained", 10, nil, eventsBeforeTheChain(), checkUpgradedChain},
		// Migration 17 fills who answered and whether a timeout fell back for the inquiries
		// that became final before it: the stats count them as they count new ones.
		{"StatsColumns", 14, []*hitl.Inquiry{
			{Status: hitl.StatusResponded, RespondedBy: &ann, Context: deep},
			{Status: hitl.StatusTimeout, FallbackApplied: true},
			{Status: hitl.StatusPending},
		}, nil, checkStatsColumns},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := older(t, tc.version)
			for _, inq := range tc.inquiries {
				if inq.Status == "" {
					inq.Status = hitl.StatusPending
				}
				inq.RequestType, inq.CreatedBy, inq.CreatedAt, inq.UpdatedAt = hitl.RequestInput, "agent-a", base, base.Add(time.Minute)
				doc, _ := json.Marshal(inq)
				must(t, db.insertInquiry(inq, doc))
			}
			for _, ev := range tc.events {
				must(t, db.insertEvent(ev))
			}
			must(t, db.DB.Close())
			s, err := db.Open()
			must(t, err)
			defer s.Close()
			tc.check(t, s)
		})
	}
}

// eventsBeforeTheChain are events as a hitl without the audit chain wrote them: an inquiry
// (id 1) asked and answered, and an event of a session.
func eventsBeforeTheChain() []*hitl.Event {
	at := base.Add(123456 * time.Microsecond)
	one := int64(1)
	return []*hitl.Event{
		{Seq: 1, ID: "old-1", Type: hitl.EventInquiryCreated, Time: at, InquiryID: &one, Actor: "agent", Data: json.RawMessage(`{"id":1,"status":"pending"}`)},
		{Seq: 2, ID: "old-2", Type: hitl.EventInquiryResponded, Time: at, InquiryID: &one, Actor: "alice", Data: json.RawMessage(`{"id":1,"status":"answered","response":{"approved":true}}`)},
		{Seq: 3, ID: "old-3", Type: hitl.EventSessionUpdated, Time: at, Session: "s1", Actor: "agent", Data: json.RawMessage(`{"key":"s1"}`)},
	}
}

// checkUpgradedChain: the migration chained eventsBeforeTheChain, so the log verifies, and a
// new event chains on from them.
func checkUpgradedChain(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		return tx.AppendEvent(&hitl.Event{ID: "new", Type: hitl.EventSessionUpdated, Time: base, Session: "s1", Actor: "agent", Data: json.RawMessage(`{}`)})
	}))
	v, err := audit.VerifyLog(ctx, s, audit.Published{Seq: 4})
	if err != nil || v.Events != 4 {
		t.Fatalf("an upgraded database: verified %d events, %v; want 4", v.Events, err)
	}
}

// checkStatsColumns: ann's answer and the timeout that fell back count.
func checkStatsColumns(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	data, err := s.Stats(ctx, hitl.StatsQuery{From: base, Until: base.Add(time.Hour), MaxAnswers: 10, Owner: &hitl.StatsOwner{Name: "ann"}})
	if err != nil || len(data.Answers) != 1 || data.Answers[0].RespondedBy != "ann" || len(data.Days) != 1 || data.Days[0].Answered != 1 {
		t.Fatalf("ann's stats after the migration: %+v, %v", data, err)
	}
	data, err = s.Stats(ctx, hitl.StatsQuery{From: base, Until: base.Add(time.Hour), MaxAnswers: 10})
	if err != nil || len(data.Days) != 1 || data.Days[0] != (hitl.DayCount{Date: "2026-11-22", Answered: 1, TimedOut: 1, FellBack: 1}) {
		t.Fatalf("stats after the migration: %+v, %v", data, err)
	}
}

// RunMigratedElsewhere checks that a store refuses, with words that say what to do, a
// database that another hitl migrated: a newer one, or a build that skipped one of this
// hitl's migrations (a development branch with migrations of its own). older is as for
// RunUpgrades; it is asked for a database with every migration applied.
func RunMigratedElsewhere(t *testing.T, older func(t *testing.T, version int64) Older) {
	tests := []struct {
		name, want string
		change     func(db Older) error
	}{
		{"Newer", "migrated by a newer hitl (schema version 9999", func(db Older) error {
			return db.exec("INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, "+sqlPlaceholders(db.Dialect, 1)+")", db.Dialect.Bool(true))
		}},
		{"OtherBranch", "lacks schema migration 5 but has later ones", func(db Older) error {
			return db.exec("DELETE FROM goose_db_version WHERE version_id = 5")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := older(t, math.MaxInt64)
			must(t, tc.change(db))
			must(t, db.DB.Close())
			s, err := db.Open()
			if err == nil {
				s.Close()
				t.Fatal("the store opened a database another hitl migrated")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "another database (--db)") {
				t.Fatalf("the refusal says %q; want it to say %q and what to do", err, tc.want)
			}
		})
	}
}
