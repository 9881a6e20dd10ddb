package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"text/template/parse"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/jsonlimit"
)

// Templates: the questions asked again and again, kept once by an admin. An agent asks with
// {"template": NAME, "vars": {...}}: the template's fields make the inquiry, the fields the
// request gives replace the template's, and the template's prompt is rendered with the vars.
//
// A prompt is Go text/template syntax with no functions: text, {{.var}} (or {{.var.field}}
// into an object) and {{if .var}}…{{else}}…{{end}}, comments and the {{- -}} trimming marks.
// Anything else ({{printf …}}, {{.x | f}}, {{range}}, {{with}}, {{template}}, {{$v := …}},
// {{.}}) is refused when the template is put. The prompt is parsed by text/template's own
// parser and rendered here rather than executed by text/template: a var given as a number, a
// list or an object is written as its JSON text (text/template would write Go's map[...]), a
// var that {{if}} tests may be left out (it is false, like null, false, 0, "", [] and {}), and
// a var that is written but not given is refused by its name (missingkey=error's rule, with a
// message for people).

// checkTemplateName: a template's name is in a path and in agents' requests.
func checkTemplateName(name string) error {
	if !namePattern.MatchString(name) {
		return hitl.Errorf(hitl.EInvalid, "a template's name is 1 to 200 characters of letters, digits, . _ @ -")
	}
	return nil
}

// PutTemplate stores a template (admin), replacing the one of the same name, and reports
// whether it is new. Everything that asking with it would check and can be checked without
// vars is checked now: the prompt's syntax, vars_schema, and every other field as a create
// checks it.
func (e *Engine) PutTemplate(ctx context.Context, p *hitl.Principal, name string, req *hitl.TemplateRequest) (*hitl.Template, bool, error) {
	if err := mayAdmin(p); err != nil {
		return nil, false, err
	}
	if err := checkTemplateName(name); err != nil {
		return nil, false, err
	}
	var bad problems
	if req.Template != "" {
		bad.add("/template", "a template is not made from another template")
	}
	if req.Vars != nil {
		bad.add("/vars", "vars are given when asking with the template, not in it")
	}
	if req.Session != "" {
		bad.add("/session", "a session is one agent run: the agent gives it when asking with the template")
	}
	if req.Execution != "" {
		bad.add("/execution", "an execution is one workflow run: it is given when asking with the template")
	}
	if req.TimeoutAt != nil {
		bad.add("/timeout_at", "is a moment, which a template used again and again would pass: give timeout_seconds")
	}
	if _, err := parsePrompt(name, req.Prompt); err != nil {
		bad.add("/prompt", "%v", err)
	}
	if !hitl.IsNull(req.VarsSchema) {
		e.checkSchema(&bad, "/vars_schema", req.VarsSchema)
	}
	// The other fields as a create checks them, the prompt's placeholders unrendered; those
	// refused above are left out, reported once.
	trial := req.InquiryRequest
	trial.Template, trial.Vars, trial.Session, trial.Execution, trial.TimeoutAt = "", nil, "", "", nil
	if _, err := e.buildInquiry(ctx, p, &trial, e.clock()); err != nil {
		herr, ok := err.(*hitl.Error)
		if !ok || len(herr.Fields) == 0 {
			return nil, false, err
		}
		bad = append(bad, herr.Fields...)
	}
	if err := bad.err("invalid template"); err != nil {
		return nil, false, err
	}
	now := e.clock()
	t := &hitl.Template{Name: name, TemplateRequest: *req, CreatedAt: now, UpdatedAt: now, UpdatedBy: p.Name}
	if hitl.IsNull(t.VarsSchema) {
		t.VarsSchema = nil
	}
	var created bool
	if err := e.audited(ctx, p, hitl.EventTemplateUpdated, t, func(tx hitl.Tx) (err error) {
		created, err = tx.PutTemplate(t)
		return err
	}); err != nil {
		return nil, false, err
	}
	e.log.Info("template set", "template", name, "created", created, "actor", p.Name)
	return t, created, nil
}

// Template returns one template, to agents (which ask with it) and admins.
func (e *Engine) Template(ctx context.Context, p *hitl.Principal, name string) (*hitl.Template, error) {
	if err := mayAsk(p); err != nil {
		return nil, err
	}
	if err := checkTemplateName(name); err != nil {
		return nil, err
	}
	return e.store.Template(ctx, name)
}

// Templates lists every template by name, to agents and admins.
func (e *Engine) Templates(ctx context.Context, p *hitl.Principal) ([]*hitl.Template, error) {
	if err := mayAsk(p); err != nil {
		return nil, err
	}
	return e.store.Templates(ctx)
}

