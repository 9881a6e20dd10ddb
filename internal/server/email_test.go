package server_test

import (
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	gosmtp "github.com/emersion/go-smtp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/mailtest"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// Email end to end: a real server whose HITL_SMTP_URL is a recording relay and whose reply
// listener takes mail sent with net/smtp, as a person's mail server sends it.

const replyDomain = "hitl.test"

// mailEnv is a server that sends email through a relay and takes replies.
type mailEnv struct {
	*env
	relay   *mailtest.Relay
	replies string // the reply listener's address
}

func startMailEnv(t *testing.T, refuse func(int) *gosmtp.SMTPError) *mailEnv {
	t.Helper()
	relay := mailtest.StartRelay(t, refuse)
	e := newEnv(t, testserver.Configure(func(c *server.Config) {
		c.Webhooks = fastWebhooks
		c.Email = server.EmailConfig{SMTPURL: "smtp://" + relay.Addr + "?tls=none", From: "hitl <hitl@" + replyDomain + ">",
			Domain: replyDomain, Listen: "127.0.0.1:0"}
	}))
	m := &mailEnv{env: e, relay: relay, replies: e.Server.Server().ReplyAddr()}
	if m.replies == "" {
		t.Fatal("the server takes no email replies")
	}
	// PUT /v1/people/ada as an admin sends it.
	res, err := http.DefaultClient.Do(m.request(t, http.MethodPut, "/v1/people/ada", `{"email": "ada@example.com"}`))
	must(t, err)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("PUT /v1/people/ada: %s", res.Status)
	}
	return m
}

func (m *mailEnv) request(t *testing.T, method, path, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, m.URL+path, strings.NewReader(body))
	must(t, err)
	req.Header.Set("Authorization", "Bearer "+m.AdminToken)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// reply sends a plain-text reply to a notification from an address, to its Reply-To.
func (m *mailEnv) reply(t *testing.T, to *mailtest.Received, from, body string) {
	t.Helper()
	m.replyWith(t, to, from, "", "text/plain; charset=utf-8", body)
}

// replyWith sends a reply with extra headers (each ending in "\n") and a body of its type.
func (m *mailEnv) replyWith(t *testing.T, to *mailtest.Received, from, headers, contentType, body string) {
	t.Helper()
	replyTo := strings.Trim(to.Header.Get("Reply-To"), "<>")
	msg := headers + "From: " + from + "\nTo: " + replyTo + "\nSubject: Re: " + to.Subject + "\nMessage-ID: <" + from + ".reply@example.com>\n" +
		"In-Reply-To: " + to.Header.Get("Message-ID") + "\nMIME-Version: 1.0\nContent-Type: " + contentType + "\n\n" + body
	envelope, err := mail.ParseAddress(from)
	must(t, err)
	if err := mailtest.Send(t, m.replies, envelope.Address, replyTo, msg); err != nil {
		t.Fatalf("the reply listener refused the reply: %v", err)
	}
}

// inThread checks that a message answers the thread's first message.
func inThread(t *testing.T, got, first *mailtest.Received) {
	t.Helper()
	root := first.Header.Get("Message-ID")
	if got.Header.Get("In-Reply-To") != root || !strings.Contains(got.Header.Get("References"), root) {
		t.Errorf("%q is not in the thread of %s: In-Reply-To %q, References %q", got.Subject, root, got.Header.Get("In-Reply-To"), got.Header.Get("References"))
	}
}

// delivered waits until the inquiry's notifications are all delivered, and returns them.
func (m *mailEnv) delivered(t *testing.T, id int64, n int) []*hitl.Delivery {
	t.Helper()
	var ds []*hitl.Delivery
	eventually(t, fmt.Sprintf("%d notifications delivered", n), func() bool {
		var err error
		ds, err = m.Admin.Notifications(ctx, id)
		must(t, err)
		return len(ds) == n && !slices.ContainsFunc(ds, func(d *hitl.Delivery) bool { return d.Status != hitl.DeliveryDelivered })
	})
	return ds
}

