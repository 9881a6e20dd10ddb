package web_test

import (
	"context"
	"database/sql"
	"fmt"
	"html"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// The inquiry page says, for people, that the audit log is intact (how far it was checked on
// hover), and, once an event appended since the last look was changed in the database file,
// warns that it is not, and where.
func TestInquiryPageShowsTheAuditChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hitl.db")
	e := start(t, testserver.DB(path))
	b := e.browser()
	b.signIn(e.responderToken)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval})
	last, err := e.Engine().VerifyAudit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	page := fmt.Sprintf("/inquiries/%d", inq.ID)
	intact := fmt.Sprintf(`<p class="audit muted" title="Checked through event %d: the log&#39;s chain of hashes holds, and this inquiry is as its events say">The audit log is intact.</p>`, last.Seq)
	if res := b.get(page); !strings.Contains(res.body, intact) {
		t.Fatalf("the inquiry page does not say the log is intact, checked through event %d:\n%s", last.Seq, res.body)
	}

	if _, err := e.responder.Respond(context.Background(), inq.ID, []byte(`{"approved":true}`), ""); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var answered int64
	if err := db.QueryRow("SELECT seq FROM events WHERE type = ? AND inquiry_id = ?", hitl.EventInquiryResponded, inq.ID).Scan(&answered); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE events SET data = replace(data, '\"approved\":true', '\"approved\":false') WHERE seq = ?", answered); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`role="alert">Warning: the audit log is not intact. Event %d: does not match its hash`, answered)
	if res := b.get(page); !strings.Contains(res.body, want) {
		t.Fatalf("after the answer was edited in the database, the page does not say %q:\n%s", want, res.body)
	}
}

// The inquiry page compares the stored inquiry it shows with its events: an answer edited in
// the database after the server last looked shows on its page at once, in words, rather than
// "verified" beside the edited answer until the hourly comparison; the server then refuses to
// sign heads too, and both pass again once the edit is undone. On each kind of database.
func TestInquiryPageComparesTheInquiryItShows(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			opt := testserver.Postgres()
			if kind == "sqlite" {
				opt = testserver.DB(filepath.Join(t.TempDir(), "hitl.db"))
			}
			e := start(t, opt)
			b := e.browser()
			b.signIn(e.responderToken)
			inq := e.ask(&hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval})
			if _, err := e.responder.Respond(context.Background(), inq.ID, []byte(`{"approved":false}`), ""); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Engine().VerifyAudit(context.Background()); err != nil { // the server has looked at every event
				t.Fatal(err)
			}
			db := testserver.RawDB(t, e.DB)
			defer db.Close()
			edit := fmt.Sprintf(`UPDATE inquiries SET doc = replace(doc, '"approved":false', '"approved":true') WHERE id = %d`, inq.ID)
			if _, err := db.Exec(edit); err != nil {
				t.Fatal(err)
			}
			page := fmt.Sprintf("/inquiries/%d", inq.ID)
			want := fmt.Sprintf(`Warning: the audit log is not intact. Inquiry %d: the stored answer is {"approved":true} but its events say {"approved":false}`, inq.ID)
			if res := b.get(page); !strings.Contains(html.UnescapeString(res.body), want) {
				t.Fatalf("the page of the edited inquiry does not say %q:\n%s", want, res.body)
			}
			if _, err := e.Engine().AuditHead(context.Background(), &hitl.Principal{Name: "ada"}); hitl.ErrorCode(err) != hitl.EConflict {
				t.Fatalf("after the page found the edit, AuditHead = %v; want a conflict", err)
			}
			if _, err := db.Exec(strings.NewReplacer("false", "true", "true", "false").Replace(edit)); err != nil {
				t.Fatal(err)
			}
			if res := b.get(page); !strings.Contains(res.body, "The audit log is intact.") {
				t.Fatalf("once the edit is undone, the page does not say the log verifies:\n%s", res.body)
			}
		})
	}
}
