package web

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
)

// The Stats page draws GET /v1/stats as charts: inline SVG made here, on the server, with no
// script. Every chart has a title and a description for screen readers, every bar a tooltip,
// and the numbers are written beside the bars and in a table as well.

// statsWindows are the windows the page offers; the URL takes any that the API takes.
var statsWindows = []struct{ Value, Label string }{
	{"24h", "Last 24 hours"}, {"7d", "Last 7 days"}, {"30d", "Last 30 days"}, {"90d", "Last 90 days"}, {"366d", "Last year"},
}

func (h *Handler) stats(w http.ResponseWriter, r *http.Request, v *viewer) {
	since := r.URL.Query().Get("since")
	st, err := h.engine.Stats(r.Context(), v.Principal, since)
	if n := len(r.URL.Query()["since"]); n > 1 { // as the API says
		err = hitl.Errorf(hitl.EInvalid, "since is given %d times; give it once, like since=7d", n)
	}
	if err != nil {
		h.fail(w, r, v, err)
		return
	}
	if since == "" {
		since = "7d"
	}
	h.render(w, r, http.StatusOK, "stats", &layout{Viewer: v, Title: "Stats", Section: "stats"}, map[string]any{
		"Stats": st, "Since": since, "Windows": statsWindows, "Days": dayChartOf(st.PerDay),
		"ByType":      timeChartOf(st.ByRequestType),
		"ByResponder": timeChartOf(st.ByResponder),
		"ByGroup":     timeChartOf(st.ByGroup),
		"Decisions":   decisionsViewOf(st.Decisions), // decisions.go
		"Inquiry":     func(id int64) string { return "/inquiries/" + url.PathEscape(strconv.FormatInt(id, 10)) },
	})
}

// took says a number of seconds the way people say it: "0.4 s", "45 s", "1 min 30 s",
// "2 h 5 min", "3 d 4 h".
func took(s float64) string {
	switch {
	case s < 10:
		return strconv.FormatFloat(s, 'f', -1, 64) + " s"
	case s < 60:
		return strconv.FormatFloat(math.Round(s), 'f', -1, 64) + " s"
	}
	d := time.Duration(math.Round(s)) * time.Second
	two := func(big, small time.Duration, bu, su string) string {
		b, r := d/big, (d%big)/small
		if r == 0 {
			return fmt.Sprintf("%d %s", b, bu)
		}
		return fmt.Sprintf("%d %s %d %s", b, bu, r, su)
	}
	switch {
	case d < time.Hour:
		return two(time.Minute, time.Second, "min", "s")
	case d < 24*time.Hour:
		return two(time.Hour, time.Minute, "h", "min")
	}
	return two(24*time.Hour, time.Hour, "d", "h")
}

// Geometry of the charts, in the units of their viewBox (they scale to the page's width).
const (
	chartWidth = 640
	dayPlotTop = 16  // room for the numbers over the bars
	dayPlotH   = 160 // the bars' height at the busiest day
	dayAxisH   = 24  // the dates under them
	rowH       = 34  // one row of a chart of times
	labelW     = 140 // the names left of the bars
	valueW     = 180 // the numbers right of them
)

// dayChart is the answers per day as bars, the timeouts stacked on them.
type dayChart struct {
	Height int
	Base   int // the line the bars stand on
	Bars   []dayBar
	Max    int
	Total  int
}

type dayBar struct {
	X, W                         float64
	AnsweredY, AnsweredH         float64
	TimedOutY, TimedOutH         float64
	Title, Count, Date           string
	CountX, CountY, DateX, DateY float64
	ShowCount, ShowDate          bool
}

func dayChartOf(days []hitl.DayCount) dayChart {
	c := dayChart{Height: dayPlotTop + dayPlotH + dayAxisH, Base: dayPlotTop + dayPlotH}
	for _, d := range days {
		c.Max = max(c.Max, d.Answered+d.TimedOut)
		c.Total += d.Answered + d.TimedOut
	}
	if len(days) == 0 {
		return c
	}
	slot := float64(chartWidth) / float64(len(days))
	scale := 0.0
	if c.Max > 0 {
		scale = dayPlotH / float64(c.Max)
	}
	// Dates and numbers are written where there is room: every day of a month, fewer of a year.
	every := int(math.Ceil(float64(len(days)) / 8))
	for i, d := range days {
		b := dayBar{X: float64(i)*slot + slot*0.15, W: slot * 0.7, Date: d.Date[5:], Count: strconv.Itoa(d.Answered + d.TimedOut)}
		b.AnsweredH = float64(d.Answered) * scale
		b.TimedOutH = float64(d.TimedOut) * scale
		base := float64(dayPlotTop + dayPlotH)
		b.AnsweredY = base - b.AnsweredH
		b.TimedOutY = b.AnsweredY - b.TimedOutH
		b.Title = fmt.Sprintf("%s: %d answered, %d timed out (%d fell back), %d cancelled", d.Date, d.Answered, d.TimedOut, d.FellBack, d.Cancelled)
		b.CountX, b.CountY = b.X+b.W/2, b.TimedOutY-4
		b.DateX, b.DateY = b.X+b.W/2, base+16
		b.ShowCount = len(days) <= 31 && d.Answered+d.TimedOut > 0
		b.ShowDate = i%every == 0 || i == len(days)-1
		c.Bars = append(c.Bars, b)
	}
	return c
}

// timeChart is p50 and p90 per row as two bars, on one scale for the whole chart.
type timeChart struct {
	Height int
	Rows   []timeRow
}

type timeRow struct {
	hitl.ResponseTimes
	Y, P50W, P90W, BarX, TextX, TextY, LabelY float64
	P50, P90, Title                           string
}

func timeChartOf(rows []hitl.ResponseTimes) timeChart {
	c := timeChart{Height: len(rows)*rowH + 8}
	top := 0.0
	for _, r := range rows {
		top = math.Max(top, r.P90Seconds)
	}
	plot := float64(chartWidth - labelW - valueW)
	for i, r := range rows {
		tr := timeRow{ResponseTimes: r, Y: float64(i*rowH + 4), BarX: labelW, P50: took(r.P50Seconds), P90: took(r.P90Seconds)}
		if top > 0 {
			tr.P50W, tr.P90W = math.Max(r.P50Seconds/top*plot, 1), math.Max(r.P90Seconds/top*plot, 1)
		}
		tr.TextX, tr.TextY, tr.LabelY = labelW+tr.P90W+6, tr.Y+18, tr.Y+18
		tr.Title = fmt.Sprintf("%s: half answered within %s, nine in ten within %s (%d answers)", rowName(r), tr.P50, tr.P90, r.Count)
		c.Rows = append(c.Rows, tr)
	}
	return c
}

// rowName is a row's name as the page says it.
func rowName(r hitl.ResponseTimes) string {
	if r.Others > 0 {
		return fmt.Sprintf("%d others", r.Others)
	}
	return r.Key
}

// mayStats tells the layout whether to offer the Stats page.
func mayStats(v *viewer) bool { return v != nil && engine.MayStats(v.Principal) }
