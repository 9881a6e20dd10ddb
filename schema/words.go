package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// What a schema asks of a value, in words: the problems the validator finds, and the hints a
// form shows before anything is entered. Both say a bound the same way ("at most 20", "at
// least 2 characters"), so what a form promises is what it later complains about.

// problemWords says what a failed keyword wants, as the rest of a sentence whose subject is
// the value: "must be at most 20". ok is false for a kind the library reports only as
// wrapping its causes, or one with no words here: the library's own text is used then.
func problemWords(k jsonschema.ErrorKind) (msg string, ok bool) {
	switch k := k.(type) {
	case *kind.Minimum:
		return "must be at least " + ratText(k.Want), true
	case *kind.Maximum:
		return "must be at most " + ratText(k.Want), true
	case *kind.ExclusiveMinimum:
		return "must be more than " + ratText(k.Want), true
	case *kind.ExclusiveMaximum:
		return "must be less than " + ratText(k.Want), true
	case *kind.MultipleOf:
		return "must be a multiple of " + ratText(k.Want), true
	case *kind.MinLength:
		if k.Want == 1 {
			return "must not be empty", true
		}
		return fmt.Sprintf("must be at least %s long", count(k.Want, "character")), true
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %s long (it is %d)", count(k.Want, "character"), k.Got), true
	case *kind.Pattern:
		if words, ok := PatternWords(k.Want); ok {
			return fmt.Sprintf("must use %s (%s)", words, k.Want), true
		}
		return "must match " + k.Want, true
	case *kind.Enum:
		return "must be one of " + valuesText(k.Want), true
	case *kind.Const:
		return "must be " + valueText(k.Want), true
	case *kind.Type:
		if k.Got == "number" && len(k.Want) == 1 && k.Want[0] == "integer" {
			return "must be a whole number", true // 1.5 is a number too
		}
		want := make([]string, len(k.Want))
		for i, t := range k.Want {
			want[i] = typeWords(t)
		}
		return fmt.Sprintf("must be %s, not %s", orList(want), typeWords(k.Got)), true
	case *kind.Format:
		return "must be " + formatWords(k.Want), true
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %s", count(k.Want, "item")), true
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %s (it has %d)", count(k.Want, "item"), k.Got), true
	case *kind.UniqueItems:
		return fmt.Sprintf("must not repeat an item (items %d and %d are the same)", k.Duplicates[0]+1, k.Duplicates[1]+1), true
	case *kind.AdditionalProperties:
		if len(k.Properties) == 1 {
			return fmt.Sprintf("must not have the property %q", k.Properties[0]), true
		}
		return "must not have the properties " + quotedList(k.Properties), true
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %s", count(k.Want, "property")), true
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %s", count(k.Want, "property")), true
	case *kind.PropertyNames:
		return fmt.Sprintf("must not have a property named %q", k.Property), true
	case *kind.Not:
		return `must not fit the schema under "not"`, true
	case *kind.Contains:
		return "must contain an item that fits", true
	case *kind.MinContains:
		return fmt.Sprintf("must contain at least %s that fit", count(k.Want, "item")), true
	case *kind.MaxContains:
		return fmt.Sprintf("must contain at most %s that fit", count(k.Want, "item")), true
	case *kind.AdditionalItems:
		return "has more items than allowed", true
	case *kind.FalseSchema:
		return "is not allowed here", true
	case *kind.ContentEncoding:
		return "must be " + k.Want + "-encoded", true
	case *kind.ContentMediaType:
		return "must be " + k.Want, true
	}
	return "", false
}

// missingWords is what a missing required property gets, at the property's own path: a form
// shows it beside the field left empty.
const missingWords = "is required"

// ratText writes a number as a person would: 20, 0.5, -3.25.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return numText(f)
}

