package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
)

// An event's WebSocket message, made around the data the hub encoded once, is byte for byte the
// message json.Marshal makes of the wsEvent.
func TestEventFrameIsTheMarshalledMessage(t *testing.T) {
	id := int64(42)
	ev := &hitl.Event{Seq: 9, ID: "e9", Type: hitl.EventInquiryCreated, InquiryID: &id,
		Data: json.RawMessage(`{"id": 42, "prompt": "<b>ship</b> & go"}`)}
	want, err := json.Marshal(wsEvent{ID: ev.Seq, Subscription: `run "<7>"`, EntityType: entityOf(ev), Entity: entityID(ev), Activity: activityOf(ev), Content: ev.Data})
	if err != nil {
		t.Fatal(err)
	}
	got, err := eventFrame(`run "<7>"`, engine.NewStreamEvent(ev))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got  %s (%v)\nwant %s", got, err, want)
	}
}
