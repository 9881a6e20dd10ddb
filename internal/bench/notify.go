package bench

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/mail"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// notifyMarker finds the sample's number in a prompt, wherever a channel put it.
var notifyMarker = regexp.MustCompile(`notify-sample-(\d+)`)

// arrivals records when each sample first reached a peer.
type arrivals struct {
	mu   sync.Mutex
	seen map[string]bool
	at   chan time.Time
}

func newArrivals() *arrivals { return &arrivals{seen: map[string]bool{}, at: make(chan time.Time, 16)} }

// saw records the arrival of what text names, once per sample.
func (a *arrivals) saw(text string, at time.Time) {
	m := notifyMarker.FindString(text)
	if m == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.seen[m] {
		a.seen[m] = true
		a.at <- at
	}
}

func (a *arrivals) next(what string) (time.Time, error) {
	select {
	case at := <-a.at:
		return at, nil
	case <-time.After(30 * time.Second):
		return time.Time{}, fmt.Errorf("a notification did not reach the %s within 30 s", what)
	}
}

// smtpRecorder is the mail relay of the benchmark: it accepts every message and notes when
// one arrived.
type smtpRecorder struct{ arrived *arrivals }

func (b smtpRecorder) NewSession(*smtp.Conn) (smtp.Session, error) { return smtpSession(b), nil }

type smtpSession smtpRecorder

func (smtpSession) Mail(string, *smtp.MailOptions) error { return nil }
func (smtpSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (smtpSession) Reset()                               {}
func (smtpSession) Logout() error                        { return nil }

func (s smtpSession) Data(r io.Reader) error {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	at := time.Now()
	io.Copy(io.Discard, msg.Body)
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	s.arrived.saw(subject, at)
	return nil
}

// notifications starts a server of its own with email and Slack set up against peers on
// loopback — a relay that records messages and a stand-in for Slack's Web API — and asks
// NotifySamples inquiries one at a time, each assigned to a person with an email address and
// a Slack ID: the latency runs from the creation's answer to the message's arrival at each.
func (r *run) notifications(ctx context.Context, dir string) (email, slack Latency, err error) {
	n := r.o.NotifySamples
	if n == 0 {
		return Latency{}, Latency{}, nil
	}
	mailed, posted := newArrivals(), newArrivals()
	smtpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Latency{}, Latency{}, err
	}
	relay := smtp.NewServer(smtpRecorder{mailed})
	relay.Domain, relay.AllowInsecureAuth = "localhost", true
	go relay.Serve(smtpLn)
	defer relay.Close()

	slackLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Latency{}, Latency{}, err
	}
	slackAPI := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		at := time.Now()
		req.ParseForm()
		if filepath.Base(req.URL.Path) == "chat.postMessage" {
			posted.saw(req.Form.Get("text")+req.Form.Get("blocks"), at)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true,"channel":"D0BENCH","ts":"1700000000.000100"}`)
	})}
	go slackAPI.Serve(slackLn)
	defer slackAPI.Close()

	o := r.o
	o.Env = append(slices.Clone(o.Env),
		"HITL_SMTP_URL=smtp://"+smtpLn.Addr().String()+"?tls=none", "HITL_MAIL_FROM=hitl@bench.example", "HITL_MAIL_DOMAIN=bench.example",
		"HITL_SLACK_BOT_TOKEN=xoxb-bench", "HITL_SLACK_SIGNING_SECRET=bench-signing-secret",
		"HITL_SLACK_API_URL=http://"+slackLn.Addr().String()+"/api/")
	url, stop, _, err := startServer(ctx, o, filepath.Join(dir, "notify.db"), dir)
	if err != nil {
		return Latency{}, Latency{}, err
	}
	defer stop()
	admin := client.New(url, adminToken, r.hc)
	if err := ready(ctx, admin); err != nil {
		return Latency{}, Latency{}, err
	}
	if _, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bench-ada", Roles: []string{hitl.RoleResponder}}); err != nil {
		return Latency{}, Latency{}, err
	}
	if _, err := admin.PutPerson(ctx, "bench-ada", &hitl.PersonRequest{Email: "ada@bench.example", SlackUserID: "U0BENCH"}); err != nil {
		return Latency{}, Latency{}, err
	}
	var mailLat, slackLat []time.Duration
	for i := range n {
		req := &hitl.InquiryRequest{Prompt: fmt.Sprintf("Approve notify-sample-%d?", i), RequestType: hitl.RequestApproval, AssignedTo: []string{"bench-ada"}}
		if _, _, err := admin.CreateInquiry(ctx, req, client.CreateOptions{}); err != nil {
			return Latency{}, Latency{}, err
		}
		sent := time.Now()
		mailAt, err := mailed.next("mail relay")
		if err != nil {
			return Latency{}, Latency{}, err
		}
		slackAt, err := posted.next("Slack stand-in")
		if err != nil {
			return Latency{}, Latency{}, err
		}
		mailLat, slackLat = append(mailLat, mailAt.Sub(sent)), append(slackLat, slackAt.Sub(sent))
	}
	return summarize(mailLat), summarize(slackLat), nil
}
