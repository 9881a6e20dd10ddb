package client

import (
	"bufio"
	"bytes"
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
// returns the seq to resume after (a reset's resume_after, or the last event's id). A thousand
// subscribers in one process read every event a thousand times, so the lines are read in place
// and the buffers reused: only the decoded event is new.
func readStream(ctx context.Context, body io.Reader, after int64, out chan<- *hitl.Event) (int64, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var typ, data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if len(data) > 0 {
				switch string(typ) {
				case "start": // where the stream starts
					var s struct {
						After int64 `json:"after"`
					}
					if json.Unmarshal(data, &s) == nil {
						after = s.After
					}
					typ, data = typ[:0], data[:0]
					continue
				case "reset": // this client fell behind: resume where it says
					var r struct {
						ResumeAfter int64 `json:"resume_after"`
					}
					if json.Unmarshal(data, &r) == nil {
						after = r.ResumeAfter
					}
					return after, nil
				}
				ev, err := decodeEvent(data)
				if err != nil {
					return after, fmt.Errorf("hitl: a stream event: %w", err)
				}
				select {
				case out <- ev:
					after = ev.Seq
				case <-ctx.Done():
					return after, ctx.Err()
				}
			}
			typ, data = typ[:0], data[:0]
		case line[0] == ':': // a comment: the heartbeat
		case bytes.HasPrefix(line, []byte("event:")):
			typ = append(typ[:0], bytes.TrimSpace(line[len("event:"):])...)
		case bytes.HasPrefix(line, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(line[len("data:"):], []byte(" "))...)
		}
	}
	err := sc.Err()
	if err == nil {
		err = errors.New("hitl: the stream ended")
	}
	return after, err
}

// dataKey starts the last field of an event as the server encodes it.
var dataKey = []byte(`,"data":`)

// decodeEvent decodes a streamed event, b, which it may change. json.Unmarshal scans the data,
// the bulk of an event, twice (to check it, then to find its end for the json.RawMessage), a
// third of the SDK's cost per event. The server writes the data last, so b is split where the
// data starts: the data is checked once and copied, the head before it decoded. The split is
// right only if both parts are JSON (cut anywhere but at the top level, one of them is not);
// an event of any other shape is decoded whole.
func decodeEvent(b []byte) (*hitl.Event, error) {
	ev := new(hitl.Event)
	if i := bytes.Index(b, dataKey); i > 0 && b[len(b)-1] == '}' {
		if data := b[i+len(dataKey) : len(b)-1]; json.Valid(data) {
			b[i] = '}' // the head ends where the data's field started
			err := json.Unmarshal(b[:i+1], ev)
			b[i] = ','
			if err == nil {
				ev.Data = append(json.RawMessage(nil), data...)
				return ev, nil
			}
			*ev = hitl.Event{}
		}
	}
	return ev, json.Unmarshal(b, ev)
}
