package schema_test

import (
	"encoding/json"
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
	c := schema.NewCache(2)
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

// FuzzValidate: any schema and any value compile or fail cleanly; validation never panics.
func FuzzValidate(f *testing.F) {
	f.Add(`{"type":"object","required":["a"]}`, `{"a":1}`)
	f.Add(`{"enum":["x","y"]}`, `"z"`)
	f.Add(`{"type":"array","items":{"type":"string"},"uniqueItems":true}`, `["a","a"]`)
	f.Add(`{"pattern":"(a+)+$"}`, `"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"`)
	f.Add(`{"$ref":"#"}`, `1`)
	f.Add(`{"minimum":1e308,"multipleOf":1e-308}`, `1e308`)
	f.Fuzz(func(t *testing.T, doc, value string) {
		s, err := schema.Compile(json.RawMessage(doc))
		if err != nil {
			return
		}
		s.Validate(json.RawMessage(value))
	})
}
