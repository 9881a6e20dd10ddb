package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/hitl-dev/hitl"
)

// Every duration the CLI reads, from a flag or from the environment, is read by
// parseLongDuration, so that what works for one flag works for all: "2d" as well as "36h" or
// "1h30m", as the server reads remind_every.

// longDuration is a flag of a time that may be counted in days: "90d", or what
// time.ParseDuration reads ("36h").
type longDuration struct{ d *time.Duration }

func (l longDuration) Set(s string) (err error) { *l.d, err = parseLongDuration(s); return err }
func (l longDuration) String() string {
	if l.d == nil || *l.d == 0 || *l.d%(24*time.Hour) != 0 {
		return l.d.String()
	}
	return strconv.FormatInt(int64(*l.d/(24*time.Hour)), 10) + "d"
}
func (longDuration) Type() string { return "duration" }

// durationVar is pflag's DurationVar, reading days too; the help shows the default as
// pflag's own would (24h0m0s, none for 0).
func durationVar(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	f.Var(duration{longDuration{p}}, name, usage)
}

// duration is a longDuration written as time.Duration writes itself, as the flags that were
// pflag durations were shown.
type duration struct{ longDuration }

func (d duration) String() string {
	if *d.d == 0 {
		return "0" // no default, for pflag
	}
	return d.d.String()
}

// durationText is a flag of a duration the server reads itself (--remind-every 2d): it is
// sent as written, once it is known to be a duration, so that a typo is the flag's mistake.
type durationText struct{ s *string }

func (t durationText) Set(s string) error {
	if _, err := parseLongDuration(s); err != nil {
		return err
	}
	*t.s = s
	return nil
}
func (t durationText) String() string { return *t.s }
func (durationText) Type() string     { return "duration" }

func parseLongDuration(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	d, err := hitl.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration: write it like 90d or 36h", s)
	}
	return d.Duration(), nil
}
