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
	"sync"
	"time"

	"github.com/hitl-dev/hitl"
)

// MaxWaitIDs is how many inquiries one WaitMany request may name (the server's bound).
const MaxWaitIDs = 10000

// WaitMany waits on many inquiries with one request (POST /v1/inquiries/wait) and calls fn
// with each line the server sends but its pings, in order: each final inquiry once, an error
// for each id that cannot be waited on, "waiting" once all are registered, and "end" last,
// after which it returns nil. A stream that breaks before its end is an error (worth another
// try: see Waiter, which does that); so is an error fn returns, which ends the wait.
func (c *Client) WaitMany(ctx context.Context, ids []int64, timeout time.Duration, fn func(*hitl.WaitMessage) error) error {
	b, err := json.Marshal(hitl.WaitRequest{IDs: ids, Timeout: timeout.String()})
	if err != nil {
		return err
	}
	// Heartbeats come every 15 s while the wait lasts: RequestTimeout beyond it means the
	// server or the connection is gone.
	ctx, cancel := context.WithTimeout(ctx, timeout+c.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+"/v1/inquiries/wait", bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/x-ndjson")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return streamRefused(resp)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		m := new(hitl.WaitMessage)
		if err := json.Unmarshal(sc.Bytes(), m); err != nil {
			return fmt.Errorf("hitl: a line of a wait: %w", err)
		}
		if m.Type == hitl.WaitPing {
			continue
		}
		if err := fn(m); err != nil {
			return err
		}
		if m.Type == hitl.WaitEnd {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return io.ErrUnexpectedEOF
}

// ErrWaiterClosed is what waits on a Waiter return once it is closed.
var ErrWaiterClosed = errors.New("hitl: the waiter is closed")

// A Waiter waits on many inquiries for many callers over few connections: each Wait is an id
// on a shared POST /v1/inquiries/wait stream (at most MaxWaitIDs a stream), not a long poll
// of its own, so an agent process with 100,000 questions open holds about a dozen connections,
// and the server a few dozen bytes a question. The ids of a burst of questions go out
// together; a new stream takes over the ids of open streams no larger than it, and those close
// once it has registered them, so that streams stay few and each id moves to a stream at least
// twice as large. Streams are renewed when they end (StreamWait), and after a dropped
// connection or a restart with backoff, never missing an answer: the server registers each id
// before it reads its state. Use one Waiter for the whole process; Close it when done.
type Waiter struct {
	c *Client
	// StreamWait is how long each stream lasts before it is renewed (default 5 minutes, the
	// server's most). Set it before the first Wait.
	StreamWait time.Duration

	mu      sync.Mutex
	started bool
	closed  bool
	calls   map[int64][]*waitCall
	owner   map[int64]*waitStream // the stream an id is registered on; nil: queued for the next
	queued  []int64
	live    int // open streams that have not handed their ids to another
	streams map[*waitStream]struct{}
	backoff time.Duration
	kick    chan struct{}
	ctx     context.Context
	stop    context.CancelFunc
}

// waitCall is one caller's wait for one id.
type waitCall struct{ fn func(*hitl.Inquiry, error) }

// waitStream is one open POST /v1/inquiries/wait.
type waitStream struct {
	ids     []int64
	n       int // ids it owns and has not reported
	retired bool
	retire  []*waitStream // streams whose ids it took over: closed once it is waiting
	cancel  context.CancelFunc
}

// Streams a Waiter keeps before it merges, and at most while they fit in MaxWaitIDs.
const (
	waiterSoftStreams = 4
	waiterHardStreams = 64
)

// waiterLinger lets the ids of a burst of questions gather into one stream.
const waiterLinger = 20 * time.Millisecond

// NewWaiter returns a Waiter of this client.
func (c *Client) NewWaiter() *Waiter {
	ctx, stop := context.WithCancel(context.Background())
	return &Waiter{c: c, StreamWait: 5 * time.Minute, calls: map[int64][]*waitCall{}, owner: map[int64]*waitStream{},
		streams: map[*waitStream]struct{}{}, backoff: 50 * time.Millisecond, kick: make(chan struct{}, 1), ctx: ctx, stop: stop}
}

// Wait returns the inquiry once it is final (like Client.Wait, but for as long as ctx lasts),
// or an *Error when it cannot be waited on (not_found: unknown or not visible to this key).
func (w *Waiter) Wait(ctx context.Context, id int64) (*hitl.Inquiry, error) {
	type outcome struct {
		inq *hitl.Inquiry
		err error
	}
	done := make(chan outcome, 1)
	call := &waitCall{fn: func(inq *hitl.Inquiry, err error) { done <- outcome{inq, err} }}
	if err := w.add([]int64{id}, []*waitCall{call}); err != nil {
		return nil, err
	}
	select {
	case o := <-done:
		return o.inq, o.err
	case <-ctx.Done():
		w.drop([]int64{id}, []*waitCall{call})
		return nil, ctx.Err()
	}
}

// WaitAll waits until every inquiry of ids is final and returns them in the order of ids.
// Ids that cannot be waited on are left nil, and the error joins why.
func (w *Waiter) WaitAll(ctx context.Context, ids []int64) ([]*hitl.Inquiry, error) {
	out := make([]*hitl.Inquiry, len(ids))
	errs := make([]error, len(ids))
	calls := make([]*waitCall, len(ids))
	var mu sync.Mutex
	left := len(ids)
	all := make(chan struct{})
	if left == 0 {
		close(all)
	}
	for i := range ids {
		calls[i] = &waitCall{fn: func(inq *hitl.Inquiry, err error) {
			mu.Lock()
			defer mu.Unlock()
			out[i], errs[i] = inq, err
			if left--; left == 0 {
				close(all)
			}
		}}
	}
	if err := w.add(ids, calls); err != nil {
		return nil, err
	}
	select {
	case <-all:
		return out, errors.Join(errs...)
	case <-ctx.Done():
		w.drop(ids, calls)
		return nil, ctx.Err()
	}
}

// Close ends every stream; waits still open return ErrWaiterClosed.
func (w *Waiter) Close() {
	w.mu.Lock()
	w.closed = true
	calls := w.calls
	w.calls = map[int64][]*waitCall{}
	w.mu.Unlock()
	w.stop()
	for _, cs := range calls {
		for _, c := range cs {
			c.fn(nil, ErrWaiterClosed)
		}
	}
}

func (w *Waiter) add(ids []int64, calls []*waitCall) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrWaiterClosed
	}
	if !w.started {
		w.started = true
		go w.run()
	}
	for i, id := range ids {
		w.calls[id] = append(w.calls[id], calls[i])
		if _, tracked := w.owner[id]; !tracked {
			w.owner[id] = nil
			w.queued = append(w.queued, id)
		}
	}
	w.kickLocked()
	return nil
}

