package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/wording"
)

// answer_in_client: request_user_input also asks the person at the agent's own MCP client, with
// the elicitation/create request of MCP's 2025-11-25 specification, while the inquiry goes to
// its assignees as always. Whoever answers first wins: the engine decides, as for every answer.
// What the person does in the client maps onto hitl's own acts: accept is an answer as the
// key's person, decline is a decline of the inquiry, cancel changes nothing.

// clientForm is an inquiry as an elicitation form (the spec's "form" mode: a flat object of
// primitive fields), and how the form's content becomes the inquiry's answer.
type clientForm struct {
	schema map[string]any
	// field is the one field that holds the whole answer, for an answer that is not an object
	// (a choice, some text, a number); "" when the form's object is the answer.
	field string
}

// sdkMisfit is in the go-sdk's error for a form's content that does not fit the form's
// schema: it checks the content before hitl sees it, in the words of its schema validator.
const sdkMisfit = "elicitation result content does not match requested schema: "

// misfit says in hitl's words what the answer must be, for a form's content that did not
// fit the form; why is the schema validator's own account, for a form of fields.
func misfit(inq *hitl.Inquiry, why string) string {
	if len(inq.Options) == 0 {
		return "it does not fit the question's fields: " + why
	}
	values := make([]string, len(inq.Options))
	for i, o := range inq.Options {
		values[i] = strconv.Quote(o.Value)
	}
	if inq.Multiple {
		return "the answer must list one or more of " + strings.Join(values, ", ")
	}
	return "the answer must be one of " + strings.Join(values, ", ")
}

// answerField is the form's field for an answer that is not an object.
const answerField = "answer"

// answer is the inquiry's answer from the form's content.
func (f *clientForm) answer(content map[string]any) (json.RawMessage, error) {
	if f.field == "" {
		return json.Marshal(content)
	}
	v, ok := content[f.field]
	if !ok {
		return nil, fmt.Errorf("the form came back without its field %q", f.field)
	}
	return json.Marshal(v)
}

// errSensitive is why a form may not ask a field the schema marks as a secret: the spec keeps
// sensitive data out of form mode.
var errSensitive = errors.New("a field is marked sensitive (writeOnly, or format password)")

// formFor is the elicitation form that asks inq, or why none can (an error that says so in words).
func formFor(inq *hitl.Inquiry) (*clientForm, error) {
	if len(inq.AllowedDecisions) > 0 {
		return nil, errors.New("a decision on a tool call is not a form of primitive fields")
	}
	if len(inq.Options) > 0 {
		choices := make([]any, len(inq.Options))
		for i, o := range inq.Options {
			title := o.Label
			if title == "" {
				title = o.Value
			}
			choices[i] = map[string]any{"const": o.Value, "title": title}
		}
		field := map[string]any{"type": "string", "title": "Your choice", "oneOf": choices}
		if inq.Multiple {
			field = map[string]any{"type": "array", "title": "Your choices", "minItems": 1, "items": map[string]any{"anyOf": choices}}
		}
		return wrapped(field), nil
	}
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(inq.ResponseSchema))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil, errors.New("the response schema is not an object")
	}
	if root["type"] != "object" {
		field, err := formField(root, true)
		if err != nil {
			return nil, err
		}
		if field["title"] == nil {
			field["title"] = "Your answer"
		}
		return wrapped(field), nil
	}
	schema := map[string]any{"type": "object"}
	for k, v := range root {
		switch k {
		case "type", "$schema", "$comment", "title", "description":
		case "additionalProperties":
			if v != false {
				return nil, errors.New("a form has only the fields it names (additionalProperties)")
			}
		case "required":
			schema[k] = v
		case "properties":
			props, ok := v.(map[string]any)
			if !ok || len(props) == 0 {
				return nil, errors.New("an object schema with no properties")
			}
			out := map[string]any{}
			for name, p := range props {
				prop, ok := p.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("property %q is not a schema object", name)
				}
				field, err := formField(prop, false)
				if err != nil {
					return nil, fmt.Errorf("property %q: %w", name, err)
				}
				out[name] = field
			}
			schema[k] = out
		default:
			return nil, fmt.Errorf("the keyword %q has no form", k)
		}
	}
	if schema["properties"] == nil {
		return nil, errors.New("an object schema with no properties")
	}
	return &clientForm{schema: schema}, nil
}

