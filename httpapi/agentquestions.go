package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
)

// The async agent questions protocol (/agent/...), so that a client written for it uses hitl
// unchanged: a session is an agent run, an inquiry in it a question, its id a string. It maps
// shapes only; which question an answer is for, and who may answer, the engine decides
// (engine/agentquestions.go).

// agentQuestion is a question as the protocol lists it.
type agentQuestion struct {
	ID        string          `json:"id"`
	SessionID string          `json:"session_id"`
	AgentName string          `json:"agent_name"`
	Question  string          `json:"question"`
	Options   []string        `json:"options"`
	Context   json.RawMessage `json:"context"`
	AskedAt   time.Time       `json:"asked_at"`
	Status    hitl.Status     `json:"status"`
}

// agentSession is a session as the protocol shows it.
type agentSession struct {
	ID             string          `json:"id"`
	AgentName      string          `json:"agent_name"`
	Status         string          `json:"status"`
	Result         json.RawMessage `json:"result"`
	QuestionsAsked int             `json:"questions_asked"`
	CreatedAt      time.Time       `json:"created_at"`
	CompletedAt    *time.Time      `json:"completed_at"`
}

// agentStatus is a session's status in the protocol's four words: a run waiting for an answer
// is pending_input, one cancelled has failed to complete.
var agentStatus = map[hitl.SessionStatus]string{
	hitl.SessionRunning:       "running",
	hitl.SessionAwaitingInput: "pending_input",
	hitl.SessionCompleted:     "completed",
	hitl.SessionFailed:        "failed",
	hitl.SessionCancelled:     "failed",
}

// agentQuestions serves GET /agent/questions?status=pending: the questions asked in sessions
// that the caller may see, oldest first.
func (s *Server) agentQuestions(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	items, sessions, err := s.engine.SessionQuestions(r.Context(), p, hitl.Status(r.URL.Query().Get("status")))
	if err != nil {
		return err
	}
	out := make([]agentQuestion, len(items))
	for i, inq := range items {
		out[i] = agentQuestion{ID: engine.QuestionID(inq.ID), SessionID: inq.Session, Question: inq.Prompt,
			Options: engine.OptionValues(inq), Context: engine.QuestionContext(inq), AskedAt: inq.CreatedAt, Status: inq.Status}
		if sess := sessions[inq.Session]; sess != nil {
			out[i].AgentName = sess.Agent
		}
	}
	return writeJSON(w, http.StatusOK, map[string][]agentQuestion{"questions": out})
}

// agentAnswer serves POST /agent/answer/{session_id} {"question_id", "answer"}; question_id,
// a string or a number, may be left out when the session has one pending question.
func (s *Server) agentAnswer(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req struct {
		QuestionID json.RawMessage `json:"question_id"`
		Answer     json.RawMessage `json:"answer"`
	}
	if err := decode(r, &req); err != nil {
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
	if _, err := s.engine.AnswerSessionQuestion(r.Context(), p, key, id, &hitl.ResponseRequest{Response: req.Answer}); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"ok": true, "status": "resumed", "session_id": key})
}

// questionID reads question_id: absent or null (0, the single pending question), a question's
// id, or that id as a string.
func questionID(raw json.RawMessage) (int64, error) {
	if hitl.IsNull(raw) {
		return 0, nil
	}
	text, id := idInJSON(raw)
	if id == 0 {
		return 0, hitl.Errorf(hitl.ENotFound, "question %s not found: question ids are the ids that GET /agent/questions lists", text)
	}
	return id, nil
}

// agentSessionStatus serves GET /agent/session/{session_id}.
func (s *Server) agentSessionStatus(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	sess, err := s.engine.Session(r.Context(), p, r.PathValue("session_id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, agentSession{ID: sess.Key, AgentName: sess.Agent, Status: agentStatus[sess.Status],
		Result: sess.Result, QuestionsAsked: sess.InquiriesAsked, CreatedAt: sess.CreatedAt, CompletedAt: sess.CompletedAt})
}
