package hitl_test

import (
	"encoding/json"
	"testing"

	"github.com/hitl-dev/hitl"
)

// Assignees read names and integer identities, alone or in a list, and write identities back
// as the numbers they came as.
func TestAssigneesReadAndWriteIdentities(t *testing.T) {
	for _, tc := range []struct{ in, held, out string }{
		{`"alice"`, `["alice"]`, `["alice"]`},
		{`123`, `["#123"]`, `[123]`},
		{`[123, "group:sre", "bob"]`, `["#123","group:sre","bob"]`, `[123,"group:sre","bob"]`},
		{`[]`, `[]`, `[]`},
		{`null`, `null`, `null`},
	} {
		var a hitl.Assignees
		if err := json.Unmarshal([]byte(tc.in), &a); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		held, _ := json.Marshal([]string(a))
		out, _ := json.Marshal(a)
		if string(held) != tc.held || string(out) != tc.out {
			t.Errorf("%s: held as %s, written as %s; want %s, %s", tc.in, held, out, tc.held, tc.out)
		}
	}
	for _, bad := range []string{`true`, `[1.5]`, `[{"name":"a"}]`, `{"a":1}`, `[null]`} {
		var a hitl.Assignees
		if err := json.Unmarshal([]byte(bad), &a); err == nil {
			t.Errorf("%s was read as %q", bad, a)
		}
	}
	if id, ok := hitl.IdentityOf(hitl.IdentityEntry(42)); !ok || id != 42 {
		t.Fatalf("IdentityOf(IdentityEntry(42)) = %d, %v", id, ok)
	}
	if _, ok := hitl.IdentityOf("alice"); ok {
		t.Fatal("a name read as an identity")
	}
}