// drop forgets callers that gave up; their ids stay on their streams until those end.
func (w *Waiter) drop(ids []int64, calls []*waitCall) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, id := range ids {
		cs := w.calls[id]
		for j, c := range cs {
			if c == calls[i] {
				cs = append(cs[:j], cs[j+1:]...)
				break
			}
		}
		if len(cs) == 0 {
			delete(w.calls, id)
		} else {
			w.calls[id] = cs
		}
	}
}

func (w *Waiter) kickLocked() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *Waiter) run() {
	for {
		select {
		case <-w.kick:
		case <-w.ctx.Done():
			return
		}
		select {
		case <-time.After(waiterLinger):
		case <-w.ctx.Done():
			return
		}
		w.flush()
	}
}

// flush opens a stream for the queued ids (MaxWaitIDs at most; the rest go next), taking over
// the ids of streams no larger than the batch once there are waiterSoftStreams of them.
func (w *Waiter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := &waitStream{}
	var rest []int64
	for _, id := range w.queued {
		o, tracked := w.owner[id]
		switch {
		case !tracked || o != nil: // reported meanwhile, or already in this batch
		case len(w.calls[id]) == 0:
			delete(w.owner, id)
		case len(s.ids) >= MaxWaitIDs:
			rest = append(rest, id)
		default:
			s.ids = append(s.ids, id)
			w.owner[id] = s
		}
	}
	w.queued = rest
	if len(rest) > 0 {
		w.kickLocked()
	}
	if len(s.ids) == 0 {
		return
	}
	for w.live >= waiterSoftStreams {
		var small *waitStream
		for o := range w.streams {
			if !o.retired && (small == nil || o.n < small.n) {
				small = o
			}
		}
		if small == nil || len(s.ids)+small.n > MaxWaitIDs || (small.n > len(s.ids) && w.live < waiterHardStreams) {
			break
		}
		for _, id := range small.ids {
			if w.owner[id] == small {
				if len(w.calls[id]) == 0 {
					delete(w.owner, id)
					continue
				}
				w.owner[id] = s
				s.ids = append(s.ids, id)
			}
		}
		small.retired, small.n = true, 0
		w.live--
		s.retire = append(s.retire, small)
	}
	s.n = len(s.ids)
	var ctx context.Context
	ctx, s.cancel = context.WithCancel(w.ctx)
	w.streams[s] = struct{}{}
	w.live++
	go w.stream(ctx, s)
}

