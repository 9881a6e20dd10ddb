package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/store/postgres"
)

// A year of history. The other scenarios run on a nearly empty database; a server in use
// holds the questions of months. This one fills a database with n ended inquiries, copied
// from a handful that went through the API (so each copy holds what the engine stores: the
// row, its events in the audit chain, its session), with a person's 100 pending questions
// among them, and measures what grows with n: the bytes per inquiry, the inbox's first page,
// the pending list, a text search, the start-up and the audit's verification.

// History is what n ended inquiries cost. The latencies are of HistoryRequests requests, one
// at a time, by the person with the pending questions.
type History struct {
	N               int     `json:"n"`
	BytesPerInquiry float64 `json:"bytes_per_inquiry"`
	// InboxPageMS is the inbox's first page (GET /, the person's pending questions);
	// PendingListMS GET /v1/inquiries?status=pending; SearchMS GET /v1/inquiries?q=WORD,
	// a word that about one inquiry in 500 holds, among every inquiry.
	InboxPageMS           Latency `json:"inbox_page_ms"`
	PendingListMS         Latency `json:"pending_list_ms"`
	SearchMS              Latency `json:"search_ms"`
	StartupS              float64 `json:"startup_s"`
	AuditVerifyEventsPerS float64 `json:"audit_verify_events_per_s"`
	Events                int64   `json:"events"`
}

// HistoryRequests is how many requests each latency of History is taken over.
const HistoryRequests = 200

// historyPerson is the person whose inbox is measured.
const historyPerson = "hist-person"

// history grows one database through the sizes (ascending), measuring at each: a SQLite
// file of its own, or on PostgreSQL a schema of its own.
func (r *run) history(ctx context.Context, dir string) ([]History, error) {
	db := dir + "/history.db"
	if r.o.DB != "" {
		url, drop, err := postgres.TempSchema(ctx, r.o.DB, "hitl_bench_history_")
		if err != nil {
			return nil, fmt.Errorf("a schema for the history: %w", err)
		}
		defer drop()
		db = url
	}
	url, stop, _, err := startServer(ctx, r.o, db, dir)
	if err != nil {
		return nil, err
	}
	admin := client.New(url, adminToken, r.hc)
	if err := ready(ctx, admin); err != nil {
		stop()
		return nil, err
	}
	samples, personToken, err := askHistorySamples(ctx, admin, r.hc, url)
	stop()
	if err != nil {
		return nil, fmt.Errorf("the history's first inquiries: %w", err)
	}
	var out []History
	have, pending := len(samples), 0
	for _, n := range r.o.HistorySizes {
		r.say("history: %d ended inquiries ...", n)
		if err := r.copyEndedInquiries(ctx, db, samples, n-have, have); err != nil {
			return nil, err
		}
		have = max(have, n)
		if r.o.DB != "" {
			if err := analyze(ctx, db); err != nil {
				return nil, fmt.Errorf("analyzing the history's tables: %w", err)
			}
		}
		h, err := r.measureHistory(ctx, db, dir, personToken, &pending)
		if err != nil {
			return nil, fmt.Errorf("history of %d: %w", n, err)
		}
		h.N = n
		out = append(out, h)
	}
	return out, nil
}

// askHistorySamples asks and ends, through the API, the inquiries the history is copied from:
// approvals answered with a comment, inputs answered in a session, and a cancelled one. It
// returns their ids and the token of the person who answered them.
func askHistorySamples(ctx context.Context, admin *client.Client, hc *http.Client, url string) ([]int64, string, error) {
	agentKey, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "hist-agent", Roles: []string{hitl.RoleAgent}})
	if err != nil {
		return nil, "", err
	}
	personKey, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: historyPerson, Roles: []string{hitl.RoleResponder}})
	if err != nil {
		return nil, "", err
	}
	agent, person := client.New(url, agentKey.Token, hc), client.New(url, personKey.Token, hc)
	var ids []int64
	ask := func(req *hitl.InquiryRequest, answer json.RawMessage, comment string) error {
		inq, _, err := agent.CreateInquiry(ctx, req, client.CreateOptions{})
		if err != nil {
			return err
		}
		if answer == nil {
			_, err = agent.Cancel(ctx, inq.ID, "no longer needed")
		} else {
			_, err = person.Respond(ctx, inq.ID, answer, comment)
		}
		ids = append(ids, inq.ID)
		return err
	}
	for i := range 8 {
		err := ask(&hitl.InquiryRequest{Prompt: "Deploy build 4812 of the billing service to production?", RequestType: hitl.RequestApproval,
			AssignedTo: []string{historyPerson}, Context: json.RawMessage(`{"service":"billing","build":4812,"changes":["fix rounding of refunds","retry webhook deliveries"]}`)},
			json.RawMessage(`{"approved":true}`), "looks fine")
		if err == nil && i%4 == 0 {
			err = ask(&hitl.InquiryRequest{Prompt: "Which region should the new cluster go to?", Session: fmt.Sprintf("hist-session-%d", i),
				ResponseSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string"}},"required":["region"]}`), AssignedTo: []string{historyPerson}},
				json.RawMessage(`{"region":"eu-west-1"}`), "")
		}
		if err != nil {
			return nil, "", err
		}
	}
	if err := ask(&hitl.InquiryRequest{Prompt: "Rotate the database credentials now?", RequestType: hitl.RequestApproval, AssignedTo: []string{historyPerson}}, nil, ""); err != nil {
		return nil, "", err
	}
	return ids, personKey.Token, nil
}

