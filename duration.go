package hitl

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Duration is a length of time in whole seconds. JSON writes it the way people do, "30m",
// "1h30m", "36h", and reads that form back.
type Duration int64

// ParseDuration reads "90s", "30m", "1h30m", "2h" or "3d" (days of 24 hours) as whole seconds.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 32)
		if err != nil || n < 0 {
			return 0, errors.New("not a duration")
		}
		return Duration(n * 86400), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d%time.Second != 0 {
		return 0, errors.New("not a duration")
	}
	return Duration(d / time.Second), nil
}

// Duration is d as a time.Duration.
func (d Duration) Duration() time.Duration { return time.Duration(d) * time.Second }

// String is d in hours, minutes and seconds, leaving out the parts that are zero: "1h30m".
func (d Duration) String() string {
	if d == 0 {
		return "0s"
	}
	var b strings.Builder
	h, m, s := d/3600, d%3600/60, d%60
	for _, part := range []struct {
		n    Duration
		unit string
	}{{h, "h"}, {m, "m"}, {s, "s"}} {
		if part.n != 0 {
			b.WriteString(strconv.FormatInt(int64(part.n), 10) + part.unit)
		}
	}
	return b.String()
}

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("a duration is a string like 30m")
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}
