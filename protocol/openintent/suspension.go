package openintent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
	"github.com/hitl-dev/hitl/internal/strictjson"
)

// suspensionKey is the inquiry metadata that keeps the id the SDK gave a suspension (a UUID):
// the inquiry goes by it in the intent's state and in answers, for as long as it is kept.
const suspensionKey = "openintent_suspension_id"

// responseTypeKey is the inquiry metadata that keeps the SDK's response_type where the
// inquiry's shape does not say it: confirm (asked as a choice of yes and no) and form.
const responseTypeKey = "openintent_response_type"

// yesNo are the options a confirm without choices is asked with.
var yesNo = []hitl.Option{{Value: "yes", Label: "Yes"}, {Value: "no", Label: "No"}}

// suspensionRecord is intent.state._suspension: the intent's latest suspension.
type suspensionRecord struct {
	// ID is the SDK's id for a suspension it wrote, else the inquiry's id (a number).
	ID              any             `json:"id"`
	Question        string          `json:"question"`
	ResponseType    string          `json:"response_type"`
	Choices         []suspChoice    `json:"choices,omitempty"`
	Context         json.RawMessage `json:"context"`
	ChannelHint     *string         `json:"channel_hint"`
	SuspendedAt     isoTime         `json:"suspended_at"`
	TimeoutSeconds  *int64          `json:"timeout_seconds"`
	ExpiresAt       *isoTime        `json:"expires_at,omitempty"`
	FallbackPolicy  string          `json:"fallback_policy"`
	FallbackValue   json.RawMessage `json:"fallback_value"`
	Resolution      string          `json:"resolution"`
	Response        json.RawMessage `json:"response"`
	Value           json.RawMessage `json:"value"` // the answer again, as hitl's earlier clients read it
	RespondedBy     *string         `json:"responded_by"`
	RelayedBy       *string         `json:"relayed_by,omitempty"`
	RespondedAt     *isoTime        `json:"responded_at"`
	FallbackApplied bool            `json:"fallback_applied"`
}

// suspChoice is one of a suspension's choices (the SDK's SuspensionChoice), an inquiry option.
type suspChoice struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Style       string `json:"style,omitempty"`
}

// resolution is an inquiry's status under RFC-0025's names.
func resolution(s hitl.Status) string {
	switch s {
	case hitl.StatusPending:
		return "pending"
	case hitl.StatusTimeout:
		return "expired"
	}
	return string(s) // responded, cancelled
}

func suspensionOf(inq *hitl.Inquiry) suspensionRecord {
	rec := suspensionRecord{ID: inq.ID, Question: inq.Prompt, ResponseType: "text", Context: inq.Context, SuspendedAt: isoTime(inq.CreatedAt),
		ExpiresAt: isoTimeOf(inq.TimeoutAt), FallbackPolicy: string(inq.FallbackPolicy), FallbackValue: inq.FallbackValue,
		Resolution: resolution(inq.Status), Response: inq.Response, Value: inq.Response, RespondedBy: inq.RespondedBy,
		RelayedBy: inq.RelayedBy, RespondedAt: isoTimeOf(inq.RespondedAt), FallbackApplied: inq.FallbackApplied}
	if id := inq.Metadata[suspensionKey]; id != "" {
		rec.ID = id
	}
	if len(inq.Options) > 0 {
		rec.ResponseType = "choice"
		for _, o := range inq.Options {
			rec.Choices = append(rec.Choices, suspChoice{Value: o.Value, Label: cmp.Or(o.Label, o.Value), Description: o.Description})
		}
	}
	// The SDK's record as it wrote it: a confirm stays a confirm (without the yes and no
	// this server asked it with, unless it gave choices), a form a form.
	if written := inq.Metadata[responseTypeKey]; written != "" {
		rec.ResponseType = written
		if written == "confirm" && slices.EqualFunc(inq.Options, yesNo, func(a, b hitl.Option) bool { return a.Value == b.Value && a.Label == b.Label }) {
			rec.Choices = nil
		}
	}
	if inq.ChannelHint != "" {
		rec.ChannelHint = &inq.ChannelHint
	}
	if inq.TimeoutAt != nil {
		secs := int64(inq.TimeoutAt.Sub(inq.CreatedAt).Round(time.Second) / time.Second)
		rec.TimeoutSeconds = &secs
	}
	if rec.FallbackPolicy == "" {
		rec.FallbackPolicy = string(hitl.FallbackFail)
	}
	return rec
}

