package email

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/wording"
)

// MaxReplyBytes bounds a reply: an answer is a line or a small JSON document, and quoted
// history and signatures fit well within it. Bigger messages are refused with 552.
const MaxReplyBytes = 256 << 10

// handleTimeout bounds the handling of one reply: answering and sending the explanation.
const handleTimeout = 30 * time.Second

// Answerer is what the reply server needs of the rest of hitl; the wiring implements it with
// the engine (answer-link tokens) and the people store (addresses).
type Answerer interface {
	// OpenReply reads the token of a reply address in a reply whose From address is from, and
	// returns who answers with it, the inquiry as it is now, and the address the question was
	// sent to. A token that is not valid or has expired is hitl.EUnauthorized, with a message
	// for the person; an inquiry that no longer exists is hitl.ENotFound; a reply from another
	// address than the question's is hitl.EForbidden, with the inquiry and a message for the
	// person (engine.CheckReplySender).
	OpenReply(ctx context.Context, token, from string) (who *hitl.Principal, inq *hitl.Inquiry, address string, err error)
	// Respond answers the inquiry on who's behalf, as the REST API does (engine.Respond):
	// EInvalidResponse lists what is wrong in Fields, EConflict carries the final inquiry.
	Respond(ctx context.Context, who *hitl.Principal, id int64, req *hitl.ResponseRequest) (*hitl.Inquiry, error)
}

// ReplyServer is the inbound SMTP server for answers by reply (HITL_SMTP_LISTEN). It accepts
// mail only for reply+TOKEN@Domain, so it is no relay, and handles each reply while the
// sending server waits: a reply that could not be handled for a passing reason (the database
// is away) is refused with a 4xx, and the sending server tries again later. A reply that
// cannot be taken as an answer is accepted and answered with a message that says why.
type ReplyServer struct {
	cfg      Config
	answerer Answerer
	replies  *Sender // nil: refusals are logged only
	log      *slog.Logger
	smtp     *smtp.Server
	links    *regexp.Regexp // hitl's own links, left out of what is stored (answerLinks)
}

// NewReplyServer returns a server that answers through answerer and explains refusals with
// mail sent by replies (nil to send none). cfg needs Domain, and PublicURL for the inbox link
// of the explanations.
func NewReplyServer(cfg Config, answerer Answerer, replies *Sender, log *slog.Logger) *ReplyServer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &ReplyServer{cfg: cfg, answerer: answerer, replies: replies, log: log, links: answerLinks(cfg.PublicURL, cfg.Domain)}
	s := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &replySession{srv: r}, nil }))
	s.Domain = cfg.Domain
	s.MaxMessageBytes = MaxReplyBytes
	s.MaxRecipients = 10
	s.ReadTimeout = time.Minute
	s.WriteTimeout = time.Minute
	s.ErrorLog = slogAdapter{log}
	r.smtp = s
	return r
}

// ListenAndServe listens on addr (host:port) and serves until Close.
func (r *ReplyServer) ListenAndServe(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening for email replies on %s: %w", addr, err)
	}
	return r.Serve(l)
}

// Serve serves connections from l until Close; it then returns smtp.ErrServerClosed.
func (r *ReplyServer) Serve(l net.Listener) error { return r.smtp.Serve(l) }

// Close stops listening and closes every connection at once.
func (r *ReplyServer) Close() error { return r.smtp.Close() }

// Shutdown stops listening and waits for the conversations in progress to end, until ctx is done.
func (r *ReplyServer) Shutdown(ctx context.Context) error { return r.smtp.Shutdown(ctx) }

// tokenOf reads the token of a reply address, reply+TOKEN@Domain; ok is false for any other
// address, which this server does not take mail for.
func (r *ReplyServer) tokenOf(addr string) (token string, ok bool) {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 || !strings.EqualFold(addr[at+1:], r.cfg.Domain) {
		return "", false
	}
	local := addr[:at]
	if len(local) < len("reply+") || !strings.EqualFold(local[:len("reply+")], "reply+") {
		return "", false
	}
	token = local[len("reply+"):]
	return token, token != "" && len(token) <= 4096
}

// replySession is one SMTP transaction.
type replySession struct {
	srv    *ReplyServer
	from   string
	tokens []string
}

var (
	errNotOurs = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1},
		Message: "This server takes only replies to hitl's questions (reply+...@its domain); it relays nothing"}
	errTryLater = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0},
		Message: "The reply could not be handled now; try again later"}
)

