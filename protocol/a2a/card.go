package a2a

import (
	"context"
	"fmt"
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/buildinfo"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// agentCard is A2A 0.3's AgentCard.
type agentCard struct {
	ProtocolVersion    string                    `json:"protocolVersion"`
	Name               string                    `json:"name"`
	Description        string                    `json:"description"`
	URL                string                    `json:"url"`
	PreferredTransport string                    `json:"preferredTransport"`
	Version            string                    `json:"version"`
	DocumentationURL   string                    `json:"documentationUrl"`
	Capabilities       capabilities              `json:"capabilities"`
	SecuritySchemes    map[string]securityScheme `json:"securitySchemes"`
	Security           []map[string][]string     `json:"security"`
	// SecurityRequirements is 1.0's security, which 1.0 clients read.
	SecurityRequirements              []securityRequirement `json:"securityRequirements"`
	DefaultInputModes                 []string              `json:"defaultInputModes"`
	DefaultOutputModes                []string              `json:"defaultOutputModes"`
	Skills                            []skill               `json:"skills"`
	SupportsAuthenticatedExtendedCard bool                  `json:"supportsAuthenticatedExtendedCard"`
	// SupportedInterfaces is A2A 1.0's list of where to call with which version: 1.0 clients
	// read it (and 0.3 clients url and preferredTransport).
	SupportedInterfaces []agentInterface `json:"supportedInterfaces"`
}

type agentInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion"`
}

type capabilities struct {
	Streaming              bool `json:"streaming"`
	PushNotifications      bool `json:"pushNotifications"`
	StateTransitionHistory bool `json:"stateTransitionHistory"`
	// ExtendedAgentCard is 1.0's supportsAuthenticatedExtendedCard.
	ExtendedAgentCard bool `json:"extendedAgentCard"`
}

// securityScheme is a SecurityScheme in 0.3's shape (type, scheme) and in 1.0's (its oneof,
// httpAuthSecurityScheme) at once, so that the one card says "bearer" to clients of both.
type securityScheme struct {
	Type                   string         `json:"type"`
	Scheme                 string         `json:"scheme"`
	Description            string         `json:"description"`
	HTTPAuthSecurityScheme httpAuthScheme `json:"httpAuthSecurityScheme"`
}

// httpAuthScheme is 1.0's HTTPAuthSecurityScheme.
type httpAuthScheme struct {
	Scheme      string `json:"scheme"`
	Description string `json:"description"`
}

// securityRequirement is 1.0's SecurityRequirement: each scheme's scopes, as a StringList.
type securityRequirement struct {
	Schemes map[string]scopeList `json:"schemes"`
}

type scopeList struct {
	List []string `json:"list"`
}

type skill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples,omitempty"`
	InputModes  []string `json:"inputModes"`
	OutputModes []string `json:"outputModes"`
}

// inputModes are what a message may hold: the question as text, how to ask as data.
var inputModes = []string{"text/plain", "application/json"}

// securitySchemeName names hitl's API keys in the card.
const securitySchemeName = "hitlApiKey"

// keyDescription says how an agent gets and gives its key.
const keyDescription = "a hitl API key (hitl keys create NAME --role agent), as Authorization: Bearer TOKEN"

// The skills every server has; the extended card adds one per template.
var baseSkills = []skill{
	{ID: "ask-a-person", Name: "Ask a person",
		Description: "Asks a person a question and answers with what they said. The text parts are the question; a data part may say " +
			"response_schema (the JSON Schema of the answer), options (a choice), assigned_to (people, group:NAME, pool:NAME), " +
			"timeout_seconds with fallback_policy and fallback_value, context (shown beside the question), template and vars.",
		Tags:       []string{"human-in-the-loop", "question", "approval"},
		Examples:   []string{"May I deploy build 1432 to production?", `Which venue should we book? {"options": ["Hall A", "Hall B"]}`},
		InputModes: inputModes, OutputModes: outputModes},
	{ID: "ask-a-group", Name: "Ask a group",
		Description: `Asks a group of people, the first to answer answering for them all: a data part with {"assigned_to": ["group:NAME"]}, ` +
			`or "pool:NAME" to hand it to one member in turn.`,
		Tags:       []string{"human-in-the-loop", "group", "approval"},
		Examples:   []string{`Can someone on call approve the rollback? {"assigned_to": ["group:oncall"]}`},
		InputModes: inputModes, OutputModes: outputModes},
}

// cardFor is the card as served to r: the endpoint's URL is under the public URL, else the
// host the request came to.
func (a *API) cardFor(r *http.Request, skills []skill) agentCard {
	base := httpwire.BaseURL(r, a.publicURL)
	return agentCard{
		ProtocolVersion: "0.3.0",
		Name:            "hitl",
		Description: "People, as an agent: each message is a question that hitl asks people (by its inbox, email, Slack, chat), " +
			"and its task completes with their answer.",
		URL:                base + Path,
		PreferredTransport: "JSONRPC",
		Version:            buildinfo.Get().Version,
		DocumentationURL:   "https://github.com/hitl-dev/hitl/blob/main/docs/a2a.md",
		Capabilities:       capabilities{Streaming: true, PushNotifications: true, ExtendedAgentCard: true},
		SecuritySchemes: map[string]securityScheme{securitySchemeName: {Type: "http", Scheme: "bearer", Description: keyDescription,
			HTTPAuthSecurityScheme: httpAuthScheme{Scheme: "bearer", Description: keyDescription}}},
		Security:                          []map[string][]string{{securitySchemeName: {}}},
		SecurityRequirements:              []securityRequirement{{Schemes: map[string]scopeList{securitySchemeName: {List: []string{}}}}},
		DefaultInputModes:                 inputModes,
		DefaultOutputModes:                outputModes,
		Skills:                            skills,
		SupportsAuthenticatedExtendedCard: true,
		SupportedInterfaces: []agentInterface{{URL: base + Path, ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"},
			{URL: base + Path, ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"}},
	}
}

// card serves GET /.well-known/agent-card.json, to anyone: how to call, and the skills every
// server has. The templates, which name an organisation's processes, are on the extended card.
func (a *API) card(w http.ResponseWriter, r *http.Request, _ *hitl.Principal) error {
	return httpwire.WriteJSON(w, http.StatusOK, a.cardFor(r, baseSkills))
}

// extendedCard is agent/getAuthenticatedExtendedCard: the card with a skill per template the
// caller may ask with.
func (a *API) extendedCard(ctx context.Context, p *hitl.Principal, r *http.Request) (agentCard, error) {
	templates, err := a.engine.Templates(ctx, p)
	if err != nil {
		return agentCard{}, err
	}
	skills := append([]skill{}, baseSkills...)
	for _, t := range templates {
		skills = append(skills, skill{ID: "template-" + t.Name, Name: "Ask with template " + t.Name,
			Description: fmt.Sprintf(`Asks as the template %s says: a data part with {"template": %q, "vars": {...}}; the text parts, if any, replace its prompt.`, t.Name, t.Name),
			Tags:        []string{"human-in-the-loop", "template"}, InputModes: inputModes, OutputModes: outputModes})
	}
	return a.cardFor(r, skills), nil
}
