package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"sync"
	"time"
	"unicode"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/metrics"
)

// Decision analytics: how people decide, per person, group, tool and template (the Stats
// page, GET /v1/stats's "decisions", `hitl stats`). Each person's first view of an inquiry
// they may answer is recorded once (inquiry_views); the figures are computed here from the
// answered inquiries of the window and those first views, so that both stores give the same.

// DefaultReadingWordsPerMinute is the reading speed "decided faster than it could be read"
// assumes (--reading-words-per-minute).
const DefaultReadingWordsPerMinute = 240

// maxRememberedViews bounds the set of views already recorded that this node remembers; when
// it is full it starts again (a view recorded again changes nothing in the store).
const maxRememberedViews = 100000

type viewKey struct {
	id     int64
	person string
}

type analytics struct {
	wordsPerMinute int
	mu             sync.Mutex
	// recorded are the first views this node recorded, and when; seen the inquiries it saw
	// viewed by anyone (the metric of the time to first view counts each once).
	recorded map[viewKey]time.Time
	seen     map[int64]bool
	// templates and tools are the names the metrics label (at most maxMetricNames each; the
	// rest are "other"): tool names come from agents, which must not grow the metrics.
	templates, tools map[string]bool
}

// maxMetricNames bounds the templates and the tools the decision metrics name.
const maxMetricNames = 100

// Viewed records that p saw inq, when p may answer it now and has not been recorded seeing it:
// the first view is written once, later views write nothing (the node remembers those it
// recorded, and the store keeps the first of any others). The asking agent's reads and a
// final inquiry's views are not views of a decision to make. Best effort: a view that cannot
// be recorded is logged, and the page or answer it came with goes on.
func (e *Engine) Viewed(ctx context.Context, p *hitl.Principal, inq *hitl.Inquiry) {
	if inq == nil || inq.Status != hitl.StatusPending || mayAnswer(p, inq) != nil {
		return
	}
	k := viewKey{inq.ID, p.Name}
	a := &e.analytics
	at := e.clock()
	a.mu.Lock()
	_, done := a.recorded[k]
	firstOfAll := !a.seen[inq.ID]
	if !done {
		if a.recorded == nil || len(a.recorded) >= maxRememberedViews {
			a.recorded, a.seen = map[viewKey]time.Time{}, map[int64]bool{}
		}
		a.recorded[k], a.seen[inq.ID] = at, true
	}
	a.mu.Unlock()
	if done {
		return
	}
	if firstOfAll {
		e.metrics.FirstView(max(at.Sub(inq.CreatedAt), 0), e.decisionLabels(inq))
	}
	if err := e.store.Update(ctx, func(tx hitl.Tx) error { return tx.RecordView(inq.ID, p.Name, at) }); err != nil {
		a.mu.Lock()
		delete(a.recorded, k)
		a.mu.Unlock()
		e.log.Warn("the first view of an inquiry was not recorded", "inquiry_id", inq.ID, "error", err)
	}
}

