package a2a

import (
	"encoding/json"
	"strings"
)

// A2A 1.0 over JSON-RPC: the same methods under new names, with the shapes of its protobuf
// JSON (parts without kind, roles and states as enum names, results that say what they hold).
// A 1.0 request is read into the 0.3 shapes this package serves, and its answer written back
// in 1.0's; what the methods do is the same. The card lists both versions' interfaces, and
// @a2a-js/sdk 1.x picks 1.0 from it.

// v1Methods are 1.0's method names, and the 0.3 method each is.
var v1Methods = map[string]string{
	"SendMessage":                      "message/send",
	"SendStreamingMessage":             "message/stream",
	"GetTask":                          "tasks/get",
	"CancelTask":                       "tasks/cancel",
	"SubscribeToTask":                  "tasks/resubscribe",
	"CreateTaskPushNotificationConfig": "tasks/pushNotificationConfig/set",
	"GetTaskPushNotificationConfig":    "tasks/pushNotificationConfig/get",
	"ListTaskPushNotificationConfigs":  "tasks/pushNotificationConfig/list",
	"DeleteTaskPushNotificationConfig": "tasks/pushNotificationConfig/delete",
	"GetExtendedAgentCard":             "agent/getAuthenticatedExtendedCard",
}

// v1Message is 1.0's Message.
type v1Message struct {
	MessageID        string          `json:"messageId"`
	ContextID        string          `json:"contextId,omitempty"`
	TaskID           string          `json:"taskId,omitempty"`
	Role             string          `json:"role"`
	Parts            []v1Part        `json:"parts"`
	Metadata         json.RawMessage `json:"metadata,omitempty"`
	Extensions       []string        `json:"extensions,omitempty"`
	ReferenceTaskIDs []string        `json:"referenceTaskIds,omitempty"`
}

// v1Part is 1.0's Part: one of text, data (any JSON value), url and raw (a file).
type v1Part struct {
	Text      *string         `json:"text,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	URL       string          `json:"url,omitempty"`
	Raw       string          `json:"raw,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
	Metadata  map[string]any  `json:"metadata,omitempty"`
}

// v1PushConfig is 1.0's TaskPushNotificationConfig: flat, with its task.
type v1PushConfig struct {
	TaskID         string          `json:"taskId"`
	ID             string          `json:"id,omitempty"`
	URL            string          `json:"url"`
	Token          string          `json:"token,omitempty"`
	Authentication json.RawMessage `json:"authentication,omitempty"`
}

// v1Params reads a 1.0 request's params into the 0.3 params of its method.
func v1Params(method string, raw json.RawMessage) (json.RawMessage, *rpcError) {
	var out any
	switch method {
	case "message/send", "message/stream":
		var p struct {
			Message       *v1Message `json:"message"`
			Configuration *struct {
				AcceptedOutputModes        []string        `json:"acceptedOutputModes"`
				ReturnImmediately          bool            `json:"returnImmediately"`
				HistoryLength              *int            `json:"historyLength"`
				TaskPushNotificationConfig json.RawMessage `json:"taskPushNotificationConfig"`
			} `json:"configuration"`
			Metadata json.RawMessage `json:"metadata"`
		}
		if rerr := readParams(raw, &p); rerr != nil {
			return nil, rerr
		}
		if rerr := checkConfiguration(raw, "1.0"); rerr != nil {
			return nil, rerr
		}
		params := map[string]any{}
		if p.Message != nil {
			params["message"] = fromV1Message(p.Message)
		}
		config := map[string]any{"blocking": true} // 1.0 waits unless told to return at once
		if c := p.Configuration; c != nil {
			config["blocking"], config["acceptedOutputModes"] = !c.ReturnImmediately, c.AcceptedOutputModes
			if len(c.TaskPushNotificationConfig) > 0 {
				config["pushNotificationConfig"] = c.TaskPushNotificationConfig // id, url, token, authentication: as 0.3's
			}
		}
		params["configuration"] = config
		out = params
	case "tasks/pushNotificationConfig/set":
		var c v1PushConfig
		if rerr := readParams(raw, &c); rerr != nil {
			return nil, rerr
		}
		out = taskPushConfig{TaskID: c.TaskID, PushNotificationConfig: mustJSON(pushConfig{ID: c.ID, URL: c.URL, Token: c.Token, Authentication: c.Authentication})}
	case "tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete":
		var p struct {
			TaskID string `json:"taskId"`
			ID     string `json:"id"`
		}
		if rerr := readParams(raw, &p); rerr != nil {
			return nil, rerr
		}
		out = pushParams{ID: p.TaskID, PushNotificationConfigID: p.ID}
	case "agent/getAuthenticatedExtendedCard":
		return json.RawMessage("{}"), nil
	default: // tasks/get, tasks/cancel, tasks/resubscribe: {"id": ...} in both
		return raw, nil
	}
	return mustJSON(out), nil
}

