// Package client is the Go SDK of hitl: every endpoint of API v1, and Ask, which asks a human
// and waits for the answer through dropped connections and server restarts.
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// Client talks to one hitl server with one token.
type Client struct {
	baseURL string
	token   string
	http    *http.Client
	// RequestTimeout bounds every request but long polls, which get their wait plus this.
	RequestTimeout time.Duration
	// GiveUpAfter bounds how long the tool and agent helpers keep trying to reach a server that
	// does not answer before they return an error rather than hang (default 15 s).
	GiveUpAfter time.Duration
}

// New returns a client for the server at baseURL (like http://127.0.0.1:7447).
// httpClient may be nil; the default has connection timeouts and keeps connections alive.
func New(baseURL, token string, httpClient *http.Client) *Client {
	if httpClient == nil {
		httpClient = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   100,
			IdleConnTimeout:       90 * time.Second,
			ResponseHeaderTimeout: 0, // long polls: bounded per request by the context instead
		}}
	}
	return &Client{baseURL: strings.TrimRight(baseURL, "/"), token: token, http: httpClient, RequestTimeout: 30 * time.Second, GiveUpAfter: 15 * time.Second}
}

// Error is a problem the server answered with.
type Error struct {
	StatusCode int
	Code       string            `json:"code"`
	Detail     string            `json:"detail"`
	Errors     []hitl.FieldError `json:"errors"`
	Inquiry    *hitl.Inquiry     `json:"inquiry"`
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("hitl: %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	}
	return e.Detail
}

// ErrorCode returns the problem code of a server error, or of what the client refused before
// asking the server (a *hitl.Error); "unavailable" when the server did not answer in time;
// "" for any other error.
func ErrorCode(err error) string {
	var e *Error
	var he *hitl.Error
	var ue *UnreachableError
	switch {
	case errors.As(err, &ue):
		return hitl.EUnavailable
	case errors.As(err, &e):
		return e.Code
	case errors.As(err, &he):
		return he.Code
	}
	return ""
}

// do sends one request and decodes a 2xx JSON answer into out (when not nil).
func (c *Client) do(ctx context.Context, method, path string, header http.Header, body, out any, timeout time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, rd)
	if err != nil {
		return 0, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		e := &Error{StatusCode: resp.StatusCode}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
		if json.Unmarshal(b, e) != nil && e.Detail == "" {
			e.Detail = fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		}
		return resp.StatusCode, e
	}
	if out != nil && resp.StatusCode != http.StatusNoContent {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return resp.StatusCode, fmt.Errorf("hitl: reading the answer: %w", err)
		}
	}
	return resp.StatusCode, nil
}

func (c *Client) get(ctx context.Context, path string, out any) error {
	_, err := c.do(ctx, http.MethodGet, path, nil, nil, out, c.RequestTimeout)
	return err
}

func (c *Client) post(ctx context.Context, path string, body, out any) error {
	_, err := c.do(ctx, http.MethodPost, path, nil, body, out, c.RequestTimeout)
	return err
}

// Page is one page of a list.
type Page[T any] struct {
	Data       []T     `json:"data"`
	NextCursor *string `json:"next_cursor"`
}

// CreateOptions are the optional parts of creating an inquiry.
type CreateOptions struct {
	IdempotencyKey string
	// Wait, when positive, holds the answer until the inquiry is final or Wait passes.
	Wait time.Duration
}

// CreateInquiry asks a question; created is false when an idempotency key returned an earlier inquiry.
func (c *Client) CreateInquiry(ctx context.Context, req *hitl.InquiryRequest, o CreateOptions) (inq *hitl.Inquiry, created bool, err error) {
	h := http.Header{}
	if o.IdempotencyKey != "" {
		h.Set("Idempotency-Key", o.IdempotencyKey)
	}
	path := "/v1/inquiries"
	if o.Wait > 0 {
		path += "?wait=" + url.QueryEscape(o.Wait.String())
	}
	inq = new(hitl.Inquiry)
	status, err := c.do(ctx, http.MethodPost, path, h, req, inq, c.RequestTimeout+o.Wait)
	if err != nil {
		return nil, false, err
	}
	return inq, status == http.StatusCreated, nil
}

// Inquiry returns one inquiry.
func (c *Client) Inquiry(ctx context.Context, id int64) (*hitl.Inquiry, error) {
	inq := new(hitl.Inquiry)
	return inq, c.get(ctx, "/v1/inquiries/"+strconv.FormatInt(id, 10), inq)
}

// ListOptions filter a list; zero values do not filter.
type ListOptions struct {
	Status, Session, Origin, RequestType, CreatedBy string
	// Execution lists the inquiries of one workflow execution.
	Execution string
	// Text lists the inquiries whose prompt holds it, in any case (q).
	Text       string
	AssignedTo []string
	Metadata   map[string]string
	Cursor     string
	Limit      int
}

