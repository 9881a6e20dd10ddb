package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// exampleServer runs a hitl server on a temporary database, and a human who answers every new
// question with answer(question). It returns the server's URL, an agent's token, and stop.
func exampleServer(answer func(*hitl.Inquiry) json.RawMessage) (url, agentToken string, stop func()) {
	srv, err := testserver.Open()
	if err != nil {
		panic(err)
	}
	_, agentToken = srv.Key(hitl.KeyRequest{Name: "agents", Roles: []string{hitl.RoleAgent}})
	human, _ := srv.Key(hitl.KeyRequest{Name: "ann", Roles: []string{hitl.RoleResponder}})
	ctx, cancel := context.WithCancel(context.Background())
	events, err := human.Events(ctx, client.StreamOptions{FromNow: true, Types: []string{hitl.EventInquiryCreated}})
	if err != nil {
		panic(err)
	}
	go func() {
		for ev := range events {
			var inq hitl.Inquiry
			json.Unmarshal(ev.Data, &inq)
			human.Respond(ctx, inq.ID, answer(&inq), "")
		}
	}()
	return srv.URL, agentToken, func() {
		cancel()
		srv.Stop()
		os.RemoveAll(srv.Dir)
	}
}

// An agent asks for an approval before it deploys, and goes on once a human approves.
func ExampleAgent_RequestInput_approval() {
	url, token, stop := exampleServer(func(*hitl.Inquiry) json.RawMessage {
		return json.RawMessage(`{"approved":true,"comment":"tests are green, go"}`)
	})
	defer stop()
	ctx := context.Background()

	agent := &client.Agent{Client: client.New(url, token, nil), Name: "deployer",
		Hooks: client.Hooks{OnInputRequested: func(_ context.Context, inq *hitl.Inquiry) {
			fmt.Printf("waiting for an answer to %q\n", inq.Prompt)
		}}}
	answer, err := agent.RequestInput(ctx, hitl.InquiryRequest{
		Prompt: "Deploy 2.5.0 to production?", RequestType: hitl.RequestApproval,
		Context: json.RawMessage(`{"version":"2.5.0","changes":14}`),
	})
	if err != nil {
		fmt.Println("no deploy:", err)
		return
	}
	var approval struct {
		Approved bool   `json:"approved"`
		Comment  string `json:"comment"`
	}
	json.Unmarshal(answer, &approval)
	fmt.Println("approved:", approval.Approved, "—", approval.Comment)
	// Output:
	// waiting for an answer to "Deploy 2.5.0 to production?"
	// approved: true — tests are green, go
}

// An agent found three venues and lets a human pick one.
func ExampleAgent_RequestInput_selection() {
	url, token, stop := exampleServer(func(inq *hitl.Inquiry) json.RawMessage {
		return json.RawMessage(`"` + inq.Options[1].Value + `"`) // the human picks the second
	})
	defer stop()
	agent := &client.Agent{Client: client.New(url, token, nil), Name: "venue-specialist"}
	answer, err := agent.RequestInput(context.Background(), hitl.InquiryRequest{
		Prompt: "I found 3 venues. Which do you prefer?",
		Options: []hitl.Option{
			{Value: "harbour-hall", Label: "Harbour Hall", Description: "40 seats, by the water"},
			{Value: "the-loft", Label: "The Loft", Description: "35 seats, downtown"},
			{Value: "garden-house", Label: "Garden House", Description: "30 seats, outdoors"},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("venue:", string(answer))
	// Output:
	// venue: "the-loft"
}

// The multi-agent workflow: specialists work one after another in one session and ask only
// what their context does not tell them. A vague request makes two of them ask; a detailed
// one completes with no question at all.
func Example_session() {
	url, token, stop := exampleServer(func(inq *hitl.Inquiry) json.RawMessage {
		switch inq.Origin {
		case "venue-specialist":
			return json.RawMessage(`"the-loft"`)
		default:
			return json.RawMessage(`{"budget":3000}`)
		}
	})
	defer stop()
	ctx := context.Background()
	c := client.New(url, token, nil)

	plan := func(session string, known map[string]any) {
		if _, err := c.PutSession(ctx, session, &hitl.SessionRequest{Agent: "event-coordinator"}); err != nil {
			fmt.Println(err)
			return
		}
		asked := 0
		// Each specialist asks only when its confidence without the human is low.
		specialist := func(name, what string, req hitl.InquiryRequest) {
			agent := &client.Agent{Client: c, Name: name, Session: session}
			confidence := 0.3
			if known[what] != nil {
				confidence = 0.95
			}
			d, err := agent.ShouldRequestInput(ctx, client.Signals{Confidence: confidence, Risk: 0.2, Reversibility: 0.9})
			if err != nil || !d.ShouldAsk {
				return
			}
			answer, err := agent.RequestInput(ctx, req)
			if err != nil {
				fmt.Println(err)
				return
			}
			asked++
			known[what] = json.RawMessage(answer)
		}
		specialist("venue-specialist", "venue", hitl.InquiryRequest{Prompt: "Which venue do you prefer?", Options: []hitl.Option{{Value: "harbour-hall"}, {Value: "the-loft"}}})
		specialist("budget-analyst", "budget", hitl.InquiryRequest{Prompt: "What is the budget?", RequestType: hitl.RequestInput,
			ResponseSchema: json.RawMessage(`{"type":"object","properties":{"budget":{"type":"number","minimum":0}},"required":["budget"]}`)})
		result, _ := json.Marshal(known)
		s, err := c.CompleteSession(ctx, session, result)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s after %d questions: %s\n", session, s.Status, asked, s.Result)
	}
	plan("party-for-30", map[string]any{})
	plan("team-event-seattle", map[string]any{"venue": "harbour-hall", "budget": 3000})
	// Output:
	// party-for-30: completed after 2 questions: {"budget":{"budget":3000},"venue":"the-loft"}
	// team-event-seattle: completed after 0 questions: {"budget":3000,"venue":"harbour-hall"}
}
