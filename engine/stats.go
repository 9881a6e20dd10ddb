package engine

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// Stats: numbers people can look at (GET /v1/stats, the inbox's Stats page, `hitl stats`).
// The stores read the window's counts and its newest answers; the percentiles and the
// breakdowns are computed here, once, so every store gives the same numbers for the same data.

// ParseStatsWindow reads the length of a stats window: "24h", "7d", "30d"; "" is the default
// of 7 days. It must be more than nothing and at most 366 days.
func ParseStatsWindow(s string) (time.Duration, error) {
	if s == "" {
		return hitl.DefaultStatsWindow, nil
	}
	d, err := hitl.ParseDuration(s)
	if err != nil || d <= 0 || d.Duration() > hitl.MaxStatsWindow {
		return 0, hitl.Errorf(hitl.EInvalid, "since must be a duration of more than 0s and at most 366d, like 24h, 7d or 30d; %.40q is not", s)
	}
	return d.Duration(), nil
}

// statsOwner is whose inquiries the principal's stats count: nil for admins (all of them);
// for responders their own, those they answered and those assigned to them or one of their
// groups. Agents have none: what they asked they follow through their own inquiries.
func statsOwner(p *hitl.Principal) (*hitl.StatsOwner, error) {
	switch {
	case p.IsAdmin():
		return nil, nil
	case p.Has(hitl.RoleResponder):
		return &hitl.StatsOwner{Name: p.Name, Entries: p.Entries()}, nil
	}
	return nil, forbidden("stats need the admin or the responder role; %s is neither (an agent follows its own questions with GET /v1/inquiries)", p.Name)
}

// MayStats reports whether the principal may see stats at all (the inbox shows the link by it).
func MayStats(p *hitl.Principal) bool {
	_, err := statsOwner(p)
	return err == nil
}

// Stats computes the numbers of the window of length since (ParseStatsWindow) that ends now:
// of every inquiry for admins, of its own for a responder (see statsOwner).
func (e *Engine) Stats(ctx context.Context, p *hitl.Principal, since string) (*hitl.Stats, error) {
	owner, err := statsOwner(p)
	if err != nil {
		return nil, err
	}
	window, err := ParseStatsWindow(since)
	if err != nil {
		return nil, err
	}
	now := e.clock()
	from := now.Add(-window)
	data, err := e.store.Stats(ctx, hitl.StatsQuery{From: from, Until: now, Owner: owner, MaxAnswers: hitl.StatsMaxAnswers})
	if err != nil {
		return nil, err
	}
	pending, oldest, err := e.store.OldestPending(ctx, owner)
	if err != nil {
		return nil, err
	}
	st := &hitl.Stats{Since: hitl.Duration(window / time.Second), From: from, Until: now, Scope: hitl.StatsAll,
		Pending: pending, OldestPending: oldest, Sampled: data.More, PerDay: everyDay(from, now, data.Days),
		ByRequestType: []hitl.ResponseTimes{}, ByResponder: []hitl.ResponseTimes{}, ByGroup: []hitl.ResponseTimes{}}
	if owner != nil {
		st.Scope = hitl.StatsOwn
	}
	if oldest != nil {
		oldest.AgeSeconds = seconds(now.Sub(oldest.CreatedAt))
	}
	for _, d := range st.PerDay {
		st.Answered += d.Answered
		st.TimedOut += d.TimedOut
		st.FellBack += d.FellBack
		st.Cancelled += d.Cancelled
	}

	all := make([]float64, 0, len(data.Answers))
	byType, byResponder, byGroup := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	for _, a := range data.Answers {
		took := seconds(a.AnsweredAt.Sub(a.CreatedAt))
		all = append(all, took)
		byType[string(a.RequestType)] = append(byType[string(a.RequestType)], took)
		byResponder[a.RespondedBy] = append(byResponder[a.RespondedBy], took)
		for _, g := range a.Groups {
			name := strings.TrimPrefix(g, hitl.GroupPrefix)
			byGroup[name] = append(byGroup[name], took)
		}
	}
	st.ResponseTime = percentiles("", all)
	for _, t := range []hitl.RequestType{hitl.RequestApproval, hitl.RequestClarification, hitl.RequestSelection, hitl.RequestInput} {
		if ts := byType[string(t)]; len(ts) > 0 {
			st.ByRequestType = append(st.ByRequestType, percentiles(string(t), ts))
		}
	}
	st.ByResponder = top(byResponder, hitl.StatsTop)
	st.ByGroup = top(byGroup, hitl.StatsTop)
	decisions, more, err := e.decisionAnalytics(ctx, p, from, now)
	if err != nil {
		return nil, err
	}
	st.Decisions, st.Sampled = decisions, st.Sampled || more
	return st, nil
}