func numText(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// count says "1 character", "3 characters".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// typeWords names a JSON type as a person knows it.
func typeWords(t string) string {
	switch t {
	case "integer":
		return "a whole number"
	case "number":
		return "a number"
	case "string":
		return "text"
	case "boolean":
		return "true or false"
	case "object":
		return "an object"
	case "array":
		return "a list"
	case "null":
		return "null"
	}
	return t
}

// formats says what each format asks for, and gives a value of it: the problems and the
// examples of JSON fields say the same.
var formats = map[string]struct{ what, example string }{
	"email":                 {"an email address", "kim@example.com"},
	"idn-email":             {"an email address", "kim@example.com"},
	"uri":                   {"a full address", "https://example.com/page"},
	"iri":                   {"a full address", "https://example.com/page"},
	"uri-reference":         {"an address or a path", "/page"},
	"iri-reference":         {"an address or a path", "/page"},
	"date":                  {"a date", "2026-01-31"},
	"time":                  {"a time of day with its zone", "09:30:00Z"},
	"date-time":             {"a date and time with its zone", "2026-01-31T09:30:00Z"},
	"duration":              {"a duration", "PT1H30M"},
	"uuid":                  {"a UUID", "123e4567-e89b-12d3-a456-426614174000"},
	"hostname":              {"a host name", "example.com"},
	"idn-hostname":          {"a host name", "example.com"},
	"ipv4":                  {"an IPv4 address", "192.0.2.1"},
	"ipv6":                  {"an IPv6 address", "2001:db8::1"},
	"json-pointer":          {"a JSON pointer", "/items/0"},
	"relative-json-pointer": {"a relative JSON pointer", "1/name"},
	"uri-template":          {"a URI template", "https://example.com/{id}"},
	"regex":                 {"a regular expression", ""},
}

// formatWords says what a format asks for, with an example: "an email address, like
// kim@example.com".
func formatWords(format string) string {
	f, ok := formats[format]
	switch {
	case !ok:
		return "a valid " + format
	case f.example == "":
		return f.what
	}
	return f.what + ", like " + f.example
}

// valueText writes a schema's value as JSON: "eu-west-1" in quotes, 3 as it is.
func valueText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func valuesText(vs []any) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = valueText(v)
	}
	return orList(out)
}

func quotedList(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return andList(out)
}

func orList(ss []string) string  { return list(ss, "or") }
func andList(ss []string) string { return list(ss, "and") }

// list joins words as a sentence does: "a, b or c".
func list(ss []string, word string) string {
	if len(ss) <= 1 {
		return strings.Join(ss, "")
	}
	return strings.Join(ss[:len(ss)-1], ", ") + " " + word + " " + ss[len(ss)-1]
}

// wholeClass is a pattern that allows only the characters of one class, the whole value
// through: ^[a-z]+$, ^[A-Za-z0-9_-]*$, ^\d+$.
var wholeClass = regexp.MustCompile(`^\^(?:\[([^\]\[^]+)\]|(\\d|\\w))[+*]\$$`)

// classParts are the pieces of a character class there are words for, longest first.
var classParts = []struct{ in, words string }{
	{"a-zA-Z", "letters"}, {"A-Za-z", "letters"},
	{"a-z", "lower-case letters"}, {"A-Z", "upper-case letters"},
	{"0-9", "digits"}, {`\d`, "digits"},
	{"_", "underscores"}, {"-", "hyphens"}, {`\-`, "hyphens"}, {".", "dots"}, {`\.`, "dots"}, {" ", "spaces"},
}

// PatternWords says in words what a common pattern allows, "lower-case letters only" for
// ^[a-z]+$; ok is false for a pattern with no words here, which is then shown as it is.
func PatternWords(pattern string) (words string, ok bool) {
	m := wholeClass.FindStringSubmatch(pattern)
	if m == nil {
		return "", false
	}
	switch m[2] {
	case `\d`:
		return "digits only", true
	case `\w`:
		return "letters, digits and underscores only", true
	}
	class := m[1]
	var parts []string
	for class != "" {
		found := false
		for _, p := range classParts {
			if strings.HasPrefix(class, p.in) {
				class = class[len(p.in):]
				parts = append(parts, p.words)
				found = true
				break
			}
		}
		if !found {
			return "", false
		}
	}
	return andList(parts) + " only", true
}

