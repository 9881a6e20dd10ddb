package wording

import "time"

// Zone is where a person reads times: the IANA zone they set ("Europe/Berlin"), else UTC (for
// none, or a zone this server has no data for).
func Zone(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}