// copyEndedInquiries adds n copies of the ended inquiries samples (ids) to the database db,
// round robin, each with copies of its events (in the audit chain, as AppendEvent
// chains them) and of its session under a key of its own. from numbers the copies, so that a
// word of each prompt (service-K) is held by about one copy in 500. Like
// CopyPendingInquiry it writes through the store, 250 to a transaction.
func (r *run) copyEndedInquiries(ctx context.Context, db string, samples []int64, n, from int) error {
	if n <= 0 {
		return nil
	}
	st, err := r.openStore(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	type sample struct {
		inq     *hitl.Inquiry
		events  []*hitl.Event
		session *hitl.Session
	}
	var originals []sample
	for _, id := range samples {
		inq, err := st.Inquiry(ctx, id)
		if err != nil {
			return err
		}
		evs, err := st.Events(ctx, hitl.EventFilter{InquiryID: id, Visibility: hitl.Visibility{All: true}, Limit: 100})
		if err != nil {
			return err
		}
		s := sample{inq: inq, events: evs}
		if inq.Session != "" {
			if s.session, err = st.Session(ctx, inq.Session); err != nil {
				return err
			}
		}
		originals = append(originals, s)
	}
	const perTx = 250
	var last int64 // the seq of the last event copied
	for done := 0; done < n; {
		batch := min(perTx, n-done)
		err := st.Update(ctx, func(tx hitl.Tx) error {
			for i := done; i < done+batch; i++ {
				k := from + i
				orig := originals[k%len(originals)]
				c := *orig.inq
				c.ID = 0
				c.Prompt = fmt.Sprintf("%s (service-%d)", orig.inq.Prompt, k%500)
				if orig.session != nil {
					s := *orig.session
					s.Key = fmt.Sprintf("%s-copy-%d", orig.session.Key, k)
					if err := tx.InsertSession(&s); err != nil {
						return err
					}
					c.Session = s.Key
				}
				if err := tx.InsertInquiry(&c); err != nil {
					return err
				}
				id := c.ID
				for _, ev := range orig.events {
					e := *ev
					e.Seq, e.ID, e.InquiryID = 0, uuid.NewString(), &id
					if e.Session != "" {
						e.Session = c.Session
					}
					if err := tx.AppendEvent(&e); err != nil {
						return err
					}
					last = e.Seq
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("copying the history's inquiries: %w", err)
		}
		done += batch
	}
	return skipOutbox(ctx, st, last)
}

// skipOutbox moves the outbox cursor past the copied events: a year's events were turned into
// deliveries as they happened, and a server started on the copies would otherwise spend its
// first minutes doing so beside the requests it is measured on.
func skipOutbox(ctx context.Context, st hitl.Store, last int64) error {
	cursor, err := st.OutboxCursor(ctx)
	if err != nil || cursor >= last {
		return err
	}
	return st.Update(ctx, func(tx hitl.Tx) error { return tx.AdvanceOutboxCursor(cursor, last) })
}

// measureHistory starts a server on db, measures its start-up, gives the person 100 pending
// questions (pending says how many an earlier size gave), takes the latencies, stops it and verifies the audit chain beside it.
func (r *run) measureHistory(ctx context.Context, db, dir, personToken string, pending *int) (History, error) {
	var h History
	started := time.Now()
	url, stop, _, err := startServer(ctx, r.o, db, dir)
	if err != nil {
		return h, err
	}
	defer stop()
	admin := client.New(url, adminToken, r.hc)
	if err := ready(ctx, admin); err != nil {
		return h, err
	}
	h.StartupS = round(time.Since(started).Seconds())
	agentKey, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "hist-asker", Roles: []string{hitl.RoleAgent}})
	if err != nil {
		return h, err
	}
	agent := client.New(url, agentKey.Token, r.hc)
	for i := *pending; i < 100; i++ {
		if _, _, err := agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: fmt.Sprintf("Approve the refund of order %d?", 9000+i), RequestType: hitl.RequestApproval,
			AssignedTo: []string{historyPerson}}, client.CreateOptions{}); err != nil {
			return h, err
		}
		*pending = i + 1
	}
	inbox, err := signIn(ctx, url, personToken)
	if err != nil {
		return h, err
	}
	bearer := func(c *http.Client, path string) func() (*http.Request, *http.Client) {
		return func() (*http.Request, *http.Client) {
			req, _ := http.NewRequestWithContext(ctx, "GET", url+path, nil)
			if c == r.hc {
				req.Header.Set("Authorization", "Bearer "+personToken)
			}
			return req, c
		}
	}
	if h.InboxPageMS, err = timeRequests(bearer(inbox, "/")); err != nil {
		return h, fmt.Errorf("inbox page: %w", err)
	}
	if h.PendingListMS, err = timeRequests(bearer(r.hc, "/v1/inquiries?status=pending")); err != nil {
		return h, fmt.Errorf("pending list: %w", err)
	}
	if h.SearchMS, err = timeRequests(bearer(r.hc, "/v1/inquiries?q=service-123")); err != nil {
		return h, fmt.Errorf("search: %w", err)
	}
	stop()
	if size, err := r.databaseSize(ctx, db); err == nil {
		var n int
		if n, err = r.inquiryCount(ctx, db); err != nil {
			return h, err
		}
		h.BytesPerInquiry = round(float64(size) / float64(max(n, 1)))
	}
	h.AuditVerifyEventsPerS, h.Events, err = r.auditVerify(ctx, db)
	return h, err
}

