package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/mail"
	"strings"
	"syscall"

	gosmtp "github.com/emersion/go-smtp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/email"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/notify"
)

// EmailConfig says how this server sends email and takes answers by reply.
type EmailConfig struct {
	// SMTPURL is the relay mail goes out through (HITL_SMTP_URL): smtp://user:pass@host:587
	// (STARTTLS), smtps://... (TLS) or smtp://host:25?tls=none (a local relay). "" sends no
	// email.
	SMTPURL string
	// From is who the mail comes from (HITL_MAIL_FROM): "hitl <hitl@example.com>".
	From string
	// Domain is the domain of the reply addresses, reply+TOKEN@Domain (HITL_MAIL_DOMAIN): set
	// it when that domain's mail reaches a reply listener (this node's Listen, or another's),
	// and the messages invite answers by reply. "" invites none; the Message-IDs then take the
	// From address's domain.
	Domain string
	// Listen is where this node takes replies by SMTP (HITL_SMTP_LISTEN, host:port); "" for
	// nowhere. It needs Domain.
	Listen string
	// AuthservID is the name the receiving mail server writes first in the
	// Authentication-Results header it adds (HITL_MAIL_AUTHSERV_ID), like mx.example.com:
	// replies are judged by the topmost header of that server only. "" judges them by the
	// topmost header, whoever wrote it (see email.Config.AuthservID).
	AuthservID string
	// TLS configures the connection to the relay (tests: a relay with a private CA).
	TLS *tls.Config
}

// channelConfig is the email channel's configuration, and why it cannot be one.
func (c EmailConfig) channelConfig(publicURL string) (email.Config, error) {
	if c.SMTPURL == "" {
		if c.From != "" || c.Domain != "" || c.Listen != "" || c.AuthservID != "" {
			return email.Config{}, errors.New("email (--mail-from, --mail-domain, --smtp-listen, --mail-authserv-id): set --smtp-url (HITL_SMTP_URL) too, the relay mail goes out through")
		}
		return email.Config{}, nil
	}
	var errs []error
	relay, err := email.ParseSMTPURL(c.SMTPURL)
	if err != nil {
		errs = append(errs, fmt.Errorf("--smtp-url (HITL_SMTP_URL): %w", err))
	}
	domain := c.Domain
	if from, err := mail.ParseAddress(c.From); err == nil && domain == "" {
		domain = from.Address[strings.LastIndexByte(from.Address, '@')+1:]
	}
	if c.From == "" {
		errs = append(errs, errors.New("--mail-from (HITL_MAIL_FROM): who the mail comes from, like \"hitl <hitl@example.com>\", is needed with --smtp-url"))
	}
	if c.Listen != "" {
		if _, _, err := net.SplitHostPort(c.Listen); err != nil {
			errs = append(errs, fmt.Errorf("--smtp-listen (HITL_SMTP_LISTEN) %q: want host:port, like 127.0.0.1:2525", c.Listen))
		}
		if c.Domain == "" {
			errs = append(errs, errors.New("--smtp-listen (HITL_SMTP_LISTEN) takes replies addressed to reply+...@ the mail domain: set --mail-domain (HITL_MAIL_DOMAIN) too"))
		}
	}
	if c.AuthservID != "" && strings.ContainsAny(c.AuthservID, " \t\r\n;()\"=") {
		errs = append(errs, fmt.Errorf("--mail-authserv-id (HITL_MAIL_AUTHSERV_ID) %q: want the one word your mail server writes first in the Authentication-Results header it adds, like mx.example.com", c.AuthservID))
	}
	cfg := email.Config{SMTP: relay, From: c.From, Domain: domain, PublicURL: publicURL, AuthservID: c.AuthservID, TLS: c.TLS}
	if len(errs) == 0 && c.From != "" {
		if err := cfg.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return cfg, errors.Join(errs...)
}

// mailer is the email channel of a running server: the sender, and the reply listener when
// this node takes replies.
type mailer struct {
	sender   *email.Sender
	cfg      email.Config
	listener net.Listener // nil: no replies here
	replies  *email.ReplyServer
}

// openEmail builds the email sender of c and binds its reply listener, before the store
// opens (a busy port stops the start at once). The sender joins senders.
func openEmail(c EmailConfig, publicURL string, senders map[string]notify.Sender) (*mailer, map[string]notify.Sender, error) {
	if c.SMTPURL == "" {
		return nil, senders, nil
	}
	ecfg, err := c.channelConfig(publicURL)
	if err != nil {
		return nil, nil, err
	}
	sender, err := email.NewSender(ecfg)
	if err != nil {
		return nil, nil, err
	}
	m := &mailer{sender: sender, cfg: ecfg}
	if c.Listen != "" {
		m.listener, err = net.Listen("tcp", c.Listen)
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, nil, fmt.Errorf("%s is in use — is another hitl serve running? (--smtp-listen)", c.Listen)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("cannot listen for email replies on %s (--smtp-listen): %w", c.Listen, err)
		}
	}
	senders = maps.Clone(senders)
	if senders == nil {
		senders = map[string]notify.Sender{}
	}
	senders[hitl.ChannelEmail] = email.NewChannel(sender, c.Domain != "")
	return m, senders, nil
}

// serve returns what takes replies until shutdown (the engine answers them), nil when this
// node takes none.
func (m *mailer) serve(eng *engine.Engine, log *slog.Logger) func() error {
	if m == nil || m.listener == nil {
		return nil
	}
	m.replies = email.NewReplyServer(m.cfg, eng, m.sender, log)
	return func() error {
		if err := m.replies.Serve(m.listener); !errors.Is(err, gosmtp.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// shutdown stops taking replies and lets the conversations in progress end, until ctx is done.
func (m *mailer) shutdown(ctx context.Context) error {
	if m == nil || m.listener == nil {
		return nil
	}
	if m.replies == nil { // never served
		return m.listener.Close()
	}
	err := m.replies.Shutdown(ctx)
	m.listener.Close() // in case Serve had not yet registered it when Shutdown closed its listeners
	return err
}

// close releases the listener of a start that failed.
func (m *mailer) close() {
	if m != nil && m.listener != nil {
		m.listener.Close()
	}
}

// ReplyAddr is where this node takes email replies, "" when it takes none.
func (s *Server) ReplyAddr() string {
	if s.mail == nil || s.mail.listener == nil {
		return ""
	}
	return s.mail.listener.Addr().String()
}