// Expects says what a field takes, in words, for a form to show before anything is entered:
// "between 1 and 20, in steps of 0.5", "2–40 characters, lower-case letters only", "Choose
// one". It says the bounds as the problems do; "" when there is nothing to say.
func (f *Field) Expects() string {
	var parts []string
	switch f.Kind {
	case KindInteger, KindNumber:
		if r := rangeWords(f.Min, f.Max, f.ExclusiveMin, f.ExclusiveMax); r != "" {
			parts = append(parts, r)
		}
		if f.Step != "any" && !(f.Kind == KindInteger && f.Step == "1") {
			parts = append(parts, "in steps of "+f.Step)
		}
	case KindText, KindTextArea:
		if l := lengthWords(f.MinLength, f.MaxLength); l != "" {
			parts = append(parts, l)
		}
		if f.Pattern != "" {
			if words, ok := PatternWords(f.Pattern); ok {
				parts = append(parts, words)
			} else {
				parts = append(parts, "must match "+f.Pattern)
			}
		}
		if f.Format == "email" || f.Format == "uri" {
			parts = append(parts, formatWords(f.Format))
		}
	case KindChoice:
		return "Choose one"
	case KindChoices:
		return "Choose " + boundsWords(f.MinItems, f.MaxItems, "any", "")
	case KindList:
		if f.MinItems != nil || f.MaxItems != nil {
			parts = append(parts, boundsWords(f.MinItems, f.MaxItems, "", "row"))
		}
		if each := f.Item.Expects(); each != "" {
			parts = append(parts, "each "+each)
		}
		return strings.Join(parts, "; ")
	}
	return strings.Join(parts, ", ")
}

// rangeWords says a number's bounds: "between 1 and 20", "at least 0", "less than 10".
func rangeWords(min, max, exclMin, exclMax *float64) string {
	var low, high string
	switch {
	case exclMin != nil && (min == nil || *exclMin >= *min):
		low = "more than " + numText(*exclMin)
	case min != nil:
		low = "at least " + numText(*min)
	}
	switch {
	case exclMax != nil && (max == nil || *exclMax <= *max):
		high = "less than " + numText(*exclMax)
	case max != nil:
		high = "at most " + numText(*max)
	}
	switch {
	case strings.HasPrefix(low, "at least ") && strings.HasPrefix(high, "at most "):
		return "between " + numText(*min) + " and " + numText(*max)
	case low != "" && high != "":
		return low + " and " + high
	}
	return low + high
}

// lengthWords says a text's length bounds: "2–40 characters", "at most 40 characters".
func lengthWords(min, max *int) string {
	if min != nil && *min <= 0 {
		min = nil
	}
	switch {
	case min != nil && max != nil && *min == *max:
		return "exactly " + count(*max, "character")
	case min != nil && max != nil:
		return fmt.Sprintf("%d–%d characters", *min, *max)
	case min != nil:
		return "at least " + count(*min, "character")
	case max != nil:
		return "at most " + count(*max, "character")
	}
	return ""
}

// boundsWords says how many of something: "1 to 3", "at least 1", "at most 3 rows"; none
// when there are no bounds. noun "" leaves the count bare ("Choose 1 to 3").
func boundsWords(min, max *int, none, noun string) string {
	if min != nil && *min <= 0 {
		min = nil
	}
	n := func(i int) string {
		if noun == "" {
			return strconv.Itoa(i)
		}
		return count(i, noun)
	}
	switch {
	case min != nil && max != nil && *min == *max:
		return n(*max)
	case min != nil && max != nil:
		if noun == "" {
			return fmt.Sprintf("%d to %d", *min, *max)
		}
		return fmt.Sprintf("%d to %s", *min, n(*max))
	case min != nil:
		return "at least " + n(*min)
	case max != nil:
		return "at most " + n(*max)
	}
	return none
}
