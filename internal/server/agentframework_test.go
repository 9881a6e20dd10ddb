package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// Microsoft Agent Framework (seed 001): the venue specialist asks
//
//	request_user_input(prompt="I found 3 venues. Which do you prefer?",
//	    context={"venues": [venue_a, venue_b, venue_c]}, request_type="selection")
//
// and its venues are objects. Each becomes an option named by its name; the answer is the
// name, and the inquiry's chosen is the venue itself, for the agent that goes on with it.

const seedVenues = `{"venues": [{"name": "Venue A", "capacity": 120}, {"name": "Venue B", "capacity": 80}, {"name": "Venue C", "capacity": 40}]}`

// optionValues are the values of an inquiry's options as the API shows them.
func optionValues(body map[string]any) []string {
	var values []string
	opts, _ := body["options"].([]any)
	for _, o := range opts {
		values = append(values, o.(map[string]any)["value"].(string))
	}
	return values
}

// sameJSONValue reports whether got (decoded from an answer) is the JSON text want.
func sameJSONValue(got any, want string) bool {
	var w any
	if json.Unmarshal([]byte(want), &w) != nil {
		return false
	}
	a, errA := json.Marshal(got) // maps are written with their keys sorted
	b, errB := json.Marshal(w)
	return errA == nil && errB == nil && string(a) == string(b)
}

