package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/jsonlimit"
	"github.com/hitl-dev/hitl/internal/tracing"
)

const (
	maxPrompt         = 8000
	maxOrigin         = 200
	maxShortText      = 200
	maxComment        = 8000
	maxAssignees      = 50
	maxEscalateTo     = 20
	minRemindEvery    = hitl.Duration(60)
	maxRemindEvery    = hitl.Duration(30 * 86400)
	minOptions        = 2
	maxOptions        = 50
	maxTimeoutSeconds = 31_536_000
	maxMetadata       = 50
)

// Bounds on the JSON that agents and people send and that is stored: contexts, schemas,
// fallback values, answers, tool-call arguments, session states and results. They are
// documented in the README (Limits).
//
// Nesting: SQLite's JSON functions stop at depth 1,000 and PostgreSQL's at its stack depth,
// and a value that a store cannot parse breaks every list and search that reads it; 64 levels
// are far more than any answer form or agent context needs, and leave room for the document
// the value is stored in. A schema nests twice per level of the value it describes
// ({"properties":{"a":{...}}}), and compiling costs more than linearly in its depth (not
// nested 2,000 deep took 6 s), so schemas get 32 levels and 64 KiB.
//
// Numbers: the validator computes with exact rationals, so 1e999999 costs it seconds and
// 1e10000000 makes it fail; 100 digits and an exponent within ±400 cover every float64 (and
// far more precision than JSON parsers keep) at a negligible cost.
const (
	maxJSONDepth      = 64
	maxSchemaDepth    = 32
	maxSchemaBytes    = 64 << 10
	maxNumberDigits   = 100
	maxNumberExponent = 400
)

var (
	valueLimits  = jsonlimit.Limits{Depth: maxJSONDepth, Digits: maxNumberDigits, Exponent: maxNumberExponent}
	schemaLimits = jsonlimit.Limits{Depth: maxSchemaDepth, Digits: maxNumberDigits, Exponent: maxNumberExponent}
)

// checkJSON reports a JSON value that is not valid JSON, names a member twice, nests too
// deeply or holds a number beyond the bounds, with the path of the offence below path.
func checkJSON(bad *problems, path string, v json.RawMessage, l jsonlimit.Limits) bool {
	if err := jsonlimit.Check(v, l); err != nil {
		addJSONError(bad, path, err)
		return false
	}
	return true
}

func addJSONError(bad *problems, path string, err error) {
	if le, ok := err.(*jsonlimit.Error); ok {
		bad.add(path+le.Pointer, "%s", le.Message)
		return
	}
	bad.add(path, "%v", err)
}

var sessionKeyPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,200}$`)

// namePattern is what principal and group names may be: no spaces, no "group:" confusion.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9._@-]{1,200}$`)

// IsGroupName tells whether g can name a group, for settings checked before the engine runs
// (the single sign-on's admin group).
func IsGroupName(g string) bool { return namePattern.MatchString(g) }

// problems collects every problem of one input, so the caller can fix them all at once.
type problems []hitl.FieldError

func (p *problems) add(path, format string, args ...any) {
	*p = append(*p, hitl.FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (p problems) err(what string) error {
	if len(p) == 0 {
		return nil
	}
	msg := what + ": " + p[0].Path + ": " + p[0].Message
	if p[0].Path == "" {
		msg = what + ": " + p[0].Message
	}
	if len(p) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(p)-1)
	}
	return &hitl.Error{Code: hitl.EInvalid, Message: msg, Fields: p}
}

// defaultApprovalSchema is what an approval answers when the agent gives no schema.
var defaultApprovalSchema = json.RawMessage(hitl.DefaultApprovalSchema)

// defaultTextSchema is what every other request type answers by default: some text.
var defaultTextSchema = json.RawMessage(`{"type":"string","minLength":1}`)

