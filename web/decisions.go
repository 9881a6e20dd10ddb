package web

import (
	"fmt"

	"github.com/hitl-dev/hitl"
)

// decisionsView is the Stats page's decision analytics: a chart of the time to decision of
// each breakdown (the time-chart of the response times, from the first view to the answer)
// and a table of the other figures.
type decisionsView struct {
	WordsPerMinute int
	Sections       []decisionSection
}

type decisionSection struct {
	ID, Title, Empty string
	Chart            timeChart
	Rows             []decisionRow
}

type decisionRow struct {
	Name, FirstView, Within, ThisWeek, LastWeek, Change string
	Answers, TooFast                                    int
}

func decisionsViewOf(d *hitl.DecisionAnalytics) *decisionsView {
	if d == nil {
		return nil
	}
	v := &decisionsView{WordsPerMinute: d.ReadingWordsPerMinute}
	for _, s := range []struct {
		id, title, empty string
		rows             []hitl.DecisionFigures
	}{
		{"decisions-total", "Time to decision, in all", "No answers in this window.", []hitl.DecisionFigures{withKey(d.Total, "All")}},
		{"decisions-person", "Time to decision, by who answered", "No answers of yours in this window.", d.ByPerson},
		{"decisions-group", "Time to decision, by the group asked", "No answers to inquiries assigned to a group in this window.", d.ByGroup},
		{"decisions-tool", "Time to decision, by tool", "No answers about tool calls in this window.", d.ByTool},
		{"decisions-template", "Time to decision, by template", "No answers to inquiries made from a template in this window.", d.ByTemplate},
	} {
		sec := decisionSection{ID: s.id, Title: s.title, Empty: s.empty}
		var times []hitl.ResponseTimes
		for _, r := range s.rows {
			t := r.Decision
			t.Key = r.Key
			times = append(times, t)
			sec.Rows = append(sec.Rows, decisionRow{Name: r.Key, Answers: r.Answers, TooFast: r.TooFast,
				FirstView: firstViewText(r.FirstView), Within: percent(r.WithinDeadline), ThisWeek: percent(r.ApprovalThisWeek),
				LastWeek: percent(r.ApprovalLastWeek), Change: change(r.ApprovalChange)})
		}
		sec.Chart = timeChartOf(times)
		v.Sections = append(v.Sections, sec)
	}
	return v
}

func withKey(f hitl.DecisionFigures, key string) hitl.DecisionFigures {
	if f.Answers == 0 {
		return f
	}
	f.Key = key
	return f
}

func firstViewText(r hitl.ResponseTimes) string {
	if r.Count == 0 {
		return "—"
	}
	return took(r.P50Seconds) + " / " + took(r.P90Seconds)
}

func percent(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", *v*100)
}

func change(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%+.0f points", *v*100)
}
