// Package agentquestions serves the async agent questions protocol (/agent/...), so that a
// client written for it uses hitl unchanged: a session is an agent run, an inquiry in it a
// question, its id a string. It maps shapes only; which question an answer is for, and who may
// answer, the engine decides (engine/sessionanswers.go).
package agentquestions

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// questionView is a question as the protocol lists it.
type questionView struct {
	ID        string          `json:"id"`
	SessionID string          `json:"session_id"`
	AgentName string          `json:"agent_name"`
	Question  string          `json:"question"`
	Options   []string        `json:"options"`
	Context   json.RawMessage `json:"context"`
	AskedAt   time.Time       `json:"asked_at"`
	Status    hitl.Status     `json:"status"`
}

// sessionView is a session as the protocol shows it.
type sessionView struct {
	ID             string          `json:"id"`
	AgentName      string          `json:"agent_name"`
	Status         string          `json:"status"`
	Result         json.RawMessage `json:"result"`
	QuestionsAsked int             `json:"questions_asked"`
	CreatedAt      time.Time       `json:"created_at"`
	CompletedAt    *time.Time      `json:"completed_at"`
}

// statusWords is a session's status in the protocol's four words: a run waiting for an answer
// is pending_input, one cancelled has failed to complete.
var statusWords = map[hitl.SessionStatus]string{
	hitl.SessionRunning:       "running",
	hitl.SessionAwaitingInput: "pending_input",
	hitl.SessionCompleted:     "completed",
	hitl.SessionFailed:        "failed",
	hitl.SessionCancelled:     "failed",
}

// API serves the protocol's routes on the engine.
type API struct {
	engine *engine.Engine
}

// New returns the protocol's routes on e.
func New(e *engine.Engine) *API { return &API{engine: e} }

// Mount adds the protocol's routes to r.
func (a *API) Mount(r httpwire.Router) {
	r.Handle(httpwire.Route{Method: "GET", Path: "/agent/questions", Query: []string{"status"}, Handle: a.questions})
	r.Handle(httpwire.Route{Method: "POST", Path: "/agent/answer/{session_id}", Handle: a.answer})
	r.Handle(httpwire.Route{Method: "GET", Path: "/agent/session/{session_id}", Handle: a.sessionStatus})
}

// questions serves GET /agent/questions?status=pending: the questions asked in sessions
// that the caller may see, oldest first.
func (a *API) questions(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	items, sessions, err := a.engine.SessionQuestions(r.Context(), p, hitl.Status(r.URL.Query().Get("status")))
	if err != nil {
		return err
	}
	out := make([]questionView, len(items))
	for i, inq := range items {
		out[i] = questionView{ID: engine.QuestionID(inq.ID), SessionID: inq.Session, Question: inq.Prompt,
			Options: engine.OptionValues(inq), Context: engine.QuestionContext(inq), AskedAt: inq.CreatedAt, Status: inq.Status}
		if sess := sessions[inq.Session]; sess != nil {
			out[i].AgentName = sess.Agent
		}
	}
	return httpwire.WriteJSON(w, http.StatusOK, map[string][]questionView{"questions": out})
}

// answer serves POST /agent/answer/{session_id} {"question_id", "answer"}; question_id,
// a string or a number, may be left out when the session has one pending question.
func (a *API) answer(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req struct {
		QuestionID json.RawMessage `json:"question_id"`
		Answer     json.RawMessage `json:"answer"`
	}
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	if req.Answer == nil {
		return hitl.Errorf(hitl.EInvalid, "answer is required: the body is {\"question_id\": \"...\", \"answer\": ...}")
	}
	id, err := questionID(req.QuestionID)
	if err != nil {
		return err
	}
	key := r.PathValue("session_id")
	if _, err := a.engine.RespondInSession(r.Context(), p, key, id, &hitl.ResponseRequest{Response: req.Answer}); err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, map[string]any{"ok": true, "status": "resumed", "session_id": key})
}

// questionID reads question_id: absent or null (0, the single pending question), a question's
// id, or that id as a string.
func questionID(raw json.RawMessage) (int64, error) {
	if hitl.IsNull(raw) {
		return 0, nil
	}
	text, id := httpwire.IDInJSON(raw)
	if id == 0 {
		return 0, hitl.Errorf(hitl.ENotFound, "question %s not found: question ids are the ids that GET /agent/questions lists", text)
	}
	return id, nil
}

// sessionStatus serves GET /agent/session/{session_id}.
func (a *API) sessionStatus(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	sess, err := a.engine.Session(r.Context(), p, r.PathValue("session_id"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, sessionView{ID: sess.Key, AgentName: sess.Agent, Status: statusWords[sess.Status],
		Result: sess.Result, QuestionsAsked: sess.InquiriesAsked, CreatedAt: sess.CreatedAt, CompletedAt: sess.CompletedAt})
}
