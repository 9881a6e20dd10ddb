// Package mailtest holds the real SMTP peers of the email tests: a relay that records what it
// receives (go-smtp), the reading of a received message as a mail program reads it, and
// net/smtp as the mail server of someone who replies. Only tests import it.
package mailtest

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"
	"golang.org/x/net/html"

	"github.com/hitl-dev/hitl/internal/testserver"
)

// Delivered is one message a relay received.
type Delivered struct {
	From string
	To   []string
	Data []byte
}

// Relay is an SMTP server that records the messages it receives.
type Relay struct {
	Addr string
	got  chan Delivered

	mu       sync.Mutex
	attempts int
	refuse   func(attempt int) *gosmtp.SMTPError
}

// NewRelay is a relay that serves nothing yet: Session gives its sessions to a server of the
// test's own.
func NewRelay() *Relay { return &Relay{got: make(chan Delivered, 16)} }

// StartRelay runs a relay on 127.0.0.1 until the test ends. refuse, when not nil, is asked at
// each recipient (attempt 1, 2, ... over the relay's life) whether to refuse it, and with what.
func StartRelay(t testing.TB, refuse func(attempt int) *gosmtp.SMTPError) *Relay {
	t.Helper()
	r := NewRelay()
	r.refuse = refuse
	s := gosmtp.NewServer(gosmtp.BackendFunc(func(*gosmtp.Conn) (gosmtp.Session, error) { return r.Session(), nil }))
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

// Always refuses every recipient with err.
func Always(err *gosmtp.SMTPError) func(int) *gosmtp.SMTPError {
	return func(int) *gosmtp.SMTPError { return err }
}

// Attempts is how many recipients the relay was given, refused ones included.
func (r *Relay) Attempts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attempts
}

// Session is one SMTP transaction with the relay.
func (r *Relay) Session() gosmtp.Session { return &session{r: r} }

type session struct {
	r    *Relay
	from string
	to   []string
}

func (s *session) Mail(from string, _ *gosmtp.MailOptions) error { s.from = from; return nil }
func (s *session) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	s.r.mu.Lock()
	s.r.attempts++
	n := s.r.attempts
	s.r.mu.Unlock()
	if s.r.refuse != nil {
		if err := s.r.refuse(n); err != nil {
			return err
		}
	}
	s.to = append(s.to, to)
	return nil
}
func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.r.got <- Delivered{s.from, s.to, b}
	return nil
}
func (s *session) Reset()        { s.from, s.to = "", nil }
func (s *session) Logout() error { return nil }

// Next is the next message the relay receives.
func (r *Relay) Next(t testing.TB) *Received {
	t.Helper()
	return Parse(t, testserver.Receive(t, r.got, 10*time.Second, "a message at the relay"))
}

// Nothing checks that the relay has received no message (senders are synchronous: whatever
// was sent has arrived when they return).
func (r *Relay) Nothing(t testing.TB) {
	t.Helper()
	select {
	case d := <-r.got:
		t.Fatalf("the relay received an unexpected message:\n%s", d.Data)
	default:
	}
}

// Received is a message as a mail program reads it.
type Received struct {
	Delivered
	Header  mail.Header
	Subject string
	Text    string
	HTML    string
}

// Parse reads a delivered message, its text and HTML parts decoded.
func Parse(t testing.TB, d Delivered) *Received {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(string(d.Data)))
	if err != nil {
		t.Fatalf("the message cannot be read: %v\n%s", err, d.Data)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	r := &Received{Delivered: d, Header: msg.Header, Subject: subject}
	r.readPart(t, textproto.MIMEHeader(msg.Header), msg.Body)
	if r.Text == "" {
		t.Fatalf("the message has no text part:\n%s", d.Data)
	}
	return r
}

func (r *Received) readPart(t testing.TB, h textproto.MIMEHeader, body io.Reader) {
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

// Links are the <a> elements of the HTML part: text → href.
func (r *Received) Links(t testing.TB) map[string]string {
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

// Send sends a message with net/smtp, as a person's mail server does (the message's lines end
// in "\n"); the error is the server's refusal (a *textproto.Error), if any.
func Send(t testing.TB, addr, from, to, message string) error {
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

// Code is the SMTP reply code of a refusal Send returned, 0 for none.
func Code(err error) int {
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}
