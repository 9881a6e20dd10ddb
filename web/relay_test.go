package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestRelayedAnswerShowsWhoCarriedIt: an answer a relay carried (OpenIntent's responded_by)
// reads "alice@example.com via ops-bot" on the inquiry's page.
func TestRelayedAnswerShowsWhoCarriedIt(t *testing.T) {
	e := start(t)
	_, relayToken := e.keyToken("ops-bot", hitl.RoleResponder, hitl.RoleRelay)
	e.key("alice@example.com", hitl.RoleResponder) // a relay carries the answers of people hitl knows
	inq := e.ask(&hitl.InquiryRequest{Session: "refund-7", Prompt: "Approve the refund?"})
	body := fmt.Sprintf(`{"suspension_id": %d, "value": "approve", "responded_by": "alice@example.com"}`, inq.ID)
	req, err := http.NewRequest("POST", e.URL+"/api/v1/intents/refund-7/suspend/respond", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", relayToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("relayed answer: %d", res.StatusCode)
	}
	b := e.browser()
	b.signIn(testserver.AdminToken)
	page := b.get(fmt.Sprintf("/inquiries/%d", inq.ID))
	if !strings.Contains(page.body, "Answered by <strong>alice@example.com via ops-bot</strong>") {
		t.Fatalf("the page does not say who relayed the answer: %.2000s", page.body)
	}
}
