package email

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// sendTimeout bounds one conversation with the relay when the caller's context does not.
const sendTimeout = 30 * time.Second

// Sender sends notifications through the SMTP relay. It keeps no connection between two
// messages, so it is safe for concurrent use and survives a relay restart.
type Sender struct {
	cfg Config
}

// NewSender checks the configuration and returns a sender.
func NewSender(cfg Config) (*Sender, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Sender{cfg: cfg}, nil
}

// PermanentError is a failure that sending again will not cure: the relay refused the
// message with a 5xx reply, or the message cannot be written (a bad address). The dispatcher
// stops retrying it; every other error (a 4xx reply, no connection) is worth a retry.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// IsPermanent reports whether err is a failure that retrying will not cure.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}

// Send sends one notification and returns its Message-ID (without angle brackets), which is
// the ThreadRoot of the later messages when this is the first one. The error is a
// *PermanentError when retrying will not help.
func (s *Sender) Send(ctx context.Context, m Message) (string, error) {
	if m.Inquiry == nil {
		return "", &PermanentError{errors.New("a message needs its inquiry")}
	}
	inq := m.Inquiry
	v := newView(&m, s.cfg.now())
	var text, html bytes.Buffer
	if err := textBody.Execute(&text, v); err != nil {
		return "", &PermanentError{fmt.Errorf("writing the text of inquiry %d's message: %w", inq.ID, err)}
	}
	if err := htmlBody.Execute(&html, v); err != nil {
		return "", &PermanentError{fmt.Errorf("writing the HTML of inquiry %d's message: %w", inq.ID, err)}
	}
	out := outgoing{
		to:      m.To,
		subject: subject(inq, m.Reason),
		text:    text.String(),
		html:    html.String(),
		id:      strings.Trim(m.ID, "<>"),
	}
	if out.id == "" {
		out.id = s.messageID(fmt.Sprintf("inquiry-%d", inq.ID))
	}
	if m.ThreadRoot != "" {
		root := "<" + strings.Trim(m.ThreadRoot, "<>") + ">"
		out.inReplyTo, out.references = root, root
	}
	if m.ReplyToken != "" && m.Reason != ReasonResolved {
		out.replyTo = replyAddress(m.ReplyToken, s.cfg.Domain)
	}
	if err := s.send(ctx, &out); err != nil {
		return "", err
	}
	return out.id, nil
}

// outgoing is one message as the relay gets it.
type outgoing struct {
	to                    Recipient
	subject, text, html   string
	id                    string // without angle brackets
	inReplyTo, references string // with them
	replyTo               string
	autoReply             bool // an answer to a person's mail, which no one should answer automatically
}

// messageID makes a Message-ID that no other message has: what it is about, random, and
// this server's mail domain.
func (s *Sender) messageID(about string) string {
	b := make([]byte, 12)
	rand.Read(b)
	return about + "." + hex.EncodeToString(b) + "@" + s.cfg.Domain
}

// replyAddress is where a reply to a message with this token goes.
func replyAddress(token, domain string) string { return "reply+" + token + "@" + domain }

func (s *Sender) send(ctx context.Context, out *outgoing) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.cfg.From); err != nil {
		return &PermanentError{fmt.Errorf("the From address %q: %w", s.cfg.From, err)}
	}
	if err := msg.AddToFormat(out.to.Name, out.to.Address); err != nil {
		return &PermanentError{fmt.Errorf("the address %q: %w", out.to.Address, err)}
	}
	if out.replyTo != "" {
		if err := msg.ReplyTo(out.replyTo); err != nil {
			return &PermanentError{fmt.Errorf("the reply address %q: %w", out.replyTo, err)}
		}
	}
	msg.Subject(out.subject)
	msg.SetMessageIDWithValue(out.id)
	msg.SetDateWithValue(s.cfg.now())
	if out.inReplyTo != "" {
		msg.SetGenHeader(gomail.HeaderInReplyTo, out.inReplyTo)
		msg.SetGenHeader(gomail.HeaderReferences, out.references)
	}
	// Vacation responders must not answer notifications, nor the answers to replies.
	msg.SetGenHeader(gomail.HeaderXAutoResponseSuppress, "All")
	if out.autoReply {
		msg.SetGenHeader("Auto-Submitted", "auto-replied")
	} else {
		msg.SetGenHeader("Auto-Submitted", "auto-generated")
	}
	msg.SetBodyString(gomail.TypeTextPlain, out.text)
	if out.html != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, out.html)
	}

	client, err := s.client()
	if err != nil {
		return &PermanentError{err}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, sendTimeout)
		defer cancel()
	}
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return classify(fmt.Errorf("sending to %s through %s: %w", out.to.Address, s.cfg.SMTP, err))
	}
	return nil
}

// client is a go-mail client for one conversation with the relay.
func (s *Sender) client() (*gomail.Client, error) {
	r := s.cfg.SMTP
	opts := []gomail.Option{gomail.WithPort(r.Port), gomail.WithTimeout(sendTimeout), gomail.WithHELO(s.cfg.Domain)}
	switch r.Security {
	case SecurityTLS:
		opts = append(opts, gomail.WithSSL())
	case SecurityNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.cfg.TLS != nil {
		tc := s.cfg.TLS.Clone()
		if tc.ServerName == "" {
			tc.ServerName = r.Host // the name the relay's certificate must have
		}
		opts = append(opts, gomail.WithTLSConfig(tc))
	}
	if r.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(r.Username), gomail.WithPassword(r.Password))
	}
	c, err := gomail.NewClient(r.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("the SMTP relay %s: %w", r, err)
	}
	return c, nil
}

// classify marks the relay's 5xx replies as permanent; 4xx replies and failures to connect
// or to finish are transient.
func classify(err error) error {
	var se *gomail.SendError
	if errors.As(err, &se) && !se.IsTemp() && se.ErrorCode() >= 500 && se.ErrorCode() < 600 {
		return &PermanentError{err}
	}
	return err
}

// reply sends a short plain-text answer to a person's mail, in its thread.
func (s *Sender) reply(ctx context.Context, to string, original mail.Header, text string) error {
	subj := decodeHeader(original.Get("Subject"))
	if !strings.HasPrefix(strings.ToLower(subj), "re:") {
		subj = "Re: " + subj
	}
	out := outgoing{to: Recipient{Address: to}, subject: cut(subj, maxSubjectRunes+4), text: text,
		id: s.messageID("reply"), autoReply: true}
	if id := strings.TrimSpace(original.Get("Message-ID")); id != "" {
		out.inReplyTo = id
		out.references = strings.TrimSpace(strings.TrimSpace(original.Get("References")) + " " + id)
	}
	return s.send(ctx, &out)
}
