package email_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"strings"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"
	"golang.org/x/net/html"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/email"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// The real protocol peers of the tests: a recording SMTP server (what a relay receives),
// a real hitl server, and net/smtp as the mail server of someone who replies.

const mailDomain = "hitl.test"

// delivered is one message a relay received.
type delivered struct {
	From string
	To   []string
	Data []byte
}

// relay is an SMTP server that records what it receives, or refuses recipients with refuse.
type relay struct {
	Addr   string
	got    chan delivered
	refuse *gosmtp.SMTPError
}

func startRelay(t *testing.T, refuse *gosmtp.SMTPError) *relay {
	t.Helper()
	r := &relay{got: make(chan delivered, 16), refuse: refuse}
	s := gosmtp.NewServer(gosmtp.BackendFunc(func(*gosmtp.Conn) (gosmtp.Session, error) { return &relaySession{r: r}, nil }))
	s.Domain = "relay.test"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.Addr = l.Addr().String()
	go s.Serve(l)
	t.Cleanup(func() { s.Close() })
	return r
}

type relaySession struct {
	r    *relay
	from string
	to   []string
}

func (s *relaySession) Mail(from string, _ *gosmtp.MailOptions) error { s.from = from; return nil }
func (s *relaySession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	if s.r.refuse != nil {
		return s.r.refuse
	}
	s.to = append(s.to, to)
	return nil
}
func (s *relaySession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.r.got <- delivered{s.from, s.to, b}
	return nil
}
func (s *relaySession) Reset()        { s.from, s.to = "", nil }
func (s *relaySession) Logout() error { return nil }

// next is the next message the relay receives.
func (r *relay) next(t *testing.T) *received {
	t.Helper()
	d := testserver.Receive(t, r.got, 10*time.Second, "a message at the relay")
	return parse(t, d)
}

// nothing checks that the relay has received no message (the senders are synchronous:
// whatever was sent has arrived when they return).
func (r *relay) nothing(t *testing.T) {
	t.Helper()
	select {
	case d := <-r.got:
		t.Fatalf("the relay received an unexpected message:\n%s", d.Data)
	default:
	}
}

// received is a message as a mail program reads it.
type received struct {
	delivered
	Header  mail.Header
	Subject string
	Text    string
	HTML    string
}

func parse(t *testing.T, d delivered) *received {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(string(d.Data)))
	if err != nil {
		t.Fatalf("the message cannot be read: %v\n%s", err, d.Data)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	r := &received{delivered: d, Header: msg.Header, Subject: subject}
	r.readPart(t, textproto.MIMEHeader(msg.Header), msg.Body)
	if r.Text == "" {
		t.Fatalf("the message has no text part:\n%s", d.Data)
	}
	return r
}

func (r *received) readPart(t *testing.T, h textproto.MIMEHeader, body io.Reader) {
	media, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		t.Fatalf("Content-Type %q: %v", h.Get("Content-Type"), err)
	}
	if strings.HasPrefix(media, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r.readPart(t, p.Header, p)
		}
	}
	switch cte := strings.ToLower(h.Get("Content-Transfer-Encoding")); cte {
	case "quoted-printable": // in a multipart, multipart.Reader has undone it and removed the header
		body = quotedprintable.NewReader(body)
	case "", "7bit", "8bit":
	default:
		t.Fatalf("part %s: unexpected transfer encoding %s", media, cte)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	switch media {
	case "text/plain":
		r.Text = strings.ReplaceAll(string(b), "\r\n", "\n")
	case "text/html":
		r.HTML = string(b)
	}
}

// links are the <a> elements of the HTML part: text → href.
func (r *received) links(t *testing.T) map[string]string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(r.HTML))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "a" {
			var text strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					text.WriteString(c.Data)
				}
			}
			for _, a := range n.Attr {
				if a.Key == "href" {
					out[strings.TrimSpace(text.String())] = a.Val
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// world is a hitl server with an agent, a relay, and the email channel's configuration.
type world struct {
	srv   *testserver.Server
	agent *client.Client
	relay *relay
	cfg   email.Config
	send  *email.Sender
}

func newWorld(t *testing.T) *world {
	t.Helper()
	srv := testserver.Start(t)
	agent, _ := srv.Key(hitl.KeyRequest{Name: "deploy-bot", Roles: []string{hitl.RoleAgent}})
	w := &world{srv: srv, agent: agent, relay: startRelay(t, nil)}
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

// link is an answer link of the inquiry for the person.
func (w *world) link(t *testing.T, inq *hitl.Inquiry, who string) *hitl.AnswerLink {
	t.Helper()
	l, err := w.agent.CreateAnswerLink(context.Background(), inq.ID, &hitl.AnswerLinkRequest{For: who})
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

// engineAnswerer is the Answerer the wiring will build: answer-link tokens opened by the
// engine, and the people's addresses (here a map).
type engineAnswerer struct {
	eng       *engine.Engine
	addresses map[string]string
}

func (a engineAnswerer) OpenReply(ctx context.Context, token string) (*hitl.Principal, *hitl.Inquiry, string, error) {
	who, inq, err := a.eng.OpenAnswerLink(ctx, token)
	if err != nil {
		return nil, nil, "", err
	}
	return who, inq, a.addresses[who.Name], nil
}

func (a engineAnswerer) Respond(ctx context.Context, who *hitl.Principal, id int64, req *hitl.ResponseRequest) (*hitl.Inquiry, error) {
	return a.eng.Respond(ctx, who, id, req)
}

// startReplies runs a reply server for the world; it returns its address.
func (w *world) startReplies(t *testing.T) string {
	t.Helper()
	rs := email.NewReplyServer(w.cfg, engineAnswerer{w.srv.Engine(), map[string]string{"ada": "ada@example.com"}}, w.send, nil)
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

// mailTo sends a message with net/smtp, as a person's mail server does; the error is the
// server's refusal (a *textproto.Error), if any.
func mailTo(t *testing.T, addr, from, to, message string) error {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Mail(from); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	wc, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := io.WriteString(wc, strings.ReplaceAll(message, "\n", "\r\n")); err != nil {
		return err
	}
	if err := wc.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// replyMail is a plain-text reply to a notification, from an address.
func replyMail(from, to, body string) string {
	return "From: " + from + "\nTo: " + to + "\nSubject: Re: [hitl] question\nMessage-ID: <reply-1@example.com>\n" +
		"In-Reply-To: <inquiry-1.abc@" + mailDomain + ">\nReferences: <inquiry-1.abc@" + mailDomain + ">\n" +
		"MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n" + body
}

func smtpCode(err error) int {
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
