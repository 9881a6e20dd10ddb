package engine

import (
	"fmt"
)

// Signals describe an action an agent is about to take, each from 0 to 1.
type Signals struct {
	Confidence    *float64 `json:"confidence"`
	Risk          *float64 `json:"risk"`
	Reversibility *float64 `json:"reversibility"`
}

// Decision says whether to ask a human before acting.
type Decision struct {
	Mode      string `json:"mode"`
	ShouldAsk bool   `json:"should_ask"`
	Rationale string `json:"rationale"`
}

// Decide maps signals to an engagement mode. The rules, in order: defer when the risk is too
// high or the action too irreversible to act or even to ask quickly; require input when
// confidence is low or risk high; act autonomously when confident, low-risk and reversible;
// otherwise request input. The same signals always give the same decision.
func (e *Engine) Decide(s Signals) (Decision, error) {
	var bad problems
	for _, f := range []struct {
		path string
		v    *float64
	}{{"/confidence", s.Confidence}, {"/risk", s.Risk}, {"/reversibility", s.Reversibility}} {
		switch {
		case f.v == nil:
			bad.add(f.path, "is required")
		case *f.v < 0 || *f.v > 1:
			bad.add(f.path, "must be between 0 and 1")
		}
	}
	if err := bad.err("invalid signals"); err != nil {
		return Decision{}, err
	}
	c, r, rev := *s.Confidence, *s.Risk, *s.Reversibility
	t := e.thresholds
	switch {
	case r >= t.DeferRisk || rev <= t.DeferReversibility:
		return Decision{"defer", false, fmt.Sprintf("risk %.2f (defer at ≥ %.2f) or reversibility %.2f (defer at ≤ %.2f) is too high a stake: hand the decision to a person outside this run", r, t.DeferRisk, rev, t.DeferReversibility)}, nil
	case c < t.RequireConfidence || r >= t.RequireRisk:
		return Decision{"require_input", true, fmt.Sprintf("confidence %.2f (require below %.2f) or risk %.2f (require at ≥ %.2f): a human must decide", c, t.RequireConfidence, r, t.RequireRisk)}, nil
	case c >= t.AutonomousConfidence && r <= t.AutonomousRisk && rev >= t.AutonomousReversibility:
		return Decision{"autonomous", false, fmt.Sprintf("confidence %.2f, risk %.2f and reversibility %.2f are within the autonomous limits (≥ %.2f, ≤ %.2f, ≥ %.2f)", c, r, rev, t.AutonomousConfidence, t.AutonomousRisk, t.AutonomousReversibility)}, nil
	default:
		return Decision{"request_input", true, fmt.Sprintf("moderate uncertainty (confidence %.2f, risk %.2f, reversibility %.2f): ask, and go on with a fallback if nobody answers", c, r, rev)}, nil
	}
}
