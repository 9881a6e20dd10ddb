package fanout

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/hitl-dev/hitl"
)

// StreamEvent is an event as the streams deliver it. The hub gives the same StreamEvent to
// every subscription that may see the event, so its JSON is encoded once for all of them: with
// a thousand live screens, encoding per subscriber was a third of the stream handlers' time.
// What a subscriber may see decides only whether it gets an event, never what the event
// says, so one encoding serves every principal.
type StreamEvent struct {
	*hitl.Event

	once    sync.Once
	sse     []byte // the event as a Server-Sent Events message; its data line is the event as json.Marshal writes it
	data    []byte // the event's data as json.Marshal writes it, a part of sse
	err     error
	aliasOn sync.Once
	alias   *StreamEvent
}

// NewStreamEvent wraps an event for the streams; it is not encoded until asked. The hub makes
// one per event for all its subscribers.
func NewStreamEvent(ev *hitl.Event) *StreamEvent { return &StreamEvent{Event: ev} }

// encode writes the event's JSON once, as the data line of its Server-Sent Events message.
// The event's data, the bulk of it, is encoded (compacted and HTML-escaped, as json.Marshal
// does with a json.RawMessage) on its own, so that its bytes can be shared by the frames that
// carry only the data.
func (ev *StreamEvent) encode() {
	ev.once.Do(func() {
		head := *ev.Event
		head.Data = nil
		var h, d []byte
		if h, ev.err = json.Marshal(&head); ev.err != nil {
			return
		}
		if d, ev.err = json.Marshal(ev.Data); ev.err != nil {
			return
		}
		// The data is the last field: head ends in "null}", where the data goes.
		h = h[:len(h)-len("null}")]
		// An event type is one of the engine's names, never a line break that would end the
		// message early.
		sse := make([]byte, 0, len("id: \nevent: \ndata: \n\n")+20+len(ev.Type)+len(h)+len(d)+1)
		sse = append(strconv.AppendInt(append(sse, "id: "...), ev.Seq, 10), "\nevent: "...)
		sse = append(append(sse, ev.Type...), "\ndata: "...)
		sse = append(sse, h...)
		dataAt := len(sse)
		sse = append(append(append(sse, d...), '}'), "\n\n"...)
		ev.sse, ev.data = sse, sse[dataAt:dataAt+len(d):dataAt+len(d)]
	})
}

// SSE is the event as one Server-Sent Events message (its seq as id, its type as event, its
// JSON as data), built once for every subscriber, so that a stream sends it in one write; the
// bytes are shared and must not be changed.
func (ev *StreamEvent) SSE() ([]byte, error) {
	ev.encode()
	return ev.sse, ev.err
}

// DataJSON is the event's data as json.Marshal writes it (a part of SSE's message), for
// frames that carry the data without the rest of the event; shared like SSE's bytes.
func (ev *StreamEvent) DataJSON() ([]byte, error) {
	ev.encode()
	return ev.data, ev.err
}

// intentAlias is the event under OpenIntent's name (hitl.IntentAlias), made and encoded once
// for every subscriber that asked for it; nil when the event has none.
func (ev *StreamEvent) intentAlias() *StreamEvent {
	ev.aliasOn.Do(func() {
		if alias := hitl.IntentAlias(ev.Event); alias != nil {
			ev.alias = NewStreamEvent(alias)
		}
	})
	return ev.alias
}
