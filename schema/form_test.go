package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestFormKinds(t *testing.T) {
	cases := []struct {
		schema string
		want   Kind
	}{
		{`{"type":"boolean"}`, KindBoolean},
		{`{"enum":["a","b"]}`, KindChoice},
		{`{"enum":["a",1]}`, KindJSON},
		{`{"type":"integer","minimum":1}`, KindInteger},
		{`{"type":"number"}`, KindNumber},
		{`{"type":"string","minLength":1}`, KindTextArea},
		{`{"type":"string","maxLength":80}`, KindText},
		{`{"type":"string","maxLength":5000}`, KindTextArea},
		{`{"type":"string","format":"email"}`, KindText},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, KindObject},
		{`{"type":"object"}`, KindJSON},
		{`{"type":"array","items":{"type":"string"}}`, KindList},
		{`{"type":"array","items":{"enum":["x","y"]}}`, KindChoices},
		{`{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}}}}`, KindJSON},
		{`{"type":"array"}`, KindJSON},
		{`{"oneOf":[{"type":"string"},{"type":"integer"}]}`, KindJSON},
		{`{"type":["string","null"]}`, KindJSON},
		{`true`, KindJSON},
		{`not json`, KindJSON},
	}
	for _, tc := range cases {
		if got := FormFor(json.RawMessage(tc.schema)).Kind; got != tc.want {
			t.Errorf("%s: kind %s, want %s", tc.schema, got, tc.want)
		}
	}
}

func TestFormKeepsPropertyOrderAndNames(t *testing.T) {
	f := FormFor(json.RawMessage(`{"type":"object","required":["zeta"],"properties":{
		"zeta":{"type":"string","title":"Zeta","description":"last letter"},
		"a/b":{"type":"object","properties":{"c":{"type":"integer","minimum":0,"maximum":9}}},
		"alpha":{"type":"number","multipleOf":0.5}}}`))
	var names []string
	for _, c := range f.Fields {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, " "); got != "answer/zeta answer/a~1b answer/alpha" {
		t.Fatalf("names in order: %s", got)
	}
	z := f.Fields[0]
	if !z.Required || z.Title != "Zeta" || z.Description != "last letter" {
		t.Errorf("zeta: %+v", z)
	}
	c := f.Fields[1].Fields[0]
	if c.Name != "answer/a~1b/c" || c.Path != "/a~1b/c" || *c.Min != 0 || *c.Max != 9 || c.Step != "1" || c.Required {
		t.Errorf("nested c: %+v", c)
	}
	if f.Fields[2].Step != "0.5" {
		t.Errorf("multipleOf step: %q", f.Fields[2].Step)
	}
}

func TestFormRead(t *testing.T) {
	schema := `{"type":"object","required":["name","count"],"properties":{
		"name":{"type":"string","maxLength":50},
		"count":{"type":"integer"},
		"ratio":{"type":"number"},
		"ok":{"type":"boolean"},
		"tags":{"type":"array","items":{"type":"string","maxLength":20}},
		"sizes":{"type":"array","items":{"type":"integer"}},
		"colors":{"type":"array","items":{"enum":["red","blue"]}},
		"when":{"type":"string","format":"date-time"},
		"extra":{"oneOf":[{"type":"string"},{"type":"integer"}]},
		"inner":{"type":"object","properties":{"x":{"type":"string","maxLength":9}}}}}`
	f := FormFor(json.RawMessage(schema))
	cases := []struct {
		name string
		form map[string][]string
		want string // the JSON answer, or the errors as path=message;...
	}{
		{"all given", map[string][]string{
			"answer/name": {" Ada "}, "answer/count": {"3"}, "answer/ratio": {".5"}, "answer/ok": {"false"},
			"answer/tags": {"a", "", "b"}, "answer/sizes": {"1", "2"}, "answer/colors": {"blue"},
			"answer/when": {"2026-11-22T10:30"}, "answer/extra": {`{"n": 1}`}, "answer/inner/x": {"y"},
		}, `{"colors":["blue"],"count":3,"extra":{"n":1},"inner":{"x":"y"},"name":"Ada","ok":false,"ratio":0.5,"sizes":[1,2],"tags":["a","b"],"when":"2026-11-22T10:30:00Z"}`},
		{"optional left empty", map[string][]string{"answer/name": {"Ada"}, "answer/count": {"0"}, "answer/tags": {""}, "answer/inner/x": {""}},
			`{"count":0,"name":"Ada"}`},
		{"required empty text the schema lets be empty is sent for the schema to judge", map[string][]string{"answer/count": {"1"}}, `{"count":1,"name":""}`},
		{"bad values", map[string][]string{
			"answer/name": {"x"}, "answer/count": {"1.5"}, "answer/ratio": {"NaN"}, "answer/ok": {"maybe"},
			"answer/sizes": {"1", "two"}, "answer/extra": {"{"},
		}, "/count=enter a whole number;/ratio=enter a number;/ok=choose yes or no;/sizes/1=enter a whole number;/extra=is not valid JSON: unexpected end of JSON input"},
		{"required number missing", map[string][]string{"answer/name": {"x"}}, "/count=is required"},
	}
	for _, tc := range cases {
		got, errs := f.Read(tc.form)
		var msg []string
		for _, e := range errs {
			msg = append(msg, e.Path+"="+e.Message)
		}
		out := string(got)
		if len(errs) > 0 {
			out = strings.Join(msg, ";")
		}
		if out != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, out, tc.want)
		}
	}
}

