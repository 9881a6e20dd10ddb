package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// What the pages do with visitors who are not signed in, forged forms, bad input and
// oversized posts: a clear page with the right status, and nothing recorded.

func TestSecurityHeadersOnEveryPage(t *testing.T) {
	e := start(t)
	b := e.browser()
	for _, path := range []string{"/login", "/", "/nowhere", "/static/app.js", "/a/garbage"} {
		res := b.get(path)
		h := res.header
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"} {
			if h.Get(k) != want {
				t.Errorf("%s: %s is %q, want %q", path, k, h.Get(k), want)
			}
		}
	}
	if res := b.get("/nowhere"); res.status != http.StatusNotFound || !strings.Contains(res.body, "There is no page here") {
		t.Errorf("unknown page: %d", res.status)
	}
}

func TestSignInAndOut(t *testing.T) {
	e := start(t)
	b := e.browser()
	if res := b.get("/inquiries/1"); res.status != http.StatusSeeOther || res.header.Get("Location") != "/login?next=%2Finquiries%2F1" {
		t.Fatalf("signed out GET: %d to %q", res.status, res.header.Get("Location"))
	}
	if res := b.post("/inquiries/1", url.Values{"approved": {"true"}}); res.status != http.StatusUnauthorized {
		t.Fatalf("signed out POST: %d", res.status)
	}
	if res := b.get("/v1/events/stream"); res.status != http.StatusUnauthorized {
		t.Fatalf("stream without a cookie: %d", res.status)
	}

	login := b.get("/login")
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		says   string
	}{
		{"no CSRF token", url.Values{"token": {e.responderToken}}, http.StatusForbidden, "expired"},
		{"a wrong CSRF token", url.Values{"csrf": {"forged"}, "token": {e.responderToken}}, http.StatusForbidden, "expired"},
		{"no token", url.Values{"csrf": {"fresh"}}, http.StatusUnprocessableEntity, "Enter your API token"},
		{"a wrong token", url.Values{"csrf": {"fresh"}, "token": {"hitl_not-a-real-token"}}, http.StatusUnauthorized, "not valid"},
	} {
		if tc.form.Get("csrf") == "fresh" {
			tc.form.Set("csrf", login.csrf()) // the token of the form the last answer showed
		}
		res := b.post("/login", tc.form)
		if res.status != tc.status || !strings.Contains(res.body, tc.says) || strings.Contains(strings.Join(res.header.Values("Set-Cookie"), " "), "hitl_session=hitl") {
			t.Errorf("%s: %d %q", tc.name, res.status, res.header.Get("Set-Cookie"))
		}
		login = res // each answer carries a fresh form
	}

	// The redirect after sign-in stays on this site.
	res := b.post("/login", url.Values{"csrf": {login.csrf()}, "token": {e.responderToken}, "next": {"//evil.example/"}})
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/" {
		t.Fatalf("sign-in with an outside next: %d to %q", res.status, res.header.Get("Location"))
	}
	cookie := ""
	for _, c := range res.header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "hitl_session=") {
			cookie = c
		}
	}
	for _, attr := range []string{"HttpOnly", "SameSite=Strict", "Path=/", "Max-Age="} {
		if !strings.Contains(cookie, attr) {
			t.Errorf("session cookie %q lacks %s", cookie, attr)
		}
	}

	// Signed in: the stream takes the cookie; the rest of the API does not.
	inbox := b.get("/")
	if inbox.status != http.StatusOK || !strings.Contains(inbox.body, "Signed in as <strong>ada</strong>") {
		t.Fatalf("inbox: %d", inbox.status)
	}
	if res := b.do(http.MethodPost, "/v1/inquiries", url.Values{"prompt": {"x"}}); res.status != http.StatusUnauthorized {
		t.Errorf("API POST with only the cookie: %d", res.status)
	}

	// Signing out needs the form's token, and ends the session.
	if res := b.post("/logout", url.Values{}); res.status != http.StatusForbidden {
		t.Errorf("sign-out without CSRF: %d", res.status)
	}
	res = b.post("/logout", url.Values{"csrf": {inbox.csrf()}})
	if res.status != http.StatusSeeOther || !strings.Contains(strings.Join(res.header.Values("Set-Cookie"), " "), "hitl_session=; Path=/; Max-Age=0") {
		t.Fatalf("sign-out: %d %v", res.status, res.header.Values("Set-Cookie"))
	}
	if res := b.get("/"); res.status != http.StatusSeeOther {
		t.Errorf("after sign-out: %d", res.status)
	}
}