// wrapped is a form of one required field that holds the whole answer.
func wrapped(field map[string]any) *clientForm {
	return &clientForm{field: answerField, schema: map[string]any{"type": "object",
		"properties": map[string]any{answerField: field}, "required": []string{answerField}}}
}

// formFormats are the string formats a form field may have (the spec's StringSchema).
var formFormats = []string{"email", "uri", "date", "date-time"}

// formField is one primitive field of a form, from a property of the response schema: a string
// (with a format the spec lists), a number or integer, a boolean, or an enum of strings (with
// titles, as oneOf of const and title), each with a title, description and default. Anything
// else is an error that names it. root tells that the schema is the whole response's.
func formField(p map[string]any, root bool) (map[string]any, error) {
	if p["writeOnly"] == true || p["format"] == "password" {
		return nil, errSensitive
	}
	typ, _ := p["type"].(string)
	if typ == "" && (p["enum"] != nil || p["oneOf"] != nil) {
		typ = "string"
	}
	allowed := map[string][]string{
		"string":  {"minLength", "maxLength", "format", "enum", "enumNames", "oneOf"},
		"number":  {"minimum", "maximum"},
		"integer": {"minimum", "maximum"},
		"boolean": {},
	}
	own, ok := allowed[typ]
	if !ok {
		return nil, fmt.Errorf("type %v has no form field (string, number, integer, boolean, or an enum of strings)", p["type"])
	}
	out := map[string]any{"type": typ}
	for k, v := range p {
		switch {
		case k == "type" || k == "$comment" || k == "examples" || (root && k == "$schema"):
		case k == "title" || k == "description":
			out[k] = v
		case k == "default" || slices.Contains(own, k):
			if err := checkFormValue(k, v); err != nil {
				return nil, err
			}
			out[k] = v
		default:
			return nil, fmt.Errorf("the keyword %q has no form", k)
		}
	}
	return out, nil
}

// checkFormValue checks what a form keyword may hold.
func checkFormValue(k string, v any) error {
	switch k {
	case "format":
		if f, _ := v.(string); !slices.Contains(formFormats, f) {
			return fmt.Errorf("format %v has no form field (%s)", v, strings.Join(formFormats, ", "))
		}
	case "enum", "enumNames":
		vs, ok := v.([]any)
		if !ok || len(vs) == 0 || slices.ContainsFunc(vs, func(e any) bool { _, s := e.(string); return !s }) {
			return fmt.Errorf("%s must be a list of strings", k)
		}
	case "oneOf":
		vs, ok := v.([]any)
		if !ok || len(vs) == 0 {
			return errors.New("oneOf must list the choices")
		}
		for _, c := range vs {
			m, ok := c.(map[string]any)
			_, isConst := m["const"].(string)
			if !ok || !isConst || len(m) > 2 || (len(m) == 2 && m["title"] == nil) {
				return errors.New("oneOf may list only choices of a const string and a title")
			}
		}
	}
	return nil
}

// clientModes are the elicitation modes the client at the other end of ss said it takes.
func clientModes(ss *sdk.ServerSession) (form, url bool) {
	if ss == nil {
		return false, false
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false, false
	}
	caps := ip.Capabilities.Elicitation
	return caps.Form != nil || caps.URL == nil, caps.URL != nil // neither: form, as the spec's first version had
}

// elicits tells whether the client takes elicitations at all.
func elicits(ss *sdk.ServerSession) bool {
	form, url := clientModes(ss)
	return form || url
}

// clientMessage is what the client shows its user: the question, and its context.
func clientMessage(inq *hitl.Inquiry) string {
	msg := inq.Prompt
	if !hitl.IsNull(inq.Context) {
		var text string
		if json.Unmarshal(inq.Context, &text) != nil {
			text = string(inq.Context)
		}
		const most = 2000
		if len(text) > most {
			text = text[:most] + "…"
		}
		msg += "\n\n" + text
	}
	others := "the people hitl asks"
	if len(inq.AssignedTo) > 0 {
		others = wording.Assignees(inq.AssignedTo)
	}
	return msg + fmt.Sprintf("\n\n(hitl inquiry %d: %s may answer it too; the first answer counts.)", inq.ID, others)
}