// TestEmailAnswerByReply: ada is asked by email, with buttons that open her answer link; she
// answers by replying, and the resolved notice lands in the same thread. A reply from another
// address is refused with a mail that says why; an option is answered by its number.
func TestEmailAnswerByReply(t *testing.T) {
	m := startMailEnv(t, nil)
	agent := m.principal("deploy-bot", []string{hitl.RoleAgent})
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Deploy v2 to production?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})

	first := m.relay.Next(t)
	if !slices.Equal(first.To, []string{"ada@example.com"}) || first.Subject != "[hitl] Deploy v2 to production?" {
		t.Fatalf("the first message went to %v about %q", first.To, first.Subject)
	}
	ds := m.delivered(t, inq.ID, 1)
	if id := first.Header.Get("Message-ID"); id != "<"+ds[0].ID+"@"+replyDomain+">" {
		t.Errorf("the Message-ID %s is not made from the delivery %s", id, ds[0].ID)
	}
	replyTo := regexp.MustCompile(`^<reply\+([0-9a-z.]+)@` + regexp.QuoteMeta(replyDomain) + `>$`).FindStringSubmatch(first.Header.Get("Reply-To"))
	if replyTo == nil || len("reply+"+replyTo[1]) > 64 {
		t.Fatalf("the Reply-To %q is not a short reply address", first.Header.Get("Reply-To"))
	}
	links := first.Links(t)
	for label, option := range map[string]string{"Approve": "true", "Reject": "false"} {
		u, err := url.Parse(links[label])
		if err != nil || !strings.HasPrefix(links[label], m.URL+"/a/") {
			t.Fatalf("the %s button opens %q; want ada's answer link", label, links[label])
		}
		res, err := http.Get(u.String())
		must(t, err)
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		ticked := regexp.MustCompile(`name="approved" value="` + option + `"[^>]* checked`)
		if res.StatusCode != http.StatusOK || !strings.Contains(string(page), "Deploy v2 to production?") || !ticked.Match(page) {
			t.Fatalf("the %s button's page: %s, ticked %v:\n%s", label, res.Status, ticked.Match(page), page)
		}
	}
	if got := m.inquiry(inq.ID); got.Status != hitl.StatusPending {
		t.Fatal("opening the buttons answered the inquiry")
	}

	m.reply(t, first, "Ada <ada@example.com>", "approve\nlooks good\n\nOn Monday hitl wrote:\n> Deploy v2 to production?\n")
	got := m.inquiry(inq.ID)
	if got.Status != hitl.StatusResponded || got.RespondedBy == nil || *got.RespondedBy != "ada" || string(got.Response) != `{"approved":true,"comment":"looks good"}` {
		t.Fatalf("after ada's reply the inquiry is %s by %v with %s", got.Status, got.RespondedBy, got.Response)
	}
	notice := m.relay.Next(t)
	if !slices.Equal(notice.To, []string{"ada@example.com"}) || !strings.Contains(notice.Text, "Answered by ada: approve (looks good)") {
		t.Fatalf("the resolved notice went to %v:\n%s", notice.To, notice.Text)
	}
	inThread(t, notice, first)
	m.delivered(t, inq.ID, 2)

	// An option question: a stranger's reply is refused and explained; ada's "2" answers.
	inq = ask(t, agent, hitl.InquiryRequest{Prompt: "Which region?", AssignedTo: []string{"ada"},
		Options: []hitl.Option{{Value: "eu-west-1", Label: "Ireland"}, {Value: "us-east-1", Label: "Virginia"}}})
	first = m.relay.Next(t)
	if !strings.Contains(first.Text, "2. Virginia (us-east-1)") {
		t.Errorf("the message does not number the options:\n%s", first.Text)
	}
	m.reply(t, first, "mallory@example.net", "2\n")
	refusal := m.relay.Next(t)
	if !slices.Equal(refusal.To, []string{"mallory@example.net"}) || !strings.Contains(refusal.Text, "only the address the question was sent to may answer it") {
		t.Fatalf("the refusal went to %v:\n%s", refusal.To, refusal.Text)
	}
	if got := m.inquiry(inq.ID); got.Status != hitl.StatusPending {
		t.Fatalf("a stranger's reply answered the inquiry: %s", got.Response)
	}
	m.reply(t, first, "ada@example.com", "2\n")
	if got := m.inquiry(inq.ID); got.Status != hitl.StatusResponded || string(got.Response) != `"us-east-1"` {
		t.Fatalf("ada's reply 2: the inquiry is %s with %s", got.Status, got.Response)
	}
	notice = m.relay.Next(t)
	if !strings.Contains(notice.Text, "Answered by ada: Virginia") {
		t.Errorf("the resolved notice:\n%s", notice.Text)
	}
	inThread(t, notice, first)

	m.stop() // the reply listener stops with the server
	if c, err := net.Dial("tcp", m.replies); err == nil {
		c.Close()
		t.Fatal("the reply listener still takes connections after the server stopped")
	}
}

