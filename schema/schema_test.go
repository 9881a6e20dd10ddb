package schema_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hitl-dev/hitl/schema"
)

func TestValidateListsEveryErrorWithItsPath(t *testing.T) {
	s, err := schema.Compile(json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string"},"items":{"type":"array","items":{"type":"integer"}}},"required":["approved","reason"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	errs := s.Validate(json.RawMessage(`{"approved":"yes","items":[1,"two"],"extra":true}`))
	got := map[string]bool{}
	for _, e := range errs {
		got[e.Path] = true
		if e.Message == "" {
			t.Errorf("empty message at %s", e.Path)
		}
	}
	for _, want := range []string{"/approved", "/items/1", ""} {
		if !got[want] {
			t.Errorf("no error at %q in %+v", want, errs)
		}
	}
	if errs := s.Validate(json.RawMessage(`{"approved":true,"reason":"ok","items":[1]}`)); errs != nil {
		t.Fatalf("valid value refused: %+v", errs)
	}
}

func TestExternalRefsAreNeverLoaded(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"string"}`))
	}))
	defer srv.Close()
	for _, ref := range []string{"file:///etc/passwd", srv.URL + "/schema.json", "https://example.com/s.json", "other.json"} {
		_, err := schema.Compile(json.RawMessage(`{"$ref":"` + ref + `"}`))
		if err == nil || !strings.Contains(err.Error(), "not allowed") && !strings.Contains(err.Error(), "invalid schema") {
			t.Errorf("$ref %s: %v", ref, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the schema server was asked %d times", n)
	}
	// Local references still work.
	if _, err := schema.Compile(json.RawMessage(`{"$defs":{"n":{"type":"integer"}},"$ref":"#/$defs/n"}`)); err != nil {
		t.Fatal(err)
	}
}

func TestCacheReturnsTheSameSchema(t *testing.T) {
	c := schema.NewCache(2, 1<<20)
	doc := json.RawMessage(`{"type":"string"}`)
	a, err := c.Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Compile(doc)
	if a != b {
		t.Fatal("the cache compiled the same schema twice")
	}
	for _, d := range []string{`{"type":"integer"}`, `{"type":"number"}`, `{"type":"null"}`} {
		if _, err := c.Compile(json.RawMessage(d)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Compile(json.RawMessage(`{"type":1}`)); err == nil {
		t.Fatal("invalid schema compiled")
	}
}

// TestCacheIsBounded: by entries and by the size of the schemas' text, forgetting some entries
// when full rather than all of them.
func TestCacheIsBounded(t *testing.T) {
	c := schema.NewCache(100, 2000)
	for i := range 1000 {
		if _, err := c.Compile(json.RawMessage(fmt.Sprintf(`{"minimum":%d}`, i))); err != nil {
			t.Fatal(err)
		}
		if n, size := c.Len(); n > 100 || size > 2000 {
			t.Fatalf("after %d schemas the cache holds %d of %d bytes", i+1, n, size)
		}
	}
	if n, _ := c.Len(); n < 90 {
		t.Fatalf("the cache holds only %d schemas", n)
	}
	big := json.RawMessage(`{"description":"` + strings.Repeat("d", 3000) + `"}`)
	if _, err := c.Compile(big); err != nil {
		t.Fatal(err)
	}
	if _, size := c.Len(); size > 2000 {
		t.Fatal("a schema larger than the cache was kept")
	}
}

func TestFormatIsAsserted(t *testing.T) {
	for format, values := range map[string][2]string{
		"email":     {`"not-an-email"`, `"kim@example.com"`},
		"date-time": {`"2026-11-22 10:00"`, `"2026-11-22T10:00:00+01:00"`},
		"date":      {`"22/11/2026"`, `"2026-11-22"`},
		"uri":       {`"example.com"`, `"https://example.com/"`},
		"uuid":      {`"0b9d6f3c"`, `"0b9d6f3c-8f0e-4a59-9d6e-3a1f5e2b7c10"`},
		"regex":     {`"(unclosed"`, `"^a+$"`},
	} {
		s, err := schema.Compile(json.RawMessage(`{"format":"` + format + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		if errs := s.Validate(json.RawMessage(values[0])); len(errs) != 1 {
			t.Errorf("%s passed %s", format, values[0])
		}
		if errs := s.Validate(json.RawMessage(values[1])); errs != nil {
			t.Errorf("%s refused %s: %v", format, values[1], errs)
		}
	}
	// A format the validator does not know passes: it is an annotation.
	s, err := schema.Compile(json.RawMessage(`{"format":"shoe-size"}`))
	if err != nil || s.Validate(json.RawMessage(`"44"`)) != nil {
		t.Fatalf("unknown format: %v", err)
	}
}