// sdkSuspension is the _suspension the SDK's request_input writes through POST .../state
// (its SuspensionRecord.to_dict()).
type sdkSuspension struct {
	ID             json.RawMessage `json:"id"`
	Question       string          `json:"question"`
	ResponseType   string          `json:"response_type"`
	Choices        []suspChoice    `json:"choices"`
	Context        json.RawMessage `json:"context"`
	ChannelHint    string          `json:"channel_hint"`
	TimeoutSeconds *int64          `json:"timeout_seconds"`
	ExpiresAt      *pyTime         `json:"expires_at"`
	FallbackPolicy string          `json:"fallback_policy"`
	FallbackValue  json.RawMessage `json:"fallback_value"`
	Confidence     *float64        `json:"confidence_at_suspension"`
}

// readSuspension reads the _suspension the SDK wrote. The SDK's record may carry members this
// server does not read (and what it read back from this server: resolution, response, ...),
// so unknown members are let through; a member of the wrong type is refused, in the SDK's
// names.
func readSuspension(raw json.RawMessage) (*sdkSuspension, error) {
	var s sdkSuspension
	err := json.Unmarshal(raw, &s)
	var typeErr *json.UnmarshalTypeError
	var de *hitl.Error
	switch {
	case err == nil:
		return &s, nil
	case errors.As(err, &de):
		return nil, err // a member that reads itself (expires_at) says what it wants
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return nil, hitl.Errorf(hitl.EInvalid, "state._suspension.%s must be %s, not a JSON %s (the SDK's SuspensionRecord)", typeErr.Field, strictjson.Describe(typeErr.Type), typeErr.Value)
	case errors.As(err, &typeErr):
		return nil, hitl.Errorf(hitl.EInvalid, "state._suspension must be an object (the SDK's SuspensionRecord), not a JSON %s", typeErr.Value)
	}
	return nil, hitl.Errorf(hitl.EInvalid, "state._suspension must be an object (the SDK's SuspensionRecord)")
}

// suspensionText is a suspension id as text: a string as it is, a number as its digits.
func suspensionText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" && len(s) <= 200 {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	return "", hitl.Errorf(hitl.EInvalid, "_suspension.id is required: the suspension's id, a string of at most 200 characters (the SDK gives a UUID)")
}

// askOf is the inquiry that asks what s asks, in the session key; it keeps s's id.
func askOf(key, id, origin string, s *sdkSuspension) (*hitl.InquiryRequest, error) {
	req := &hitl.InquiryRequest{Prompt: s.Question, Context: s.Context, Session: key, Origin: origin, ChannelHint: s.ChannelHint,
		TimeoutSeconds: s.TimeoutSeconds, FallbackPolicy: hitl.FallbackPolicy(s.FallbackPolicy), FallbackValue: s.FallbackValue,
		Confidence: s.Confidence, Metadata: map[string]string{suspensionKey: id}}
	if req.TimeoutSeconds == nil && s.ExpiresAt != nil {
		at := time.Time(*s.ExpiresAt)
		req.TimeoutAt = &at
	}
	if emptyObject(req.Context) {
		req.Context = nil
	}
	switch s.ResponseType {
	case "", "choice", "confirm", "text":
		for _, c := range s.Choices {
			req.Options = append(req.Options, hitl.Option{Value: c.Value, Label: c.Label, Description: c.Description})
		}
		if s.ResponseType == "confirm" && len(req.Options) == 0 {
			req.Options = slices.Clone(yesNo)
		}
		if len(req.Options) == 0 {
			req.RequestType = hitl.RequestInput
		}
	case "form":
		req.RequestType = hitl.RequestInput
		req.ResponseSchema = json.RawMessage(`{"type":"object"}`)
	default:
		return nil, hitl.Errorf(hitl.EInvalid, "_suspension.response_type must be choice, confirm, text or form")
	}
	if s.ResponseType == "confirm" || s.ResponseType == "form" {
		req.Metadata[responseTypeKey] = s.ResponseType // what the inquiry's shape does not say
	}
	return req, nil
}