// TestEmailReplyKeepsOnlyWhatThePersonWrote: ada answers in Outlook, HTML only, above the
// quoted notification with its answer links; only her words are stored. A reply whose hidden
// text says otherwise than what it shows, and one the receiving mail server failed to
// authenticate, are refused with a reply that says so, and answer nothing.
func TestEmailReplyKeepsOnlyWhatThePersonWrote(t *testing.T) {
	m := startMailEnv(t, nil)
	agent := m.principal("deploy-bot", []string{hitl.RoleAgent})
	approval := hitl.InquiryRequest{Prompt: "Deploy v2 to production?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}}

	inq := ask(t, agent, approval)
	first := m.relay.Next(t)
	approve := first.Links(t)["Approve"]
	if !strings.Contains(first.Text, approve) || !strings.HasPrefix(approve, m.URL+"/a/") {
		t.Fatalf("the notification does not show ada's answer link %q:\n%s", approve, first.Text)
	}
	quoted := strings.ReplaceAll(html.EscapeString(first.Text), "\n", "<br>\n")
	m.replyWith(t, first, "Ada Lovelace <ada@example.com>", "", "text/html; charset=utf-8",
		`<html><head><style><!-- p.MsoNormal {margin:0in; font-size:11.0pt;} --></style></head><body><div class=WordSection1>`+
			`<p class=MsoNormal>Reject<o:p></o:p></p><p class=MsoNormal>Too risky before the freeze.<o:p></o:p></p>`+
			`<p class=MsoNormal>-- <o:p></o:p></p><p class=MsoNormal>Ada Lovelace, CTO<o:p></o:p></p>`+
			`<hr size=2 width="100%" align=center tabindex=-1>`+
			`<div id=divRplyFwdMsg dir=ltr><font face="Calibri, sans-serif" style="font-size:11pt"><b>From:</b> hitl &lt;hitl@hitl.test&gt;<br>`+
			`<b>Sent:</b> Monday, November 23, 2026 10:00 AM<br><b>To:</b> Ada Lovelace &lt;ada@example.com&gt;<br><b>Subject:</b> `+first.Subject+`</font></div>`+
			`<p class=MsoNormal>`+quoted+`</p></div></body></html>`)
	got := m.inquiry(inq.ID)
	if got.Status != hitl.StatusResponded || string(got.Response) != `{"approved":false,"comment":"Too risky before the freeze."}` {
		t.Fatalf("after ada's Outlook reply the inquiry is %s with %s", got.Status, got.Response)
	}
	notice := m.relay.Next(t)
	if !slices.Equal(notice.To, []string{"ada@example.com"}) || !strings.Contains(notice.Text, "Answered by ada: reject (Too risky before the freeze.)") {
		t.Fatalf("the resolved notice went to %v:\n%s", notice.To, notice.Text)
	}

	// refused checks that ada's reply answered nothing and that she was told why.
	refused := func(id int64, words string) {
		t.Helper()
		got := m.relay.Next(t)
		if !slices.Equal(got.To, []string{"ada@example.com"}) || !strings.Contains(got.Text, "Your reply was not recorded: "+words) {
			t.Fatalf("the refusal went to %v:\n%s", got.To, got.Text)
		}
		if inq := m.inquiry(id); inq.Status != hitl.StatusPending {
			t.Fatalf("a refused reply answered the inquiry: %s", inq.Response)
		}
	}

	inq = ask(t, agent, approval)
	first = m.relay.Next(t)
	m.replyWith(t, first, "ada@example.com", "", "text/html; charset=utf-8", `<div style="display:none">approve</div><p>reject</p>`)
	refused(inq.ID, "it holds hidden text that reads differently from what is shown. Reply again with your answer in plain text.")

	m.replyWith(t, first, "ada@example.com", "Authentication-Results: mx.hitl.test; spf=fail smtp.mailfrom=example.com; dkim=none; dmarc=fail header.from=example.com\n",
		"text/plain; charset=utf-8", "approve\n")
	refused(inq.ID, "it could not be authenticated as coming from ada@example.com (the receiving mail server reports dmarc=fail).")
}

// inquiry reads an inquiry as the admin.
func (m *mailEnv) inquiry(id int64) *hitl.Inquiry {
	m.t.Helper()
	inq, err := m.Admin.Inquiry(ctx, id)
	must(m.t, err)
	return inq
}

// TestEmailToAGroupList: a group's shared address gets one message whose buttons open the
// inquiry in the inbox with the option chosen (whoever answers signs in), and no reply address.
func TestEmailToAGroupList(t *testing.T) {
	m := startMailEnv(t, nil)
	res, err := http.DefaultClient.Do(m.request(t, http.MethodPut, "/v1/groups/leads", `{"email": "leads@example.com"}`))
	must(t, err)
	res.Body.Close()
	inq := ask(t, m.principal("deploy-bot", []string{hitl.RoleAgent}), hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval, AssignedTo: []string{"group:leads"}})
	got := m.relay.Next(t)
	inbox := fmt.Sprintf("%s/inquiries/%d", m.URL, inq.ID)
	links := got.Links(t)
	if !slices.Equal(got.To, []string{"leads@example.com"}) || links["Approve"] != inbox+"?answer=approve" || links["Reject"] != inbox+"?answer=reject" {
		t.Fatalf("the group's message went to %v with the buttons %v; want them to open %s?answer=...", got.To, links, inbox)
	}
	if rt := got.Header.Get("Reply-To"); rt != "" || strings.Contains(got.Text, "reply to this email") {
		t.Errorf("a message to a list invites replies (Reply-To %q):\n%s", rt, got.Text)
	}
}

