package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every keyword's failure is said in words, at the place a form shows it.
func TestProblemsInWords(t *testing.T) {
	cases := []struct {
		schema, value string
		path, want    string
	}{
		{`{"minimum":2}`, `1`, "", "must be at least 2"},
		{`{"maximum":20}`, `50`, "", "must be at most 20"},
		{`{"exclusiveMinimum":0}`, `0`, "", "must be more than 0"},
		{`{"exclusiveMaximum":10}`, `10`, "", "must be less than 10"},
		{`{"multipleOf":0.5}`, `12.3`, "", "must be a multiple of 0.5"},
		{`{"minLength":2}`, `"A"`, "", "must be at least 2 characters long"},
		{`{"minLength":1}`, `""`, "", "must not be empty"},
		{`{"maxLength":3}`, `"abcd"`, "", "must be at most 3 characters long (it is 4)"},
		{`{"pattern":"^[a-z]+$"}`, `"A"`, "", "must use lower-case letters only (^[a-z]+$)"},
		{`{"pattern":"^[A-Z]{3}-\\d+$"}`, `"x"`, "", `must match ^[A-Z]{3}-\d+$`},
		{`{"enum":["eu-west-1","us-east-1",3]}`, `"x"`, "", `must be one of "eu-west-1", "us-east-1" or 3`},
		{`{"const":"yes"}`, `"no"`, "", `must be "yes"`},
		{`{"type":"integer"}`, `1.5`, "", "must be a whole number"},
		{`{"type":"integer"}`, `"1"`, "", "must be a whole number, not text"},
		{`{"type":"boolean"}`, `"yes"`, "", "must be true or false, not text"},
		{`{"type":["string","null"]}`, `1`, "", "must be null or text, not a number"},
		{`{"format":"email"}`, `"not-an-email"`, "", "must be an email address, like kim@example.com"},
		{`{"format":"uri"}`, `"example"`, "", "must be a full address, like https://example.com/page"},
		{`{"format":"date"}`, `"31/01/2026"`, "", "must be a date, like 2026-01-31"},
		{`{"format":"date-time"}`, `"2026-01-31"`, "", "must be a date and time with its zone, like 2026-01-31T09:30:00Z"},
		{`{"minItems":2}`, `[1]`, "", "must have at least 2 items"},
		{`{"maxItems":1}`, `[1,2]`, "", "must have at most 1 item (it has 2)"},
		{`{"uniqueItems":true}`, `[1,2,1]`, "", "must not repeat an item (items 1 and 3 are the same)"},
		{`{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"b":2}`, "", `must not have the property "b"`},
		{`{"required":["region"]}`, `{}`, "/region", "is required"},
		{`{"properties":{"x":{"required":["y"]}}}`, `{"x":{}}`, "/x/y", "is required"},
		{`{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, "/b", `is required when "a" is given`},
		{`{"minProperties":1}`, `{}`, "", "must have at least 1 property"},
		{`{"maxProperties":1}`, `{"a":1,"b":2}`, "", "must have at most 1 property"},
		{`{"propertyNames":{"maxLength":2}}`, `{"abc":1}`, "", `must not have a property named "abc"`},
		{`{"contains":{"type":"string"}}`, `[1]`, "/0", "must be text, not a number"},
		{`{"not":{"type":"string"}}`, `"x"`, "", `must not fit the schema under "not"`},
		{`{"items":false}`, `[1]`, "/0", "is not allowed here"},
	}
	for _, tc := range cases {
		s, err := Compile(json.RawMessage(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		errs := s.Validate(json.RawMessage(tc.value))
		found := false
		for _, e := range errs {
			found = found || (e.Path == tc.path && strings.Contains(e.Message, tc.want))
		}
		if !found {
			t.Errorf("%s with %s: %+v, want %q at %q", tc.schema, tc.value, errs, tc.want, tc.path)
		}
	}
}

func TestPatternWords(t *testing.T) {
	cases := map[string]string{
		`^[a-z]+$`:        "lower-case letters only",
		`^[A-Z]+$`:        "upper-case letters only",
		`^[a-zA-Z]*$`:     "letters only",
		`^[0-9]+$`:        "digits only",
		`^\d+$`:           "digits only",
		`^[a-z0-9-]+$`:    "lower-case letters, digits and hyphens only",
		`^[A-Za-z0-9_]+$`: "letters, digits and underscores only",
		`^\w+$`:           "letters, digits and underscores only",
		`^[a-z]{3}$`:      "",
		`[a-z]+`:          "",
		`^[^a-z]+$`:       "",
		`^[a-f0-9]+$`:     "",
	}
	for pattern, want := range cases {
		got, ok := PatternWords(pattern)
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", pattern, got, ok, want)
		}
	}
}

// A form says what each field takes before anything is entered, with the words the problems use.
func TestFormSaysWhatItExpects(t *testing.T) {
	cases := []struct{ schema, want string }{
		{`{"type":"integer","minimum":1,"maximum":20}`, "between 1 and 20"},
		{`{"type":"integer","minimum":0}`, "at least 0"},
		{`{"type":"integer","maximum":20}`, "at most 20"},
		{`{"type":"integer"}`, ""},
		{`{"type":"number"}`, ""},
		{`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":10}`, "more than 0 and less than 10"},
		{`{"type":"number","minimum":0,"multipleOf":0.5}`, "at least 0, in steps of 0.5"},
		{`{"type":"integer","multipleOf":5}`, "in steps of 5"},
		{`{"type":"string","minLength":2,"maxLength":40,"pattern":"^[a-z]+$"}`, "2–40 characters, lower-case letters only"},
		{`{"type":"string","maxLength":40}`, "at most 40 characters"},
		{`{"type":"string","minLength":1}`, "at least 1 character"},
		{`{"type":"string","minLength":5,"maxLength":5}`, "exactly 5 characters"},
		{`{"type":"string","pattern":"^[A-Z]{3}$"}`, "must match ^[A-Z]{3}$"},
		{`{"type":"string","format":"email"}`, "an email address, like kim@example.com"},
		{`{"enum":["a","b"]}`, "Choose one"},
		{`{"type":"array","items":{"enum":["a","b"]}}`, "Choose any"},
		{`{"type":"array","items":{"enum":["a","b"]},"minItems":1}`, "Choose at least 1"},
		{`{"type":"array","items":{"enum":["a","b","c"]},"minItems":1,"maxItems":2}`, "Choose 1 to 2"},
		{`{"type":"array","items":{"type":"integer","maximum":9},"maxItems":3}`, "at most 3 rows; each at most 9"},
		{`{"type":"boolean"}`, ""},
	}
	for _, tc := range cases {
		if got := FormFor(json.RawMessage(tc.schema)).Expects(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.schema, got, tc.want)
		}
	}
}