// suspensionInquiry is the id of the inquiry a suspension id names in the session key: the
// one that keeps it as the SDK's id, else the inquiry of that number. 0 when there is none.
func suspensionInquiry(inqs []*hitl.Inquiry, id string) int64 {
	for _, inq := range inqs {
		if inq.Metadata[suspensionKey] == id {
			return inq.ID
		}
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return 0
	}
	for _, inq := range inqs {
		if inq.ID == n {
			return n
		}
	}
	return 0
}

// findSuspension is the inquiry a suspension id names in the intent key, as p may see it.
func (a *API) findSuspension(ctx context.Context, p *hitl.Principal, key string, raw json.RawMessage) (int64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || hitl.IsNull(raw) {
		return 0, hitl.Errorf(hitl.EInvalid, "suspension_id is required: the id of the suspension to answer, from the intent's state._suspension.id")
	}
	id, err := suspensionText(raw)
	if err != nil {
		return 0, hitl.Errorf(hitl.EInvalid, "suspension_id must be the id of the suspension to answer (a string or a number), from the intent's state._suspension.id")
	}
	inqs, err := a.engine.SessionInquiries(ctx, p, key)
	if err != nil {
		return 0, err
	}
	if n := suspensionInquiry(inqs, id); n != 0 {
		return n, nil
	}
	// A number that is no inquiry of this session: the engine says whose it is, if anyone's.
	if n, err := strconv.ParseInt(id, 10, 64); err == nil && n > 0 {
		return n, nil
	}
	return 0, hitl.Errorf(hitl.ENotFound, "suspension %s not found in intent %s", id, key)
}

// statePatch is one change of POST .../state: the SDK's update_state sends {"op": "set",
// "path": KEY, "value": ...} for each key it is given; OpenIntent's servers also take a path
// of several keys ("/a/b"), append and remove.
type statePatch struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// stateChange is the body of POST /api/v1/intents/{intent_id}/state: patches, or a state
// whose keys are each set.
type stateChange struct {
	Patches []statePatch               `json:"patches"`
	State   map[string]json.RawMessage `json:"state"`
}

// patchState serves POST /api/v1/intents/{intent_id}/state: the keys it sets are the
// session's state, and a _suspension written whole asks a person, as an inquiry of the session
// that keeps the SDK's id; both at the version in If-Match.
func (a *API) patchState(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req stateChange
	if err := httpwire.Decode(r, &req); err != nil {
		return withHint(err, `the body is {"patches": [{"op": "set", "path": "KEY", "value": ...}]} or {"state": {KEY: VALUE}}: patches or state is required`)
	}
	version, err := ifMatch(r)
	if err != nil {
		return err
	}
	for k, v := range req.State {
		req.Patches = append(req.Patches, statePatch{Op: "set", Path: k, Value: v})
	}
	if len(req.Patches) == 0 {
		return hitl.Errorf(hitl.EInvalid, `patches are required: [{"op": "set", "path": "KEY", "value": ...}], or a state object whose keys are set`)
	}
	ctx, key := r.Context(), r.PathValue("intent_id")
	sess, err := a.engine.Session(ctx, p, key)
	if err != nil {
		return err
	}
	if err := unchangeable(sess); err != nil {
		return err
	}
	if !hitl.IsNull(sess.State) && !bytes.HasPrefix(bytes.TrimSpace(sess.State), []byte("{")) {
		return hitl.Errorf(hitl.EConflict, "the state of session %s is no JSON object, which patches could change: set it whole with PUT /v1/sessions/%s", key, key)
	}
	state := stateOf(sess)
	var suspension json.RawMessage
	changed := false
	for i, patch := range req.Patches {
		path := strings.FieldsFunc(patch.Path, func(r rune) bool { return r == '/' })
		switch {
		case len(path) == 0:
			return hitl.Errorf(hitl.EInvalid, "patches[%d].path is required: the key to change, as KEY or /KEY/SUBKEY", i)
		case path[0] == "_suspension" && (len(path) > 1 || patch.Op != "set"):
			return hitl.Errorf(hitl.EInvalid, "patches[%d]: _suspension is written whole, with op set, to ask a person; its answer is written by this server", i)
		case path[0] == "_suspension":
			suspension = patch.Value
			continue
		}
		if err := applyPatch(state, path, patch, i); err != nil {
			return err
		}
		changed = true
	}
	// The question is read and checked before the state changes, so that a request refused
	// for its _suspension writes nothing.
	var ask *hitl.InquiryRequest
	if suspension != nil {
		if ask, err = a.suspension(r, p, sess, suspension); err != nil {
			return err
		}
	}
	if changed {
		encoded, err := json.Marshal(state)
		if err != nil {
			return err
		}
		if _, _, err := a.engine.PutSession(ctx, p, key, &hitl.SessionRequest{State: encoded, Metadata: changeMarked(sess, changeState), IfVersion: version}); err != nil {
			return err
		}
		if version != nil {
			next := *version + 1 // the change just made; another one since is a conflict
			version = &next
		}
	}
	if ask != nil {
		ask.IfSessionVersion = version
		// The id is the idempotency key too: two writes of one suspension at once ask once.
		if _, _, err := a.engine.CreateInquiry(ctx, p, ask, "openintent-suspension:"+ask.Metadata[suspensionKey]); err != nil {
			return err
		}
	}
	return a.writeIntent(w, ctx, p, key, http.StatusOK)
}

