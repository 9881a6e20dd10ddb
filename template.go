package hitl

import (
	"encoding/json"
	"time"
)

// Templates are the questions an organisation asks again and again, kept once by an admin:
// an agent asks with {"template": "deploy-approval", "vars": {"version": "v2.5.0"}} instead
// of repeating the schema, the assignees and the deadline. Their changes are events that
// only admins see, like people's.
const (
	EventTemplateUpdated = "template.updated"
	EventTemplateDeleted = "template.deleted"
)

// Template is a stored way of asking (GET /v1/templates/{name}).
type Template struct {
	Name string `json:"name"`
	TemplateRequest
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// UpdatedBy is the admin that put this version.
	UpdatedBy string `json:"updated_by"`
}

// TemplateRequest is the body of PUT /v1/templates/{name}, which replaces the template whole:
// the fields of an InquiryRequest, whose prompt may hold {{.var}} placeholders (Go
// text/template syntax, without functions), and VarsSchema, the JSON Schema the vars of a
// request must satisfy (optional). Template, Vars, Session, Execution and TimeoutAt belong to
// one request and are refused in a template.
type TemplateRequest struct {
	InquiryRequest
	VarsSchema json.RawMessage `json:"vars_schema,omitempty"`
}