func (s *replySession) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *replySession) Rcpt(to string, _ *smtp.RcptOptions) error {
	token, ok := s.srv.tokenOf(to)
	if !ok {
		return errNotOurs
	}
	s.tokens = append(s.tokens, token)
	return nil
}

func (s *replySession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err // smtp.ErrDataTooLarge is 552
	}
	ctx, cancel := context.WithTimeout(context.Background(), handleTimeout)
	defer cancel()
	for _, token := range s.tokens {
		if err := s.srv.handle(ctx, s.from, token, raw); err != nil {
			s.srv.log.Warn("an email reply could not be handled; the sender will try again", "err", err)
			return errTryLater
		}
	}
	return nil
}

func (s *replySession) Reset() { s.from, s.tokens = "", nil }

func (s *replySession) Logout() error { return nil }

// handle answers with one reply, or explains to its sender why it did not. Its error is one
// worth retrying (the store is away); everything else is the sender's to fix, and said.
func (r *ReplyServer) handle(ctx context.Context, envelopeFrom, token string, raw []byte) error {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		r.explain(ctx, envelopeFrom, nil, "Your message could not be read as an email ("+err.Error()+"), so nothing was answered.")
		return nil
	}
	if machine(envelopeFrom, msg.Header) {
		// Bounces and autoresponders answer nothing, and are not answered: no mail loops.
		r.log.Info("an automatic message to a reply address was ignored", "from", envelopeFrom)
		return nil
	}
	from := senderAddress(msg.Header)
	who, inq, address, err := r.answerer.OpenReply(ctx, token, from)
	switch hitl.ErrorCode(err) {
	case "":
	case hitl.EForbidden:
		var he *hitl.Error
		if errors.As(err, &he) && he.Inquiry != nil {
			r.log.Info("an email reply came from another address than the person's", "inquiry_id", he.Inquiry.ID, "from", from)
		}
		r.explain(ctx, envelopeFrom, msg.Header, "Your reply was not recorded: "+sentence(hitl.ErrorMessage(err))+" Reply from that address, or answer in the inbox.")
		return nil
	case hitl.EUnauthorized:
		r.explain(ctx, envelopeFrom, msg.Header, "Your reply was not recorded: "+sentence(hitl.ErrorMessage(err))+" Answer in the inbox instead.")
		return nil
	case hitl.ENotFound:
		r.explain(ctx, envelopeFrom, msg.Header, "Your reply was not recorded: the question no longer exists.")
		return nil
	default:
		return fmt.Errorf("opening a reply token: %w", err)
	}
	// The token is the credential; From is only what the message claims. When the receiving
	// mail server says the claim is false, the message is not the person's.
	if failed := unauthenticated(msg.Header, r.cfg.AuthservID, address); failed != "" {
		r.log.Info("an email reply failed its mail server's authentication", "inquiry_id", inq.ID, "from", address, "result", failed)
		r.explain(ctx, envelopeFrom, msg.Header, fmt.Sprintf("Your reply was not recorded: it could not be authenticated as coming from %s (the receiving mail server reports %s). Reply from that address's own mail account, or answer in the inbox.", address, failed))
		return nil
	}
	if inq.Status.Final() {
		r.explain(ctx, envelopeFrom, msg.Header, closedWords(inq))
		return nil
	}
	texts, err := readReply(msg, r.links)
	if err != nil {
		r.explain(ctx, envelopeFrom, msg.Header, "Your reply was not recorded: "+sentence(err.Error()))
		return nil
	}
	req, problems := answerFromReply(inq, texts.shown)
	for _, other := range texts.others {
		if !sameAnswer(inq, req, other) {
			r.log.Info("an email reply was refused: what it shows and what it holds answer differently", "inquiry_id", inq.ID, "why", other.differs)
			r.explain(ctx, envelopeFrom, msg.Header, "Your reply was not recorded: "+other.differs)
			return nil
		}
	}
	if len(problems) > 0 {
		r.explainWithHint(ctx, envelopeFrom, msg.Header, inq, problems)
		return nil
	}
	answered, err := r.answerer.Respond(ctx, who, inq.ID, req)
	var he *hitl.Error
	errors.As(err, &he)
	switch hitl.ErrorCode(err) {
	case "":
		r.log.Info("an inquiry was answered by email", "inquiry_id", inq.ID, "by", who.Name)
		if words := wording.VoteRecorded(answered, who.Name); words != "" {
			// A vote that did not decide: nothing else tells the person it counted.
			r.explain(ctx, envelopeFrom, msg.Header, words)
		}
		return nil
	case hitl.EInvalid, hitl.EInvalidResponse:
		problems = nil
		if len(he.Fields) == 0 {
			problems = []string{sentence(he.Message)}
		}
		for _, f := range he.Fields {
			where := strings.TrimPrefix(f.Path, "/")
			if where == "" {
				where = "the answer"
			}
			problems = append(problems, where+": "+f.Message)
		}
		r.explainWithHint(ctx, envelopeFrom, msg.Header, inq, problems)
		return nil
	case hitl.EConflict:
		if he.Inquiry != nil {
			inq = he.Inquiry
		}
		if inq.Status == hitl.StatusPending { // a vote cast already, or someone else's claim
			r.explain(ctx, envelopeFrom, msg.Header, "Your reply was not recorded: "+sentence(he.Message))
			return nil
		}
		r.explain(ctx, envelopeFrom, msg.Header, closedWords(inq))
		return nil
	case hitl.ENotFound, hitl.EForbidden, hitl.ETooLarge:
		r.explain(ctx, envelopeFrom, msg.Header, "Your reply was not recorded: "+sentence(he.Message))
		return nil
	}
	return fmt.Errorf("answering inquiry %d by email: %w", inq.ID, err)
}

