package bench

import (
	"bytes"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"
)

// The chart is well-formed SVG with a curve and a point per rate for each of the six series,
// its title escaped, and its points rising with the latency (the y axis grows downward).
func TestCurveSVG(t *testing.T) {
	rates := []OpenLoopRate{
		{Fraction: 0.25, TargetPerS: 600, AchievedPerS: 600, CreateMS: Quantiles{1.8, 10, 14}, AnswerMS: Quantiles{1.9, 10.4, 17}, WakeMS: Quantiles{1.5, 9.8, 15}},
		{Fraction: 0.5, TargetPerS: 1200, AchievedPerS: 1205, CreateMS: Quantiles{5.3, 22, 26}, AnswerMS: Quantiles{5.5, 22, 30}, WakeMS: Quantiles{5.2, 21, 27}},
		{Fraction: 0.9, TargetPerS: 2170, AchievedPerS: 1950, CreateMS: Quantiles{150, 280, 299}, AnswerMS: Quantiles{256, 481, 506}, WakeMS: Quantiles{147, 308, 348}},
	}
	svg := CurveSVG(rates, "SQLite <quick> & 2 CPUs")
	var paths, circles int
	var cys []float64
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		if el, ok := tok.(xml.StartElement); ok {
			switch el.Name.Local {
			case "path":
				paths++
			case "circle":
				circles++
				for _, a := range el.Attr {
					if a.Name.Local == "cy" && len(cys) < 3 { // the first series' points: create p50
						cy, err := strconv.ParseFloat(a.Value, 64)
						if err != nil {
							t.Fatalf("cy=%q", a.Value)
						}
						cys = append(cys, cy)
					}
				}
			}
		}
	}
	if paths != 6 || circles != 18 {
		t.Errorf("%d curves and %d points; want 6 and 18", paths, circles)
	}
	if len(cys) != 3 || !(cys[0] > cys[1] && cys[1] > cys[2]) {
		t.Errorf("create p50's points do not rise with the latency: y = %v", cys)
	}
	if !strings.Contains(string(svg), "SQLite &lt;quick&gt; &amp; 2 CPUs") {
		t.Error("the title is not escaped")
	}
}
