package email_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/email"
	"github.com/hitl-dev/hitl/internal/mailtest"
)

func TestParseSMTPURL(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want email.SMTPServer
	}{
		{"smtp://ada:s3cr%2Ft@mail.example.com:587", email.SMTPServer{Host: "mail.example.com", Port: 587, Username: "ada", Password: "s3cr/t", Security: email.SecurityStartTLS}},
		{"smtp://mail.example.com", email.SMTPServer{Host: "mail.example.com", Port: 587, Security: email.SecurityStartTLS}},
		{"smtp://127.0.0.1:25?tls=none", email.SMTPServer{Host: "127.0.0.1", Port: 25, Security: email.SecurityNone}},
		{"smtps://ada:pw@mail.example.com", email.SMTPServer{Host: "mail.example.com", Port: 465, Username: "ada", Password: "pw", Security: email.SecurityTLS}},
		{"smtp://[::1]:2525?tls=starttls", email.SMTPServer{Host: "::1", Port: 2525, Security: email.SecurityStartTLS}},
	} {
		got, err := email.ParseSMTPURL(tc.raw)
		if err != nil || got != tc.want {
			t.Errorf("ParseSMTPURL(%q) = %+v, %v; want %+v", tc.raw, got, err, tc.want)
		}
	}
	for raw, want := range map[string]string{
		"http://mail.example.com":              "the scheme must be smtp://",
		"mail.example.com:587":                 "the scheme must be smtp://",
		"smtp://:587":                          "no host",
		"smtp://mail.example.com:99999":        `the port "99999" is not a number from 1 to 65535`,
		"smtp://mail.example.com/x":            "an SMTP URL has no path",
		"smtp://mail.example.com?tls=maybe":    "tls must be none",
		"smtps://mail.example.com?tls=none":    "tls=none contradicts it",
		"smtp://mail.example.com?timeout=5":    `unknown setting "timeout"`,
		"smtp://:pw@mail.example.com":          "a password was given without a user name",
		"smtp://mail.example.com:587/%zz":      "is not a URL",
		"smtp://mail.example.com?tls=none&x=1": `unknown setting "x"`,
	} {
		_, err := email.ParseSMTPURL(raw)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSMTPURL(%q) = %v; want an error that says %q", raw, err, want)
		}
	}
	s, _ := email.ParseSMTPURL("smtp://ada:s3cret@mail.example.com:587")
	if strings.Contains(s.String(), "s3cret") || !strings.Contains(s.String(), "ada@mail.example.com:587") {
		t.Errorf("the relay in a log line is %q: it must name the user and never the password", s)
	}
}

func TestConfigValidateListsEveryProblem(t *testing.T) {
	err := email.Config{From: "not an address", Domain: "bad domain", PublicURL: "ftp://x"}.Validate()
	for _, want := range []string{"HITL_SMTP_URL", `(HITL_MAIL_FROM) "not an address"`, `(HITL_MAIL_DOMAIN) "bad domain"`, `"ftp://x" is not an http(s) URL`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v; want it to say %q", err, want)
		}
	}
	// A From that is no address is the one problem when the domain would come from it.
	err = email.Config{SMTP: email.SMTPServer{Host: "mail.example.com", Port: 587}, From: "not an address"}.Validate()
	if err == nil || !strings.Contains(err.Error(), "--mail-from (HITL_MAIL_FROM)") || strings.Contains(err.Error(), "HITL_MAIL_DOMAIN") {
		t.Errorf("a From that is no address: %v", err)
	}
	if _, err := email.NewSender(email.Config{}); err == nil {
		t.Error("NewSender accepted an empty configuration")
	}
}