func TestSelectionOfObjectsInTheContext(t *testing.T) {
	clk := clock.NewManual(time.Now())
	e, agent, human := agentQuestionsEnv(t, testserver.Configure(func(c *server.Config) { c.Clock = clk }))

	r := e.do("POST", "/v1/inquiries", agent, `{"prompt": "I found 3 venues. Which do you prefer?", "context": `+seedVenues+`,
		"request_type": "selection"}`)
	if r.status != http.StatusCreated || strings.Join(optionValues(r.body), "|") != "Venue A|Venue B|Venue C" || r.body["options_from"] != "/venues" {
		t.Fatalf("the seed's venues: %d %s", r.status, r.text)
	}
	id := fmt.Sprint(int64(r.body["id"].(float64)))
	for _, bad := range []string{`"Venue D"`, `{"name": "Venue B", "capacity": 80}`} {
		if r := e.do("POST", "/v1/inquiries/"+id+"/respond", human, `{"response": `+bad+`}`); r.status != http.StatusUnprocessableEntity {
			t.Fatalf("%s is no venue's name: %d %s", bad, r.status, r.text)
		}
	}
	r = e.do("POST", "/v1/inquiries/"+id+"/respond", human, `{"response": "Venue B"}`)
	if r.status != http.StatusOK || r.body["response"] != "Venue B" || !sameJSONValue(r.body["chosen"], `{"name": "Venue B", "capacity": 80}`) {
		t.Fatalf("Venue B: %d %s", r.status, r.text)
	}
	// The agent reads it back as it waits, with the venue it names.
	r = e.do("GET", "/v1/inquiries/"+id+"/wait?timeout=0s", agent, "")
	if r.body["status"] != "responded" || !sameJSONValue(r.body["chosen"], `{"name": "Venue B", "capacity": 80}`) {
		t.Fatalf("the agent reads: %s", r.text)
	}

	// What names an object: its name, title or label, the first that is a string, else its
	// first string member in the order the agent wrote them.
	r = e.do("POST", "/v1/inquiries", agent, `{"prompt": "Which room?", "request_type": "selection", "multiple": true, "context": {"rooms": [
		{"title": "The loft", "name": "Loft"}, {"id": 7, "title": "Hall"}, {"name": 3, "label": "Cellar"}, {"floor": 2, "city": "Oslo", "street": "Storgata 1"}]}}`)
	if r.status != http.StatusCreated || strings.Join(optionValues(r.body), "|") != "Loft|Hall|Cellar|Oslo" {
		t.Fatalf("names: %d %s", r.status, r.text)
	}
	id = fmt.Sprint(int64(r.body["id"].(float64)))
	r = e.do("POST", "/v1/inquiries/"+id+"/respond", human, `{"response": ["Oslo", "Loft"]}`)
	if r.status != http.StatusOK || !sameJSONValue(r.body["chosen"], `[{"floor": 2, "city": "Oslo", "street": "Storgata 1"}, {"title": "The loft", "name": "Loft"}]`) {
		t.Fatalf("several rooms: %d %s", r.status, r.text)
	}

	// Choices that name themselves are chosen as the agent gave them: 30, the number.
	r = e.do("POST", "/v1/inquiries", agent, `{"prompt": "How many guests?", "request_type": "selection", "context": {"counts": [20, 30, 40], "note": "a party"}}`)
	id = fmt.Sprint(int64(r.body["id"].(float64)))
	r = e.do("POST", "/v1/inquiries/"+id+"/respond", human, `{"response": "30"}`)
	if r.status != http.StatusOK || r.body["chosen"] != float64(30) {
		t.Fatalf("a number: %d %s", r.status, r.text)
	}
	// Options that were given choose nothing more than themselves.
	r = e.do("POST", "/v1/inquiries", agent, `{"prompt": "Which?", "options": ["Venue A", "Venue B"], "context": `+seedVenues+`}`)
	id = fmt.Sprint(int64(r.body["id"].(float64)))
	r = e.do("POST", "/v1/inquiries/"+id+"/respond", human, `{"response": "Venue A"}`)
	if _, has := r.body["chosen"]; r.status != http.StatusOK || has || r.body["options_from"] != nil {
		t.Fatalf("given options: %d %s", r.status, r.text)
	}

	// At the deadline, the fallback is a venue's name, and chooses the venue.
	r = e.do("POST", "/v1/inquiries", agent, `{"prompt": "Which venue, by tonight?", "request_type": "selection", "context": `+seedVenues+`,
		"timeout_seconds": 60, "fallback_policy": "complete_with_fallback", "fallback_value": "Venue C"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("with a fallback: %d %s", r.status, r.text)
	}
	id = fmt.Sprint(int64(r.body["id"].(float64)))
	clk.Advance(time.Minute)
	r = e.do("GET", "/v1/inquiries/"+id+"/wait?timeout=10s", agent, "")
	if r.body["status"] != "timeout" || r.body["fallback_applied"] != true || !sameJSONValue(r.body["chosen"], `{"name": "Venue C", "capacity": 40}`) {
		t.Fatalf("the fallback: %s", r.text)
	}
	if r := e.do("POST", "/v1/inquiries", agent, `{"prompt": "Which venue?", "request_type": "selection", "context": `+seedVenues+`,
		"timeout_seconds": 60, "fallback_policy": "complete_with_fallback", "fallback_value": {"name": "Venue C"}}`); r.status != http.StatusBadRequest || r.unlisted([]string{"/fallback_value"}) != "" {
		t.Fatalf("a fallback that is no venue's name: %d %s", r.status, r.text)
	}
}

// The objects that cannot be told apart by a name are refused, saying which and why.
func TestSelectionOfObjectsThatCannotBeNamed(t *testing.T) {
	e, agent, _ := agentQuestionsEnv(t)
	const fix = "a selection needs options: give options (2 to 50), or a context with one list of 2 to 50 distinct choices"
	for _, c := range []struct{ name, context, path, why string }{
		{"two venues named alike", `{"venues": [{"name": "A", "capacity": 1}, {"name": "B"}, {"name": "A", "capacity": 2}]}`,
			"/context/venues/2", `is named "A" by its name, as /context/venues/0 is: the choices of a selection need distinct names`},
		{"a title that is another's name", `{"venues": [{"name": "A"}, {"title": "A"}]}`,
			"/context/venues/1", `is named "A" by its title, as /context/venues/0 is`},
		{"no string to name it by", `{"venues": [{"name": "A"}, {"capacity": 80, "name": "", "open": true}]}`,
			"/context/venues/1", "has no member that is a non-empty string (name, title, label or any other) to name it by"},
		{"a null among the venues", `{"venues": [{"name": "A"}, null]}`,
			"/context/venues/1", "cannot be a choice of the selection: a choice is a non-empty string, a number, a boolean, or an object with a name"},
		{"a choice twice", `{"venues": ["A", "A"]}`, "/context/venues/1", `is "A", as /context/venues/0 is`},
		{"one venue", `{"venues": [{"name": "A"}]}`, "/context/venues", "holds 1 entries: as the choices of the selection, it needs 2 to 50"},
		{"a name too long", `{"venues": [{"name": "A"}, {"name": "` + strings.Repeat("x", 201) + `"}]}`,
			"/context/venues/1", "its name is 201 characters long; the name of a choice of the selection may have at most 200"},
		{"a member name to escape", `{"a/b": [{"name": "A"}, {"name": "A"}]}`, "/context/a~1b/1", "as /context/a~1b/0 is"},
	} {
		r := e.do("POST", "/v1/inquiries", agent, `{"prompt": "Which?", "request_type": "selection", "context": `+c.context+`}`)
		// The message names the entry first; the problem at /options says how to give options.
		if detail, _ := r.body["detail"].(string); r.status != http.StatusBadRequest || !strings.HasPrefix(detail, "invalid inquiry: "+c.path+": ") ||
			!strings.Contains(detail, c.why) || r.unlisted([]string{c.path, "/options"}) != "" || !strings.Contains(r.text, fix) {
			t.Errorf("%s: %d %s", c.name, r.status, r.text)
		}
	}
}

// The same through the tool calls of the framework's agent: request_user_input as an LLM calls
// it (GET /v1/tools/request_user_input) and over MCP.
func TestSelectionOfObjectsThroughTheTool(t *testing.T) {
	e := newEnv(t, testserver.MCPWaitBound(time.Second))
	agent := e.principal("venue-specialist", []string{"agent"})
	human := e.principal("ann", []string{"responder"})

	call := toolCall(agent, "call_venue", `{"prompt": "I found 3 venues. Which do you prefer?", "context": `+seedVenues+`, "request_type": "selection"}`)
	inq := pendingByPrompt(t, human, "I found 3 venues. Which do you prefer?")
	if inq.OptionsFrom != "/venues" || len(inq.Options) != 3 || inq.Options[2].Value != "Venue C" {
		t.Fatalf("the tool's selection: %+v", inq)
	}
	r := e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", inq.ID), e.token("bo", "responder"), `{"response": "Venue C"}`)
	if r.status != http.StatusOK {
		t.Fatalf("answer: %d %s", r.status, r.text)
	}
	// The model reads the name; the agent's program finds the venue in the inquiry.
	if res := toolResult(t, call); res.ToolCallID != "call_venue" || res.Content != `"Venue C"` {
		t.Fatalf("tool result: %+v", res)
	}
	answered, err := agent.Inquiry(ctx, inq.ID)
	must(t, err)
	if string(answered.Chosen) != `{"name":"Venue C","capacity":40}` {
		t.Fatalf("chosen: %s", answered.Chosen)
	}

	mcpAgent, err := mcpSession(t, e, e.token("mcp-specialist", "agent"), nil)
	must(t, err)
	go func() {
		asked := pendingByPrompt(t, human, "Which venue for 30?")
		human.Respond(ctx, asked.ID, json.RawMessage(`"Venue A"`), "")
	}()
	var context map[string]any
	must(t, json.Unmarshal([]byte(seedVenues), &context))
	res, err := mcpAgent.CallTool(ctx, &sdk.CallToolParams{Name: hitl.ToolRequestUserInput,
		Arguments: map[string]any{"prompt": "Which venue for 30?", "request_type": "selection", "context": context}})
	must(t, err)
	got := structuredOf(t, res)
	if got["status"] != "responded" || got["answer"] != "Venue A" || !sameJSONValue(got["chosen"], `{"name": "Venue A", "capacity": 120}`) {
		t.Fatalf("over MCP: %v", got)
	}
}
