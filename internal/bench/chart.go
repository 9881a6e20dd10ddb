package bench

import (
	"bytes"
	"fmt"
	"html"
	"math"
)

// CurveSVG draws the open loop's latency–throughput curve: the rate done (x) against the
// latency of creates, answers and wakes (y, milliseconds on a logarithmic scale, since the
// knee multiplies them), p50 solid and p99 dashed. It is what docs/performance.md shows;
// `hitl bench --chart FILE` writes it.
func CurveSVG(rates []OpenLoopRate, title string) []byte {
	const (
		width, height            = 720, 420
		left, right, top, bottom = 70, 170, 40, 50
	)
	plotW, plotH := float64(width-left-right), float64(height-top-bottom)
	series := []struct {
		name, color string
		dashed      bool
		of          func(OpenLoopRate) float64
	}{
		{"create p50", "#1f77b4", false, func(o OpenLoopRate) float64 { return o.CreateMS.P50 }},
		{"create p99", "#1f77b4", true, func(o OpenLoopRate) float64 { return o.CreateMS.P99 }},
		{"answer p50", "#2ca02c", false, func(o OpenLoopRate) float64 { return o.AnswerMS.P50 }},
		{"answer p99", "#2ca02c", true, func(o OpenLoopRate) float64 { return o.AnswerMS.P99 }},
		{"wake p50", "#d62728", false, func(o OpenLoopRate) float64 { return o.WakeMS.P50 }},
		{"wake p99", "#d62728", true, func(o OpenLoopRate) float64 { return o.WakeMS.P99 }},
	}
	maxRate, lo, hi := 1.0, math.Inf(1), 0.0
	for _, o := range rates {
		maxRate = max(maxRate, o.TargetPerS, o.AchievedPerS)
		for _, s := range series {
			if v := s.of(o); v > 0 {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if hi == 0 { // nothing measured: an empty frame
		lo, hi = 1, 10
	}
	// Whole decades from below the lowest latency to above the highest.
	decadeLo, decadeHi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if decadeHi == decadeLo {
		decadeHi++
	}
	xMax := niceCeiling(maxRate * 1.05)
	x := func(rate float64) float64 { return float64(left) + rate/xMax*plotW }
	y := func(ms float64) float64 {
		return float64(top) + plotH - (math.Log10(ms)-decadeLo)/(decadeHi-decadeLo)*plotH
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	// The grid: a line per decade of latency, five steps of rate.
	for d := decadeLo; d <= decadeHi; d++ {
		ms := math.Pow(10, d)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, y(ms), float64(left)+plotW, y(ms))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s ms</text>`+"\n", left-6, y(ms)+4, trimFloat(ms))
	}
	for i := 0; i <= 5; i++ {
		rate := xMax * float64(i) / 5
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", x(rate), top, x(rate), float64(top)+plotH)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x(rate), float64(top)+plotH+16, trimFloat(rate))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">questions answered per second (open loop, rate done)</text>`+"\n", float64(left)+plotW/2, height-10)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#888"/>`+"\n", left, top, plotW, plotH)
	for i, s := range series {
		var path bytes.Buffer
		for _, o := range rates {
			if v := s.of(o); v > 0 {
				op := "L"
				if path.Len() == 0 {
					op = "M"
				}
				fmt.Fprintf(&path, "%s%.1f %.1f ", op, x(o.AchievedPerS), y(v))
			}
		}
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		if path.Len() > 0 {
			fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", bytes.TrimSpace(path.Bytes()), s.color, dash)
		}
		for _, o := range rates {
			if v := s.of(o); v > 0 {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x(o.AchievedPerS), y(v), s.color)
			}
		}
		ly := float64(top + 10 + i*20)
		lx := float64(left) + plotW + 14
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", lx, ly, lx+28, ly, s.color, dash)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", lx+34, ly+4, s.name)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// niceCeiling is the smallest of 1, 2, 2.5 or 5 times a power of ten that is at least v.
func niceCeiling(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// trimFloat prints a grid value without trailing zeros (0.1, 1, 2500).
func trimFloat(v float64) string { return fmt.Sprintf("%g", math.Round(v*1000)/1000) }
