// Package email reaches people by email and lets them answer by replying. It is an adapter:
// Sender turns an inquiry notification into a multipart message (text and HTML, one thread
// per inquiry) sent through an SMTP relay with go-mail, and ReplyServer is an inbound SMTP
// server (go-smtp) that reads what a person wrote in a reply, as their mail program shows it
// (the quoted message, the signature, hidden text and hitl's own links left out), maps its
// first line to an answer and gives it to the engine through an Answerer. Who may answer, whether the answer fits and what a
// notification is sent for are the engine's decisions, not this package's.
package email

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Security is how the connection to the SMTP relay is protected.
type Security string

const (
	// SecurityStartTLS upgrades a plain connection with STARTTLS and refuses a relay that
	// does not offer it: credentials and answer links must not cross the network in clear.
	SecurityStartTLS Security = "starttls"
	// SecurityTLS speaks TLS from the first byte (smtps://, usually port 465).
	SecurityTLS Security = "tls"
	// SecurityNone sends in clear, for a relay on the same host or network (?tls=none).
	SecurityNone Security = "none"
)

// SMTPServer is where mail goes out: the relay of HITL_SMTP_URL.
type SMTPServer struct {
	Host     string
	Port     int
	Username string // "" sends without authenticating
	Password string
	Security Security
}

// String is the relay as a log line may show it: the password never appears.
func (s SMTPServer) String() string {
	u := url.URL{Scheme: "smtp", Host: net.JoinHostPort(s.Host, strconv.Itoa(s.Port))}
	if s.Security == SecurityTLS {
		u.Scheme = "smtps"
	}
	if s.Username != "" {
		u.User = url.User(s.Username)
	}
	if s.Security == SecurityNone {
		u.RawQuery = "tls=none"
	}
	return u.String()
}

// ParseSMTPURL reads HITL_SMTP_URL: smtp://user:pass@host:587 (STARTTLS, required),
// smtp://host:25?tls=none (a local relay, in clear) or smtps://user:pass@host:465 (TLS from
// the start). The port defaults to 587 for smtp and 465 for smtps.
func ParseSMTPURL(raw string) (SMTPServer, error) {
	bad := func(format string, args ...any) (SMTPServer, error) {
		return SMTPServer{}, fmt.Errorf("SMTP URL: "+format, args...)
	}
	u, err := url.Parse(raw)
	if err != nil {
		// Not the URL itself, nor url.Parse's message, which quotes it: it holds a password.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return bad("it is not a URL (%v); write it as smtp://user:password@host:587", err)
	}
	var s SMTPServer
	switch u.Scheme {
	case "smtp":
		s.Security, s.Port = SecurityStartTLS, 587
	case "smtps":
		s.Security, s.Port = SecurityTLS, 465
	default:
		return bad("the scheme must be smtp:// (STARTTLS, or ?tls=none) or smtps:// (TLS), not %q", u.Scheme)
	}
	s.Host = u.Hostname()
	if s.Host == "" {
		return bad("no host: write it as %s://host:port", u.Scheme)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return bad("the port %q is not a number from 1 to 65535", p)
		}
		s.Port = n
	}
	if u.Path != "" && u.Path != "/" {
		return bad("an SMTP URL has no path (%q)", u.Path)
	}
	if u.User != nil {
		s.Username = u.User.Username()
		s.Password, _ = u.User.Password()
		if s.Username == "" {
			return bad("a password was given without a user name")
		}
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return bad("the query %q cannot be read: %v", u.RawQuery, err)
	}
	for k, vs := range q {
		if k != "tls" {
			return bad("unknown setting %q; the only one is tls=none", k)
		}
		switch {
		case len(vs) != 1 || vs[0] != "none" && vs[0] != "starttls":
			return bad("tls must be none (a local relay, in clear) or starttls (the default)")
		case vs[0] == "none" && s.Security == SecurityTLS:
			return bad("smtps:// is TLS from the start; tls=none contradicts it (use smtp://host:25?tls=none)")
		case vs[0] == "none":
			s.Security = SecurityNone
		}
	}
	return s, nil
}

// Config is what both directions of email need.
type Config struct {
	SMTP SMTPServer
	// From is who the mail comes from (HITL_MAIL_FROM), an address with or without a name:
	// "hitl <hitl@example.com>".
	From string
	// Domain is the domain replies go to (HITL_MAIL_DOMAIN): Reply-To reply+TOKEN@Domain,
	// which the ReplyServer accepts. It also names the Message-IDs this server makes.
	Domain string
	// PublicURL is the server as people reach it; the replies that explain a refused answer
	// point to its inbox.
	PublicURL string
	// AuthservID names the receiving mail server whose Authentication-Results header a reply's
	// sender is judged by (HITL_MAIL_AUTHSERV_ID): the topmost such header. "" takes the
	// topmost header whatever server wrote it, which is safe only because such a header can
	// refuse a reply, never let one in.
	AuthservID string
	// TLS configures the connection to the relay: nil trusts the system's roots and checks
	// the relay's name; set RootCAs for a relay with a private CA.
	TLS *tls.Config
	// Now is the clock that says how far away a deadline is; time.Now when nil.
	Now func() time.Time
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if c.SMTP.Host == "" {
		errs = append(errs, errors.New("no SMTP relay: set HITL_SMTP_URL, e.g. smtp://user:password@host:587"))
	}
	_, fromErr := mail.ParseAddress(c.From)
	if fromErr != nil {
		errs = append(errs, fmt.Errorf("--mail-from (HITL_MAIL_FROM) %q is not an email address (e.g. \"hitl <hitl@example.com>\")", c.From))
	}
	// Without a domain of its own, the domain is the From address's: a wrong From says it all.
	if (fromErr == nil || c.Domain != "") && !validDomain(c.Domain) {
		errs = append(errs, fmt.Errorf("--mail-domain (HITL_MAIL_DOMAIN) %q is not a domain name (e.g. hitl.example.com)", c.Domain))
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("the public URL %q is not an http(s) URL", c.PublicURL))
		}
	}
	return errors.Join(errs...)
}

func (c Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// validDomain accepts host names (labels of letters, digits and hyphens) and IP literals are
// refused: replies are addressed to a name an MX record can point at.
func validDomain(d string) bool {
	if d == "" || len(d) > 253 || net.ParseIP(d) != nil {
		return false
	}
	for label := range strings.SplitSeq(d, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}