// suspension is the question a _suspension written by the SDK asks, or nil when the session
// already has the inquiry of its id (the SDK wrote it again, or wrote back what it read).
func (a *API) suspension(r *http.Request, p *hitl.Principal, sess *hitl.Session, raw json.RawMessage) (*hitl.InquiryRequest, error) {
	s, err := readSuspension(raw)
	if err != nil {
		return nil, err
	}
	id, err := suspensionText(s.ID)
	if err != nil {
		return nil, err
	}
	inqs, err := a.engine.SessionInquiries(r.Context(), p, sess.Key)
	if err != nil {
		return nil, err
	}
	if suspensionInquiry(inqs, id) != 0 {
		return nil, nil
	}
	// The intent's state has one _suspension: a second one asked while the first waits would
	// hide it from the agent that polls it.
	for _, inq := range inqs {
		if inq.Status == hitl.StatusPending {
			return nil, hitl.Errorf(hitl.EConflict, "suspension %s is still waiting for an answer; a new _suspension can be written once it is answered, expires or is cancelled (or ask again with the same id)",
				suspensionOf(inq).ID)
		}
	}
	req, err := askOf(sess.Key, id, cmp.Or(r.Header.Get("X-Agent-ID"), sess.Agent), s)
	if err != nil {
		return nil, err
	}
	return req, a.engine.CheckInquiry(r.Context(), p, req)
}

// applyPatch applies one patch (not of _suspension) to state.
func applyPatch(state map[string]any, path []string, patch statePatch, i int) error {
	parent := state
	for depth, k := range path[:len(path)-1] {
		v, exists := parent[k]
		if !exists {
			if patch.Op == "remove" {
				return nil
			}
			v = map[string]any{}
			parent[k] = v
		}
		next, ok := v.(map[string]any)
		if !ok {
			return hitl.Errorf(hitl.EInvalid, "patches[%d].path %q: state.%s is not an object, so it has no key %q", i, patch.Path, strings.Join(path[:depth+1], "."), path[depth+1])
		}
		parent = next
	}
	last := path[len(path)-1]
	var value any
	if patch.Op != "remove" {
		if len(bytes.TrimSpace(patch.Value)) == 0 {
			return hitl.Errorf(hitl.EInvalid, "patches[%d].value is required for %s", i, patch.Op)
		}
		d := json.NewDecoder(bytes.NewReader(patch.Value))
		d.UseNumber()
		if err := d.Decode(&value); err != nil {
			return hitl.Errorf(hitl.EInvalid, "patches[%d].value is no JSON value", i)
		}
	}
	switch patch.Op {
	case "set", "add", "replace":
		parent[last] = value
	case "append":
		list, _ := parent[last].([]any)
		parent[last] = append(list, value)
	case "remove":
		delete(parent, last)
	default:
		return hitl.Errorf(hitl.EInvalid, "patches[%d].op must be set, append or remove, not %q", i, patch.Op)
	}
	return nil
}