// decisionAnalytics computes the figures of the answers from from to now that p may see (all
// for admins), and the approval rates of this week and the last. Rows by person name only p
// themself unless p is an admin: nobody learns how another person decides from them.
func (e *Engine) decisionAnalytics(ctx context.Context, p *hitl.Principal, from, now time.Time) (*hitl.DecisionAnalytics, bool, error) {
	weekAgo, twoWeeksAgo := now.Add(-7*24*time.Hour), now.Add(-14*24*time.Hour)
	facts, more, err := e.store.Decisions(ctx, hitl.DecisionQuery{From: earliest(from, twoWeeksAgo), Until: now,
		Visibility: visibility(p), Max: hitl.StatsMaxAnswers})
	if err != nil {
		return nil, false, err
	}
	wpm := e.analytics.wordsPerMinute
	total := &figures{}
	by := [4]map[string]*figures{{}, {}, {}, {}} // person, group, tool, template
	for _, f := range facts {
		inq := f.Inquiry
		answered := inq.UpdatedAt
		if inq.RespondedAt != nil {
			answered = *inq.RespondedAt
		}
		var keys [4][]string
		if inq.RespondedBy != nil && (p.IsAdmin() || *inq.RespondedBy == p.Name) {
			keys[0] = []string{*inq.RespondedBy}
		}
		for _, a := range inq.AssignedTo {
			if g, ok := hitl.GroupOf(a); ok && !slices.Contains(keys[1], g) {
				keys[1] = append(keys[1], g)
			}
		}
		if inq.ToolCall != nil && inq.ToolCall.Name != "" {
			keys[2] = []string{inq.ToolCall.Name}
		}
		if inq.Template != "" {
			keys[3] = []string{inq.Template}
		}
		rows := []*figures{total}
		for i, ks := range keys {
			for _, k := range ks {
				if by[i][k] == nil {
					by[i][k] = &figures{}
				}
				rows = append(rows, by[i][k])
			}
		}
		if inq.Status != hitl.StatusResponded {
			// Timed out: it counts only in the share answered within the deadline.
			if !answered.Before(from) {
				for _, r := range rows {
					r.withDeadline++
				}
			}
			continue
		}
		if approved, ok := approvedOf(inq); ok && !answered.Before(twoWeeksAgo) {
			for _, r := range rows {
				r.approval(!answered.Before(weekAgo), approved)
			}
		}
		if answered.Before(from) {
			continue
		}
		start := inq.CreatedAt
		if f.AnswererViewAt != nil {
			start = *f.AnswererViewAt
		}
		decision := max(answered.Sub(start), 0)
		tooFast := decision < readingTime(inq, wpm)
		for _, r := range rows {
			r.answers++
			r.decision = append(r.decision, seconds(decision))
			if f.FirstViewAt != nil {
				r.firstView = append(r.firstView, seconds(max(f.FirstViewAt.Sub(inq.CreatedAt), 0)))
			}
			if inq.TimeoutAt != nil {
				r.withDeadline++
				if !answered.After(*inq.TimeoutAt) {
					r.withinDeadline++
				}
			}
			if tooFast {
				r.tooFast++
			}
		}
	}
	out := &hitl.DecisionAnalytics{ReadingWordsPerMinute: wpm, Total: total.result(""),
		ByPerson: rowsOf(by[0]), ByGroup: rowsOf(by[1]), ByTool: rowsOf(by[2]), ByTemplate: rowsOf(by[3])}
	return out, more, nil
}

// figures gathers one row's answers.
type figures struct {
	answers, withDeadline, withinDeadline, tooFast int
	firstView, decision                            []float64
	approvals                                      [2][2]int // [this week, last week][asked, approved]
}

func (f *figures) approval(thisWeek, approved bool) {
	w := 1
	if thisWeek {
		w = 0
	}
	f.approvals[w][0]++
	if approved {
		f.approvals[w][1]++
	}
}

func (f *figures) merge(o *figures) {
	f.answers += o.answers
	f.withDeadline += o.withDeadline
	f.withinDeadline += o.withinDeadline
	f.tooFast += o.tooFast
	f.firstView = append(f.firstView, o.firstView...)
	f.decision = append(f.decision, o.decision...)
	for w := range f.approvals {
		for i := range f.approvals[w] {
			f.approvals[w][i] += o.approvals[w][i]
		}
	}
}

func (f *figures) result(key string) hitl.DecisionFigures {
	r := hitl.DecisionFigures{Key: key, Answers: f.answers, FirstView: percentiles("", f.firstView), Decision: percentiles("", f.decision),
		WithDeadline: f.withDeadline, TooFast: f.tooFast}
	if f.withDeadline > 0 {
		r.WithinDeadline = share(f.withinDeadline, f.withDeadline)
	}
	if f.approvals[0][0] > 0 {
		r.ApprovalThisWeek = share(f.approvals[0][1], f.approvals[0][0])
	}
	if f.approvals[1][0] > 0 {
		r.ApprovalLastWeek = share(f.approvals[1][1], f.approvals[1][0])
	}
	if r.ApprovalThisWeek != nil && r.ApprovalLastWeek != nil {
		change := math.Round((*r.ApprovalThisWeek-*r.ApprovalLastWeek)*10000) / 10000
		r.ApprovalChange = &change
	}
	return r
}

// share is n of of, to four decimals.
func share(n, of int) *float64 {
	s := math.Round(float64(n)/float64(of)*10000) / 10000
	return &s
}

