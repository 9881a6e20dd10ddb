package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

func TestParseStatsWindow(t *testing.T) {
	for in, want := range map[string]time.Duration{"": 7 * 24 * time.Hour, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour,
		"30d": 30 * 24 * time.Hour, "90m": 90 * time.Minute, "366d": hitl.MaxStatsWindow, "1s": time.Second} {
		if got, err := ParseStatsWindow(in); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0s", "0d", "-1d", "-24h", "367d", "8785h", "99999999999d", "7", "a week", "1.5d", "7D", "1h0.5s", strings.Repeat("9", 100) + "d"} {
		_, err := ParseStatsWindow(in)
		if hitl.ErrorCode(err) != hitl.EInvalid || !strings.Contains(hitl.ErrorMessage(err), "since must be a duration of more than 0s and at most 366d") {
			t.Errorf("%q: %v, want invalid", in, err)
		}
		if len(hitl.ErrorMessage(err)) > 200 {
			t.Errorf("%q: the message repeats all it was given: %s", in, hitl.ErrorMessage(err))
		}
	}
}

// Nearest rank: p50 of 1..10 is 5 and p90 is 9; of one value, that value.
func TestPercentiles(t *testing.T) {
	for _, c := range []struct {
		in       []float64
		p50, p90 float64
	}{
		{[]float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 5, 9},
		{[]float64{42}, 42, 42},
		{[]float64{3, 1}, 1, 3},
		{[]float64{60, 120, 180}, 120, 180},
	} {
		r := percentiles("k", slices.Clone(c.in))
		if r.Count != len(c.in) || r.P50Seconds != c.p50 || r.P90Seconds != c.p90 || r.Key != "k" {
			t.Errorf("%v: %+v, want p50 %v p90 %v", c.in, r, c.p50, c.p90)
		}
	}
	if r := percentiles("", nil); r.Count != 0 || r.P50Seconds != 0 || r.P90Seconds != 0 {
		t.Errorf("no answers: %+v", r)
	}
}

// The most answered names first (ties by name), and the rest folded into "other".
func TestTopFoldsTheRest(t *testing.T) {
	by := map[string][]float64{}
	for i := range 25 {
		name := fmt.Sprintf("p%02d", i)
		for j := range 30 - i { // p00 has 30 answers, p24 has 6
			by[name] = append(by[name], float64(j+1))
		}
	}
	by["zed"] = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30}
	rows := top(by, 20)
	if len(rows) != 21 || rows[0].Key != "p00" || rows[1].Key != "zed" || rows[19].Key != "p18" {
		t.Fatalf("rows %v", rows)
	}
	other := rows[20]
	if other.Key != hitl.StatsOther || other.Others != 6 || other.Count != 11+10+9+8+7+6 {
		t.Fatalf("other %+v", other)
	}
	if rows := top(map[string][]float64{"a": {1}}, 20); len(rows) != 1 || rows[0].Others != 0 {
		t.Fatalf("one name: %+v", rows)
	}
	if rows := top(map[string][]float64{}, 20); rows == nil || len(rows) != 0 {
		t.Fatalf("no names: %#v", rows)
	}
}

func TestEveryDay(t *testing.T) {
	from := time.Date(2026, 11, 18, 8, 30, 0, 0, time.UTC)
	days := everyDay(from, from.Add(7*24*time.Hour), []hitl.DayCount{{Date: "2026-11-20", Answered: 3}})
	if len(days) != 8 || days[0].Date != "2026-11-18" || days[7].Date != "2026-11-25" || days[2] != (hitl.DayCount{Date: "2026-11-20", Answered: 3}) {
		t.Fatalf("days %+v", days)
	}
}

// Answers are observed under the groups the server knows, "other" for the rest, "none"
// without a group; a new key's groups are known at once.
func TestGroupLabels(t *testing.T) {
	e := &Engine{}
	e.knowGroups([]string{"ops"})
	inq := &hitl.Inquiry{AssignedTo: []string{"ann", "group:ops", "group:made-up", "group:also-made-up"}}
	if got := e.groupLabels(inq); !slices.Equal(got, []string{"ops", "other"}) {
		t.Fatalf("labels %v", got)
	}
	if got := e.groupLabels(&hitl.Inquiry{AssignedTo: []string{"ann"}}); !slices.Equal(got, []string{"none"}) {
		t.Fatalf("no group: %v", got)
	}
	for i := range 2 * maxGroupLabels {
		e.knowGroups([]string{fmt.Sprint("g", i)})
	}
	if n := len(*e.groups.Load()); n != maxGroupLabels {
		t.Fatalf("%d groups known, at most %d", n, maxGroupLabels)
	}
}