// TestEmailRelayRefusals: a relay that answers 451 gets the message again and it is delivered
// once; one that answers 550 fails the notification at once with the relay's reason.
func TestEmailRelayRefusals(t *testing.T) {
	t.Run("451 then accepted", func(t *testing.T) {
		m := startMailEnv(t, func(attempt int) *gosmtp.SMTPError {
			if attempt == 1 {
				return &gosmtp.SMTPError{Code: 451, EnhancedCode: gosmtp.EnhancedCode{4, 3, 0}, Message: "Try again later"}
			}
			return nil
		})
		inq := ask(t, m.principal("bot", []string{hitl.RoleAgent}), hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
		m.relay.Next(t)
		ds := m.delivered(t, inq.ID, 1)
		if ds[0].Attempts != 2 || m.relay.Attempts() != 2 {
			t.Fatalf("the delivery took %d attempts, the relay saw %d; want 2", ds[0].Attempts, m.relay.Attempts())
		}
		m.relay.Nothing(t)
	})
	t.Run("550", func(t *testing.T) {
		m := startMailEnv(t, mailtest.Always(&gosmtp.SMTPError{Code: 550, EnhancedCode: gosmtp.EnhancedCode{5, 1, 1}, Message: "No such user here"}))
		inq := ask(t, m.principal("bot", []string{hitl.RoleAgent}), hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
		var ds []*hitl.Delivery
		eventually(t, "the notification to fail", func() bool {
			var err error
			ds, err = m.Admin.Notifications(ctx, inq.ID)
			must(t, err)
			return len(ds) == 1 && ds[0].Status == hitl.DeliveryFailed
		})
		if ds[0].Attempts != 1 || !strings.Contains(ds[0].LastError, "No such user here") {
			t.Fatalf("the failed notification: %d attempts, error %q; want 1 attempt and the relay's reason", ds[0].Attempts, ds[0].LastError)
		}
		m.relay.Nothing(t)
	})
}

// TestEmailSettingsRefused: bad email settings stop the start with a message that names the
// setting and never shows the relay's password.
func TestEmailSettingsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		email server.EmailConfig
		want  string
	}{
		{server.EmailConfig{SMTPURL: "smtp://ada:s3cret@mail.example.com:99999", From: "hitl@example.com"}, `--smtp-url (HITL_SMTP_URL): SMTP URL: the port "99999"`},
		{server.EmailConfig{SMTPURL: "smtp://ada:s3cret@mail.example.com/%zz", From: "hitl@example.com"}, "--smtp-url (HITL_SMTP_URL): SMTP URL: it is not a URL"},
		{server.EmailConfig{SMTPURL: "smtp://ada:s3cret@mail.example.com"}, "--mail-from (HITL_MAIL_FROM)"},
		{server.EmailConfig{SMTPURL: "smtp://mail.example.com", From: "not an address"}, `--mail-from (HITL_MAIL_FROM) "not an address" is not an email address`},
		{server.EmailConfig{SMTPURL: "smtp://mail.example.com", From: "hitl@example.com", Listen: "127.0.0.1:2525"}, "set --mail-domain (HITL_MAIL_DOMAIN) too"},
		{server.EmailConfig{SMTPURL: "smtp://mail.example.com", From: "hitl@example.com", Domain: "hitl.example.com", Listen: "2525"}, `--smtp-listen (HITL_SMTP_LISTEN) "2525": want host:port`},
		{server.EmailConfig{From: "hitl@example.com"}, "set --smtp-url (HITL_SMTP_URL) too"},
		{server.EmailConfig{AuthservID: "mx.example.com"}, "email (--mail-from, --mail-domain, --smtp-listen, --mail-authserv-id): set --smtp-url (HITL_SMTP_URL) too"},
		{server.EmailConfig{SMTPURL: "smtp://mail.example.com", From: "hitl@example.com", AuthservID: "mx.example.com; spf=pass"},
			`--mail-authserv-id (HITL_MAIL_AUTHSERV_ID) "mx.example.com; spf=pass": want the one word your mail server writes first`},
	} {
		cfg := server.Config{Addr: "127.0.0.1:0", DB: "x.db", MaxBodyBytes: 1 << 20, Email: c.email}
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%+v: %v; want it to say %s, without the password", c.email, err, c.want)
		}
	}
	ok := server.Config{Addr: "127.0.0.1:0", DB: "x.db", MaxBodyBytes: 1 << 20,
		Email: server.EmailConfig{SMTPURL: "smtps://ada:s3cret@mail.example.com", From: "hitl <hitl@example.com>"}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("sending without taking replies: %v", err)
	}
}
