package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// waitMany serves POST /v1/inquiries/wait: a wait for many inquiries over one connection. The
// answer is a stream of JSON lines (application/x-ndjson): each inquiry once, as soon as it is
// final (at once for those already final), an error line for an id the caller may not wait on,
// "waiting" once every id is registered, a ping every heartbeat, and "end" last, with the ids
// still pending, when all were reported, the timeout passed or the server shuts down. A
// malformed body, no ids, an id twice or an id that is no id is 400, too many ids 413; then
// nothing is waited on.
func (s *Server) waitMany(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req hitl.WaitRequest
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	timeout, err := waitDuration(req.Timeout, "timeout", 30*time.Second)
	if err != nil {
		return err
	}
	mw, first, err := s.engine.WaitMany(r.Context(), p, req.IDs)
	if err != nil {
		return err
	}
	defer mw.Close()
	rc := startStream(w, "application/x-ndjson")
	enc := json.NewEncoder(w)
	// send writes one line; false when the client is gone or stopped reading.
	send := func(m hitl.WaitMessage) bool {
		rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		return enc.Encode(m) == nil
	}
	for _, res := range first {
		m := hitl.WaitMessage{Type: hitl.WaitInquiry, Inquiry: res.Inquiry}
		if res.Error != nil {
			m = hitl.WaitMessage{Type: hitl.WaitError, ID: res.ID, Error: res.Error}
		}
		if !send(m) {
			return nil
		}
	}
	left := mw.Left()
	if !send(hitl.WaitMessage{Type: hitl.WaitWaiting, Count: &left}) || rc.Flush() != nil {
		return nil
	}
	end := func(reason string) error {
		if send(hitl.WaitMessage{Type: hitl.WaitEnd, Reason: reason, Pending: mw.Pending()}) {
			rc.Flush()
		}
		return nil
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	tick := time.NewTicker(s.cfg.Heartbeat)
	defer tick.Stop()
	for mw.Left() > 0 {
		select {
		case <-mw.Ready():
			for _, inq := range mw.Take() {
				if !send(hitl.WaitMessage{Type: hitl.WaitInquiry, Inquiry: inq}) {
					return nil
				}
			}
		case <-tick.C:
			if !send(hitl.WaitMessage{Type: hitl.WaitPing}) {
				return nil
			}
		case <-timer.C:
			return end(hitl.WaitTimedOut)
		case <-s.engine.Draining():
			return end(hitl.WaitShutdown)
		case <-r.Context().Done():
			return nil
		}
		if rc.Flush() != nil {
			return nil
		}
	}
	return end(hitl.WaitDone)
}
