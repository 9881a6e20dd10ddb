package hitl

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// ArgumentChange is one difference between the arguments a model proposed for a tool call
// and those a person edited: Before is nil for an argument added, After nil for one removed.
type ArgumentChange struct {
	Path   string          `json:"path"` // a JSON pointer, "" for the whole value
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// ArgumentChanges lists what an edit changed, member by member in objects (in the order of
// their names), whole values elsewhere; none when both are the same JSON value. It is what a
// person sees before submitting an edit, and in the answer afterwards.
func ArgumentChanges(proposed, edited json.RawMessage) []ArgumentChange {
	var changes []ArgumentChange
	diffJSON(&changes, "", decodeNumbers(proposed), decodeNumbers(edited))
	return changes
}

func decodeNumbers(raw json.RawMessage) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(raw) // not JSON: compared, and shown, as the text it is
	}
	return v
}

func diffJSON(changes *[]ArgumentChange, path string, before, after any) {
	b, bIsObject := before.(map[string]any)
	a, aIsObject := after.(map[string]any)
	if bIsObject && aIsObject {
		names := make([]string, 0, len(b)+len(a))
		for k := range b {
			names = append(names, k)
		}
		for k := range a {
			if _, ok := b[k]; !ok {
				names = append(names, k)
			}
		}
		slices.Sort(names)
		for _, k := range names {
			sub := path + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			bv, inBefore := b[k]
			av, inAfter := a[k]
			switch {
			case !inBefore:
				*changes = append(*changes, ArgumentChange{Path: sub, After: marshal(av)})
			case !inAfter:
				*changes = append(*changes, ArgumentChange{Path: sub, Before: marshal(bv)})
			default:
				diffJSON(changes, sub, bv, av)
			}
		}
		return
	}
	if bs, as := marshal(before), marshal(after); !bytes.Equal(bs, as) {
		*changes = append(*changes, ArgumentChange{Path: path, Before: bs, After: as})
	}
}

// marshal is v as compact JSON, its members in the order of their names.
func marshal(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