// rowsOf is the hitl.StatsTop rows with the most answers (ties by name), the rest folded into
// one named hitl.StatsOther.
func rowsOf(by map[string]*figures) []hitl.DecisionFigures {
	names := slices.SortedFunc(maps.Keys(by), func(a, b string) int {
		return cmp.Or(cmp.Compare(by[b].answers, by[a].answers), cmp.Compare(a, b))
	})
	out := []hitl.DecisionFigures{}
	for _, n := range names[:min(hitl.StatsTop, len(names))] {
		out = append(out, by[n].result(n))
	}
	if len(names) > hitl.StatsTop {
		rest := &figures{}
		for _, n := range names[hitl.StatsTop:] {
			rest.merge(by[n])
		}
		out = append(out, rest.result(hitl.StatsOther))
	}
	return out
}

// approvedOf says whether an answered approval approved: {"approved": true}, or a tool call
// approved or edited (it runs); ok is false for any other kind of question.
func approvedOf(inq *hitl.Inquiry) (approved, ok bool) {
	if inq.ToolResult != nil && inq.ToolResult.Decision != "" {
		d := inq.ToolResult.Decision
		return d == hitl.DecisionApprove || d == hitl.DecisionEdit, d != hitl.DecisionRespond
	}
	if inq.RequestType != hitl.RequestApproval {
		return false, false
	}
	var a struct {
		Approved bool `json:"approved"`
	}
	_ = json.Unmarshal(inq.Response, &a)
	return a.Approved, true
}

// readingTime is how long reading what the inbox shows of inq takes at wpm words a minute:
// the prompt, the context and the tool call's arguments, whose words are the runs of letters
// and digits (the keys of the context count: the inbox shows them).
func readingTime(inq *hitl.Inquiry, wpm int) time.Duration {
	words := countWords(inq.Prompt) + countWords(string(inq.Context))
	if inq.ToolCall != nil {
		words += countWords(string(inq.ToolCall.Arguments))
	}
	return time.Duration(words) * time.Minute / time.Duration(max(wpm, 1))
}

// countWords counts the runs of letters and digits in s without making a slice of them:
// every answer's metrics read it, on the way that wakes the agent.
func countWords(s string) int {
	n, in := 0, false
	for _, r := range s {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		if word && !in {
			n++
		}
		in = word
	}
	return n
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// observeDecision records an answer in the decision metrics: its time from the answerer's
// first view through this node (from the creation otherwise: the answer path reads nothing
// more from the store), and whether it was faster than reading.
func (e *Engine) observeDecision(inq *hitl.Inquiry) {
	if e.metrics == nil || inq.RespondedBy == nil {
		return
	}
	start, answered := inq.CreatedAt, inq.UpdatedAt
	if inq.RespondedAt != nil {
		answered = *inq.RespondedAt
	}
	e.analytics.mu.Lock()
	if at, ok := e.analytics.recorded[viewKey{inq.ID, *inq.RespondedBy}]; ok {
		start = at
	}
	e.analytics.mu.Unlock()
	took := max(answered.Sub(start), 0)
	e.metrics.Decided(took, took < readingTime(inq, e.analytics.wordsPerMinute), e.decisionLabels(inq))
}

// decisionLabels are the label sets inq is observed under: one per group label.
func (e *Engine) decisionLabels(inq *hitl.Inquiry) []metrics.DecisionLabels {
	a := &e.analytics
	a.mu.Lock()
	template := boundedName(&a.templates, inq.Template)
	tool := ""
	if inq.ToolCall != nil {
		tool = boundedName(&a.tools, inq.ToolCall.Name)
	}
	a.mu.Unlock()
	var out []metrics.DecisionLabels
	for _, g := range e.groupLabels(inq) {
		out = append(out, metrics.DecisionLabels{Group: g, Template: template, Tool: tool})
	}
	return out
}

// boundedName is name as a label: itself while fewer than maxMetricNames are known, else
// hitl.StatsOther; "" stays "" (none).
func boundedName(known *map[string]bool, name string) string {
	if name == "" {
		return ""
	}
	if *known == nil {
		*known = map[string]bool{}
	}
	if (*known)[name] {
		return name
	}
	if len(*known) >= maxMetricNames {
		return hitl.StatsOther
	}
	(*known)[name] = true
	return name
}