// A JSON field shows a value that fits, built from its schema, in the schema's order.
func TestJSONFieldExample(t *testing.T) {
	cases := []struct{ schema, want string }{
		{`{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"}}}}`, `[{"name": "…", "count": 0}]`},
		{`{"oneOf":[{"type":"object","properties":{"at":{"type":"string","format":"date"},"ok":{"type":"boolean"}}},{"type":"null"}]}`, `{"at": "2026-01-31", "ok": true}`},
		{`{"anyOf":[{"type":"integer","minimum":3}]}`, `3`},
		{`{"type":"object"}`, `{}`},
		{`{"type":"array","items":{"type":"object","properties":{"n":{"type":"number","exclusiveMinimum":0}}}}`, `[{"n": 1}]`},
		{`{"type":"array","items":{"type":"object","properties":{"size":{"enum":["s","m"]}}},"examples":[[{"size": "m"}]]}`, `[{"size":"m"}]`},
		{`{"allOf":[{"type":"string"}]}`, ``},
		{`true`, ``},
		{`{}`, ``},
	}
	for _, tc := range cases {
		f := FormFor(json.RawMessage(tc.schema))
		if f.Kind != KindJSON || f.Example != tc.want {
			t.Errorf("%s: %s field, example %s, want %s", tc.schema, f.Kind, f.Example, tc.want)
		}
	}
}
