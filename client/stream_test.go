package client

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hitl-dev/hitl"
)

// streamEvent is an inquiry.created event as the server encodes it, and streamFrame the message
// that streams it.
const (
	streamEvent = `{"seq":2,"id":"78530b94-cd5e-409c-aabb-29e1d8cbf623","type":"inquiry.created","time":"2026-11-25T11:45:56.639577Z","inquiry_id":1,"session":"","actor":"admin","data":{"id":1,"status":"pending","prompt":"fan out","request_type":"input","response_schema":{"type":"string","minLength":1},"options":null,"multiple":false,"context":null,"session":"","origin":"","created_by":"admin","assigned_to":[],"channel_hint":"","confidence":null,"timeout_at":null,"fallback_policy":"fail","fallback_value":null,"exclusive":false,"cancellable_by_responder":false,"remind_every":null,"next_reminder_at":null,"reminders_sent":0,"escalate_after":null,"escalate_to":[],"escalated_at":null,"tool_call":null,"tool_result":null,"response":null,"fallback_applied":false,"responded_by":null,"responded_at":null,"comment":null,"cancel_reason":null,"metadata":{},"created_at":"2026-11-25T11:45:56.639577Z","updated_at":"2026-11-25T11:45:56.639577Z"}}`
	streamFrame = "id: 2\nevent: inquiry.created\ndata: " + streamEvent + "\n\n"
)

// BenchmarkReadStream is the SDK's cost to read and decode one streamed event: a thousand
// subscribers in one process pay it a thousand times an event.
func BenchmarkReadStream(b *testing.B) {
	body := bytes.Repeat([]byte(streamFrame), b.N)
	out := make(chan *hitl.Event, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	readStream(context.Background(), bytes.NewReader(body), 0, out)
	if len(out) != b.N {
		b.Fatalf("%d events read, want %d", len(out), b.N)
	}
}

// An event decodes as json.Unmarshal decodes it, whatever its shape: the split at the data
// is taken only where it is right.
func TestDecodeEventAsJSONUnmarshal(t *testing.T) {
	for _, b := range []string{
		streamEvent,
		`{"seq":1,"type":"key.created","inquiry_id":null,"data":null}`,
		`{"seq":1,"actor":"a,\"data\":{}","data":{"x":[1,{"data":2}]}}`,
		`{"seq":1,"meta":{"x":1,"data":2},"data":{"y":3}}`,
		`{"seq":1,"data":{"y":3},"actor":"late"}`,
		`{"data":{"y":3},"seq":2}`,
		`{"seq":1,"data":1,"data":2}`,
		`{"seq":1,"Data":1,"data":2}`,
		`{"seq":1, "data": {"y": 3} }`,
		`{"seq":1,"data":{"y":3}`,
		`{"seq":"one","data":{"y":3}}`,
		`{"seq":1,"data":{"y":}}`,
	} {
		var want hitl.Event
		wantErr := json.Unmarshal([]byte(b), &want)
		got, err := decodeEvent([]byte(b))
		if (err == nil) != (wantErr == nil) || err == nil && !reflect.DeepEqual(*got, want) {
			t.Errorf("%s:\n got %+v (%v)\nwant %+v (%v)", b, *got, err, want, wantErr)
		}
	}
}
