package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Decision analytics as metrics, labelled by group, template and tool only: never by person,
// so that nobody reading the metrics learns how one person decides.

// DecisionLabels are the labels of one observation: the group (as the response-time histogram
// names it), the template ("" none) and the tool ("" none).
type DecisionLabels struct{ Group, Template, Tool string }

var decisionLabelNames = []string{"group", "template", "tool"}

type decisionMetrics struct {
	firstView *prometheus.HistogramVec
	decision  *prometheus.HistogramVec
	tooFast   *prometheus.CounterVec
}

func newDecisionMetrics(reg *prometheus.Registry) *decisionMetrics {
	d := &decisionMetrics{
		firstView: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hitl_time_to_first_view_seconds",
			Help: "Time from an inquiry's creation to the first time someone who could answer it opened it, by group, template and tool.", Buckets: responseBuckets},
			decisionLabelNames),
		decision: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hitl_decision_seconds",
			Help: "Time from the answerer's first view (or the creation, when not seen through this node) to the answer, by group, template and tool.", Buckets: responseBuckets},
			decisionLabelNames),
		tooFast: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hitl_decisions_too_fast_total",
			Help: "Answers given in less time than reading the prompt and context takes at --reading-words-per-minute, by group, template and tool."},
			decisionLabelNames),
	}
	reg.MustRegister(d.firstView, d.decision, d.tooFast)
	return d
}

// FirstView records the time from an inquiry's creation to its first view, under each of labels.
func (m *Metrics) FirstView(after time.Duration, labels []DecisionLabels) {
	if m == nil {
		return
	}
	d := m.decisions
	for _, l := range labels {
		d.firstView.WithLabelValues(l.Group, l.Template, l.Tool).Observe(after.Seconds())
	}
}

// Decided records a decision's time, and whether it was faster than reading, under each of labels.
func (m *Metrics) Decided(took time.Duration, tooFast bool, labels []DecisionLabels) {
	if m == nil {
		return
	}
	d := m.decisions
	for _, l := range labels {
		d.decision.WithLabelValues(l.Group, l.Template, l.Tool).Observe(took.Seconds())
		if tooFast {
			d.tooFast.WithLabelValues(l.Group, l.Template, l.Tool).Inc()
		} else {
			d.tooFast.WithLabelValues(l.Group, l.Template, l.Tool).Add(0)
		}
	}
}
