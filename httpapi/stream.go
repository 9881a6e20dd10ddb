package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// streamWriteTimeout ends a stream whose client stops reading: a write that cannot finish in
// this time means the client is gone or stuck.
const streamWriteTimeout = 30 * time.Second

// streamParams reads the filters of a stream (those of GET /v1/events) and where to start:
// Last-Event-ID, else ?after=, else 0.
func streamParams(r *http.Request, p *hitl.Principal) (engine.StreamFilter, int64, error) {
	q := r.URL.Query()
	f := engine.StreamFilter{Session: q.Get("session")}
	for _, t := range q["type"] {
		f.Types = append(f.Types, strings.Split(t, ",")...)
	}
	for _, a := range q["assigned_to"] {
		if a == "me" {
			f.AssignedTo = append(f.AssignedTo, p.Entries()...)
		} else {
			f.AssignedTo = append(f.AssignedTo, a)
		}
	}
	if id := q.Get("inquiry_id"); id != "" {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil || n <= 0 {
			return f, 0, hitl.Errorf(hitl.EInvalid, "inquiry_id must be an inquiry id")
		}
		f.InquiryID = n
	}
	from := r.Header.Get("Last-Event-ID")
	if from == "" {
		from = q.Get("after")
	}
	var after int64
	if from == "now" {
		return f, engine.FromNow, nil
	}
	if from != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(from), 10, 64)
		if err != nil || n < 0 {
			return f, 0, hitl.Errorf(hitl.EInvalid, "Last-Event-ID and after must be an event seq (a whole number ≥ 0)")
		}
		after = n
	}
	return f, after, nil
}

// ping is the heartbeat, a comment.
var ping = []byte(": ping\n\n")

// startStream answers 200 with the headers of a stream of contentType, for writes that
// must each finish within streamWriteTimeout.
func startStream(w http.ResponseWriter, contentType string) *http.ResponseController {
	return httpwire.StartStream(w, contentType, streamWriteTimeout)
}

// stream serves GET /v1/events/stream as Server-Sent Events: the stored events after the
// starting seq, then live ones, each with its seq as id and its type as event. A client that
// falls too far behind gets "event: reset" with the seq to resume after, and is disconnected;
// so is one that asks to start after a seq the log does not know (engine.UnknownPosition),
// with "reason": "unknown_position", at once.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	f, after, err := streamParams(r, p)
	if err != nil {
		return err
	}
	sub, err := s.engine.Subscribe(r.Context(), p, f, after)
	var unknown *engine.UnknownPosition
	if errors.As(err, &unknown) {
		// As for a client that fell behind: the client resumes where the reset says.
		rc := startStream(w, "text/event-stream")
		fmt.Fprintf(w, "event: reset\ndata: {\"resume_after\":%d,\"reason\":\"unknown_position\"}\n\n", unknown.ResumeAfter)
		rc.Flush()
		return nil
	}
	if err != nil {
		return err
	}
	defer sub.Close()
	rc := startStream(w, "text/event-stream")
	// The first message says where the stream starts: clients resume after it, or after the
	// last event they received.
	fmt.Fprintf(w, "event: start\ndata: {\"after\":%d}\n\n", sub.After)
	if err := rc.Flush(); err != nil {
		return nil
	}
	// Heartbeats keep idle streams open through proxies and tell clients the server is there.
	tick := time.NewTicker(s.cfg.Heartbeat)
	defer tick.Stop()
	var deadlineMoved time.Time
	send := func(msg []byte) bool {
		// Moving the deadline updates a timer, a cost on every event to every stream: once a
		// second is often enough for a limit of 30.
		if now := time.Now(); now.Sub(deadlineMoved) >= time.Second {
			rc.SetWriteDeadline(now.Add(streamWriteTimeout))
			deadlineMoved = now
		}
		w.Write(msg)
		return rc.Flush() == nil
	}
	for {
		select {
		case ev, ok := <-sub.Events:
			if !ok {
				if resume, reset := sub.Reset(); reset {
					send(fmt.Appendf(nil, "event: reset\ndata: {\"resume_after\":%d}\n\n", resume))
				}
				return nil
			}
			msg, err := ev.SSE() // built once for every subscriber
			if err != nil || !send(msg) {
				return nil
			}
		case <-tick.C:
			if !send(ping) {
				return nil
			}
		case <-s.engine.Draining():
			return nil
		case <-r.Context().Done():
			return nil
		}
	}
}