func (w *Waiter) stream(ctx context.Context, s *waitStream) {
	err := w.c.WaitMany(ctx, s.ids, w.StreamWait, func(m *hitl.WaitMessage) error {
		switch m.Type {
		case hitl.WaitInquiry:
			if m.Inquiry != nil {
				w.report(m.Inquiry.ID, m.Inquiry, nil)
			}
		case hitl.WaitError:
			if m.Error != nil {
				w.report(m.ID, nil, &Error{StatusCode: statusOf(m.Error.Code), Code: m.Error.Code, Detail: m.Error.Message})
			}
		case hitl.WaitWaiting:
			w.mu.Lock()
			retire := s.retire
			s.retire = nil
			w.backoff = 50 * time.Millisecond
			w.mu.Unlock()
			for _, o := range retire {
				o.cancel()
			}
		}
		return nil
	})
	w.ended(s, err)
}

// report gives an id's outcome to its callers, once.
func (w *Waiter) report(id int64, inq *hitl.Inquiry, err error) {
	w.mu.Lock()
	calls := w.calls[id]
	delete(w.calls, id)
	if o := w.owner[id]; o != nil {
		o.n--
	}
	delete(w.owner, id)
	w.mu.Unlock()
	for _, c := range calls {
		c.fn(inq, err)
	}
}

// ended requeues the ids a stream still owned (after a backoff when it failed), or, when the
// server refused the wait for good, gives its callers the refusal.
func (w *Waiter) ended(s *waitStream, err error) {
	w.mu.Lock()
	delete(w.streams, s)
	if !s.retired {
		w.live--
	}
	retire := s.retire
	s.retire = nil
	final := err != nil && !retryable(w.ctx, err)
	var failed []*waitCall
	requeue := false
	for _, id := range s.ids {
		if w.owner[id] != s {
			continue
		}
		switch {
		case final:
			failed = append(failed, w.calls[id]...)
			delete(w.calls, id)
			delete(w.owner, id)
		case len(w.calls[id]) == 0:
			delete(w.owner, id)
		default:
			w.owner[id] = nil
			w.queued = append(w.queued, id)
			requeue = true
		}
	}
	var delay time.Duration
	if requeue && err != nil {
		delay = w.backoff
		w.backoff = min(2*w.backoff, 2*time.Second)
	}
	w.mu.Unlock()
	s.cancel()
	for _, o := range retire { // it failed before it took their ids over: theirs are requeued too
		o.cancel()
	}
	if w.ctx.Err() != nil {
		err = ErrWaiterClosed
	}
	for _, c := range failed {
		c.fn(nil, err)
	}
	if requeue {
		time.AfterFunc(delay, func() {
			w.mu.Lock()
			w.kickLocked()
			w.mu.Unlock()
		})
	}
}

// statusOf is the HTTP status the API gives a problem code, for errors that came in a line.
func statusOf(code string) int {
	switch code {
	case hitl.ENotFound:
		return http.StatusNotFound
	case hitl.EForbidden:
		return http.StatusForbidden
	case hitl.EInvalid:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}