func TestInboxSearchOrderAndCountdown(t *testing.T) {
	e := start(t)
	b := e.browser()
	b.signIn(e.responderToken)
	later, soon := int64(3600), int64(120)
	restart := e.ask(&hitl.InquiryRequest{Prompt: "Restart the CACHE?", TimeoutSeconds: &later})
	flush := e.ask(&hitl.InquiryRequest{Prompt: "Flush the cache now?", TimeoutSeconds: &soon})
	rotate := e.ask(&hitl.InquiryRequest{Prompt: "Rotate keys?"})
	row := func(id int64) string { return fmt.Sprintf(`id="inquiry-%d"`, id) }
	order := func(body string, ids ...int64) bool {
		last := -1
		for _, id := range ids {
			i := strings.Index(body, row(id))
			if i <= last {
				return false
			}
			last = i
		}
		return true
	}

	all := b.get("/")
	if !order(all.body, rotate.ID, flush.ID, restart.ID) || !strings.Contains(all.body, `data-count="pending">3<`) {
		t.Errorf("newest first, with the count: %s", all.body)
	}
	if res := b.get("/?sort=deadline"); !order(res.body, flush.ID, restart.ID, rotate.ID) {
		t.Errorf("soonest deadline first: %s", res.body)
	}
	res := b.get("/?q=cache")
	if !order(res.body, flush.ID, restart.ID) || strings.Contains(res.body, row(rotate.ID)) || !strings.Contains(res.body, "2 inquiries whose prompt contains “cache”") {
		t.Errorf("search: %s", res.body)
	}
	// The deadline that nears is marked in words as well as colour; the far one is not.
	soonMark := regexp.MustCompile(`(?s)` + row(flush.ID) + `.*?<time class="deadline soon"[^>]*>\d+m \d+s left</time>`)
	if !soonMark.MatchString(res.body) {
		t.Errorf("no countdown marked soon for the inquiry due in 2 minutes")
	}
	if regexp.MustCompile(`(?s)` + row(restart.ID) + `.*?<time class="deadline soon"`).MatchString(res.body) {
		t.Errorf("the inquiry due in an hour is marked soon")
	}
}

func TestBadAnswersRecordNothing(t *testing.T) {
	e := start(t)
	b := e.browser()
	b.signIn(e.responderToken)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "How many?", ResponseSchema: json.RawMessage(`{"type":"integer","minimum":1}`)})
	path := fmt.Sprintf("/inquiries/%d", inq.ID)
	pg := b.get(path)
	csrf := pg.csrf()
	if pg.status != http.StatusOK || csrf == "" {
		t.Fatalf("inquiry page: %d", pg.status)
	}
	forged := "x" + csrf[1:]
	if csrf[0] == 'x' { // the forgery must differ from the token (1 time in 64 it would not)
		forged = "y" + csrf[1:]
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		says   string
	}{
		{"no CSRF token", url.Values{"answer": {"3"}}, http.StatusForbidden, "did not come from this site"},
		{"a CSRF token of another session", url.Values{"csrf": {forged}, "answer": {"3"}}, http.StatusForbidden, "did not come from this site"},
		{"not a number", url.Values{"csrf": {csrf}, "answer": {"three"}}, http.StatusUnprocessableEntity, "enter a whole number"},
		{"below the minimum", url.Values{"csrf": {csrf}, "answer": {"0"}}, http.StatusUnprocessableEntity, `value="0"`},
		{"nothing", url.Values{"csrf": {csrf}}, http.StatusUnprocessableEntity, "is required"},
		{"a comment over the limit", url.Values{"csrf": {csrf}, "answer": {"3"}, "comment": {strings.Repeat("é", 8001)}}, http.StatusUnprocessableEntity, "at most 8000"},
		{"a form over the size limit", url.Values{"csrf": {csrf}, "answer": {"3"}, "comment": {strings.Repeat("x", 2<<20)}}, http.StatusRequestEntityTooLarge, "too large"},
	} {
		res := b.post(path, tc.form)
		if res.status != tc.status || !strings.Contains(res.body, tc.says) {
			t.Errorf("%s: %d, want %d saying %q", tc.name, res.status, tc.status, tc.says)
		}
		if got := e.inquiry(inq.ID); got.Status != hitl.StatusPending {
			t.Fatalf("%s: recorded an answer", tc.name)
		}
	}
	// The inline error stands beside the field, which keeps what was typed.
	res := b.post(path, url.Values{"csrf": {csrf}, "answer": {"0"}})
	if !strings.Contains(res.body, `value="0" required aria-describedby="field-1-expects field-1-error" aria-invalid="true"`) || !strings.Contains(res.body, `<p class="field-error" id="field-1-error">`) {
		t.Errorf("the error is not beside the field:\n%s", res.body)
	}

	// Pages that do not exist, or that the viewer may not see.
	hidden := e.ask(&hitl.InquiryRequest{Prompt: "for bob only", AssignedTo: []string{"bob"}})
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/inquiries/abc", http.StatusNotFound},
		{"/inquiries/0", http.StatusNotFound},
		{"/inquiries/99999", http.StatusNotFound},
		{fmt.Sprintf("/inquiries/%d", hidden.ID), http.StatusNotFound},
		{"/sessions/nope", http.StatusNotFound},
		{"/?tab=secret", http.StatusBadRequest},
		{"/?sort=sideways", http.StatusBadRequest},
		{"/?q=" + strings.Repeat("x", 201), http.StatusBadRequest},
		{"/?cursor=garbage", http.StatusBadRequest},
	} {
		if res := b.get(tc.path); res.status != tc.status || !strings.Contains(res.body, "Back to the inbox") {
			t.Errorf("%s: %d, want %d", tc.path, res.status, tc.status)
		}
	}
	if res := b.post(fmt.Sprintf("/inquiries/%d", hidden.ID), url.Values{"csrf": {csrf}, "answer": {"x"}}); res.status != http.StatusNotFound {
		t.Errorf("answering a hidden inquiry: %d", res.status)
	}

	// An agent sees what it asked but cannot answer it.
	viewerBot, agentToken := e.keyToken("viewer-bot", hitl.RoleAgent)
	ab := e.browser()
	ab.signIn(agentToken)
	agentInq, _, err := viewerBot.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: "asked by viewer-bot"}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	apath := fmt.Sprintf("/inquiries/%d", agentInq.ID)
	page := ab.get(apath)
	if page.status != http.StatusOK || !strings.Contains(page.body, "You cannot answer this inquiry") || strings.Contains(page.body, `id="answer-form"`) {
		t.Errorf("agent's view: %d", page.status)
	}
	if res := ab.post(apath, url.Values{"csrf": {page.csrf()}, "answer": {"ok"}}); res.status != http.StatusForbidden || e.inquiry(agentInq.ID).Status != hitl.StatusPending {
		t.Errorf("agent's answer: %d", res.status)
	}
}

