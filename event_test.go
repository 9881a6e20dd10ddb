package hitl_test

import (
	"encoding/json"
	"testing"

	"github.com/hitl-dev/hitl"
)

func TestNudgeInWords(t *testing.T) {
	cases := []struct {
		typ, data, want string
	}{
		{hitl.EventInquiryReminded, `{"assigned_to":["ann"],"reminder":1}`, "reminded the assignees (1st reminder)"},
		{hitl.EventInquiryReminded, `{"assigned_to":["ann"],"reminder":2}`, "reminded the assignees (2nd reminder)"},
		{hitl.EventInquiryReminded, `{"assigned_to":[],"reminder":13}`, "reminded everyone who may answer (13th reminder)"},
		{hitl.EventInquiryReminded, `{"assigned_to":["ann"],"reminder":23}`, "reminded the assignees (23rd reminder)"},
		{hitl.EventInquiryEscalated, `{"assigned_to":["ann","bob","group:leads"],"added":["bob","group:leads"]}`, "escalated to bob and the group leads"},
		{hitl.EventInquiryEscalated, `{"assigned_to":["bob"],"added":[]}`, "escalated; everyone it escalates to was assigned already"},
		{hitl.EventInquiryCreated, `{"assigned_to":["ann"]}`, ""},
	}
	for _, tc := range cases {
		if got := hitl.NudgeInWords(&hitl.Event{Type: tc.typ, Data: json.RawMessage(tc.data)}); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.typ, tc.data, got, tc.want)
		}
	}
}

func TestDurationRoundTrip(t *testing.T) {
	for in, want := range map[string]string{"30m": "30m", "90m": "1h30m", "2h": "2h", "1d": "24h", "45s": "45s", "1h0m5s": "1h5s"} {
		d, err := hitl.ParseDuration(in)
		if err != nil || d.String() != want {
			t.Errorf("%q: %v %v, want %s", in, d, err, want)
		}
	}
	for _, bad := range []string{"", "soon", "1.5s", "-d", "30"} {
		if _, err := hitl.ParseDuration(bad); err == nil {
			t.Errorf("%q was read as a duration", bad)
		}
	}
}
