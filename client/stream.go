package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// StreamOptions filter a live stream of events.
type StreamOptions struct {
	After      int64 // start after this seq (0: from the beginning of the log)
	FromNow    bool  // start at the end of the log: only new events (After is ignored)
	Types      []string
	Session    string
	InquiryID  int64
	AssignedTo []string // names, group:NAME, or "me"
}

// eventFilter is the query of the filters the event page and the stream share.
func eventFilter(types []string, session string, inquiryID int64) url.Values {
	q := url.Values{}
	if len(types) > 0 {
		q.Set("type", strings.Join(types, ","))
	}
	if session != "" {
		q.Set("session", session)
	}
	if inquiryID > 0 {
		q.Set("inquiry_id", strconv.FormatInt(inquiryID, 10))
	}
	return q
}

func (o StreamOptions) query() string {
	q := eventFilter(o.Types, o.Session, o.InquiryID)
	for _, a := range o.AssignedTo {
		q.Add("assigned_to", a)
	}
	return q.Encode()
}

// Events follows the live event stream (GET /v1/events/stream): the stored events after
// o.After, then new ones as they happen, in seq order. After a dropped connection, a server
// restart or a reset for falling behind, it reconnects with Last-Event-ID, so no event is
// missed or repeated. The channel closes when ctx ends or the server refuses the stream for
// good (a revoked token, say); the first connection's refusal is returned as the error.
func (c *Client) Events(ctx context.Context, o StreamOptions) (<-chan *hitl.Event, error) {
	from := strconv.FormatInt(o.After, 10)
	if o.FromNow {
		from = "now"
	}
	resp, err := c.openStream(ctx, o, from)
	if err != nil {
		return nil, err
	}
	out := make(chan *hitl.Event)
	go func() {
		defer close(out)
		after := o.After
		backoff := 50 * time.Millisecond
		for {
			if resp != nil {
				var err error
				after, err = readStream(ctx, resp.Body, after, out)
				resp.Body.Close()
				if err == nil {
					backoff = 50 * time.Millisecond
				}
			}
			if ctx.Err() != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 2*time.Second)
			resp, err = c.openStream(ctx, o, strconv.FormatInt(after, 10))
			if err != nil && !retryable(ctx, err) {
				return
			}
		}
	}()
	return out, nil
}

func (c *Client) openStream(ctx context.Context, o StreamOptions, after string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+"/v1/events/stream?"+o.query(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", after)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, streamRefused(resp)
	}
	return resp, nil
}

// streamRefused reads the problem of a stream's refusal and closes the body.
func streamRefused(resp *http.Response) error {
	defer resp.Body.Close()
	e := &Error{StatusCode: resp.StatusCode}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if json.Unmarshal(b, e) != nil || e.Detail == "" {
		e.Detail = fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return e
}

// readStream reads Server-Sent Events until the stream ends, sends each event on out, and
// returns the seq to resume after (a reset's resume_after, or the last event's id).
func readStream(ctx context.Context, body io.Reader, after int64, out chan<- *hitl.Event) (int64, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var typ string
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data.Len() > 0 {
				switch typ {
				case "start": // where the stream starts
					var s struct {
						After int64 `json:"after"`
					}
					if json.Unmarshal([]byte(data.String()), &s) == nil {
						after = s.After
					}
					typ = ""
					data.Reset()
					continue
				case "reset": // this client fell behind: resume where it says
					var r struct {
						ResumeAfter int64 `json:"resume_after"`
					}
					if json.Unmarshal([]byte(data.String()), &r) == nil {
						after = r.ResumeAfter
					}
					return after, nil
				}
				ev := new(hitl.Event)
				if err := json.Unmarshal([]byte(data.String()), ev); err != nil {
					return after, fmt.Errorf("hitl: a stream event: %w", err)
				}
				select {
				case out <- ev:
					after = ev.Seq
				case <-ctx.Done():
					return after, ctx.Err()
				}
			}
			typ = ""
			data.Reset()
		case strings.HasPrefix(line, ":"): // a comment: the heartbeat
		case strings.HasPrefix(line, "event:"):
			typ = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	err := sc.Err()
	if err == nil {
		err = errors.New("hitl: the stream ended")
	}
	return after, err
}