func TestAnswerLinkPages(t *testing.T) {
	e := start(t)
	b := e.browser() // not signed in: links need no session
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Pick a venue", AssignedTo: []string{"grace"},
		Options: []hitl.Option{{Value: "lisbon"}, {Value: "oslo"}}})
	e.key("grace", hitl.RoleResponder) // hitl knows the link's person
	link, err := e.Admin.CreateAnswerLink(context.Background(), inq.ID, &hitl.AnswerLinkRequest{For: "grace"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link.URL, e.URL+"/a/v2.") {
		t.Fatalf("link URL %q", link.URL)
	}
	path := strings.TrimPrefix(link.URL, e.URL)

	// Fetching the link, with or without a one-click option, answers nothing.
	for _, p := range []string{path, path + "?option=oslo"} {
		res := b.get(p)
		if res.status != http.StatusOK || !strings.Contains(res.body, "You are answering as <strong>grace</strong>, through a link admin made") || res.header.Get("X-Robots-Tag") == "" {
			t.Fatalf("GET %s: %d", p, res.status)
		}
		if e.inquiry(inq.ID).Status != hitl.StatusPending {
			t.Fatalf("GET %s answered the inquiry", p)
		}
	}
	page := b.get(path + "?option=oslo")
	if !strings.Contains(page.body, `value="oslo" required checked`) {
		t.Errorf("the one-click option is not ticked")
	}

	for _, tc := range []struct {
		name, path string
		form       url.Values
		status     int
	}{
		{"an altered token", path[:len(path)-3] + "abc", url.Values{"csrf": {page.csrf()}, "answer": {"oslo"}}, http.StatusUnauthorized},
		{"no CSRF token", path, url.Values{"answer": {"oslo"}}, http.StatusForbidden},
		{"no option chosen", path, url.Values{"csrf": {page.csrf()}}, http.StatusUnprocessableEntity},
		{"an option that is not offered", path, url.Values{"csrf": {page.csrf()}, "answer": {"paris"}}, http.StatusUnprocessableEntity},
	} {
		if res := b.post(tc.path, tc.form); res.status != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, res.status, tc.status)
		}
		if e.inquiry(inq.ID).Status != hitl.StatusPending {
			t.Fatalf("%s: answered the inquiry", tc.name)
		}
	}
	res := b.post(path, url.Values{"csrf": {page.csrf()}, "answer": {"oslo"}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("confirm: %d", res.status)
	}
	got := e.inquiry(inq.ID)
	if got.Status != hitl.StatusResponded || *got.RespondedBy != "grace" || string(got.Response) != `"oslo"` {
		t.Fatalf("after the confirm: %+v", got)
	}
	// Later visits show the outcome; a second confirm shows the answer that counted.
	if res := b.get(path); !strings.Contains(res.body, "Answered by <strong>grace via admin</strong>") { // the admin made the link
		t.Errorf("link after the answer: %d", res.status)
	}
	if res := b.post(path, url.Values{"csrf": {page.csrf()}, "answer": {"lisbon"}}); res.status != http.StatusConflict || !strings.Contains(res.body, "grace via admin answered first") {
		t.Errorf("second confirm: %d", res.status)
	}
}

// The inbox counts a list up to 1000 and then says "1000+": a year of answered questions is
// not counted on every view.
func TestInboxCountsUpTo1000(t *testing.T) {
	e := start(t)
	b := e.browser()
	b.signIn(e.responderToken)
	for range 1000 {
		e.ask(&hitl.InquiryRequest{Prompt: "Go?"})
	}
	page := html.UnescapeString(b.get("/").body) // html/template writes + as &#43;
	if !strings.Contains(page, `data-count="pending">1000+<`) || !strings.Contains(page, "1000+ inquiries") {
		t.Errorf("with 1000 pending, the inbox counts: %s", page)
	}
	if !strings.Contains(page, `data-count="responded">0<`) {
		t.Error("a list below the bound is counted whole")
	}
}