// fromV1Message is a 1.0 message in 0.3's shape: a file (url or raw) stays a file part, which
// is refused as 0.3's are.
func fromV1Message(m *v1Message) message {
	role := strings.ToLower(strings.TrimPrefix(m.Role, "ROLE_"))
	out := message{Kind: "message", MessageID: m.MessageID, Role: role, ContextID: m.ContextID, TaskID: m.TaskID,
		Metadata: m.Metadata, Extensions: m.Extensions, ReferenceTaskIDs: m.ReferenceTaskIDs}
	for _, p := range m.Parts {
		switch {
		case p.Text != nil:
			out.Parts = append(out.Parts, part{Kind: "text", Text: p.Text})
		case len(p.Data) > 0:
			out.Parts = append(out.Parts, part{Kind: "data", Data: p.Data})
		case p.URL != "" || p.Raw != "":
			out.Parts = append(out.Parts, part{Kind: "file"})
		default:
			out.Parts = append(out.Parts, part{}) // no kind: refused as having none of 1.0's members
		}
	}
	return out
}

// v1Result is a method's 0.3 result in 1.0's shape.
func v1Result(method string, result any) any {
	switch r := result.(type) {
	case task:
		if method == "message/send" {
			return map[string]any{"task": v1Task(r)}
		}
		return v1Task(r)
	case taskPushConfigView:
		return v1PushView(r)
	case []taskPushConfigView:
		configs := []any{}
		for _, c := range r {
			configs = append(configs, v1PushView(c))
		}
		return map[string]any{"configs": configs}
	case agentCard:
		return v1Card(r)
	case nil:
		return struct{}{}
	}
	return result
}

// v1Event is a stream's 0.3 event in 1.0's shape: a StreamResponse.
func v1Event(v any) any {
	switch e := v.(type) {
	case task:
		return map[string]any{"task": v1Task(e)}
	case statusUpdate:
		return map[string]any{"statusUpdate": map[string]any{"taskId": e.TaskID, "contextId": e.ContextID, "status": v1Status(e.Status), "metadata": e.Metadata}}
	case artifactUpdate:
		return map[string]any{"artifactUpdate": map[string]any{"taskId": e.TaskID, "contextId": e.ContextID, "artifact": v1Artifact(e.Artifact), "lastChunk": e.LastChunk}}
	}
	return v
}

func v1PushView(c taskPushConfigView) v1PushConfig {
	p := c.PushNotificationConfig
	return v1PushConfig{TaskID: c.TaskID, ID: p.ID, URL: p.URL, Token: p.Token}
}

func v1Task(t task) map[string]any {
	out := map[string]any{"id": t.ID, "contextId": t.ContextID, "status": v1Status(t.Status), "metadata": t.Metadata}
	if len(t.Artifacts) > 0 {
		arts := make([]any, len(t.Artifacts))
		for i, a := range t.Artifacts {
			arts[i] = v1Artifact(a)
		}
		out["artifacts"] = arts
	}
	return out
}

// v1Status is a status with 1.0's state names: completed is TASK_STATE_COMPLETED.
func v1Status(s taskStatus) map[string]any {
	out := map[string]any{"state": "TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(s.State, "-", "_")), "timestamp": s.Timestamp}
	if m := s.Message; m != nil {
		out["message"] = map[string]any{"messageId": m.MessageID, "contextId": m.ContextID, "taskId": m.TaskID,
			"role": "ROLE_" + strings.ToUpper(m.Role), "parts": v1Parts(m.Parts)}
	}
	return out
}

func v1Artifact(a artifact) map[string]any {
	out := map[string]any{"artifactId": a.ArtifactID, "name": a.Name, "parts": v1Parts(a.Parts)}
	if a.Metadata != nil {
		out["metadata"] = a.Metadata
	}
	return out
}

// v1Parts are parts in 1.0's shape, where data may be any value: a value 0.3 wrapped as
// {"value": ...} is unwrapped.
func v1Parts(parts []part) []v1Part {
	out := make([]v1Part, len(parts))
	for i, p := range parts {
		switch p.Kind {
		case "text":
			out[i] = v1Part{Text: p.Text}
		case "data":
			data := p.Data
			if p.Metadata["data_part_compat"] == true {
				var wrapped struct {
					Value json.RawMessage `json:"value"`
				}
				if json.Unmarshal(p.Data, &wrapped) == nil {
					data = wrapped.Value
				}
			}
			out[i] = v1Part{Data: data}
		}
	}
	return out
}

// v1Card is the card in 1.0's shape, as GetExtendedAgentCard answers it.
func v1Card(c agentCard) map[string]any {
	scheme := c.SecuritySchemes[securitySchemeName]
	return map[string]any{
		"name": c.Name, "description": c.Description, "version": c.Version, "documentationUrl": c.DocumentationURL,
		"supportedInterfaces":  []agentInterface{{URL: c.URL, ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}},
		"capabilities":         map[string]any{"streaming": c.Capabilities.Streaming, "pushNotifications": c.Capabilities.PushNotifications, "extendedAgentCard": true},
		"securitySchemes":      map[string]any{securitySchemeName: map[string]any{"httpAuthSecurityScheme": scheme.HTTPAuthSecurityScheme}},
		"securityRequirements": c.SecurityRequirements,
		"defaultInputModes":    c.DefaultInputModes, "defaultOutputModes": c.DefaultOutputModes, "skills": c.Skills,
	}
}
