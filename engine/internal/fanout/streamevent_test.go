package fanout_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/fanout"
)

// The bytes encoded once for every subscriber are those json.Marshal writes for the event, and
// its data those it writes for the data: whatever the store returned (PostgreSQL's jsonb comes
// back with spaces), with HTML's characters escaped as before.
func TestStreamEventEncodesAsJSONMarshal(t *testing.T) {
	id := int64(7)
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	for _, ev := range []*hitl.Event{
		{Seq: 1, ID: "e1", Type: hitl.EventInquiryCreated, Time: at, InquiryID: &id, Actor: "bot",
			Data: json.RawMessage(`{"id": 7, "prompt": "<b>Deploy</b> & \u2028 go?", "assigned_to": [ "alice" ]}`)},
		{Seq: 2, ID: "e2", Type: hitl.EventSessionUpdated, Time: at, Session: "run <1>", Data: json.RawMessage(`{"key":"run <1>"}`)},
		{Seq: 3, ID: "e3", Type: hitl.EventKeyCreated, Time: at},
	} {
		want, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		wantData, _ := json.Marshal(ev.Data)
		se := fanout.NewStreamEvent(ev)
		data, err := se.DataJSON()
		if err != nil || !bytes.Equal(data, wantData) {
			t.Fatalf("event %d's data:\n got %s (%v)\nwant %s", ev.Seq, data, err, wantData)
		}
		// The message's data line is the event as json.Marshal writes it.
		wantSSE := fmt.Sprintf("id: %d\nevent: %s\ndata: %s\n\n", ev.Seq, ev.Type, want)
		if sse, err := se.SSE(); err != nil || string(sse) != wantSSE {
			t.Fatalf("event %d's message:\n got %q (%v)\nwant %q", ev.Seq, sse, err, wantSSE)
		}
	}
	// Data that is no JSON fails as json.Marshal fails, on both.
	se := fanout.NewStreamEvent(&hitl.Event{Seq: 4, Data: json.RawMessage(`{"open":`)})
	if _, err := se.DataJSON(); err == nil {
		t.Fatal("broken data's data encoded")
	}
	if _, err := se.SSE(); err == nil {
		t.Fatal("broken data's message encoded")
	}
}