// DeleteTemplate removes a template (admin); the inquiries made from it keep its name.
func (e *Engine) DeleteTemplate(ctx context.Context, p *hitl.Principal, name string) error {
	if err := mayAdmin(p); err != nil {
		return err
	}
	if err := checkTemplateName(name); err != nil {
		return err
	}
	shown := map[string]string{"name": name}
	if err := e.audited(ctx, p, hitl.EventTemplateDeleted, shown, func(tx hitl.Tx) error { return tx.DeleteTemplate(name) }); err != nil {
		return err
	}
	e.log.Info("template deleted", "template", name, "actor", p.Name)
	return nil
}

// fieldsTogether are the fields of a request that are replaced together: giving one of them
// when asking with a template replaces the template's others as well, since they describe one
// thing (a deadline, the shape of the answer, an escalation, a fallback, how votes are
// counted) and the template's other half would contradict the request's (timeout_seconds
// beside timeout_at, options beside response_schema, steps beside quorum).
var fieldsTogether = [][]string{
	{"timeout_seconds", "timeout_at"},
	{"response_schema", "options", "multiple"},
	{"escalate_after", "escalate_to", "escalate"},
	{"fallback_policy", "fallback_value"},
	{"quorum", "steps"},
}

// fromTemplate returns the request that a request naming a template stands for: the
// template's fields, with those the request gives (any field that is not empty, zero or
// false; see fieldsTogether) in their place, and the template's prompt rendered with the vars
// unless the request gives its own prompt, which is taken as it is. The vars must satisfy the
// template's vars_schema. A request without a template is returned as it is. req is not
// changed: the idempotency key's hash is the request as sent.
func (e *Engine) fromTemplate(ctx context.Context, req *hitl.InquiryRequest) (*hitl.InquiryRequest, error) {
	if req.Template == "" {
		if req.Vars != nil {
			return nil, fieldError("/vars", "vars only apply with a template: name one in template")
		}
		return req, nil
	}
	unknown := fieldError("/template", fmt.Sprintf("unknown template %q: an admin puts it with PUT /v1/templates/NAME (hitl templates set); GET /v1/templates lists those there are", req.Template))
	if checkTemplateName(req.Template) != nil {
		return nil, unknown
	}
	t, err := e.store.Template(ctx, req.Template)
	switch {
	case hitl.ErrorCode(err) == hitl.ENotFound:
		return nil, unknown
	case err != nil:
		return nil, err
	}
	vars, err := e.checkVars(ctx, t, req.Vars)
	if err != nil {
		return nil, err
	}
	out, err := overlay(&t.InquiryRequest, req)
	if err != nil {
		return nil, err
	}
	if req.Prompt == "" {
		tree, err := parsePrompt(t.Name, t.Prompt)
		if err != nil { // it parsed when it was put
			return nil, fmt.Errorf("template %s: stored prompt: %w", t.Name, err)
		}
		if out.Prompt, err = renderPrompt(t.Name, tree, vars); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func fieldError(path, msg string) error {
	return &hitl.Error{Code: hitl.EInvalid, Message: msg, Fields: []hitl.FieldError{{Path: path, Message: msg}}}
}

// checkVars reads a request's vars, a JSON object (none is {}), and checks them against the
// template's vars_schema, reporting every problem with its path under /vars.
func (e *Engine) checkVars(ctx context.Context, t *hitl.Template, given json.RawMessage) (map[string]any, error) {
	if hitl.IsNull(given) {
		given = json.RawMessage(`{}`)
	}
	_, v, err := jsonlimit.Decode(given, valueLimits)
	if err != nil {
		var bad problems
		addJSONError(&bad, "/vars", err)
		return nil, bad.err("invalid vars")
	}
	vars, ok := v.(map[string]any)
	if !ok {
		return nil, fieldError("/vars", `vars must be a JSON object of the template's values, like {"version": "v2.5.0"}`)
	}
	if hitl.IsNull(t.VarsSchema) {
		return vars, nil
	}
	release, err := e.validationSlot(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	s, err := e.schemas.Compile(t.VarsSchema)
	if err != nil { // it compiled when the template was put
		return nil, fmt.Errorf("template %s: stored vars_schema: %w", t.Name, err)
	}
	var bad problems
	for _, fe := range s.ValidateValue(vars) {
		bad.add("/vars"+fe.Path, "%s", fe.Message)
	}
	return vars, bad.err(fmt.Sprintf("vars do not fit template %s's vars_schema", t.Name))
}

// overlay is the template's request with the fields that req gives in their place.
func overlay(template, req *hitl.InquiryRequest) (*hitl.InquiryRequest, error) {
	var base, over map[string]json.RawMessage
	if err := remarshal(template, &base); err != nil {
		return nil, err
	}
	if err := remarshal(req, &over); err != nil {
		return nil, err
	}
	if req.Prompt == "" {
		delete(over, "prompt") // the one field that is sent even when empty
	}
	delete(over, "vars")
	for _, together := range fieldsTogether {
		if slices.ContainsFunc(together, func(f string) bool { _, given := over[f]; return given }) {
			for _, f := range together {
				delete(base, f)
			}
		}
	}
	for k, v := range over {
		base[k] = v
	}
	out := new(hitl.InquiryRequest)
	return out, remarshal(base, out)
}

// remarshal copies one value into another through JSON.
func remarshal(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}

// parsePrompt parses a template's prompt and refuses anything but text, {{.var}} and
// {{if .var}}…{{else}}…{{end}}.
func parsePrompt(name, text string) (*parse.Tree, error) {
	t := parse.New(name)
	t.Mode = parse.SkipFuncCheck // a function is refused below, in words, rather than as "not defined"
	trees := map[string]*parse.Tree{}
	if _, err := t.Parse(text, "", "", trees); err != nil {
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "template: "))
	}
	for other := range trees {
		if other != name {
			return nil, fmt.Errorf("{{define %q}} is not allowed: %s", other, promptSyntax)
		}
	}
	if t.Root == nil {
		return t, nil
	}
	return t, checkPromptNodes(t.Root)
}

const promptSyntax = "a prompt holds text, {{.var}} placeholders and {{if .var}}…{{else}}…{{end}}, and calls no functions"

func checkPromptNodes(list *parse.ListNode) error {
	if list == nil {
		return nil
	}
	for _, n := range list.Nodes {
		switch n := n.(type) {
		case *parse.TextNode, *parse.CommentNode:
		case *parse.ActionNode:
			if promptField(n.Pipe) == nil {
				return fmt.Errorf("%s is not allowed: %s", n, promptSyntax)
			}
		case *parse.IfNode:
			if promptField(n.Pipe) == nil {
				return fmt.Errorf("{{if %s}} is not allowed: %s", n.Pipe, promptSyntax)
			}
			if err := checkPromptNodes(n.List); err != nil {
				return err
			}
			if err := checkPromptNodes(n.ElseList); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s is not allowed: %s", promptNodeWords(n), promptSyntax)
		}
	}
	return nil
}

// promptNodeWords names a refused action by its first line, not its whole body.
func promptNodeWords(n parse.Node) string {
	s := n.String()
	if i := strings.Index(s, "}}"); i >= 0 {
		s = s[:i+2]
	}
	return s
}

// promptField is the one field a pipe reads ({{.var}}, {{.var.field}}), nil for any other pipe.
func promptField(pipe *parse.PipeNode) *parse.FieldNode {
	if pipe == nil || len(pipe.Decl) > 0 || len(pipe.Cmds) != 1 || len(pipe.Cmds[0].Args) != 1 {
		return nil
	}
	f, _ := pipe.Cmds[0].Args[0].(*parse.FieldNode)
	return f
}

// renderPrompt writes a parsed prompt with the vars; a var that is written but not given is
// refused, naming it.
func renderPrompt(name string, t *parse.Tree, vars map[string]any) (string, error) {
	var (
		b       strings.Builder
		missing problems
	)
	var walk func(list *parse.ListNode)
	walk = func(list *parse.ListNode) {
		if list == nil {
			return
		}
		for _, n := range list.Nodes {
			switch n := n.(type) {
			case *parse.TextNode:
				b.Write(n.Text)
			case *parse.ActionNode:
				f := promptField(n.Pipe)
				v, ok := lookupVar(vars, f.Ident)
				if !ok {
					missing.add("/vars/"+strings.Join(f.Ident, "/"), "template %s uses {{%s}}, which vars does not give", name, f)
					continue
				}
				b.WriteString(varText(v))
			case *parse.IfNode:
				v, _ := lookupVar(vars, promptField(n.Pipe).Ident)
				if truthy(v) {
					walk(n.List)
				} else {
					walk(n.ElseList)
				}
			}
		}
	}
	if t.Root != nil {
		walk(t.Root)
	}
	if len(missing) > 0 {
		msg := missing[0].Message
		if len(missing) > 1 {
			msg += fmt.Sprintf(" (and %d more)", len(missing)-1)
		}
		return "", &hitl.Error{Code: hitl.EInvalid, Message: msg, Fields: missing}
	}
	return b.String(), nil
}

// lookupVar follows .a.b through the vars' objects.
func lookupVar(vars map[string]any, path []string) (any, bool) {
	var v any = vars
	for _, k := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// varText is how a var is written in a prompt: a string as it is, anything else as its JSON.
func varText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v) // json.Number keeps the digits given
	return string(b)
}

// truthy is {{if}}'s test, text/template's own for JSON values: null (or no var), false, 0,
// "", [] and {} are false.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case json.Number:
		r, ok := new(big.Rat).SetString(string(v))
		return !ok || r.Sign() != 0
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}