// optionsSchema expresses options as the JSON Schema an answer must satisfy, so answers are
// checked by one validator whichever way the question was asked.
func optionsSchema(opts []hitl.Option, multiple bool) json.RawMessage {
	values := make([]string, len(opts))
	for i, o := range opts {
		values[i] = o.Value
	}
	enum := map[string]any{"enum": values}
	var doc any = enum
	if multiple {
		doc = map[string]any{"type": "array", "items": enum, "minItems": 1, "uniqueItems": true}
	}
	b, _ := json.Marshal(doc)
	return b
}

// answerSchema is the schema an inquiry's answers and fallback value must satisfy.
func answerSchema(inq *hitl.Inquiry) json.RawMessage {
	if len(inq.Options) > 0 {
		return optionsSchema(inq.Options, inq.Multiple)
	}
	return inq.ResponseSchema
}

// CheckInquiry reports what CreateInquiry would refuse in the request itself (its fields, the
// asker's role), asking nobody: for an adapter that must make another change with the
// question, and would otherwise have made it before the question is refused.
func (e *Engine) CheckInquiry(ctx context.Context, p *hitl.Principal, req *hitl.InquiryRequest) error {
	if err := mayAsk(p); err != nil {
		return err
	}
	_, err := e.buildInquiry(ctx, p, req, e.clock())
	return err
}

