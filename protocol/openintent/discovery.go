package openintent

import (
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// protocolVersion is the OpenIntent protocol version its SDK 0.17.0 and reference server speak.
const protocolVersion = "0.1"

// discovery serves GET /.well-known/openintent.json (the SDK's discover()): what this server
// is and which of OpenIntent's capabilities it serves, under the reference server's names.
func (a *API) discovery(w http.ResponseWriter, r *http.Request, _ *hitl.Principal) error {
	return httpwire.WriteJSON(w, http.StatusOK, map[string]any{
		"protocol":       "OpenIntent Coordination Protocol",
		"version":        protocolVersion,
		"implementation": "hitl",
		"rfcUrls":        []string{"/rfc/0001", "/rfc/0025"},
		// What an agent needs to ask people: intents (sessions) with their state, status,
		// events and assignment, versions on If-Match, suspensions answered by people.
		"capabilities": []string{"intents", "events", "agents", "state-patches", "optimistic-concurrency", "subscriptions", "human-in-the-loop"},
		"endpoints": map[string]string{
			"intents":         "/api/v1/intents",
			"agent_subscribe": "/api/v1/agents/{agent_id}/subscribe",
			"server_config":   "/api/v1/server/config",
		},
		"authentication": map[string]string{"header": "X-API-Key", "alternative": "Authorization: Bearer"},
	})
}

// serverConfig serves GET /api/v1/server/config (RFC-0026, the SDK's get_server_config):
// hitl has no platform default retry policy; an inquiry's reminders and escalation are its own.
func (a *API) serverConfig(w http.ResponseWriter, r *http.Request, _ *hitl.Principal) error {
	return httpwire.WriteJSON(w, http.StatusOK, map[string]any{
		"protocol_version": protocolVersion,
		"suspension":       map[string]any{"default_retry_policy": nil},
	})
}
