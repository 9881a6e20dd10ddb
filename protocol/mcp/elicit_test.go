package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
)

// TestFormFor: the schemas MCP's form mode allows become forms, and their content the answer;
// every other schema, and anything marked sensitive, has no form and says why.
func TestFormFor(t *testing.T) {
	for _, c := range []struct {
		name    string
		inq     hitl.Inquiry
		form    string // the form's schema, as JSON
		content string // what the client sends back
		answer  string // the inquiry's answer
	}{
		{"text", hitl.Inquiry{ResponseSchema: json.RawMessage(`{"type":"string","minLength":1}`)},
			`{"properties":{"answer":{"minLength":1,"title":"Your answer","type":"string"}},"required":["answer"],"type":"object"}`,
			`{"answer":"blue"}`, `"blue"`},
		{"approval", hitl.Inquiry{ResponseSchema: json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"},"comment":{"type":"string"}},"required":["approved"],"additionalProperties":false}`)},
			`{"properties":{"approved":{"type":"boolean"},"comment":{"type":"string"}},"required":["approved"],"type":"object"}`,
			`{"approved":true,"comment":"ok"}`, `{"approved":true,"comment":"ok"}`},
		{"options", hitl.Inquiry{Options: []hitl.Option{{Value: "hall", Label: "The hall"}, {Value: "roof"}}},
			`{"properties":{"answer":{"oneOf":[{"const":"hall","title":"The hall"},{"const":"roof","title":"roof"}],"title":"Your choice","type":"string"}},"required":["answer"],"type":"object"}`,
			`{"answer":"roof"}`, `"roof"`},
		{"several options", hitl.Inquiry{Multiple: true, Options: []hitl.Option{{Value: "a"}, {Value: "b"}}},
			`{"properties":{"answer":{"items":{"anyOf":[{"const":"a","title":"a"},{"const":"b","title":"b"}]},"minItems":1,"title":"Your choices","type":"array"}},"required":["answer"],"type":"object"}`,
			`{"answer":["a","b"]}`, `["a","b"]`},
		{"flat object", hitl.Inquiry{ResponseSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{
			"email":{"type":"string","format":"email","title":"Email"},"n":{"type":"integer","minimum":1,"maximum":9,"default":3},
			"size":{"type":"string","enum":["s","m"]},"tier":{"type":"string","oneOf":[{"const":"x","title":"X"}]},"when":{"type":"string","format":"date"}},"required":["email"]}`)},
			`{"properties":{"email":{"format":"email","title":"Email","type":"string"},"n":{"default":3,"maximum":9,"minimum":1,"type":"integer"},"size":{"enum":["s","m"],"type":"string"},"tier":{"oneOf":[{"const":"x","title":"X"}],"type":"string"},"when":{"format":"date","type":"string"}},"required":["email"],"type":"object"}`,
			`{"email":"a@b.c","n":4}`, `{"email":"a@b.c","n":4}`},
		{"a number", hitl.Inquiry{ResponseSchema: json.RawMessage(`{"type":"number","title":"Budget"}`)},
			`{"properties":{"answer":{"title":"Budget","type":"number"}},"required":["answer"],"type":"object"}`,
			`{"answer":2.5}`, `2.5`},
	} {
		f, err := formFor(&c.inq)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got, _ := json.Marshal(f.schema); string(got) != c.form {
			t.Errorf("%s: form\n%s, want\n%s", c.name, got, c.form)
		}
		var content map[string]any
		json.Unmarshal([]byte(c.content), &content)
		if got, err := f.answer(content); err != nil || string(got) != c.answer {
			t.Errorf("%s: answer %s %v, want %s", c.name, got, err, c.answer)
		}
	}

	for _, c := range []struct {
		name, schema, why string
	}{
		{"nested object", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`, `property "a": type object`},
		{"array answer", `{"type":"array","items":{"type":"string"}}`, "type array"},
		{"pattern", `{"type":"string","pattern":"^x"}`, `"pattern"`},
		{"password", `{"type":"object","properties":{"pw":{"type":"string","format":"password"}}}`, "sensitive"},
		{"writeOnly", `{"type":"object","properties":{"token":{"type":"string","writeOnly":true}}}`, "sensitive"},
		{"another format", `{"type":"string","format":"ipv4"}`, "format ipv4"},
		{"enum of numbers", `{"type":"string","enum":[1,2]}`, "list of strings"},
		{"oneOf of schemas", `{"type":"string","oneOf":[{"type":"string"}]}`, "const string"},
		{"open object", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`, "additionalProperties"},
		{"allOf", `{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{}]}`, `"allOf"`},
		{"no properties", `{"type":"object"}`, "no properties"},
		{"a type list", `{"type":["string","null"]}`, "type [string null]"},
		{"anything", `{}`, "type <nil>"},
	} {
		_, err := formFor(&hitl.Inquiry{ResponseSchema: json.RawMessage(c.schema)})
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want it to say %q", c.name, err, c.why)
		}
	}
	if _, err := formFor(&hitl.Inquiry{AllowedDecisions: []hitl.Decision{hitl.DecisionApprove}, ResponseSchema: json.RawMessage(`{"type":"object"}`)}); err == nil {
		t.Error("a decision on a tool call has a form")
	}
}