// buildInquiry checks an agent's request and turns it into a new pending inquiry. It reports
// every problem at once, each with the JSON path of the field.
func (e *Engine) buildInquiry(ctx context.Context, p *hitl.Principal, req *hitl.InquiryRequest, now time.Time) (*hitl.Inquiry, error) {
	req, err := e.fromTemplate(ctx, req)
	if err != nil {
		return nil, err
	}
	var bad problems
	assignees, err := e.resolveIdentities(ctx, &bad, "/assigned_to", req.AssignedTo)
	if err != nil {
		return nil, err
	}
	escalateTo, err := e.resolveIdentities(ctx, &bad, "/escalate_to", req.EscalateTo)
	if err != nil {
		return nil, err
	}
	ladder, err := e.resolveLadder(ctx, &bad, req.Escalate)
	if err != nil {
		return nil, err
	}
	if len(req.Steps) > 0 {
		chain := *req // the request keeps what was asked, for idempotency
		if chain.Steps, err = e.resolveStepIdentities(ctx, &bad, req.Steps); err != nil {
			return nil, err
		}
		req = &chain
	}
	switch n := utf8.RuneCountInString(req.Prompt); {
	case strings.TrimSpace(req.Prompt) == "":
		bad.add("/prompt", "is required and must not be blank")
	case n > maxPrompt:
		bad.add("/prompt", "is %d characters long; at most %d are allowed", n, maxPrompt)
	}
	inq := &hitl.Inquiry{
		Status: hitl.StatusPending, Prompt: req.Prompt, RequestType: req.RequestType, Multiple: req.Multiple,
		Context: req.Context, Session: req.Session, Origin: req.Origin, CreatedBy: p.Name,
		Execution: req.Execution, AssignedTo: assignees, ChannelHint: req.ChannelHint, Confidence: req.Confidence,
		FallbackPolicy: req.FallbackPolicy, FallbackValue: req.FallbackValue, Exclusive: req.Exclusive,
		// The person asked may decline unless the agent said no: Nova's Cancel button works
		// for them by default.
		CancellableByResponder: req.CancellableByResponder == nil || *req.CancellableByResponder,
		ToolCall:               req.ToolCall, Metadata: req.Metadata, CallbackURL: req.CallbackURL, CreatedAt: now, UpdatedAt: now,
	}
	inq.Template = req.Template
	// The trace of the request that asks (hitl's span of it when spans are recorded): the
	// inquiry's deliveries go on in it.
	inq.Traceparent, inq.Tracestate = tracing.Of(ctx)
	switch {
	case inq.RequestType == "" && len(req.Options) > 0:
		inq.RequestType = hitl.RequestSelection // options were given: a choice is asked
	case inq.RequestType == "":
		inq.RequestType = hitl.RequestInput
	case !inq.RequestType.Valid():
		bad.add("/request_type", "must be one of approval, clarification, selection, input")
	}
	if inq.FallbackPolicy == "" {
		inq.FallbackPolicy = hitl.FallbackFail
		if e.defaultFallback != "" && (!e.defaultFallback.AppliesValue() || !hitl.IsNull(req.FallbackValue)) {
			inq.FallbackPolicy = e.defaultFallback
		}
	}
	if inq.AssignedTo == nil {
		inq.AssignedTo = []string{}
	}
	if inq.Metadata == nil {
		inq.Metadata = map[string]string{}
	}
	if hitl.IsNull(inq.Context) {
		inq.Context = nil
	} else if len(inq.Context) > e.limits.ContextBytes {
		bad.add("/context", "is %d bytes; at most %d are allowed", len(inq.Context), e.limits.ContextBytes)
	} else {
		checkJSON(&bad, "/context", inq.Context, valueLimits)
	}
	if inq.Session != "" && !sessionKeyPattern.MatchString(inq.Session) {
		bad.add("/session", "must be 1 to 200 characters of A-Z a-z 0-9 . _ : -")
	}
	if inq.Execution != "" && !sessionKeyPattern.MatchString(inq.Execution) {
		bad.add("/execution", "must be 1 to 200 characters of A-Z a-z 0-9 . _ : -")
	}
	if utf8.RuneCountInString(inq.Origin) > maxOrigin {
		bad.add("/origin", "must be at most %d characters", maxOrigin)
	}
	if utf8.RuneCountInString(inq.ChannelHint) > maxShortText {
		bad.add("/channel_hint", "must be at most %d characters", maxShortText)
	}
	for i, c := range req.Notify {
		path := fmt.Sprintf("/notify/%d", i)
		switch {
		case !slices.Contains(hitl.NotifyChannels, c):
			bad.add(path, "%q is not a channel; notify lists any of %s", c, strings.Join(hitl.NotifyChannels, ", "))
		case slices.Contains(req.Notify[:i], c):
			bad.add(path, "%q is listed twice", c)
		}
	}
	inq.Notify = req.Notify
	if c := inq.Confidence; c != nil && (*c < 0 || *c > 1) {
		bad.add("/confidence", "must be between 0 and 1")
	}
	checkAssignees(&bad, "/assigned_to", inq.AssignedTo, maxAssignees)
	checkMetadata(&bad, "/metadata", inq.Metadata)
	if req.CallbackURL != "" {
		e.checkURL(ctx, &bad, "/callback_url", req.CallbackURL)
	}
	if tc := inq.ToolCall; tc != nil && (tc.ID == "" || tc.Name == "") {
		bad.add("/tool_call", "needs an id and a name")
	} else if tc != nil && len(tc.Arguments) > 0 {
		checkJSON(&bad, "/tool_call/arguments", tc.Arguments, valueLimits)
	}

	// Deadline: the one given, else the server's default.
	switch {
	case req.TimeoutSeconds == nil && req.TimeoutAt == nil && e.defaultTimeout > 0:
		at := now.Add(e.defaultTimeout)
		inq.TimeoutAt = &at
	case req.TimeoutSeconds != nil && req.TimeoutAt != nil:
		bad.add("/timeout_seconds", "give timeout_seconds or timeout_at, not both")
	case req.TimeoutSeconds != nil:
		if s := *req.TimeoutSeconds; s < 1 || s > maxTimeoutSeconds {
			bad.add("/timeout_seconds", "must be between 1 and %d", maxTimeoutSeconds)
		} else {
			at := now.Add(time.Duration(s) * time.Second)
			inq.TimeoutAt = &at
		}
	case req.TimeoutAt != nil:
		at := hitl.UTC(*req.TimeoutAt)
		if !at.After(now) {
			bad.add("/timeout_at", "must be in the future")
		} else if at.Sub(now) > maxTimeoutSeconds*time.Second {
			bad.add("/timeout_at", "must be at most %d seconds away", maxTimeoutSeconds)
		} else {
			inq.TimeoutAt = &at
		}
	}

	checkReminders(&bad, req, inq, now)
	e.checkReceiptValidity(&bad, req, inq)
	checkLadder(&bad, req, escalateTo, ladder, inq, now)
	checkPriority(&bad, req, inq)
	checkApprovals(&bad, req, inq, now)

	// What the answer must look like.
	options := req.Options
	if len(options) == 0 && inq.RequestType == hitl.RequestSelection && hitl.IsNull(req.ResponseSchema) {
		options, inq.OptionsFrom = optionsInContext(&bad, inq.Context)
	}
	if len(options) > 0 || inq.RequestType == hitl.RequestSelection {
		checkOptions(&bad, options, inq.RequestType)
		if !hitl.IsNull(req.ResponseSchema) {
			bad.add("/response_schema", "give response_schema or options, not both")
		}
		inq.Options = options
	} else if inq.Multiple {
		bad.add("/multiple", "only applies to options")
	}
	decisions := e.checkDecisions(&bad, req, inq)
	if decisions != nil && inq.IsVote() {
		bad.add("/allowed_decisions", "votes answer approved (and a comment): decisions on a tool call are for one person's answer, not a quorum or steps")
	}
	switch {
	case decisions != nil:
		inq.ResponseSchema = decisions
	case !hitl.IsNull(req.ResponseSchema):
		e.checkSchema(&bad, "/response_schema", req.ResponseSchema)
		inq.ResponseSchema = req.ResponseSchema
	case len(inq.Options) == 0 && inq.RequestType == hitl.RequestApproval:
		inq.ResponseSchema = defaultApprovalSchema
	case len(inq.Options) == 0:
		inq.ResponseSchema = defaultTextSchema
	}

	// Fallback. A null fallback_value is no fallback value, although answers may be null:
	// clients send null for "none", and a policy that applies a value needs one. Under fail a
	// fallback_value is ignored, as OpenIntent's SDK ignores it (its request_input takes one
	// whatever the policy): the inquiry shows none, since none will apply.
	if !inq.FallbackPolicy.Valid() {
		bad.add("/fallback_policy", "must be fail, complete_with_fallback or use_default_and_continue")
	} else if inq.FallbackPolicy.AppliesValue() {
		if hitl.IsNull(inq.FallbackValue) {
			bad.add("/fallback_value", "is required with fallback_policy %s", inq.FallbackPolicy)
		}
	} else {
		inq.FallbackValue = nil
	}
	if len(bad) == 0 && !hitl.IsNull(inq.FallbackValue) {
		_, fields, err := e.decodeAnswer(ctx, inq, inq.FallbackValue)
		if err != nil {
			return nil, err
		}
		for _, fe := range fields {
			bad.add("/fallback_value"+fe.Path, "%s", fe.Message)
		}
	}
	if hitl.IsNull(inq.FallbackValue) {
		inq.FallbackValue = nil
	}
	if err := bad.err("invalid inquiry"); err != nil {
		return nil, err
	}
	if err := e.pickFromPool(ctx, inq); err != nil {
		return nil, err
	}
	if err := e.setNudgeTimes(ctx, inq); err != nil {
		return nil, err
	}
	return inq, nil
}