// clientAsk is one elicitation of an inquiry: what the client was asked, and what came of it.
type clientAsk struct {
	inq *hitl.Inquiry
	// urlID is the elicitation id of a URL-mode elicitation, once it was sent ("" for a form):
	// the client is told when the inquiry is settled (notifications/elicitation/complete).
	urlID string
	// note is for the agent, when what the person did in the client did not settle the inquiry.
	note string
}

// ask asks the person at the client until ctx ends, with a form when the inquiry has one and
// the client takes forms, else with the key's own answer link (URL mode) when the client takes
// those; then acts on what the person did.
func (t *tools) ask(ctx context.Context, ss *sdk.ServerSession, a *clientAsk) {
	formOK, urlOK := clientModes(ss)
	form, why := formFor(a.inq)
	params := &sdk.ElicitParams{Mode: "form", Message: clientMessage(a.inq)}
	switch {
	case why == nil && formOK:
		params.RequestedSchema = form.schema
	case urlOK:
		link, err := t.b.AnswerLink(ctx, a.inq.ID)
		if err != nil {
			a.note = "no answer link for this client: " + hitl.ErrorMessage(err)
			return
		}
		params.Mode, params.URL, params.ElicitationID = "url", link, fmt.Sprintf("hitl-inquiry-%d-%s", a.inq.ID, rand.Text())
		params.Message += "\n\nOpen the link to answer in hitl."
		a.urlID = params.ElicitationID
	case why != nil:
		a.note = "it was not asked in this client: " + why.Error() + ", and the client takes no URL elicitations"
		return
	default:
		a.note = "it was not asked in this client, which takes no form elicitations"
		return
	}
	res, err := ss.Elicit(ctx, params)
	switch {
	case ctx.Err() != nil:
		return
	case err != nil && strings.Contains(err.Error(), sdkMisfit) && params.Mode == "form":
		_, why, _ := strings.Cut(err.Error(), sdkMisfit)
		a.note = "the answer given in this client was refused: " + misfit(a.inq, why)
		return
	case err != nil:
		a.note = "asking in this client failed: " + err.Error()
		return
	}
	// The person's act is submitted whatever happens to ctx meanwhile: the wait sees the
	// inquiry settled by this very submission as soon as the engine has it, and ends ctx,
	// before the submission's own response has come back.
	submit, done := context.WithTimeout(context.WithoutCancel(ctx), submitTimeout)
	defer done()
	switch {
	case res.Action == "accept" && params.Mode == "url":
		// The person went to the link; their answer comes through it.
	case res.Action == "accept":
		answer, err := form.answer(res.Content)
		if err == nil {
			_, err = t.b.Respond(submit, a.inq.ID, answer, "")
		}
		if err != nil && hitl.ErrorCode(err) != hitl.EConflict { // a conflict: answered elsewhere first
			a.note = "the answer given in this client was refused: " + hitl.ErrorMessage(err)
		}
	case res.Action == "decline":
		if _, err := t.b.Decline(submit, a.inq.ID, "declined in the MCP client"); err != nil && hitl.ErrorCode(err) != hitl.EConflict {
			a.note = "the decline in this client was refused: " + hitl.ErrorMessage(err)
		}
	default:
		a.note = "the person at this client dismissed the question; it still waits for its assignees"
	}
}

