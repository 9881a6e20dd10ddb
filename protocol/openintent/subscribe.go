package openintent

import (
	"encoding/json"
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

// How the agent's stream stays open: a comment line when it is idle (the SDK skips them),
// and the longest a write may block before the client is taken for gone.
const (
	subscribeHeartbeat    = 15 * time.Second
	subscribeWriteTimeout = 30 * time.Second
)

// assignedEvent is the data of an AGENT_ASSIGNED event, the one event the SDK's Agent.run()
// acts on to start work: it reads intent_id, then GETs the intent.
type assignedEvent struct {
	IntentID string `json:"intent_id"`
	AgentID  string `json:"agent_id"`
	Role     string `json:"role"`
}

// subscribe serves GET /api/v1/agents/{agent_id}/subscribe, the Server-Sent Events stream
// Agent.run() listens on: "event: AGENT_ASSIGNED" with the intent's id for each assignment of
// an intent to the agent (POST .../agents, assign), among the sessions the caller may see,
// each with its seq as id. A client that sends Last-Event-ID (the SDK does, reconnecting) gets
// the assignments it missed since.
func (a *API) subscribe(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	agent := r.PathValue("agent_id")
	after := int64(engine.FromNow)
	if s := strings.TrimSpace(r.Header.Get("Last-Event-ID")); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return hitl.Errorf(hitl.EInvalid, "Last-Event-ID must be the id of an event of this stream (a whole number), not %q", s)
		}
		after = n
	}
	filter := engine.StreamFilter{Types: []string{hitl.EventSessionLogged}}
	sub, err := a.engine.Subscribe(r.Context(), p, filter, after)
	var unknown *engine.UnknownPosition
	if errors.As(err, &unknown) {
		// An id from before a restore, or from another server: on from what this log shares.
		sub, err = a.engine.Subscribe(r.Context(), p, filter, unknown.ResumeAfter)
	}
	if err != nil {
		return err
	}
	defer sub.Close()
	rc := httpwire.StartStream(w, "text/event-stream", subscribeWriteTimeout)
	send := func(msg string) bool {
		rc.SetWriteDeadline(time.Now().Add(subscribeWriteTimeout))
		if _, err := fmt.Fprint(w, msg); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send(": subscribed to the assignments of " + oneLine(agent) + "\n\n") {
		return nil
	}
	tick := time.NewTicker(subscribeHeartbeat)
	defer tick.Stop()
	for {
		select {
		case ev, ok := <-sub.Events:
			if !ok {
				return nil // fell behind or the server stops: the SDK reconnects with Last-Event-ID
			}
			data, ok := assignmentOf(ev.Event, agent)
			if !ok {
				continue
			}
			b, _ := json.Marshal(data)
			if !send(fmt.Sprintf("id: %d\nevent: AGENT_ASSIGNED\ndata: %s\n\n", ev.Seq, b)) {
				return nil
			}
		case <-tick.C:
			if !send(": ping\n\n") {
				return nil
			}
		case <-a.engine.Draining():
			return nil
		case <-r.Context().Done():
			return nil
		}
	}
}

// assignmentOf is the AGENT_ASSIGNED event an assignment of an intent to agent logged (assign),
// if ev is one. An agent_assigned entry an agent logs itself is no assignment: the SDK's
// delegate() logs one and then assigns.
func assignmentOf(ev *hitl.Event, agent string) (assignedEvent, bool) {
	entry := hitl.LoggedEntry(ev)
	if entry == nil || entry.EventType != eventAgentAssigned {
		return assignedEvent{}, false
	}
	var a assignmentEntry
	if json.Unmarshal(entry.Payload, &a) != nil || a.AssignedBy == "" || a.AgentID != agent {
		return assignedEvent{}, false
	}
	return assignedEvent{IntentID: ev.Session, AgentID: a.AgentID, Role: a.Role}, true
}

// oneLine keeps a name that goes into an SSE comment on its line.
func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