// An approval's email: subject, who asks, the context, Approve / Reject buttons that open the
// answer link with the option ticked, the inbox, the deadline; the link's confirm page
// answers; the "answered by" notice lands in the same thread.
func TestApprovalEmailAnswersThroughTheConfirmPage(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	timeout := int64(2*3600 + 30)
	prompt := "Déployer la version 2.4.1 de l'API en production — avec la migration des données clients ✓ et le redémarrage"
	inq := w.ask(t, &hitl.InquiryRequest{
		Prompt: prompt, RequestType: hitl.RequestApproval, Session: "release-42",
		Context: mustJSON(t, map[string]any{"a_service": "api", "b_version": "2.4.1", "c_diff": strings.Repeat("+ line ", 100),
			"d_html": "<script>alert(1)</script>", "e_count": 3, "f_owner": "ops", "g_extra": "hidden"}),
		TimeoutSeconds: &timeout, FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: mustJSON(t, map[string]any{"approved": false}),
	})
	m, rootID := w.notify(t, inq, email.ReasonCreated, "")
	got := w.relay.Next(t)

	if len(got.To) != 1 || got.To[0] != "ada@example.com" {
		t.Errorf("the message went to %v; want ada@example.com", got.To)
	}
	if n := utf8.RuneCountInString(got.Subject); !strings.HasPrefix(got.Subject, "[hitl] Déployer la version") || n > 80 || !strings.HasSuffix(got.Subject, "…") {
		t.Errorf("the subject is %q (%d characters); want [hitl] and the prompt, cut at 80 characters", got.Subject, n)
	}
	if id := got.Header.Get("Message-ID"); id != "<"+rootID+">" || !regexp.MustCompile(fmt.Sprintf(`^<inquiry-%d\.[0-9a-f]+@hitl\.test>$`, inq.ID)).MatchString(id) {
		t.Errorf("Message-ID is %q, Send returned %q; want <inquiry-%d.random@%s>", id, rootID, inq.ID, mailDomain)
	}
	if got.Header.Get("In-Reply-To") != "" || got.Header.Get("References") != "" {
		t.Errorf("the first message answers another: In-Reply-To %q", got.Header.Get("In-Reply-To"))
	}
	if rt := got.Header.Get("Reply-To"); rt != "<reply+"+m.ReplyToken+"@"+mailDomain+">" {
		t.Errorf("Reply-To is %q; want the reply address of the token", rt)
	}
	if to := got.Header.Get("To"); !strings.Contains(to, "Ada Lovelace") {
		t.Errorf("To is %q; want Ada's name", to)
	}
	for _, want := range []string{
		prompt, "Asked by deploy-bot (session release-42), sent to you as ada.",
		"a_service: api", "b_version: 2.4.1", "e_count: 3", "… and 1 more in the inbox",
		"Approve: " + m.Buttons[0].URL, "Reject: " + m.Buttons[1].URL,
		"in 2 hours; if nobody answers by then, the fallback value is used.",
		"write approve or reject on the first line",
		"Open it in the inbox: " + m.InboxURL,
	} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("the text part lacks %q:\n%s", want, got.Text)
		}
	}
	if !regexp.MustCompile(`Please answer by \d\d:\d\d UTC`).MatchString(got.Text) {
		t.Errorf("the text part does not say when to answer by:\n%s", got.Text)
	}
	if strings.Contains(got.Text, "g_extra") || strings.Count(got.Text, "+ line") > 30 {
		t.Errorf("the context is not bounded:\n%s", got.Text)
	}
	if strings.Contains(got.HTML, "<script>") || !strings.Contains(got.HTML, "&lt;script&gt;") {
		t.Errorf("the HTML part does not escape the context:\n%s", got.HTML)
	}
	if strings.Contains(got.HTML, "<style") || strings.Contains(got.HTML, "<link") {
		t.Error("the HTML part has a style sheet; mail programs keep inline styles only")
	}
	links := got.Links(t)
	approve := links["Approve"]
	if !strings.HasPrefix(approve, w.srv.URL+"/a/") || !strings.HasSuffix(approve, "?option=approve") ||
		!strings.HasSuffix(links["Reject"], "?option=reject") || links["Open it in the inbox"] != m.InboxURL {
		t.Fatalf("the HTML part's links are %v", links)
	}

	// The button's link shows the inquiry with Approve ticked; confirming answers as Ada.
	res, err := http.Get(approve)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !regexp.MustCompile(`value="true"[^>]*checked`).Match(page) {
		t.Fatalf("GET the Approve link: %s, Approve ticked: false\n%s", res.Status, page)
	}
	if inq := w.inquiry(t, inq.ID); inq.Status != hitl.StatusPending {
		t.Fatalf("opening the link answered the inquiry: %s", inq.Status)
	}
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(page)
	if csrf == nil {
		t.Fatalf("the link's page has no form:\n%s", page)
	}
	u, _ := url.Parse(approve)
	u.RawQuery = ""
	res, err = http.PostForm(u.String(), url.Values{"csrf": {string(csrf[1])}, "approved": {"true"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	answered := w.inquiry(t, inq.ID)
	if res.StatusCode != http.StatusOK || answered.Status != hitl.StatusResponded || *answered.RespondedBy != "ada" || string(answered.Response) != `{"approved":true}` {
		t.Fatalf("confirming: %s; the inquiry is %s by %v with %s", res.Status, answered.Status, answered.RespondedBy, answered.Response)
	}

	// The "answered by" notice answers the first message, and invites no reply.
	m.Inquiry, m.Reason, m.ThreadRoot, m.Buttons = answered, email.ReasonResolved, rootID, nil
	if _, err := w.send.Send(ctx, *m); err != nil {
		t.Fatal(err)
	}
	notice := w.relay.Next(t)
	if !strings.HasPrefix(notice.Subject, "Answered: [hitl] Déployer") || notice.Header.Get("In-Reply-To") != "<"+rootID+">" || notice.Header.Get("References") != "<"+rootID+">" {
		t.Errorf("the notice: subject %q, In-Reply-To %q, References %q; want the thread of <%s>", notice.Subject, notice.Header.Get("In-Reply-To"), notice.Header.Get("References"), rootID)
	}
	if !strings.Contains(notice.Text, "Answered by ada: approve") || strings.Contains(notice.Text, "/a/") || notice.Header.Get("Reply-To") != "" {
		t.Errorf("the notice says:\n%s\nReply-To %q; want who answered what, no answer links, no reply address", notice.Text, notice.Header.Get("Reply-To"))
	}
	if !strings.Contains(notice.HTML, "Answered by ada: approve") {
		t.Errorf("the notice's HTML lacks the answer:\n%s", notice.HTML)
	}
}

// A reminder about a choice: the thread, a "Reminder:" subject, one button per option with
// its label, the numbers a reply may give.
func TestReminderOfAChoiceIsInTheThread(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(t, &hitl.InquiryRequest{Prompt: "Which region?", Options: []hitl.Option{{Value: "eu-west-1", Label: "Ireland"}, {Value: "us-east-1"}}})
	_, root := w.notify(t, inq, email.ReasonCreated, "")
	w.relay.Next(t)
	m, id := w.notify(t, inq, email.ReasonReminder, root)
	got := w.relay.Next(t)
	if got.Subject != "Reminder: [hitl] Which region?" {
		t.Errorf("the reminder's subject is %q", got.Subject)
	}
	if id == root || got.Header.Get("Message-ID") != "<"+id+">" || got.Header.Get("In-Reply-To") != "<"+root+">" || got.Header.Get("References") != "<"+root+">" {
		t.Errorf("the reminder's Message-ID %q, In-Reply-To %q, References %q; want its own id in the thread of <%s>",
			got.Header.Get("Message-ID"), got.Header.Get("In-Reply-To"), got.Header.Get("References"), root)
	}
	links := got.Links(t)
	if !strings.HasSuffix(links["Ireland"], "?option=eu-west-1") || !strings.HasSuffix(links["us-east-1"], "?option=us-east-1") || links["Ireland"] != m.Buttons[0].URL {
		t.Errorf("the buttons are %v; want one per option, by label", links)
	}
	for _, want := range []string{"Reminder: this question still waits for an answer.", "1. Ireland (eu-west-1)", "2. us-east-1", "by value or number"} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("the reminder lacks %q:\n%s", want, got.Text)
		}
	}
	if strings.Contains(got.Text, "answer by") {
		t.Errorf("an inquiry without a deadline got one:\n%s", got.Text)
	}

	// A message with its own id (made from the outbox delivery) keeps it, so that a retry is
	// the same message.
	m.Reason, m.ID = email.ReasonEscalation, "inquiry-1.delivery-7@"+mailDomain
	if id, err := w.send.Send(context.Background(), *m); err != nil || id != m.ID {
		t.Fatalf("Send = %q, %v; want %q", id, err, m.ID)
	}
	got = w.relay.Next(t)
	if got.Header.Get("Message-ID") != "<"+m.ID+">" || got.Subject != "Escalated: [hitl] Which region?" ||
		!strings.Contains(got.Text, "This question was escalated to you") || got.Header.Get("In-Reply-To") != "<"+root+">" {
		t.Errorf("the escalation: Message-ID %q, subject %q, In-Reply-To %q:\n%s", got.Header.Get("Message-ID"), got.Subject, got.Header.Get("In-Reply-To"), got.Text)
	}
}

