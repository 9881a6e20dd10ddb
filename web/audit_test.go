package web_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// The inquiry page says how far the audit chain verifies, and that it breaks, and where, once
// an event appended since the last look was changed in the database file.
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
	if res := b.get(page); !strings.Contains(res.body, fmt.Sprintf("audit: verified through seq %d<", last.Seq)) {
		t.Fatalf("the inquiry page does not say the chain verifies through seq %d:\n%s", last.Seq, res.body)
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
	want := fmt.Sprintf("audit: the audit log does not verify: seq %d: does not match its hash", answered)
	if res := b.get(page); !strings.Contains(res.body, want) {
		t.Fatalf("after the answer was edited in the database, the page does not say %q:\n%s", want, res.body)
	}
}
