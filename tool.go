package hitl

import (
	"bytes"
	"encoding/json"
)

// ToolRequestUserInput is the name of the tool through which a model asks a human: in LLM
// function calling (GET /v1/tools/request_user_input, client.HandleToolCall) and in MCP.
const ToolRequestUserInput = "request_user_input"

// ToolDescription tells the model when and how to use the tool.
const ToolDescription = "Ask a human and wait for the answer. Use it when you need a decision " +
	"(approval), a choice among options (selection), a missing fact (input) or a clarification " +
	"before going on, and when an action is risky or hard to undo. The answer comes back as this " +
	"tool's result: the human's answer as JSON, or a message saying that no answer came."

// ToolArguments are the arguments of request_user_input.
type ToolArguments struct {
	Prompt         string          `json:"prompt"`
	Context        json.RawMessage `json:"context,omitempty"`
	RequestType    RequestType     `json:"request_type,omitempty"`
	Options        []Option        `json:"options,omitempty"`
	Multiple       bool            `json:"multiple,omitempty"`
	ResponseSchema json.RawMessage `json:"response_schema,omitempty"`
	AssignedTo     []string        `json:"assigned_to,omitempty"`
	TimeoutSeconds *int64          `json:"timeout_seconds,omitempty"`
	FallbackPolicy FallbackPolicy  `json:"fallback_policy,omitempty"`
	FallbackValue  json.RawMessage `json:"fallback_value,omitempty"`
	Session        string          `json:"session,omitempty"`
	RemindEvery    string          `json:"remind_every,omitempty"`
	EscalateAfter  string          `json:"escalate_after,omitempty"`
	EscalateTo     []string        `json:"escalate_to,omitempty"`
	// AnswerInClient also asks the person at the agent's own MCP client (MCP elicitation),
	// while the inquiry still goes to its assignees: the first answer wins. Off by default; only
	// MCP's request_user_input acts on it, for a key that may answer the inquiry itself
	// (engine.MayAnswerInClient). Function calling (client.HandleToolCall) has no client to
	// ask, so there it changes nothing: the question goes to its assignees alone.
	AnswerInClient bool `json:"answer_in_client,omitempty"`
}

// ParseToolArguments reads a model's arguments strictly: unknown fields and wrong types are
// refused with EInvalid, so a model that got the call wrong is told so rather than guessed at.
// What the arguments mean (a prompt given, a schema that compiles, ...) the server checks.
func ParseToolArguments(raw []byte) (*ToolArguments, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var a ToolArguments
	if err := dec.Decode(&a); err != nil {
		return nil, Errorf(EInvalid, "the arguments of %s are not valid: %v", ToolRequestUserInput, err)
	}
	if dec.More() {
		return nil, Errorf(EInvalid, "the arguments of %s hold more than one JSON value", ToolRequestUserInput)
	}
	return &a, nil
}

// InquiryRequest is the question the arguments ask; call, when not nil, binds its answer to
// the model's tool call (the inquiry's tool_result carries the call's id).
func (a *ToolArguments) InquiryRequest(call *ToolCall) *InquiryRequest {
	return &InquiryRequest{
		Prompt: a.Prompt, Context: a.Context, RequestType: a.RequestType, Options: a.Options, Multiple: a.Multiple,
		ResponseSchema: a.ResponseSchema, AssignedTo: a.AssignedTo, TimeoutSeconds: a.TimeoutSeconds,
		FallbackPolicy: a.FallbackPolicy, FallbackValue: a.FallbackValue, Session: a.Session, ToolCall: call,
		RemindEvery: a.RemindEvery, EscalateAfter: a.EscalateAfter, EscalateTo: a.EscalateTo,
	}
}

// ToolInputSchema is the JSON Schema of ToolArguments.
var ToolInputSchema = json.RawMessage(`{
  "type": "object",
  "additionalProperties": false,
  "required": ["prompt"],
  "properties": {
    "prompt": {"type": "string", "minLength": 1, "maxLength": 8000, "description": "The question, as the human will read it."},
    "context": {"description": "What the human needs to know to answer: a short text or a JSON object."},
    "request_type": {"type": "string", "enum": ["approval", "selection", "input", "clarification"],
      "description": "approval: yes or no; selection: pick among options; input: a value; clarification: free text."},
    "options": {"type": "array", "minItems": 2, "maxItems": 50,
      "items": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["value"], "properties": {
        "value": {"type": "string"}, "label": {"type": "string"}, "description": {"type": "string"}}}]},
      "description": "The choices of a selection; without them, a context with one list of 2 to 50 choices gives them: strings or numbers, or objects named by their name, title or label (the answer is the name)."},
    "multiple": {"type": "boolean", "description": "A selection that allows several options."},
    "response_schema": {"type": "object", "description": "A JSON Schema (2020-12) the answer must fit, for structured input: at most 64 KiB, nested at most 32 deep; format is checked."},
    "assigned_to": {"type": "array", "items": {"type": "string"}, "description": "Who may answer: names, or group:NAME."},
    "timeout_seconds": {"type": "integer", "minimum": 1, "description": "How long to wait for the human."},
    "fallback_policy": {"type": "string", "enum": ["fail", "complete_with_fallback", "use_default_and_continue"],
      "description": "What happens when the time is up: fail (no answer), or answer with fallback_value."},
    "fallback_value": {"description": "The answer to use when the time is up, under a fallback policy."},
    "session": {"type": "string", "description": "The agent run this question belongs to."},
    "remind_every": {"type": "string", "description": "Remind the human at this interval while nobody answers, like 30m (at least 1m)."},
    "escalate_after": {"type": "string", "description": "After this long without an answer, like 2h, add escalate_to as people who may answer, and notify them."},
    "escalate_to": {"type": "array", "minItems": 1, "maxItems": 20, "items": {"type": "string"}, "description": "Who to add on escalation: names, or group:NAME."},
    "answer_in_client": {"type": "boolean", "default": false, "description": "MCP only: also ask the user of this MCP client (elicitation), as the key's person, while the question still goes to its assignees; the first answer wins. Needs a client that supports elicitation and a key that may answer the question; ignored in function calling."}
  }
}`)

// ToolDefinitions is the tool in the shapes LLM APIs take in their tool lists.
type ToolDefinitions struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// OpenAI: an entry of "tools" in Chat Completions.
	OpenAI map[string]any `json:"openai"`
	// Anthropic: an entry of "tools" in the Messages API.
	Anthropic map[string]any `json:"anthropic"`
}

// RequestUserInputDefinitions describes request_user_input for function calling.
func RequestUserInputDefinitions() ToolDefinitions {
	return ToolDefinitions{
		Name: ToolRequestUserInput, Description: ToolDescription, InputSchema: ToolInputSchema,
		OpenAI: map[string]any{"type": "function", "function": map[string]any{
			"name": ToolRequestUserInput, "description": ToolDescription, "parameters": ToolInputSchema}},
		Anthropic: map[string]any{"name": ToolRequestUserInput, "description": ToolDescription, "input_schema": ToolInputSchema},
	}
}

// UnknownTool is the error for a tool call that is not hitl's.
func UnknownTool(name string) error {
	return Errorf(ENotFound, "no tool %q; hitl has %s", name, ToolRequestUserInput)
}
