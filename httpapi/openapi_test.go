package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/metrics"
	"github.com/hitl-dev/hitl/store/sqlite"
)

type openapiDocument struct {
	OpenAPI string                                `json:"openapi"`
	Paths   map[string]map[string]json.RawMessage `json:"paths"`
}

// TestOpenAPIMatchesRoutes: every route is described, and every described operation is served.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	var doc openapiDocument
	if err := json.Unmarshal(openapiDoc, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi version %q", doc.OpenAPI)
	}
	var described, served []string
	for path, ops := range doc.Paths {
		for method := range ops {
			described = append(described, strings.ToUpper(method)+" "+path)
		}
	}
	s := New(nil, metrics.New(metrics.Gauges{Pending: func() float64 { return 0 }, Waiting: func() float64 { return 0 }, Streams: func() float64 { return 0 }}), nil, Config{})
	for _, rt := range s.routes {
		served = append(served, rt.Method+" "+rt.Path)
	}
	served = append(served, "GET /metrics")
	slices.Sort(described)
	slices.Sort(served)
	if !slices.Equal(described, served) {
		t.Fatalf("openapi.json and the routes differ:\ndescribed %v\nserved    %v", described, served)
	}
}

// TestResponsesMatchTheirSchemas sends real requests and validates each answer against the
// schema the document gives for it, so the document stays true to what the server sends.
func TestResponsesMatchTheirSchemas(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(st, engine.Options{})
	const token = "openapi-admin-token-0123456789"
	if _, err := e.Bootstrap(ctx, token); err != nil {
		t.Fatal(err)
	}
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { e.Stop(ctx); st.Close() }()
	h := New(e, nil, nil, Config{})

	var raw any
	if err := json.Unmarshal(openapiDoc, &raw); err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("openapi.json", raw); err != nil {
		t.Fatal(err)
	}
	schemaFor := func(name string) *jsonschema.Schema {
		s, err := c.Compile("openapi.json#/components/schemas/" + name)
		if err != nil {
			t.Fatalf("schema %s: %v", name, err)
		}
		return s
	}
	var header http.Header // sent with the next call, then forgotten
	call := func(method, path, body string) (int, any) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		for k, v := range header {
			req.Header[k] = v
		}
		header = nil
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var v any
		if rec.Body.Len() > 0 {
			v, err = jsonschema.UnmarshalJSON(rec.Body)
			if err != nil {
				t.Fatalf("%s %s: answer is not JSON: %v", method, path, err)
			}
		}
		return rec.Code, v
	}
	check := func(schema string, method, path, body string, want int) any {
		t.Helper()
		code, v := call(method, path, body)
		if code != want {
			t.Fatalf("%s %s: %d, want %d (%v)", method, path, code, want, v)
		}
		if err := schemaFor(schema).Validate(v); err != nil {
			t.Fatalf("%s %s does not match %s: %v", method, path, schema, err)
		}
		return v
	}
	checkPage := func(schema, path string) {
		t.Helper()
		_, v := call("GET", path, "")
		page := v.(map[string]any)
		for _, item := range page["data"].([]any) {
			if err := schemaFor(schema).Validate(item); err != nil {
				t.Fatalf("GET %s item does not match %s: %v", path, schema, err)
			}
		}
	}
	inq := check("Inquiry", "POST", "/v1/inquiries", `{"prompt":"Deploy?","request_type":"approval","session":"s1","tool_call":{"id":"c1","name":"ask"},"timeout_seconds":60,"metadata":{"k":"v"}}`, 201).(map[string]any)
	id := fmt.Sprint(inq["id"])
	check("Inquiry", "POST", "/v1/inquiries", `{"prompt":"Pick","options":["a",{"value":"b","label":"B"}]}`, 201)
	venue := check("Inquiry", "POST", "/v1/inquiries", `{"prompt":"Which venue?","request_type":"selection","context":{"venues":[{"name":"A","capacity":9},{"name":"B"}]}}`, 201).(map[string]any)
	check("Inquiry", "POST", fmt.Sprintf("/v1/inquiries/%v/respond", venue["id"]), `{"response":"A"}`, 200)
	header = http.Header{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}, "Tracestate": {"vendor=opaque"}}
	if traced := check("Inquiry", "POST", "/v1/inquiries", `{"prompt":"Traced?"}`, 201).(map[string]any); traced["traceparent"] == nil || traced["tracestate"] == nil {
		t.Fatalf("a traced inquiry shows no trace context: %v", traced)
	}
	check("Inquiry", "GET", "/v1/inquiries/"+id, "", 200)
	check("Problem", "POST", "/v1/inquiries/"+id+"/respond", `{"response":{"approved":"x"}}`, 422)
	check("Inquiry", "POST", "/v1/inquiries/"+id+"/respond", `{"response":{"approved":true}}`, 200)
	check("Problem", "POST", "/v1/inquiries/"+id+"/respond", `{"response":{"approved":false}}`, 409)
	check("Inquiry", "GET", "/v1/inquiries/"+id+"/wait?timeout=0s", "", 200)
	check("BulkResults", "POST", "/v1/inquiries/respond", `{"ids":[`+id+`,999],"response":{"approved":true}}`, 200)
	check("BulkResults", "POST", "/v1/inquiries/respond", `{"filter":{"session":"s1","status":"pending","assigned_to":"me"},"response":{"approved":true}}`, 200)
	check("Problem", "POST", "/v1/inquiries/respond", `{"ids":[1],"filter":{"session":"s1"},"response":true}`, 400)
	declinable := check("Inquiry", "POST", "/v1/inquiries", `{"prompt":"Book?","request_type":"approval","cancellable_by_responder":true}`, 201).(map[string]any)
	check("Inquiry", "POST", fmt.Sprintf("/v1/inquiries/%v/decline", declinable["id"]), `{"reason":"not mine"}`, 200)
	check("Problem", "POST", fmt.Sprintf("/v1/inquiries/%v/decline", declinable["id"]), `{}`, 409)
	kept := check("Inquiry", "POST", "/v1/inquiries", `{"prompt":"Ship?","cancellable_by_responder":false}`, 201).(map[string]any)
	check("Problem", "POST", fmt.Sprintf("/v1/inquiries/%v/decline", kept["id"]), `{}`, 403)
	check("Session", "PUT", "/v1/sessions/s2", `{"agent":"a","state":{"x":1}}`, 201)
	check("Session", "GET", "/v1/sessions/s1", "", 200)
	check("Session", "POST", "/v1/sessions/s2/complete", `{"result":[1]}`, 200)
	check("Key", "POST", "/v1/keys", `{"name":"ann","roles":["responder"],"groups":["ops"]}`, 201)
	check("Principal", "GET", "/v1/me", "", 200)
	check("Decision", "POST", "/v1/engagement/decide", `{"confidence":0.5,"risk":0.5,"reversibility":0.5}`, 200)
	check("Problem", "GET", "/v1/inquiries/999", "", 404)
	check("Problem", "POST", "/v1/inquiries", `{"prompt":""}`, 400)
	// OpenIntent's log and status of an intent (a session); the events before hitl's log is read.
	check("Session", "PUT", "/v1/sessions/s3", `{"agent":"refund-agent"}`, 201)
	check("IntentEvent", "POST", "/api/v1/intents/s3/events", `{"event_type":"comment","actor":"refund-agent","payload":{"message":"expired"}}`, 200)
	check("Intent", "POST", "/api/v1/intents/s3/status", `{"status":"abandoned","reason":"No operator response"}`, 200)
	check("Intent", "GET", "/api/v1/intents/s3", "", 200)
	if code, v := call("GET", "/api/v1/intents/s3/events?limit=10", ""); code != http.StatusOK || len(v.([]any)) != 3 {
		t.Fatalf("GET /api/v1/intents/s3/events: %d %v", code, v)
	} else {
		for _, ev := range v.([]any) {
			if err := schemaFor("IntentEvent").Validate(ev); err != nil {
				t.Fatalf("GET /api/v1/intents/s3/events item does not match IntentEvent: %v", err)
			}
		}
	}
	check("Problem", "POST", "/api/v1/intents/s3/status", `{"status":"draft"}`, 400)
	// The OpenIntent SDK's intent: created, a suspension written through its state, assigned.
	created := check("Intent", "POST", "/api/v1/intents", `{"title":"Refund","description":"","constraints":{},"state":{"a":1},"created_by":"refund-agent"}`, 201)
	intent := "/api/v1/intents/" + created.(map[string]any)["id"].(string)
	header = http.Header{"If-Match": {"1"}}
	check("Intent", "POST", intent+"/state", `{"patches":[{"op":"set","path":"_suspension","value":{"id":"3c1e","question":"Refund?","response_type":"choice",
		"choices":[{"value":"yes","label":"Yes"},{"value":"no","label":"No"}],"context":{},"fallback_policy":"fail","timeout_seconds":60}}]}`, 200)
	header = http.Header{"If-Match": {"1"}}
	check("Problem", "POST", intent+"/status", `{"status":"abandoned"}`, 409)
	check("AgentAssigned", "POST", intent+"/agents", `{"agent_id":"refund-agent"}`, 200)
	checkPage("Inquiry", "/v1/inquiries")
	checkPage("Session", "/v1/sessions")
	checkPage("Inquiry", "/v1/sessions/s1/inquiries")
	checkPage("Event", "/v1/events")
	checkPage("Key", "/v1/keys")
	check("Person", "PUT", "/v1/people/ada", `{"display_name":"Ada","email":"ada@example.com","slack_user_id":"U012AB3CD","channels":["email"]}`, 200)
	check("Person", "GET", "/v1/people/ada", "", 200)
	check("Problem", "PUT", "/v1/people/ada", `{"email":"ada","channels":["fax"]}`, 400)
	check("Group", "PUT", "/v1/groups/ops", `{"slack_channel":"C012AB3CD"}`, 200)
	check("Problem", "GET", "/v1/groups/nobody", "", 404)
	check("Template", "PUT", "/v1/templates/deploy", `{"prompt":"Deploy {{.v}}?","request_type":"approval","vars_schema":{"type":"object"}}`, 201)
	check("Template", "PUT", "/v1/templates/deploy", `{"prompt":"Deploy {{.v}} now?","request_type":"approval","timeout_seconds":60}`, 200)
	check("Template", "GET", "/v1/templates/deploy", "", 200)
	check("Problem", "PUT", "/v1/templates/deploy", `{"prompt":"{{printf .v}}"}`, 400)
	check("Inquiry", "POST", "/v1/inquiries", `{"template":"deploy","vars":{"v":"v2"},"session":"s1"}`, 201)
	check("Problem", "POST", "/v1/inquiries", `{"template":"nope"}`, 400)
	checkPage("Template", "/v1/templates")
	checkPage("Person", "/v1/people")
	checkPage("Group", "/v1/groups")
	checkPage("ChatWebhook", "/v1/chat-webhooks")
	checkPage("Delivery", "/v1/inquiries/"+id+"/notifications")
	check("AuditHead", "GET", "/v1/audit/head", "", 200)
	check("AuditKey", "GET", "/v1/audit/key", "", 200)
	check("PurgeResult", "POST", "/v1/retention/purge", `{"before":"2026-01-01T00:00:00Z"}`, 200)
	check("Problem", "POST", "/v1/retention/purge", `{}`, 400)
	check("Problem", "POST", "/v1/retention/purge", `{"before":"2999-01-01T00:00:00Z"}`, 400)
	check("Problem", "POST", "/v1/retention/purge", `{"before":"yesterday"}`, 400)
	check("Problem", "POST", "/v1/retention/purge", `{"before":"2026-01-01T00:00:00Z","inquiries":[1]}`, 400)
	check("Stats", "GET", "/v1/stats?since=30d", "", 200)
	check("Problem", "GET", "/v1/stats?since=367d", "", 400)

	// Attune's shape: the inquiry is the envelope's data.
	checkData := func(method, path, body string, want int) string {
		t.Helper()
		code, v := call(method, path, body)
		if code != want {
			t.Fatalf("%s %s: %d, want %d (%v)", method, path, code, want, v)
		}
		data := v.(map[string]any)["data"]
		if err := schemaFor("AttuneInquiry").Validate(data); err != nil {
			t.Fatalf("%s %s data does not match AttuneInquiry: %v", method, path, err)
		}
		return fmt.Sprint(data.(map[string]any)["id"])
	}
	aid := checkData("POST", "/api/v1/executions/42/result", `{"__inquiry":{"prompt":"Ship?","assigned_to":1,"timeout_seconds":60},"plan":{"v":2}}`, 201)
	checkData("POST", "/api/v1/executions/42/result", `{"__inquiry":{"prompt":"Ship?"}}`, 200)
	checkData("GET", "/api/v1/inquiries/"+aid, "", 200)
	checkData("POST", "/api/v1/inquiries/"+aid+"/respond", `{"response":"yes"}`, 200)
	other := checkData("POST", "/api/v1/executions/43/result", `{"__inquiry":{"prompt":"Stop?"}}`, 201)
	checkData("POST", "/api/v1/inquiries/"+other+"/cancel", "", 200)
	checkPage("AttuneInquiry", "/api/v1/inquiries?per_page=5")
	check("Problem", "GET", "/api/v1/inquiries?page=0", "", 400)
	if code, _ := call("GET", "/healthz", ""); code != http.StatusOK {
		t.Fatal(code)
	}
}