func (o ListOptions) query() string {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("status", o.Status)
	set("session", o.Session)
	set("execution", o.Execution)
	set("origin", o.Origin)
	set("request_type", o.RequestType)
	set("created_by", o.CreatedBy)
	set("q", o.Text)
	set("cursor", o.Cursor)
	for _, a := range o.AssignedTo {
		q.Add("assigned_to", a)
	}
	for k, v := range o.Metadata {
		q.Set("metadata."+k, v)
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// Inquiries lists inquiries the caller may see, newest first.
func (c *Client) Inquiries(ctx context.Context, o ListOptions) (*Page[*hitl.Inquiry], error) {
	p := new(Page[*hitl.Inquiry])
	return p, c.get(ctx, "/v1/inquiries"+o.query(), p)
}

// Respond answers an inquiry.
func (c *Client) Respond(ctx context.Context, id int64, response json.RawMessage, comment string) (*hitl.Inquiry, error) {
	inq := new(hitl.Inquiry)
	return inq, c.post(ctx, "/v1/inquiries/"+strconv.FormatInt(id, 10)+"/respond", hitl.ResponseRequest{Response: response, Comment: comment}, inq)
}

// RespondFor answers an inquiry as the delegate of onBehalfOf, who is away (see SetAbsence);
// onBehalfOf "" is Respond.
func (c *Client) RespondFor(ctx context.Context, id int64, onBehalfOf string, response json.RawMessage, comment string) (*hitl.Inquiry, error) {
	inq := new(hitl.Inquiry)
	return inq, c.post(ctx, "/v1/inquiries/"+strconv.FormatInt(id, 10)+"/respond", hitl.ResponseRequest{Response: response, Comment: comment, OnBehalfOf: onBehalfOf}, inq)
}

// Cancel withdraws a pending inquiry.
func (c *Client) Cancel(ctx context.Context, id int64, reason string) (*hitl.Inquiry, error) {
	inq := new(hitl.Inquiry)
	return inq, c.post(ctx, "/v1/inquiries/"+strconv.FormatInt(id, 10)+"/cancel", map[string]string{"reason": reason}, inq)
}

// Claim takes the inquiry to answer it, for ttl (0: the server's default, 15 minutes; the
// server takes whole seconds): others who answer meanwhile get a conflict. Claiming it again
// extends the claim.
func (c *Client) Claim(ctx context.Context, id int64, ttl time.Duration) (*hitl.Inquiry, error) {
	var req hitl.ClaimRequest
	if ttl != 0 {
		s := int64(ttl / time.Second)
		req.TTLSeconds = &s
	}
	inq := new(hitl.Inquiry)
	return inq, c.post(ctx, "/v1/inquiries/"+strconv.FormatInt(id, 10)+"/claim", req, inq)
}

// Release gives the caller's claim on the inquiry back (or, for an admin, breaks anyone's).
func (c *Client) Release(ctx context.Context, id int64) (*hitl.Inquiry, error) {
	inq := new(hitl.Inquiry)
	_, err := c.do(ctx, http.MethodDelete, "/v1/inquiries/"+strconv.FormatInt(id, 10)+"/claim", nil, nil, inq, c.RequestTimeout)
	return inq, err
}

// CreateAnswerLink makes a signed link for one person to answer the inquiry without an API
// key (for email and chat); link.URL is the page to send them. It needs a key with the relay
// role or admin; a link for someone else records the caller as relayed_by on the answer.
func (c *Client) CreateAnswerLink(ctx context.Context, id int64, req *hitl.AnswerLinkRequest) (*hitl.AnswerLink, error) {
	link := new(hitl.AnswerLink)
	return link, c.post(ctx, "/v1/inquiries/"+strconv.FormatInt(id, 10)+"/links", req, link)
}

// Wait long-polls until the inquiry is final or timeout passes (then it is still pending).
func (c *Client) Wait(ctx context.Context, id int64, timeout time.Duration) (*hitl.Inquiry, error) {
	inq := new(hitl.Inquiry)
	path := "/v1/inquiries/" + strconv.FormatInt(id, 10) + "/wait?timeout=" + url.QueryEscape(timeout.String())
	_, err := c.do(ctx, http.MethodGet, path, nil, nil, inq, timeout+c.RequestTimeout)
	return inq, err
}

// PutSession creates or updates a session.
func (c *Client) PutSession(ctx context.Context, key string, req *hitl.SessionRequest) (*hitl.Session, error) {
	s := new(hitl.Session)
	_, err := c.do(ctx, http.MethodPut, "/v1/sessions/"+url.PathEscape(key), nil, req, s, c.RequestTimeout)
	return s, err
}

// Session returns a session.
func (c *Client) Session(ctx context.Context, key string) (*hitl.Session, error) {
	s := new(hitl.Session)
	return s, c.get(ctx, "/v1/sessions/"+url.PathEscape(key), s)
}

// Sessions lists sessions, newest first; status may be empty.
func (c *Client) Sessions(ctx context.Context, status, cursor string, limit int) (*Page[*hitl.Session], error) {
	q := url.Values{}
	if status != "" {
		q.Set("status", status)
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	p := new(Page[*hitl.Session])
	return p, c.get(ctx, "/v1/sessions?"+q.Encode(), p)
}

// SessionInquiries returns a session's inquiries, oldest first.
func (c *Client) SessionInquiries(ctx context.Context, key string) ([]*hitl.Inquiry, error) {
	p := new(Page[*hitl.Inquiry])
	err := c.get(ctx, "/v1/sessions/"+url.PathEscape(key)+"/inquiries", p)
	return p.Data, err
}

// CompleteSession ends a session with a result.
func (c *Client) CompleteSession(ctx context.Context, key string, result json.RawMessage) (*hitl.Session, error) {
	s := new(hitl.Session)
	return s, c.post(ctx, "/v1/sessions/"+url.PathEscape(key)+"/complete", map[string]json.RawMessage{"result": result}, s)
}

// FailSession ends a session with an error.
func (c *Client) FailSession(ctx context.Context, key, message string) (*hitl.Session, error) {
	s := new(hitl.Session)
	return s, c.post(ctx, "/v1/sessions/"+url.PathEscape(key)+"/fail", map[string]string{"error": message}, s)
}

// CancelSession cancels a session and its pending inquiries.
func (c *Client) CancelSession(ctx context.Context, key string) (*hitl.Session, error) {
	s := new(hitl.Session)
	return s, c.post(ctx, "/v1/sessions/"+url.PathEscape(key)+"/cancel", struct{}{}, s)
}

// EventOptions filter a page of events.
type EventOptions struct {
	After     int64
	Types     []string
	Session   string
	InquiryID int64
	Limit     int
}

// EventPage returns a page of the events after o.After that the caller may see, in seq order.
func (c *Client) EventPage(ctx context.Context, o EventOptions) (*Page[*hitl.Event], error) {
	q := eventFilter(o.Types, o.Session, o.InquiryID)
	q.Set("after", strconv.FormatInt(o.After, 10))
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	p := new(Page[*hitl.Event])
	return p, c.get(ctx, "/v1/events?"+q.Encode(), p)
}

// Decision is the engagement decision.
type Decision struct {
	Mode      string `json:"mode"`
	ShouldAsk bool   `json:"should_ask"`
	Rationale string `json:"rationale"`
}

// Decide asks whether to involve a human, from signals each 0..1.
func (c *Client) Decide(ctx context.Context, confidence, risk, reversibility float64) (*Decision, error) {
	d := new(Decision)
	return d, c.post(ctx, "/v1/engagement/decide", map[string]float64{"confidence": confidence, "risk": risk, "reversibility": reversibility}, d)
}

// CreateKey makes a key; the answer holds its token, shown this once.
func (c *Client) CreateKey(ctx context.Context, req *hitl.KeyRequest) (*hitl.Key, error) {
	k := new(hitl.Key)
	return k, c.post(ctx, "/v1/keys", req, k)
}

// Keys lists keys without tokens.
func (c *Client) Keys(ctx context.Context) ([]*hitl.Key, error) {
	p := new(Page[*hitl.Key])
	err := c.get(ctx, "/v1/keys", p)
	return p.Data, err
}

// RevokeKey revokes a key at once.
func (c *Client) RevokeKey(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodDelete, "/v1/keys/"+url.PathEscape(id), nil, nil, nil, c.RequestTimeout)
	return err
}

// Me returns the caller's principal, with the key it authenticated with (KeyID).
func (c *Client) Me(ctx context.Context) (*hitl.Principal, error) {
	me := hitl.Caller{Principal: new(hitl.Principal)}
	if err := c.get(ctx, "/v1/me", &me); err != nil {
		return nil, err
	}
	me.Principal.KeyID = me.KeyID
	return me.Principal, nil
}

// Ready reports whether the server and its store answer.
func (c *Client) Ready(ctx context.Context) error { return c.get(ctx, "/readyz", nil) }

// NewIdempotencyKey returns a random key for CreateOptions.
func NewIdempotencyKey() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Stats returns the numbers of the window of length since ("24h", "7d"; "" for the server's
// default of 7 days): every inquiry's for an admin, its own for a responder.
func (c *Client) Stats(ctx context.Context, since string) (*hitl.Stats, error) {
	path := "/v1/stats"
	if since != "" {
		path += "?since=" + url.QueryEscape(since)
	}
	st := new(hitl.Stats)
	return st, c.get(ctx, path, st)
}