// machine tells whether a message was sent by a program (a bounce, an autoresponder, a
// list), which must neither answer nor be answered.
func machine(envelopeFrom string, h mail.Header) bool {
	if envelopeFrom == "" {
		return true
	}
	if a := strings.ToLower(strings.TrimSpace(h.Get("Auto-Submitted"))); a != "" && a != "no" {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(h.Get("Precedence"))) {
	case "bulk", "junk", "list", "auto_reply":
		return true
	}
	return false
}

// senderAddress is the address of the From header, the one the person's mail program shows.
func senderAddress(h mail.Header) string {
	list, err := (&mail.AddressParser{WordDecoder: &mime.WordDecoder{CharsetReader: charsetReader}}).ParseList(h.Get("From"))
	if err != nil || len(list) != 1 {
		return ""
	}
	return list[0].Address
}

// closedWords says why a reply to a closed inquiry was not recorded.
func closedWords(inq *hitl.Inquiry) string {
	return "Your reply was not recorded: this question is closed. " + answerWords(inq)
}

// sentence ends a message with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// explainWithHint lists the problems of a refused answer and says what to write.
func (r *ReplyServer) explainWithHint(ctx context.Context, to string, h mail.Header, inq *hitl.Inquiry, problems []string) {
	var b strings.Builder
	b.WriteString("Your reply was not recorded as an answer:\n\n")
	for _, p := range problems {
		b.WriteString("- " + p + "\n")
	}
	hint := strings.TrimPrefix(replyHint(inq), "Or reply to this email")
	b.WriteString("\nTo answer, reply again" + hint)
	for i, o := range inq.Options {
		if !inq.IsPlainApproval() {
			fmt.Fprintf(&b, "\n  %d. %s", i+1, optionText(o))
		}
	}
	r.explain(ctx, to, h, b.String())
}

// explain sends the person a reply that says what happened to their mail. A failure is
// logged: the person can still answer in the inbox, and a mail about a mail is not retried.
func (r *ReplyServer) explain(ctx context.Context, to string, h mail.Header, text string) {
	if r.cfg.PublicURL != "" {
		text += "\n\nThe inbox: " + strings.TrimRight(r.cfg.PublicURL, "/") + "/"
	}
	if r.replies == nil || to == "" {
		r.log.Info("an email reply was refused", "why", text)
		return
	}
	if h == nil {
		h = mail.Header{}
	}
	if err := r.replies.reply(ctx, to, h, text); err != nil {
		r.log.Warn("the explanation of a refused email reply could not be sent", "to", to, "err", err)
	}
}

// slogAdapter gives go-smtp's connection errors to the server's log.
type slogAdapter struct{ log *slog.Logger }

func (a slogAdapter) Printf(format string, v ...any) { a.log.Warn(fmt.Sprintf(format, v...)) }
func (a slogAdapter) Println(v ...any)               { a.log.Warn(strings.TrimSpace(fmt.Sprintln(v...))) }
