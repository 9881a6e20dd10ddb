package hitl

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestArgumentChanges(t *testing.T) {
	for _, c := range []struct {
		proposed, edited string
		want             string
	}{
		{`{"service":"api","replicas":3}`, `{"replicas":3,"service":"api"}`, `[]`},
		{`{"service":"api","replicas":3}`, `{"service":"api","replicas":5,"region":"eu"}`, `[{/region [] "eu"} {/replicas 3 5}]`},
		{`{"a":{"b":1,"c":[1,2]},"d/e":true}`, `{"a":{"b":1,"c":[2,1]}}`, `[{/a/c [1,2] [2,1]} {/d~1e true []}]`},
		{``, `{"x":1}`, `[{ null {"x":1}}]`},
		{`"old"`, `"new"`, `[{ "old" "new"}]`},
	} {
		got := ArgumentChanges(json.RawMessage(c.proposed), json.RawMessage(c.edited))
		s := "["
		for i, ch := range got {
			if i > 0 {
				s += " "
			}
			s += fmt.Sprintf("{%s %s %s}", ch.Path, orEmpty(ch.Before), orEmpty(ch.After))
		}
		if s += "]"; s != c.want {
			t.Errorf("%s → %s: %s, want %s", c.proposed, c.edited, s, c.want)
		}
	}
}

func orEmpty(b json.RawMessage) string {
	if b == nil {
		return "[]"
	}
	return string(b)
}