// inquiryCount is how many inquiries the database db holds.
func (r *run) inquiryCount(ctx context.Context, db string) (int, error) {
	st, err := r.openStore(ctx, db)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	return st.CountInquiries(ctx, hitl.InquiryFilter{Visibility: hitl.Visibility{All: true}})
}

// analyze has PostgreSQL gather the statistics of the tables of db's schema. A year of
// history would have been analyzed many times over by autovacuum; the fill writes it in
// minutes, and where autovacuum is off (as on the project's machines) never, and the planner
// would cost the inbox's queries for tables it takes to be nearly empty.
func analyze(ctx context.Context, db string) error {
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
	if err != nil {
		return err
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, t := range tables {
		if _, err := conn.Exec(ctx, "ANALYZE "+pgx.Identifier{t}.Sanitize()); err != nil {
			return err
		}
	}
	return nil
}

// databaseSize is the bytes the database db takes: the SQLite file, or on PostgreSQL the
// tables of its schema with their indexes and TOAST.
func (r *run) databaseSize(ctx context.Context, db string) (int64, error) {
	if r.o.DB == "" {
		info, err := os.Stat(db)
		if err != nil {
			return 0, err
		}
		return info.Size(), nil
	}
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var size int64
	err = conn.QueryRow(ctx, `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
		WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'm')`).Scan(&size)
	return size, err
}

// timeRequests sends HistoryRequests requests one at a time and takes their latencies; any
// answer but 200 stops it.
func timeRequests(next func() (*http.Request, *http.Client)) (Latency, error) {
	took := make([]time.Duration, HistoryRequests)
	for i := range took {
		req, c := next()
		began := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			return Latency{}, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		took[i] = time.Since(began)
		if err != nil {
			return Latency{}, err
		}
		if resp.StatusCode != http.StatusOK {
			return Latency{}, fmt.Errorf("GET %s answered %s", req.URL.Path, resp.Status)
		}
	}
	return summarize(took), nil
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signIn signs in to the inbox with token, as a person does, and returns an HTTP client that
// holds the session's cookie.
func signIn(ctx context.Context, base, token string) (*http.Client, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/login", nil)
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	m := csrfField.FindSubmatch(page)
	if m == nil {
		return nil, fmt.Errorf("the sign-in page has no csrf field")
	}
	form := url.Values{"csrf": {string(m[1])}, "token": {token}}
	req, _ = http.NewRequestWithContext(ctx, "POST", base+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err = c.Do(req); err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/" || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("signing in to the inbox: %s at %s", resp.Status, resp.Request.URL.Path)
	}
	return c, nil
}