// With the problems comes the answer of the fields that could be read, for the schema to judge
// them at the same time; a list with a row that could not be read is left out whole, so that no
// row is judged at another's index.
// A field that may not be left empty says "is required" when it is, as a missing property
// does, rather than what the schema would say of an empty value ("must be at least 1
// character long", "must have at least 1 item"); a text the schema lets be empty is sent.
func TestEmptyRequiredFieldsAreRequired(t *testing.T) {
	f := FormFor(json.RawMessage(`{"type":"object","required":["why","when","mail","tags","regions","note","count"],"properties":{
		"why":{"type":"string","minLength":1},
		"when":{"type":"string","format":"date"},
		"mail":{"type":"string","format":"email"},
		"tags":{"type":"array","minItems":1,"items":{"type":"string"}},
		"regions":{"type":"array","minItems":1,"items":{"enum":["eu","us"]}},
		"note":{"type":"string"},
		"count":{"type":"integer"}}}`))
	_, errs := f.Read(map[string][]string{"answer/why": {"  "}, "answer/tags": {""}})
	var got []string
	for _, e := range errs {
		got = append(got, e.Path+"="+e.Message)
	}
	want := "/why=is required;/when=is required;/mail=is required;/tags=is required;/regions=is required;/count=is required"
	if strings.Join(got, ";") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, ";"), want)
	}
	for _, c := range f.Fields {
		if c.NeedsValue() != (c.Key != "note") {
			t.Errorf("%s: NeedsValue %v", c.Key, c.NeedsValue())
		}
	}
	if root := FormFor(json.RawMessage(`{"type":"string","minLength":1}`)); !root.NeedsValue() {
		t.Error("a text answer (the default of a question) may be left empty")
	}
}

func TestFormReadGivesWhatItCouldRead(t *testing.T) {
	f := FormFor(json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"},
		"sizes":{"type":"array","items":{"type":"integer"}},"raw":{"oneOf":[{"type":"object"}]}}}`))
	got, errs := f.Read(map[string][]string{"answer/name": {"Ada"}, "answer/count": {"x"}, "answer/sizes": {"1", "y", "3"}, "answer/raw": {"{"}})
	var paths []string
	for _, e := range errs {
		paths = append(paths, e.Path)
	}
	if string(got) != `{"name":"Ada"}` || strings.Join(paths, " ") != "/count /sizes/1 /raw" {
		t.Fatalf("got %s with problems at %v", got, paths)
	}
}

func TestFormReadRoot(t *testing.T) {
	for _, tc := range []struct{ schema, value, want string }{
		{`{"type":"boolean"}`, "true", "true"},
		{`{"type":"integer"}`, "42", "42"},
		{`{"enum":["a","b"]}`, "b", `"b"`},
		{`{"type":"string","minLength":1}`, "line one\nline two", `"line one\nline two"`},
		{`{"oneOf":[{"type":"string"}]}`, `"x"`, `"x"`},
	} {
		got, errs := FormFor(json.RawMessage(tc.schema)).Read(map[string][]string{RootName: {tc.value}})
		if errs != nil || string(got) != tc.want {
			t.Errorf("%s with %q: got %s %v, want %s", tc.schema, tc.value, got, errs, tc.want)
		}
	}
	if _, errs := FormFor(json.RawMessage(`{"type":"boolean"}`)).Read(nil); len(errs) != 1 || errs[0].Path != "" {
		t.Errorf("nothing chosen: %v", errs)
	}
}

// A schema nested deeper than a form shows, or with more fields than a page holds, ends in
// one JSON field rather than a page nobody can use.
func TestFormBounds(t *testing.T) {
	deep := `{"type":"string"}`
	for range 10 {
		deep = `{"type":"object","properties":{"a":` + deep + `}}`
	}
	f := FormFor(json.RawMessage(deep))
	depth := 0
	for f.Kind == KindObject {
		f, depth = f.Fields[0], depth+1
	}
	if f.Kind != KindJSON || depth > maxFormDepth+1 {
		t.Errorf("deep schema: %s at depth %d", f.Kind, depth)
	}
	var props []string
	for i := range maxFormFields + 1 {
		props = append(props, `"p`+strconv.Itoa(i)+`":{"type":"string"}`)
	}
	if k := FormFor(json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)).Kind; k != KindJSON {
		t.Errorf("an object of %d properties: %s, want one JSON field", len(props), k)
	}
}

// TestValuesRoundTrip: the values a form starts from read back as the value they came from.
func TestValuesRoundTrip(t *testing.T) {
	doc := json.RawMessage(`{"type":"object","properties":{"service":{"type":"string","maxLength":50},"replicas":{"type":"integer"},
		"canary":{"type":"boolean"},"regions":{"type":"array","items":{"enum":["eu","us"]}},"ports":{"type":"array","items":{"type":"integer"}},
		"labels":{"type":"object","additionalProperties":{"type":"string"}},"note":{"type":"string"}}}`)
	value := `{"service":"api","replicas":3,"canary":true,"regions":["eu","us"],"ports":[80,443],"labels":{"team":"sre"}}`
	f := FormFor(doc)
	values := f.Values(json.RawMessage(value))
	if got := values["answer/replicas"]; len(got) != 1 || got[0] != "3" {
		t.Fatalf("replicas: %v", got)
	}
	back, errs := f.Read(values)
	if errs != nil {
		t.Fatal(errs)
	}
	var a, b any
	json.Unmarshal(back, &a)
	json.Unmarshal([]byte(value), &b)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("read back %s, want %s", back, value)
	}
}
