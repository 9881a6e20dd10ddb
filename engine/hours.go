package engine

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// Working hours: a reminder or an escalation step of an inquiry that is not urgent waits
// while none of the people it would reach is at work, until the first of them starts. The
// wait is decided when the timer is set (at creation, and when a reminder or a step fires),
// so the stored next_reminder_at and escalation.next_at already say when it comes: every node
// fires it at that time, once, as any other timer. Deadlines never wait.

// checkWorkingHours adds a problem at /working_hours/DAY for each bad day, time or window.
func checkWorkingHours(bad *problems, hours hitl.WorkingHours) {
	for _, day := range slices.Sorted(maps.Keys(hours)) {
		path := "/working_hours/" + day
		if !slices.Contains(hitl.Weekdays[:], day) {
			bad.add(path, "%q is not a day; days are mon, tue, wed, thu, fri, sat and sun", day)
			continue
		}
		window := hours[day]
		if len(window) != 2 {
			bad.add(path, `is one window: a start and an end, like ["09:00", "17:00"]`)
			continue
		}
		start, okStart := minuteOfDay(window[0])
		end, okEnd := minuteOfDay(window[1])
		switch {
		case !okStart:
			bad.add(path+"/0", "%q is not a time of day; give HH:MM, like 09:00", window[0])
		case !okEnd:
			bad.add(path+"/1", "%q is not a time of day; give HH:MM, like 17:00 (24:00 for midnight)", window[1])
		case start >= end:
			bad.add(path, "starts at %s, which is not before its end %s", window[0], window[1])
		}
	}
}

// minuteOfDay reads "HH:MM" (00:00 to 24:00) as minutes since midnight.
func minuteOfDay(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' || strings.Trim(s[:2]+s[3:], "0123456789") != "" {
		return 0, false
	}
	h, m := int(s[0]-'0')*10+int(s[1]-'0'), int(s[3]-'0')*10+int(s[4]-'0')
	if m > 59 || h > 24 || (h == 24 && m > 0) {
		return 0, false
	}
	return h*60 + m, true
}

// checkTimeZone adds a problem at /time_zone unless zone is an IANA zone this server knows.
func checkTimeZone(bad *problems, zone string) {
	if zone == "" {
		return
	}
	if _, err := time.LoadLocation(zone); err != nil || zone == "Local" {
		bad.add("/time_zone", "%q is not a time zone this server knows; give an IANA name like Europe/Berlin or America/New_York", zone)
	}
}

// nextWorkingTime is at when the person works then (or has no hours), else the start of
// their next working window, on the person's clock: days and hours are counted in their zone,
// so a window after a clock change starts at its local time (a start the change skips, 02:30
// on a spring-forward night, is what time.Date makes of it, within the hour).
func nextWorkingTime(p *hitl.Person, at time.Time) time.Time {
	if p == nil || len(p.WorkingHours) == 0 {
		return at
	}
	loc := hitl.Location(p.TimeZone)
	local := at.In(loc)
	for d := 0; d <= 7; d++ { // windows end by midnight: today's, or one of the next week's
		day := time.Date(local.Year(), local.Month(), local.Day()+d, 12, 0, 0, 0, loc)
		window := p.WorkingHours[hitl.Weekdays[day.Weekday()]]
		if len(window) != 2 {
			continue
		}
		sm, ok1 := minuteOfDay(window[0])
		em, ok2 := minuteOfDay(window[1])
		if !ok1 || !ok2 {
			continue
		}
		start := time.Date(day.Year(), day.Month(), day.Day(), sm/60, sm%60, 0, 0, loc)
		end := time.Date(day.Year(), day.Month(), day.Day(), em/60, em%60, 0, 0, loc)
		switch {
		case !at.Before(end):
			continue
		case !at.Before(start):
			return at
		default:
			return start.UTC() // timers are stored and shown in UTC, like every other time
		}
	}
	return at // hours that never come (cannot be put): do not hold the timer forever
}

// workingHours are the people an inquiry's timers are set by, and the absences that hand a
// nudge to a stand-in (whose hours it then keeps: they are the one it reaches).
type workingHours struct {
	people   map[string]*hitl.Person
	absences []*hitl.Absence
}

// peopleHours reads the people among names (groups and unknown names count as always at work).
// Every delegate of an absence is read too: a nudge due while one of names is away reaches
// their stand-in.
func (e *Engine) peopleHours(ctx context.Context, names ...[]string) (workingHours, error) {
	absences, err := e.absenceList(ctx)
	if err != nil {
		return workingHours{}, err
	}
	for _, a := range absences {
		names = append(names, []string{a.Delegate})
	}
	out := workingHours{people: map[string]*hitl.Person{}, absences: absences}
	for _, list := range names {
		for _, n := range list {
			if _, isGroup := hitl.GroupOf(n); isGroup || out.people[n] != nil {
				continue
			}
			p, err := e.store.Person(ctx, n)
			switch {
			case hitl.ErrorCode(err) == hitl.ENotFound:
				continue
			case err != nil:
				return workingHours{}, err
			}
			out.people[n] = p
		}
	}
	return out, nil
}

// allPeopleHours reads every person, for timers of inquiries not known beforehand.
func (e *Engine) allPeopleHours(ctx context.Context) (workingHours, error) {
	people, err := e.store.People(ctx)
	if err != nil {
		return workingHours{}, err
	}
	absences, err := e.absenceList(ctx)
	if err != nil {
		return workingHours{}, err
	}
	out := workingHours{people: make(map[string]*hitl.Person, len(people)), absences: absences}
	for _, p := range people {
		out.people[p.Name] = p
	}
	return out, nil
}

// when is the time a nudge due at reaches reach: at itself when the inquiry is urgent, when
// it reaches nobody in particular (an unassigned inquiry: the default destinations), or when
// one of them works then, is a group, or has no hours; else the earliest next working hour
// among them. Someone away at that time counts by their stand-in's hours.
func (h workingHours) when(inq *hitl.Inquiry, reach []string, at time.Time) time.Time {
	if inq.Priority == hitl.PriorityUrgent || len(reach) == 0 {
		return at
	}
	var earliest time.Time
	away := delegationsAt(h.absences, at)
	for _, n := range reach {
		if standIn := away.standIn(n); standIn != "" {
			n = standIn // the nudge goes to them (notify.go), so it keeps their hours
		}
		next := nextWorkingTime(h.people[n], at)
		if next.Equal(at) {
			return at
		}
		if earliest.IsZero() || next.Before(earliest) {
			earliest = next
		}
	}
	return earliest
}

// reminderAt is the reminder due at, or none when the deadline comes first (deadlines never
// wait, and a reminder after one would find the inquiry closed).
func (h workingHours) reminderAt(inq *hitl.Inquiry, at time.Time) *time.Time {
	return reminderBefore(h.when(inq, inq.AssignedTo, at), inq.TimeoutAt)
}

// stepAt is when the ladder's step i (from 0) fires.
func (h workingHours) stepAt(inq *hitl.Inquiry, i int) time.Time {
	step := inq.Escalation.Steps[i]
	return h.when(inq, step.AssignedTo, inq.CreatedAt.Add(step.After.Duration()))
}

// TimeZone is the IANA zone the principal's own person set, "" for none (UTC): pages show them
// times there. Anyone may read their own.
func (e *Engine) TimeZone(ctx context.Context, p *hitl.Principal) (string, error) {
	person, err := e.store.Person(ctx, p.Name)
	switch {
	case hitl.ErrorCode(err) == hitl.ENotFound:
		return "", nil
	case err != nil:
		return "", err
	}
	return person.TimeZone, nil
}
