package hitl

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// Assignees are who may answer an inquiry, as a request gives them: principal names,
// group:NAME entries and integer identities (as workflow engines such as Attune name people).
// A bare name or number stands for a list of one. An identity is held as the entry "#ID"
// (no name contains #) until the engine resolves it to its name; it is written back as the
// number it came as.
type Assignees []string

// IdentityEntry is the entry that stands for an integer identity in Assignees.
func IdentityEntry(id int64) string { return "#" + strconv.FormatInt(id, 10) }

// IdentityOf reads an entry made by IdentityEntry.
func IdentityOf(entry string) (id int64, ok bool) {
	s, ok := strings.CutPrefix(entry, "#")
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil
}

var errAssignees = errors.New("expected a name, group:NAME, an integer identity, or a list of them")

// UnmarshalJSON accepts "alice", 123, or a list of names and integers.
func (a *Assignees) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*a = nil
		return nil
	}
	if len(b) > 0 && b[0] != '[' {
		b = append(append([]byte{'['}, b...), ']')
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return errAssignees
	}
	out := make(Assignees, len(raw))
	for i, r := range raw {
		if string(r) == "null" {
			return errAssignees
		}
		if err := json.Unmarshal(r, &out[i]); err == nil {
			continue
		}
		var id int64
		if err := json.Unmarshal(r, &id); err != nil {
			return errAssignees
		}
		out[i] = IdentityEntry(id)
	}
	*a = out
	return nil
}

// MarshalJSON writes identities back as numbers.
func (a Assignees) MarshalJSON() ([]byte, error) {
	if a == nil {
		return []byte("null"), nil
	}
	out := make([]any, len(a))
	for i, e := range a {
		if id, ok := IdentityOf(e); ok {
			out[i] = id
		} else {
			out[i] = e
		}
	}
	return json.Marshal(out)
}
