package email_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"testing"

	gosmtp "github.com/emersion/go-smtp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/email"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/mailtest"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// The real protocol peers of the tests: a recording SMTP server (what a relay receives,
// internal/mailtest), a real hitl server, and net/smtp as the mail server of someone who
// replies.

const mailDomain = "hitl.test"

// world is a hitl server with an agent, a relay, and the email channel's configuration.
type world struct {
	srv   *testserver.Server
	agent *client.Client
	relay *mailtest.Relay
	cfg   email.Config
	send  *email.Sender
}

func newWorld(t *testing.T) *world {
	t.Helper()
	srv := testserver.Start(t)
	agent, _ := srv.Key(hitl.KeyRequest{Name: "deploy-bot", Roles: []string{hitl.RoleAgent}})
	w := &world{srv: srv, agent: agent, relay: mailtest.StartRelay(t, nil)}
	for _, person := range []string{"ada", "bob"} { // hitl knows the people its links are for
		srv.Key(hitl.KeyRequest{Name: person, Roles: []string{hitl.RoleResponder}})
	}
	w.cfg = w.config(t, "smtp://"+w.relay.Addr+"?tls=none")
	var err error
	if w.send, err = email.NewSender(w.cfg); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) config(t *testing.T, smtpURL string) email.Config {
	t.Helper()
	relay, err := email.ParseSMTPURL(smtpURL)
	if err != nil {
		t.Fatal(err)
	}
	return email.Config{SMTP: relay, From: "hitl <hitl@" + mailDomain + ">", Domain: mailDomain, PublicURL: w.srv.URL}
}

func (w *world) ask(t *testing.T, req *hitl.InquiryRequest) *hitl.Inquiry {
	t.Helper()
	inq, _, err := w.agent.CreateInquiry(context.Background(), req, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return inq
}

// link is an answer link of the inquiry for the person, made by an admin.
func (w *world) link(t *testing.T, inq *hitl.Inquiry, who string) *hitl.AnswerLink {
	t.Helper()
	l, err := w.srv.Admin.CreateAnswerLink(context.Background(), inq.ID, &hitl.AnswerLinkRequest{For: who})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// notify sends the created message of an inquiry to Ada, the way the dispatcher will.
func (w *world) notify(t *testing.T, inq *hitl.Inquiry, reason email.Reason, root string) (*email.Message, string) {
	t.Helper()
	l := w.link(t, inq, "ada")
	m := &email.Message{
		Inquiry:    inq,
		To:         email.Recipient{Address: "ada@example.com", Name: "Ada Lovelace", Principal: "ada"},
		Reason:     reason,
		ThreadRoot: root,
		Buttons:    email.OptionButtons(inq, w.srv.URL+"/a/"+l.Token),
		InboxURL:   fmt.Sprintf("%s/inquiries/%d", w.srv.URL, inq.ID),
		ReplyToken: l.Token,
	}
	id, err := w.send.Send(context.Background(), *m)
	if err != nil {
		t.Fatal(err)
	}
	return m, id
}

func (w *world) inquiry(t *testing.T, id int64) *hitl.Inquiry {
	t.Helper()
	inq, err := w.srv.Admin.Inquiry(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return inq
}

// engineAnswerer is an Answerer over answer-link tokens and a map of addresses, so that these
// tests need no routed notifications; a server answers with its engine (OpenReply), whose
// short reply tokens internal/server's tests follow end to end.
type engineAnswerer struct {
	eng       *engine.Engine
	addresses map[string]string
}

func (a engineAnswerer) OpenReply(ctx context.Context, token, from string) (*hitl.Principal, *hitl.Inquiry, string, error) {
	who, inq, err := a.eng.OpenAnswerLink(ctx, token)
	if err != nil {
		return nil, nil, "", err
	}
	address := a.addresses[who.Name]
	if err := engine.CheckReplySender(inq, address, from); err != nil {
		return nil, nil, "", err
	}
	return who, inq, address, nil
}

func (a engineAnswerer) Respond(ctx context.Context, who *hitl.Principal, id int64, req *hitl.ResponseRequest) (*hitl.Inquiry, error) {
	return a.eng.Respond(ctx, who, id, req)
}

// startReplies runs a reply server for the world; it returns its address.
func (w *world) startReplies(t *testing.T) string {
	t.Helper()
	return w.startRepliesWith(t, w.cfg)
}

// startRepliesWith runs a reply server for the world with a configuration of its own.
func (w *world) startRepliesWith(t *testing.T, cfg email.Config) string {
	t.Helper()
	rs := email.NewReplyServer(cfg, engineAnswerer{w.srv.Engine(), map[string]string{"ada": "ada@example.com"}}, w.send, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- rs.Serve(l) }()
	t.Cleanup(func() {
		rs.Close()
		if err := <-done; err != nil && !errors.Is(err, gosmtp.ErrServerClosed) {
			t.Errorf("the reply server stopped with %v", err)
		}
	})
	return l.Addr().String()
}

// replyMail is a plain-text reply to a notification, from an address.
func replyMail(from, to, body string) string {
	return "From: " + from + "\nTo: " + to + "\nSubject: Re: [hitl] question\nMessage-ID: <reply-1@example.com>\n" +
		"In-Reply-To: <inquiry-1.abc@" + mailDomain + ">\nReferences: <inquiry-1.abc@" + mailDomain + ">\n" +
		"MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n" + body
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