func checkOptions(bad *problems, opts []hitl.Option, t hitl.RequestType) {
	if len(opts) < minOptions || len(opts) > maxOptions {
		if t == hitl.RequestSelection && len(opts) == 0 {
			bad.add("/options", "a selection needs options: give options (%d to %d), or a context with one list of %d to %d distinct choices (strings, numbers, booleans, or objects with a name)",
				minOptions, maxOptions, minOptions, maxOptions)
			return
		}
		bad.add("/options", "must have %d to %d entries, has %d", minOptions, maxOptions, len(opts))
	}
	seen := map[string]bool{}
	for i, o := range opts {
		path := fmt.Sprintf("/options/%d", i)
		switch {
		case o.Value == "":
			bad.add(path, "value must not be empty")
		case seen[o.Value]:
			bad.add(path, "value %q is listed twice", o.Value)
		case utf8.RuneCountInString(o.Value) > maxShortText || utf8.RuneCountInString(o.Label) > maxShortText:
			bad.add(path, "value and label must be at most %d characters", maxShortText)
		case utf8.RuneCountInString(o.Description) > maxComment:
			bad.add(path, "description must be at most %d characters", maxComment)
		}
		seen[o.Value] = true
	}
}

// optionsInContext reads the choices of a selection asked without options the way Microsoft
// Agent Framework's agents ask, request_user_input(prompt, context={"venues": [...]},
// request_type="selection"): when the context is an object with exactly one list, its 2 to 50
// entries are the options, in the list's order, and from is the list's JSON Pointer
// ("/venues"). A string, a number or a boolean is its own option ([20, 30] gives "20" and
// "30"); an object is named by its name, title or label, the first of them that is a string,
// else by its first member that is a string ({"name": "Venue A", "capacity": 120} gives
// "Venue A"). The answer is the name, and the entry it names is the answer's Chosen (chosenIn).
// A list whose entries cannot all be named, or not each differently, is a problem at the
// entry's place in the context; with no single list, nil: checkOptions says how to give options.
func optionsInContext(bad *problems, given json.RawMessage) (options []hitl.Option, from string) {
	var members map[string]json.RawMessage
	if json.Unmarshal(given, &members) != nil {
		return nil, ""
	}
	var list []json.RawMessage
	for name, v := range members {
		if v = bytes.TrimSpace(v); len(v) > 0 && v[0] == '[' {
			if list != nil {
				return nil, "" // two lists: which one holds the choices is a guess
			}
			if json.Unmarshal(v, &list) != nil || list == nil {
				return nil, ""
			}
			from = "/" + pointerEscaper.Replace(name)
		}
	}
	if list == nil {
		return nil, ""
	}
	if len(list) < minOptions || len(list) > maxOptions {
		bad.add("/context"+from, "holds %d entries: as the choices of the selection, it needs %d to %d", len(list), minOptions, maxOptions)
		return nil, ""
	}
	options = make([]hitl.Option, len(list))
	named := true // every entry, each differently
	for i, item := range list {
		at := fmt.Sprintf("/context%s/%d", from, i)
		name, member := choiceName(item)
		is, length := fmt.Sprintf("is %q", name), "is" // the entry, in words
		if member != "" {
			is, length = fmt.Sprintf("is named %q by its %s", name, member), "its "+member+" is"
		}
		switch twin := slices.IndexFunc(options[:i], func(o hitl.Option) bool { return o.Value == name }); {
		case name == "" && bytes.HasPrefix(bytes.TrimSpace(item), []byte("{")):
			bad.add(at, "has no member that is a non-empty string (name, title, label or any other) to name it by as a choice of the selection")
		case name == "":
			bad.add(at, "cannot be a choice of the selection: a choice is a non-empty string, a number, a boolean, or an object with a name")
		case utf8.RuneCountInString(name) > maxShortText:
			bad.add(at, "%s %d characters long; the name of a choice of the selection may have at most %d", length, utf8.RuneCountInString(name), maxShortText)
		case twin >= 0:
			bad.add(at, "%s, as /context%s/%d is: the choices of a selection need distinct names", is, from, twin)
		default:
			options[i] = hitl.Option{Value: name}
			continue
		}
		named = false
	}
	if !named {
		return nil, ""
	}
	return options, from
}