// TestMessageToADelegateSaysForWhom: a message sent to alice's delegate says so, above what
// the message is about; the resolved notice does not.
func TestMessageToADelegateSaysForWhom(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(t, &hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval})
	m := email.Message{Inquiry: inq, To: email.Recipient{Address: "bob@example.com", Principal: "bob"}, Reason: email.ReasonReminder,
		InboxURL: fmt.Sprintf("%s/inquiries/%d", w.srv.URL, inq.ID), OnBehalfOf: "alice"}
	if _, err := w.send.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	got := w.relay.Next(t)
	want := "For alice, who is away: you are their delegate, and your answer counts as alice's. Reminder: this question still waits for an answer."
	if !strings.Contains(got.Text, want) || !strings.Contains(got.HTML, "For alice, who is away") {
		t.Errorf("the delegate's message does not say for whom:\n%s", got.Text)
	}
}

// The dispatcher retries what may pass and stops at what will not.
func TestSendErrorsSayWhetherToRetry(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(t, &hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval})
	send := func(smtpURL string) error {
		s, err := email.NewSender(w.config(t, smtpURL))
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Send(context.Background(), email.Message{Inquiry: inq, To: email.Recipient{Address: "ada@example.com"}, Reason: email.ReasonCreated})
		return err
	}
	refusing := mailtest.StartRelay(t, mailtest.Always(&gosmtp.SMTPError{Code: 550, EnhancedCode: gosmtp.EnhancedCode{5, 1, 1}, Message: "No such user"}))
	if err := send("smtp://" + refusing.Addr + "?tls=none"); err == nil || !email.IsPermanent(err) || !strings.Contains(err.Error(), "No such user") {
		t.Errorf("a 550 gave %v (permanent: %v); want a permanent error that says why", err, email.IsPermanent(err))
	}
	busy := mailtest.StartRelay(t, mailtest.Always(&gosmtp.SMTPError{Code: 451, EnhancedCode: gosmtp.EnhancedCode{4, 3, 0}, Message: "Try later"}))
	if err := send("smtp://" + busy.Addr + "?tls=none"); err == nil || email.IsPermanent(err) {
		t.Errorf("a 451 gave %v; want an error worth retrying", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	if err := send("smtp://" + closed + "?tls=none"); err == nil || email.IsPermanent(err) {
		t.Errorf("a relay that is down gave %v; want an error worth retrying", err)
	}
	// STARTTLS is the default and required: a relay without it gets nothing in clear.
	if err := send("smtp://" + w.relay.Addr); err == nil {
		t.Error("a message went out in clear to a relay without STARTTLS")
	}
	w.relay.Nothing(t)
	if _, err := w.send.Send(context.Background(), email.Message{Inquiry: inq, To: email.Recipient{Address: "not an address"}}); !email.IsPermanent(err) {
		t.Errorf("a bad address gave %v; want a permanent error", err)
	}
}

// A relay that speaks TLS (STARTTLS or from the start) and wants a user and password gets
// them, encrypted, from the URL.
func TestSendThroughTLSRelayWithAuthentication(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(t, &hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval})
	cert, roots := selfSigned(t)
	for _, implicit := range []bool{false, true} {
		r := mailtest.NewRelay()
		var mu sync.Mutex
		var logins []string
		s := gosmtp.NewServer(gosmtp.BackendFunc(func(*gosmtp.Conn) (gosmtp.Session, error) {
			return &authSession{r.Session(), func(user, pass string) { mu.Lock(); logins = append(logins, user+":"+pass); mu.Unlock() }}, nil
		}))
		s.Domain, s.TLSConfig = "relay.test", &tls.Config{Certificates: []tls.Certificate{cert}}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		scheme := "smtp"
		if implicit {
			scheme, l = "smtps", tls.NewListener(l, s.TLSConfig)
		}
		go s.Serve(l)
		t.Cleanup(func() { s.Close() })

		cfg := w.config(t, scheme+"://ada:p%40ss@"+l.Addr().String())
		cfg.TLS = &tls.Config{RootCAs: roots}
		send, err := email.NewSender(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := send.Send(context.Background(), email.Message{Inquiry: inq, To: email.Recipient{Address: "ada@example.com"}, Reason: email.ReasonCreated}); err != nil {
			t.Fatalf("%s: %v", scheme, err)
		}
		got := r.Next(t)
		mu.Lock()
		if got.Subject != "[hitl] Ship it?" || len(logins) != 1 || logins[0] != "ada:p@ss" {
			t.Errorf("%s: the relay got %q after the logins %q", scheme, got.Subject, logins)
		}
		mu.Unlock()
	}
}

// authSession is a relay session that takes PLAIN logins (only under TLS: go-smtp refuses
// them in clear).
type authSession struct {
	gosmtp.Session
	login func(user, pass string)
}

func (s *authSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *authSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error { s.login(user, pass); return nil }), nil
}

// selfSigned makes a certificate for 127.0.0.1 and the pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "relay.test"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots
}
