package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/strictjson"
)

// The shapes of A2A 0.3 (its JSON Schema, as the JSON-RPC binding carries them). Each object
// says what it is in kind.

// message is a Message: the asking agent's (role user), or hitl's (role agent) in a status.
type message struct {
	Kind             string          `json:"kind"`
	MessageID        string          `json:"messageId"`
	Role             string          `json:"role"`
	Parts            []part          `json:"parts"`
	ContextID        string          `json:"contextId,omitempty"`
	TaskID           string          `json:"taskId,omitempty"`
	ReferenceTaskIDs []string        `json:"referenceTaskIds,omitempty"`
	Extensions       []string        `json:"extensions,omitempty"`
	Metadata         json.RawMessage `json:"metadata,omitempty"`
}

// part is a Part: text, data (a JSON object) or a file.
type part struct {
	Kind     string          `json:"kind"`
	Text     *string         `json:"text,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	File     json.RawMessage `json:"file,omitempty"`
	Metadata map[string]any  `json:"metadata,omitempty"`
}

// task is a Task: one inquiry.
type task struct {
	Kind      string         `json:"kind"`
	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	Status    taskStatus     `json:"status"`
	Artifacts []artifact     `json:"artifacts,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// taskStatus is a TaskStatus; Message says why, for the ends that have a reason.
type taskStatus struct {
	State     string   `json:"state"`
	Message   *message `json:"message,omitempty"`
	Timestamp string   `json:"timestamp"`
}

// artifact is an Artifact: the answer.
type artifact struct {
	ArtifactID string         `json:"artifactId"`
	Name       string         `json:"name"`
	Parts      []part         `json:"parts"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// statusUpdate is a TaskStatusUpdateEvent of a stream; Final on the last one.
type statusUpdate struct {
	Kind      string         `json:"kind"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Status    taskStatus     `json:"status"`
	Final     bool           `json:"final"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// artifactUpdate is a TaskArtifactUpdateEvent of a stream: the answer, whole, in one chunk.
type artifactUpdate struct {
	Kind      string   `json:"kind"`
	TaskID    string   `json:"taskId"`
	ContextID string   `json:"contextId"`
	Artifact  artifact `json:"artifact"`
	LastChunk bool     `json:"lastChunk"`
}

// The task states hitl's inquiries go through.
const (
	stateSubmitted = "submitted"
	stateWorking   = "working"
	stateCompleted = "completed"
	stateCanceled  = "canceled"
	stateFailed    = "failed"
	stateRejected  = "rejected"
)

// taskID is the task of an inquiry: its id, as a string, so that it holds across restarts and
// nodes without a table of its own.
func taskID(id int64) string { return strconv.FormatInt(id, 10) }

// inquiryOf reads a task id; a task id that is not one of hitl's is a task that is not found.
func inquiryOf(id string) (int64, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != id {
		return 0, &rpcError{Code: codeTaskNotFound, Message: fmt.Sprintf("task %q not found: this server's task ids are whole numbers (the id of the inquiry)", id)}
	}
	return n, nil
}

// stateOf is where an inquiry's task is: working while people are asked, then completed with
// the answer (a person's, or the fallback value at the deadline), rejected when the person
// declined to answer or rejected the tool call, canceled, or failed when nobody answered.
func stateOf(inq *hitl.Inquiry) (state, reason string) {
	switch inq.Status {
	case hitl.StatusPending:
		return stateWorking, ""
	case hitl.StatusResponded:
		if d, ok := decisionOf(inq); ok && d.Decision == hitl.DecisionReject {
			return stateRejected, d.Message
		}
		return stateCompleted, ""
	case hitl.StatusTimeout:
		if inq.FallbackApplied {
			return stateCompleted, ""
		}
		return stateFailed, "nobody answered by the deadline"
	}
	reason = deref(inq.CancelReason)
	if inq.DeclinedBy != nil {
		return stateRejected, reason
	}
	return stateCanceled, reason
}

// decisionOf reads the answer to an approval of a tool call with decisions.
func decisionOf(inq *hitl.Inquiry) (hitl.DecisionAnswer, bool) {
	var d hitl.DecisionAnswer
	if !inq.HasDecisions() || json.Unmarshal(inq.Response, &d) != nil {
		return d, false
	}
	return d, true
}

// taskOf is an inquiry as its task. The answer is the artifact: a data part with it (an object
// as it is; any other value as {"value": ...}, marked as the A2A SDKs mark such a value), and a
// text part too when the answer is text. metadata.hitl says what hitl knows beyond A2A: who
// answered, with what comment, and whether the fallback value stands in for an answer.
func taskOf(inq *hitl.Inquiry) task {
	state, reason := stateOf(inq)
	t := task{Kind: "task", ID: taskID(inq.ID), ContextID: inq.Session, Status: statusOf(inq, state, reason)}
	meta := map[string]any{"inquiry_id": inq.ID, "inquiry_status": inq.Status}
	if inq.RespondedBy != nil {
		meta["responded_by"] = *inq.RespondedBy
	}
	if inq.Comment != nil {
		meta["comment"] = *inq.Comment
	}
	if inq.DeclinedBy != nil {
		meta["declined_by"] = *inq.DeclinedBy
	}
	if inq.Status == hitl.StatusTimeout {
		meta["fallback_applied"] = inq.FallbackApplied
	}
	t.Metadata = map[string]any{"hitl": meta}
	if state == stateCompleted {
		t.Artifacts = []artifact{answerOf(inq)}
	}
	return t
}

// statusOf is the task's status in state, with the reason as hitl's message when there is one.
func statusOf(inq *hitl.Inquiry, state, reason string) taskStatus {
	s := taskStatus{State: state, Timestamp: inq.UpdatedAt.UTC().Format(time.RFC3339Nano)}
	if reason != "" {
		text := reason
		s.Message = &message{Kind: "message", MessageID: "inquiry-" + taskID(inq.ID) + "-" + state, Role: "agent",
			Parts: []part{{Kind: "text", Text: &text}}, ContextID: inq.Session, TaskID: taskID(inq.ID)}
	}
	return s
}

// answerOf is the artifact of an answered inquiry.
func answerOf(inq *hitl.Inquiry) artifact {
	answer := hitl.OrNull(inq.Response)
	trimmed := bytes.TrimSpace(answer)
	data := part{Kind: "data", Data: answer}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		wrapped, _ := json.Marshal(map[string]json.RawMessage{"value": answer})
		data = part{Kind: "data", Data: wrapped, Metadata: map[string]any{"data_part_compat": true}}
	}
	a := artifact{ArtifactID: "answer-" + taskID(inq.ID), Name: "answer", Parts: []part{data}}
	var text string
	if json.Unmarshal(answer, &text) == nil {
		a.Parts = append(a.Parts, part{Kind: "text", Text: &text})
	}
	if inq.FallbackApplied {
		a.Metadata = map[string]any{"fallback_applied": true}
	}
	return a
}

// askMembers are what the data part of a message may say about the question, under
// InquiryRequest's names.
var askMembers = []string{"assigned_to", "context", "fallback_policy", "fallback_value", "multiple", "options",
	"request_type", "response_schema", "template", "timeout_seconds", "vars"}

// inquiryRequest reads the asking agent's message into the question: its text parts are the
// prompt, a data part says the rest. A message that continues a task is refused: hitl's tasks
// ask people, and never wait on their caller.
func inquiryRequest(m *message, version string) (*hitl.InquiryRequest, error) {
	if m.Role != "user" {
		if version == "1.0" {
			return nil, invalidParams("message.role must be \"ROLE_USER\": the message is the asking agent's")
		}
		return nil, invalidParams("message.role must be \"user\": the message is the asking agent's")
	}
	if m.MessageID == "" {
		return nil, invalidParams("message.messageId is required")
	}
	if m.TaskID != "" {
		return nil, &rpcError{Code: codeUnsupportedOperation, Message: fmt.Sprintf("message.taskId %s: a task here is a question to people, and takes no further messages; "+
			"send a new message without taskId (with the same contextId to ask in the same session)", m.TaskID)}
	}
	req := &hitl.InquiryRequest{}
	var texts []string
	data := 0
	for i, p := range m.Parts {
		switch p.Kind {
		case "text":
			if p.Text == nil {
				return nil, invalidParams(fmt.Sprintf("message.parts[%d]: a text part needs text", i))
			}
			texts = append(texts, *p.Text)
		case "data":
			if data++; data > 1 {
				return nil, invalidParams(fmt.Sprintf("message.parts[%d]: one data part at most says how to ask", i))
			}
			if err := readAsk(p.Data, req, i); err != nil {
				return nil, err
			}
		case "file":
			return nil, &rpcError{Code: codeContentTypeNotSupported, Message: fmt.Sprintf("message.parts[%d]: files are not accepted; "+
				"ask with text parts (the question) and a data part (how to ask)", i)}
		default:
			if version == "1.0" {
				return nil, invalidParams(fmt.Sprintf("message.parts[%d] has none of text, data, url or raw", i))
			}
			return nil, invalidParams(fmt.Sprintf("message.parts[%d]: kind must be text, data or file, not %q", i, p.Kind))
		}
	}
	req.Prompt = strings.Join(texts, "\n\n")
	if req.Prompt == "" && req.Template == "" {
		return nil, invalidParams("the message has no text: its text parts are the question people are asked")
	}
	return req, nil
}

// readAsk reads a data part's members into req, refusing those it does not know.
func readAsk(raw json.RawMessage, req *hitl.InquiryRequest, i int) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return invalidParams(fmt.Sprintf("message.parts[%d].data must be a JSON object", i))
	}
	for name := range members {
		if !slices.Contains(askMembers, name) {
			return invalidParams(fmt.Sprintf("message.parts[%d].data: unknown member %q; a data part may say %s", i, name, strings.Join(askMembers, ", ")))
		}
	}
	if err := strictjson.Unmarshal(raw, req); err != nil {
		return invalidParams(fmt.Sprintf("message.parts[%d].data: %s", i, hitl.ErrorMessage(err)))
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
