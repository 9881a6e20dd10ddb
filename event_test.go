package hitl_test

import (
	"testing"

	"github.com/hitl-dev/hitl"
)

func TestDurationRoundTrip(t *testing.T) {
	for in, want := range map[string]string{"30m": "30m", "90m": "1h30m", "2h": "2h", "1d": "24h", "45s": "45s", "1h0m5s": "1h5s"} {
		d, err := hitl.ParseDuration(in)
		if err != nil || d.String() != want {
			t.Errorf("%q: %v %v, want %s", in, d, err, want)
		}
	}
	for _, bad := range []string{"", "soon", "1.5s", "-d", "30"} {
		if _, err := hitl.ParseDuration(bad); err == nil {
			t.Errorf("%q was read as a duration", bad)
		}
	}
}