// seconds is d in seconds to the millisecond.
func seconds(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }

// percentiles are the nearest-rank p50 and p90 of ts (which it sorts).
func percentiles(key string, ts []float64) hitl.ResponseTimes {
	r := hitl.ResponseTimes{Key: key, Count: len(ts)}
	if len(ts) == 0 {
		return r
	}
	slices.Sort(ts)
	rank := func(p float64) float64 { return ts[max(int(math.Ceil(p*float64(len(ts))))-1, 0)] }
	r.P50Seconds, r.P90Seconds = rank(0.5), rank(0.9)
	return r
}

// top is the n names with the most answers (ties by name), and the rest folded into one row
// named hitl.StatsOther: the breakdown stays small however many names there are.
func top(by map[string][]float64, n int) []hitl.ResponseTimes {
	names := slices.SortedFunc(maps.Keys(by), func(a, b string) int {
		return cmp.Or(cmp.Compare(len(by[b]), len(by[a])), cmp.Compare(a, b))
	})
	out := []hitl.ResponseTimes{}
	for _, name := range names[:min(n, len(names))] {
		out = append(out, percentiles(name, by[name]))
	}
	if len(names) > n {
		var rest []float64
		for _, name := range names[n:] {
			rest = append(rest, by[name]...)
		}
		other := percentiles(hitl.StatsOther, rest)
		other.Others = len(names) - n
		out = append(out, other)
	}
	return out
}

// everyDay is one entry for each UTC day from from to until, with the counts of days that
// have any.
func everyDay(from, until time.Time, days []hitl.DayCount) []hitl.DayCount {
	have := make(map[string]hitl.DayCount, len(days))
	for _, d := range days {
		have[d.Date] = d
	}
	out := []hitl.DayCount{}
	last := until.UTC().Format(time.DateOnly)
	for day := from.UTC().Truncate(24 * time.Hour); ; day = day.Add(24 * time.Hour) {
		date := day.Format(time.DateOnly)
		d, ok := have[date]
		if !ok {
			d = hitl.DayCount{Date: date}
		}
		out = append(out, d)
		if date >= last {
			return out
		}
	}
}

// OldestPendingAge is how long the inquiry that has waited longest has waited, 0 when none
// waits: the gauge hitl_oldest_pending_seconds, read from the store when it is scraped, so
// every node shows the same.
func (e *Engine) OldestPendingAge(ctx context.Context) (time.Duration, error) {
	_, oldest, err := e.store.OldestPending(ctx, nil)
	if err != nil || oldest == nil {
		return 0, err
	}
	return max(e.clock().Sub(oldest.CreatedAt), 0), nil
}

// maxGroupLabels bounds the groups that the response-time histogram by group names.
const maxGroupLabels = 100

// knownGroups are the groups this server knows (an unrevoked key holds it, or it has contact
// points), read at the start and each minute after, and those of each new key at once: the
// histogram by group names those and no others (at most maxGroupLabels), so an agent that
// assigns questions to made-up groups cannot grow the metrics.
type knownGroups map[string]bool

func (e *Engine) loadKnownGroups(ctx context.Context) error {
	keys, err := e.store.Keys(ctx)
	if err != nil {
		return err
	}
	groups, err := e.store.Groups(ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, k := range keys {
		if k.RevokedAt == nil {
			names = append(names, k.Groups...)
		}
	}
	for _, g := range groups {
		names = append(names, g.Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	known := knownGroups{}
	for _, n := range names[:min(len(names), maxGroupLabels)] {
		known[n] = true
	}
	e.groups.Store(&known)
	return nil
}

// knowGroups adds the groups of a new key at once, while the histogram names fewer than
// maxGroupLabels: its answers are then counted under its name from the first.
func (e *Engine) knowGroups(names []string) {
	for {
		cur := e.groups.Load()
		next := knownGroups{}
		if cur != nil {
			maps.Copy(next, *cur)
		}
		for _, n := range names {
			if len(next) < maxGroupLabels {
				next[n] = true
			}
		}
		if len(next) == 0 || e.groups.CompareAndSwap(cur, &next) {
			return
		}
	}
}

// groupLabels are the labels an answer to inq is observed under in the histogram by group:
// each group it is assigned to that the server knows, "other" for those it does not, "none"
// when it is assigned to no group.
func (e *Engine) groupLabels(inq *hitl.Inquiry) []string {
	var known knownGroups
	if k := e.groups.Load(); k != nil {
		known = *k
	}
	var out []string
	for _, a := range inq.AssignedTo {
		name, ok := hitl.GroupOf(a)
		if !ok {
			continue
		}
		if !known[name] {
			name = hitl.StatsOther
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}