// awaitInClient waits for inq as await does, asking it in the client meanwhile; whatever
// settles it first ends the other (an outstanding elicitation is cancelled).
func (t *tools) awaitInClient(ctx context.Context, req *sdk.CallToolRequest, inq *hitl.Inquiry) (*sdk.CallToolResult, error) {
	notice := &cancelNotice{sent: make(chan struct{})}
	asking, stop := context.WithCancel(context.WithValue(ctx, cancelNoticeKey{}, notice))
	a := &clientAsk{inq: inq}
	asked := make(chan struct{})
	go func() { defer close(asked); t.ask(asking, req.Session, a) }()
	final := make(chan struct{})
	var waited *hitl.Inquiry
	var err error
	go func() {
		defer close(final)
		waited, err = t.wait(ctx, req, inq, t.bound)
	}()
	select {
	case <-asked: // the client answered, declined or dismissed: wait for the inquiry
		<-final
	case <-final: // settled elsewhere first, or the bound passed
		stop()
		<-asked
		if t.noticesCancels {
			// The SDK tells the client that the elicitation is cancelled on a goroutine of its
			// own; over streamable HTTP that notice goes on this call's stream, which the
			// result closes: let it go out first.
			select {
			case <-notice.sent:
			case <-time.After(cancelNoticeWait):
			case <-ctx.Done():
			}
		}
	}
	stop()
	if err != nil {
		return toolError(err)
	}
	if a.urlID != "" && waited.Status != hitl.StatusPending {
		req.Session.NotifyElicitationComplete(ctx, &sdk.ElicitationCompleteParams{ElicitationID: a.urlID})
	}
	return noted(waited, a.note)
}

// noted is the tool's result for inq, with note on answer_in_client when there is one.
func noted(inq *hitl.Inquiry, note string) (*sdk.CallToolResult, error) {
	r := resultOf(inq)
	if note != "" {
		r.Message += " (answer_in_client: " + note + ".)"
	}
	return structured(r.Message, r)
}

// whyNotInClient says why answer_in_client cannot ask the person at the client of ss, "" when
// it can try.
func whyNotInClient(ss *sdk.ServerSession) string {
	if ss == nil {
		return "it was not asked in this client: the call came without a session"
	}
	switch ip := ss.InitializeParams(); {
	case ip == nil || ip.ClientInfo == nil: // no initialize: the SDK's stateless request, whose parameters it makes up
		return "it was not asked in this client: the call came without a session (stateless), in which the server cannot ask the client anything"
	case !elicits(ss):
		return "it was not asked in this client, which declared no elicitation capability"
	case ss.InitializeParams().ProtocolVersion > elicitationVersion:
		return fmt.Sprintf("it was not asked in this client: on protocol version %s a server may not ask the client during a call; "+
			"answer_in_client asks with the elicitation of version %s", ss.InitializeParams().ProtocolVersion, elicitationVersion)
	}
	return ""
}

// elicitationVersion is the protocol version whose elicitation answer_in_client speaks: the
// later drafts send no request to the client while a call is served.
const elicitationVersion = "2025-11-25"

// notAskedAsTask is why a task's answer_in_client asks no one at the client: the call that
// started the task has ended before anyone answers.
const notAskedAsTask = "it was not asked in this client: a task is not asked in the client (its call returns at once); the inquiry waits for its assignees"

// ownLinkTTL is how long the answer link of a URL elicitation works; it answers only while
// the inquiry is pending, so only once.
const ownLinkTTL = 24 * time.Hour

// OwnLink is the answer link a principal makes for itself (URL mode), by either backend.
func OwnLink(p *hitl.Principal) *hitl.AnswerLinkRequest {
	return &hitl.AnswerLinkRequest{For: p.Name, TTLSeconds: int64(ownLinkTTL.Seconds())}
}

// submitTimeout bounds the submission of what the person did in the client.
const submitTimeout = 30 * time.Second

// cancelNoticeWait bounds how long a tool call waits for the notice that cancels its
// elicitation to be written before it returns its result.
const cancelNoticeWait = 2 * time.Second

// cancelNotice is closed when notifications/cancelled has been written for an elicitation
// whose context carries it (the SDK writes the notice with that context's values).
type cancelNotice struct {
	once sync.Once
	sent chan struct{}
}

type cancelNoticeKey struct{}

// noticeCancels wraps a session's transport so that the cancelNotice in the context of a
// written notifications/cancelled is told.
func noticeCancels(t sdk.Transport) sdk.Transport { return noticingTransport{t} }

type noticingTransport struct{ sdk.Transport }

func (t noticingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return noticingConn{c}, nil
}

type noticingConn struct{ sdk.Connection }

func (c noticingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "notifications/cancelled" {
		if n, ok := ctx.Value(cancelNoticeKey{}).(*cancelNotice); ok {
			n.once.Do(func() { close(n.sent) })
		}
	}
	return err
}
