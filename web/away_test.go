package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestAwayPageAndInboxForTheDelegate: ada sets her absence on the away page (bad input is
// refused there, in words, and stores nothing); bob, her delegate, then finds ada's inquiry in
// his inbox marked for her, answers it from its page, and the answer reads "bob for ada". An
// admin ends the absence for ada.
func TestAwayPageAndInboxForTheDelegate(t *testing.T) {
	e := start(t)
	_, bobToken := e.keyToken("bob", hitl.RoleResponder)
	ada := e.browser()
	ada.signIn(e.responderToken)
	page := ada.get("/away")
	if page.status != http.StatusOK || !strings.Contains(page.body, "No absence set: ada answers for themself") {
		t.Fatalf("away page: %d %.1500s", page.status, page.body)
	}
	from := time.Now().UTC().Add(-time.Hour).Format("2006-01-02T15:04")
	until := time.Now().UTC().Add(24 * time.Hour).Format("2006-01-02T15:04")
	for _, c := range []struct {
		form   url.Values
		status int
		want   string
	}{
		{url.Values{"from": {"soon"}, "until": {until}, "delegate": {"bob"}}, http.StatusBadRequest, "From is not a date and time"},
		{url.Values{"from": {from}, "until": {until}, "delegate": {"ada"}}, http.StatusBadRequest, "cannot be their own delegate"},
		{url.Values{"from": {from}, "until": {until}, "delegate": {"nobody"}}, http.StatusBadRequest, "nobody is not a person hitl knows"},
		{url.Values{"from": {until}, "until": {from}, "delegate": {"bob"}}, http.StatusBadRequest, "must be after from"},
	} {
		c.form.Set("csrf", page.csrf())
		res := ada.post("/away", c.form)
		if res.status != c.status || !strings.Contains(res.body, c.want) || !strings.Contains(res.body, "No absence set") {
			t.Errorf("away %v: %d, want %d saying %q: %.3000s", c.form, res.status, c.status, c.want, res.body)
		}
	}
	// Only an admin's form is for another person: ada's names bob, and sets her own.
	res := ada.post("/away", url.Values{"csrf": {page.csrf()}, "person": {"bob"}, "from": {from}, "until": {until}, "delegate": {"bob"}})
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/away" {
		t.Fatalf("ada naming bob: %d %.2000s", res.status, res.body)
	}
	if _, err := e.Admin.Absence(context.Background(), "bob"); err == nil || !strings.Contains(err.Error(), "bob has no absence set") {
		t.Fatalf("ada set bob's absence: %v", err)
	}
	res = ada.post("/away", url.Values{"csrf": {page.csrf()}, "from": {from}, "until": {until}, "delegate": {"bob"}})
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/away" {
		t.Fatalf("set: %d %.2000s", res.status, res.body)
	}
	if page := ada.get("/away"); !strings.Contains(page.body, "<strong>bob</strong> answers in ada's place") {
		t.Fatalf("the page does not show the absence: %.3000s", page.body)
	}

	inq := e.ask(&hitl.InquiryRequest{Prompt: "Ship the release?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
	bob := e.browser()
	bob.signIn(bobToken)
	inbox := bob.get("/?tab=mine")
	if !strings.Contains(inbox.body, "Ship the release?") || !strings.Contains(inbox.body, "you answer for ada, who is away") {
		t.Fatalf("bob's inbox: %.4000s", inbox.body)
	}
	if page := bob.get("/away"); !strings.Contains(page.body, "You stand in for ada") {
		t.Fatalf("bob's away page: %.3000s", page.body)
	}
	path := fmt.Sprintf("/inquiries/%d", inq.ID)
	form := bob.get(path)
	if !strings.Contains(form.body, "You answer for ada, who is away") {
		t.Fatalf("the inquiry page does not say for whom: %.4000s", form.body)
	}
	if res := bob.post(path, url.Values{"csrf": {form.csrf()}, "approved": {"true"}}); res.status != http.StatusSeeOther {
		t.Fatalf("bob's answer: %d %.2000s", res.status, res.body)
	}
	got := e.inquiry(inq.ID)
	if got.Status != hitl.StatusResponded || *got.RespondedBy != "bob" || got.OnBehalfOf == nil || *got.OnBehalfOf != "ada" {
		t.Fatalf("answered %+v", got)
	}
	if page := bob.get(path); !strings.Contains(page.body, "<strong>bob for ada</strong>") {
		t.Fatalf("the page does not say bob answered for ada: %.4000s", page.body)
	}

	// An admin ends ada's absence from the page for ada.
	admin := e.browser()
	admin.signIn(testserver.AdminToken)
	adaPage := admin.get("/away?person=ada")
	if !strings.Contains(adaPage.body, "answers in ada's place") {
		t.Fatalf("the admin's view of ada: %.3000s", adaPage.body)
	}
	if res := admin.post("/away/end", url.Values{"csrf": {adaPage.csrf()}, "person": {"ada"}}); res.status != http.StatusSeeOther || res.header.Get("Location") != "/away?person=ada" {
		t.Fatalf("end: %d %.2000s", res.status, res.body)
	}
	if res := admin.post("/away/end", url.Values{"csrf": {adaPage.csrf()}, "person": {"ada"}}); res.status != http.StatusNotFound || !strings.Contains(res.body, "ada has no absence set") {
		t.Fatalf("end again: %d %.2000s", res.status, res.body)
	}
}
