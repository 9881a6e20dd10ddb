package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hitl-dev/hitl/internal/ratelimit"
	"github.com/spf13/pflag"
)

// rateFlags adds --rate-limit, --rate-burst and --rate-limit-role, which fill o.
func rateFlags(f *pflag.FlagSet, env *envFlags, o *ratelimit.Options) {
	o.Roles = map[string]ratelimit.Limit{}
	rf := &rateFlag{l: &o.Default}
	env.parse("HITL_RATE_LIMIT", rf.Set)
	f.Var(rf, "rate-limit", "requests one principal (API key, or person in the inbox) may make on this node: N/s or N/m; 0 or off: no limit (HITL_RATE_LIMIT)")
	f.IntVar(&o.Default.Burst, "rate-burst", env.int("HITL_RATE_BURST", 0), "requests one principal may make at once above --rate-limit; 0: as many as the rate per unit (HITL_RATE_BURST)")
	f.Var(roleRateFlag(o.Roles), "rate-limit-role", "the rate limit of a role's principals, ROLE=N/s or ROLE=N/s:BURST, like agent=200/s:400 (repeat)")
}

// rateFlag keeps the rate of a limit; its burst is a flag of its own.
type rateFlag struct{ l *ratelimit.Limit }

func (r *rateFlag) Type() string { return "rate" }

func (r *rateFlag) String() string {
	if r.l == nil || r.l.Off() {
		return "off"
	}
	unit := "s"
	if r.l.Per.Minutes() == 1 {
		unit = "m"
	}
	return fmt.Sprintf("%d/%s", r.l.Count, unit)
}

func (r *rateFlag) Set(s string) error {
	l, err := ratelimit.ParseRate(s)
	if err != nil {
		return err
	}
	r.l.Count, r.l.Per = l.Count, l.Per
	return nil
}

type roleRateFlag map[string]ratelimit.Limit

func (m roleRateFlag) Type() string { return "ROLE=RATE[:BURST]" }

func (m roleRateFlag) String() string {
	var out []string
	for role, l := range m {
		out = append(out, role+"="+(&rateFlag{l: &l}).String())
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func (m roleRateFlag) Set(s string) error {
	role, l, err := ratelimit.ParseRoleLimit(s)
	if err != nil {
		return err
	}
	m[role] = l
	return nil
}