// TestCostlySchemasAreRefused: what depth and size bounds on the text miss — references that
// multiply, thousands of subschemas on one value — is refused when compiled, and an answer too
// large for its schema's cost is refused without being validated.
func TestCostlySchemasAreRefused(t *testing.T) {
	fanOut := func(levels, refs int) string { // level i refers refs times to level i+1
		var defs []string
		for i := range levels {
			next := fmt.Sprintf(`{"$ref":"#/$defs/l%d"}`, i+1)
			defs = append(defs, fmt.Sprintf(`"l%d":{"allOf":[%s]}`, i, strings.TrimSuffix(strings.Repeat(next+",", refs), ",")))
		}
		defs = append(defs, fmt.Sprintf(`"l%d":{"type":"integer"}`, levels))
		return `{"$defs":{` + strings.Join(defs, ",") + `},"$ref":"#/$defs/l0"}`
	}
	recursiveFanOut := `{"$defs":{"t":{"allOf":[{"items":{"$ref":"#/$defs/t"}},{"items":{"$ref":"#/$defs/t"}}]}},"$ref":"#/$defs/t"}`
	for name, doc := range map[string]string{
		"4 refs 13 deep":             fanOut(13, 4),
		"2 refs 20 deep":             fanOut(20, 2),
		"10,001 subschemas on one":   `{"allOf":[` + strings.TrimSuffix(strings.Repeat(`{},`, 10_001), ",") + `]}`,
		"doubling at every level":    recursiveFanOut,
		"a $ref to itself":           `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		"dynamic ref fan-out":        `{"$dynamicAnchor":"n","allOf":[{"items":{"$dynamicRef":"#n"}},{"items":{"$dynamicRef":"#n"}}]}`,
		"an enum of 20,000 on items": `{"items":{"enum":[` + strings.TrimSuffix(strings.Repeat(`0,`, 20_000), ",") + `]}}`,
	} {
		if _, err := schema.Compile(json.RawMessage(doc)); err == nil || !strings.Contains(err.Error(), "invalid schema") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Schemas that recurse without multiplying, or multiply a little, are fine at any depth.
	tree := `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"]}},"$ref":"#/$defs/node"}`
	s, err := schema.Compile(json.RawMessage(tree))
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat(`{"name":"n","children":[`, 30) + `{"name":"leaf"}` + strings.Repeat(`]}`, 30)
	if errs := s.Validate(json.RawMessage(deep)); errs != nil {
		t.Fatal(errs)
	}
	if _, err := schema.Compile(json.RawMessage(fanOut(5, 4))); err != nil {
		t.Fatalf("4^5 paths to a value: %v", err)
	}
	// 3,000 checks of each item: 100 items are within the budget, 3,000 are not.
	wide, err := schema.Compile(json.RawMessage(`{"items":{"allOf":[` + strings.TrimSuffix(strings.Repeat(`{"type":"integer"},`, 3000), ",") + `]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if errs := wide.Validate(json.RawMessage(`[` + strings.TrimSuffix(strings.Repeat(`1,`, 100), ",") + `]`)); errs != nil {
		t.Fatal(errs)
	}
	errs := wide.Validate(json.RawMessage(`[` + strings.TrimSuffix(strings.Repeat(`1,`, 3000), ",") + `]`))
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "too large to check") {
		t.Fatalf("3,000 items × 3,000 checks: %v", errs)
	}
}

// TestNumbersBeyondTheLibrary: numbers the validator cannot hold are errors, not panics
// (hitl refuses them before they get here).
func TestNumbersBeyondTheLibrary(t *testing.T) {
	s, err := schema.Compile(json.RawMessage(`{"maximum":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate(json.RawMessage(`1e10000000`)); len(errs) != 1 {
		t.Fatalf("1e10000000: %v", errs)
	}
	if _, err := schema.Compile(json.RawMessage(`{"multipleOf":1e10000000}`)); err == nil {
		t.Fatal("multipleOf 1e10000000 compiled")
	}
}

// TestErrorsStaySmall: however many places fail and however long the messages, the errors
// stay few and short.
func TestErrorsStaySmall(t *testing.T) {
	s, err := schema.Compile(json.RawMessage(`{"items":{"enum":[` + strings.TrimSuffix(strings.Repeat(`12345,`, 2000), ",") + `]}}`))
	if err != nil {
		t.Fatal(err)
	}
	errs := s.Validate(json.RawMessage(`[` + strings.TrimSuffix(strings.Repeat(`1,`, 60), ",") + `]`))
	if len(errs) != 50 {
		t.Fatalf("%d errors", len(errs))
	}
	for _, e := range errs {
		if n := len([]rune(e.Message)); n > 301 {
			t.Fatalf("a message of %d characters", n)
		}
	}
}

// FuzzValidate: any schema and any value compile or fail cleanly; validation never panics.
func FuzzValidate(f *testing.F) {
	f.Add(`{"type":"object","required":["a"]}`, `{"a":1}`)
	f.Add(`{"enum":["x","y"]}`, `"z"`)
	f.Add(`{"type":"array","items":{"type":"string"},"uniqueItems":true}`, `["a","a"]`)
	f.Add(`{"pattern":"(a+)+$"}`, `"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"`)
	f.Add(`{"$ref":"#"}`, `1`)
	f.Add(`{"minimum":1e308,"multipleOf":1e-308}`, `1e308`)
	f.Add(`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"}]},"b":{"items":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`, `[[[[1]]]]`)
	f.Add(`{"$dynamicAnchor":"n","items":{"$dynamicRef":"#n"},"prefixItems":[{"$ref":"#"}]}`, `[[1],[[2]]]`)
	f.Add(`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":{"$ref":"#"},"dependencies":{"a":{"$ref":"#"}}}`, `["x",["y"]]`)
	f.Add(`{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"items":{"$recursiveRef":"#"}}`, `[[[]]]`)
	f.Fuzz(func(t *testing.T, doc, value string) {
		s, err := schema.Compile(json.RawMessage(doc))
		if err != nil {
			return
		}
		s.Validate(json.RawMessage(value))
	})
}

// TestCostlyKeywordsAreCounted: keywords whose work grows with what they list or with the
// answer — required's names, a pattern's compiled size, uniqueItems' pairs — are counted, so
// the answers that took seconds each are refused without being validated, while ordinary
// answers to the same schemas are checked as before.
func TestCostlyKeywordsAreCounted(t *testing.T) {
	names := make([]string, 3000)
	for i := range names {
		names[i] = fmt.Sprintf(`"n%d"`, i)
	}
	// arrays of n numbers, equal but for the last one: comparing two of them reads them whole
	bigNumbers := func(n, last int) string { return "[" + strings.Repeat(`1e400,`, n-1) + fmt.Sprintf(`%de400]`, last) }
	var arrays, distinct []string
	for i := range 20 {
		arrays = append(arrays, bigNumbers(8600, i+2))
	}
	for i := range 20_000 {
		distinct = append(distinct, fmt.Sprintf("%de300", i+1))
	}
	for _, tc := range []struct {
		name, schema, costly, fine string
	}{
		{"required, 3,000 names, on 10,000 objects",
			`{"type":"array","items":{"required":[` + strings.Join(names, ",") + `]}}`,
			"[" + strings.TrimSuffix(strings.Repeat(`{},`, 10_000), ",") + "]", `[{}]`},
		{"a pattern that compiles to 30,000 instructions, on 40 KB",
			`{"type":"string","pattern":"` + strings.Repeat(`[a-z]{1000}`, 30) + `x"}`,
			`"` + strings.Repeat("a", 40_000) + `"`, `"short"`},
		{"uniqueItems on 1 MiB of numbers",
			`{"uniqueItems":true}`,
			"[" + strings.Join(arrays, ",") + "]", `[1,2,3]`},
		{"ten uniqueItems on 120 KB",
			`{"allOf":[` + strings.TrimSuffix(strings.Repeat(`{"uniqueItems":true},`, 10), ",") + `]}`,
			"[" + strings.Join(distinct, ",") + "]", `["a","b"]`},
	} {
		s, err := schema.Compile(json.RawMessage(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		errs := s.Validate(json.RawMessage(tc.costly))
		if len(errs) != 1 || !strings.Contains(errs[0].Message, "too large to check") {
			t.Errorf("%s: %v, want it refused as too large to check", tc.name, errs)
		}
		errs = s.Validate(json.RawMessage(tc.fine))
		for _, e := range errs {
			if strings.Contains(e.Message, "too large") {
				t.Errorf("%s: an ordinary answer %s: %v", tc.name, tc.fine, errs)
			}
		}
	}
}