// pointerEscaper writes a member name as a JSON Pointer's token (RFC 6901), pointerUnescaper
// reads it back.
var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// choiceName is what names an entry of a list of choices, and the member of an object that
// does ("" for a string, a number or a boolean, which name themselves); "" and "" when nothing
// does: an empty string, null, a list, an object without a string member.
func choiceName(item json.RawMessage) (name, member string) {
	item = bytes.TrimSpace(item)
	switch {
	case len(item) == 0:
		return "", ""
	case item[0] == '"':
		json.Unmarshal(item, &name)
		return name, ""
	case string(item) == "true", string(item) == "false", item[0] == '-' || item[0] >= '0' && item[0] <= '9':
		return string(item), ""
	case item[0] != '{':
		return "", ""
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(item, &members) != nil {
		return "", ""
	}
	for _, m := range []string{"name", "title", "label"} {
		if s := nonEmptyString(members[m]); s != "" {
			return s, m
		}
	}
	// The first string member in the order the agent wrote them, which a map forgets.
	dec := json.NewDecoder(bytes.NewReader(item))
	if _, err := dec.Token(); err != nil { // {
		return "", ""
	}
	for dec.More() {
		key, err := dec.Token()
		var value json.RawMessage
		if err != nil || dec.Decode(&value) != nil {
			return "", ""
		}
		if s := nonEmptyString(value); s != "" {
			return s, key.(string)
		}
	}
	return "", ""
}

// nonEmptyString is v's text when v is a JSON string other than "", else "".
func nonEmptyString(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// chosenIn is the entry of the context's list that an answer to options read from it picked
// (Inquiry.Chosen), a list of them for a multiple selection; nil for options that were given,
// and for no answer.
func chosenIn(inq *hitl.Inquiry, answer json.RawMessage) json.RawMessage {
	if inq.OptionsFrom == "" || hitl.IsNull(answer) {
		return nil
	}
	var members map[string]json.RawMessage
	var list []json.RawMessage
	if json.Unmarshal(inq.Context, &members) != nil ||
		json.Unmarshal(members[pointerUnescaper.Replace(inq.OptionsFrom[1:])], &list) != nil || len(list) != len(inq.Options) {
		return nil // the options were read from this list, and neither changes since: it cannot happen
	}
	entry := func(value string) json.RawMessage {
		if i := slices.IndexFunc(inq.Options, func(o hitl.Option) bool { return o.Value == value }); i >= 0 {
			return list[i]
		}
		return nil
	}
	if !inq.Multiple {
		var value string
		if json.Unmarshal(answer, &value) != nil {
			return nil
		}
		return entry(value)
	}
	var values []string
	if json.Unmarshal(answer, &values) != nil {
		return nil
	}
	entries := make([]json.RawMessage, len(values))
	for i, v := range values {
		if entries[i] = entry(v); entries[i] == nil {
			return nil
		}
	}
	b, _ := json.Marshal(entries) // of JSON values read from JSON: it cannot fail
	return b
}

// resolveIdentities turns the integer identities among assignees into the names that hold
// them (assignees are stored as names), and reports those that nobody holds.
func (e *Engine) resolveIdentities(ctx context.Context, bad *problems, path string, as hitl.Assignees) ([]string, error) {
	out := slices.Clone([]string(as)) // the request keeps what was asked, for idempotency
	for i, a := range as {
		id, ok := hitl.IdentityOf(a)
		if !ok {
			continue
		}
		name, err := e.store.IdentityName(ctx, id)
		switch {
		case hitl.ErrorCode(err) == hitl.ENotFound:
			bad.add(fmt.Sprintf("%s/%d", path, i), "no principal has identity %d", id)
		case err != nil:
			return nil, err
		default:
			out[i] = name
		}
	}
	return out, nil
}

// resolveStepIdentities is resolveIdentities for the assignees of each step of a chain.
func (e *Engine) resolveStepIdentities(ctx context.Context, bad *problems, steps []hitl.ApprovalStep) ([]hitl.ApprovalStep, error) {
	out := slices.Clone(steps)
	for i := range out {
		names, err := e.resolveIdentities(ctx, bad, fmt.Sprintf("/steps/%d/assigned_to", i), out[i].AssignedTo)
		if err != nil {
			return nil, err
		}
		out[i].AssignedTo = names
	}
	return out, nil
}

func checkAssignees(bad *problems, path string, as []string, most int) {
	if len(as) > most {
		bad.add(path, "at most %d entries", most)
		return
	}
	for i, a := range as {
		if _, unknown := hitl.IdentityOf(a); unknown {
			continue // reported by resolveIdentities
		}
		if !namePattern.MatchString(strings.TrimPrefix(strings.TrimPrefix(a, hitl.GroupPrefix), hitl.PoolPrefix)) {
			bad.add(fmt.Sprintf("%s/%d", path, i), "must be a principal name, group:NAME or pool:NAME (letters, digits, . _ @ -)")
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(as)))) != len(as) {
		bad.add(path, "lists an entry twice")
	}
}

// checkReminders reads the reminders of a request into the new inquiry, whose deadline is
// known: the first comes before it (see setNudgeTimes for working hours).
func checkReminders(bad *problems, req *hitl.InquiryRequest, inq *hitl.Inquiry, now time.Time) {
	if req.RemindEvery != "" {
		switch d, err := hitl.ParseDuration(req.RemindEvery); {
		case err != nil || d < minRemindEvery:
			bad.add("/remind_every", "must be a duration like 30m, at least 1m")
		case d > maxRemindEvery:
			bad.add("/remind_every", "must be at most 30 days (720h)")
		default:
			inq.RemindEvery = &d
			inq.NextReminderAt = reminderBefore(now.Add(d.Duration()), inq.TimeoutAt)
		}
	}
}

// reminderBefore is a reminder at at, or none (nil) when the deadline comes first.
func reminderBefore(at time.Time, deadline *time.Time) *time.Time {
	if deadline != nil && !at.Before(*deadline) {
		return nil
	}
	return &at
}

func checkMetadata(bad *problems, path string, m map[string]string) {
	if len(m) > maxMetadata {
		bad.add(path, "at most %d keys", maxMetadata)
	}
	for k, v := range m {
		if k == "" || utf8.RuneCountInString(k) > maxShortText || utf8.RuneCountInString(v) > maxShortText*10 {
			bad.add(path+"/"+k, "keys must be 1 to %d characters and values at most %d", maxShortText, maxShortText*10)
		}
	}
}

// decodeAnswer reads a value (an answer or a fallback value) in one pass (bounds, duplicate
// names, compaction, decoding) and validates what it read against what the inquiry accepts;
// it returns the value compacted, the text that is stored, and nil fields when it is valid.
// It runs outside the writer, in one of the validation slots: compiling (after a restart,
// once per schema) and validating cost what the schema and the value make them cost. The
// error is the context's, when the caller gave up waiting for a slot.
func (e *Engine) decodeAnswer(ctx context.Context, inq *hitl.Inquiry, value json.RawMessage) (json.RawMessage, []hitl.FieldError, error) {
	compact, v, err := jsonlimit.Decode(value, valueLimits)
	if err != nil {
		var bad problems
		addJSONError(&bad, "", err)
		return nil, bad, nil
	}
	release, err := e.validationSlot(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	s, err := e.schemas.Compile(answerSchema(inq))
	if err != nil {
		// The schema compiled when the inquiry was created; failing now is the server's fault.
		e.log.Error("stored schema does not compile", "inquiry_id", inq.ID, "err", err)
		return nil, []hitl.FieldError{{Path: "", Message: "the inquiry's schema cannot be used"}}, nil
	}
	if e.validating != nil {
		e.validating(inq)
	}
	return compact, s.ValidateValue(v), nil
}

// validationSlot waits for one of the engine's validation slots, one per CPU: validating is
// CPU work, and values that arrive together beyond the CPUs' number would only each take
// longer, and hold their memory longer, if validated at once. A caller that gives up (the
// client went away) stops waiting and is never validated.
func (e *Engine) validationSlot(ctx context.Context) (release func(), err error) {
	select {
	case e.validators <- struct{}{}:
		return func() { <-e.validators }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// checkSchema checks a schema an agent gives (its size, its nesting, and that it compiles,
// within the cost bounds): a response_schema or a tool's parameters schema. Compiled here,
// outside the writer, and kept: answers find it in the cache.
func (e *Engine) checkSchema(bad *problems, path string, doc json.RawMessage) bool {
	if n := len(doc); n > maxSchemaBytes {
		bad.add(path, "is %d bytes; at most %d are allowed", n, maxSchemaBytes)
		return false
	}
	if !checkJSON(bad, path, doc, schemaLimits) {
		return false
	}
	if _, err := e.schemas.Compile(doc); err != nil {
		bad.add(path, "%v", err)
		return false
	}
	return true
}
