package wording_test

import (
	"encoding/json"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/wording"
)

func TestNudge(t *testing.T) {
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
		if got := wording.Nudge(&hitl.Event{Type: tc.typ, Data: json.RawMessage(tc.data)}); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.typ, tc.data, got, tc.want)
		}
	}
}

func TestValue(t *testing.T) {
	for raw, want := range map[string]string{
		`"eu-west-1"`:          "eu-west-1",
		`3`:                    "3",
		`{ "a": [1, 2] }`:      `{"a":[1,2]}`,
		`not JSON`:             "not JSON",
		`"line one\nline two"`: "line one\nline two",
	} {
		if got := wording.Value(json.RawMessage(raw)); got != want {
			t.Errorf("Value(%s) = %q, want %q", raw, got, want)
		}
	}
}
