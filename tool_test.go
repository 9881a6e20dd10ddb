package hitl_test

import (
	"slices"
	"testing"

	"github.com/hitl-dev/hitl"
)

func TestToolArgumentsAskForRemindersAndEscalation(t *testing.T) {
	a, err := hitl.ParseToolArguments([]byte(`{"prompt":"Ship it?","remind_every":"30m","escalate_after":"2h","escalate_to":["bob","group:leads"]}`))
	if err != nil {
		t.Fatal(err)
	}
	req := a.InquiryRequest(nil)
	if req.RemindEvery != "30m" || req.EscalateAfter != "2h" || !slices.Equal(req.EscalateTo, []string{"bob", "group:leads"}) {
		t.Fatalf("request %+v", req)
	}
}
