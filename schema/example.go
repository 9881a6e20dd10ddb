package schema

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Bounds of the example a JSON field shows: a hint, not a document.
const (
	maxExampleDepth = 4
	maxExampleProps = 12
	maxExample      = 400 // characters
)

// exampleFor builds a value that fits a schema, written as a person would type it:
// {"name": "…", "count": 0}. The schema's own default or first example is used where it gives
// one. "" when the schema says too little for an example (true, {}) or the example would not
// be short.
func exampleFor(doc json.RawMessage) string {
	var b strings.Builder
	if !writeExample(&b, doc, 0) || b.Len() > maxExample {
		return ""
	}
	return b.String()
}

func writeExample(b *strings.Builder, doc json.RawMessage, depth int) bool {
	var n schemaNode
	if depth > maxExampleDepth || json.Unmarshal(doc, &n) != nil || b.Len() > maxExample {
		return false
	}
	for _, given := range [][]byte{firstOf(n.Examples), n.Const, n.Default} {
		var compact bytes.Buffer
		if len(given) > 0 && json.Compact(&compact, given) == nil {
			b.Write(compact.Bytes())
			return true
		}
	}
	if len(n.Enum) > 0 {
		b.WriteString(valueText(n.Enum[0]))
		return true
	}
	for _, branches := range []json.RawMessage{n.OneOf, n.AnyOf} {
		var list []json.RawMessage
		if json.Unmarshal(branches, &list) == nil && len(list) > 0 {
			return writeExample(b, list[0], depth+1)
		}
	}
	typ := n.typ()
	if typ == "" {
		var types []string
		if json.Unmarshal(n.Type, &types) == nil && len(types) > 0 {
			typ = types[0]
		}
	}
	if typ == "" && len(n.Properties.keys) > 0 {
		typ = "object"
	}
	switch typ {
	case "string":
		b.WriteString(strconv.Quote(formatExample(n.Format)))
	case "integer", "number":
		b.WriteString(numText(numberExample(&n, typ == "integer")))
	case "boolean":
		b.WriteString("true")
	case "null":
		b.WriteString("null")
	case "object":
		b.WriteString("{")
		for i, k := range n.Properties.keys {
			if i == maxExampleProps {
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(k) + ": ")
			if !writeExample(b, n.Properties.values[i], depth+1) {
				b.WriteString("null")
			}
		}
		b.WriteString("}")
	case "array":
		b.WriteString("[")
		if n.Items != nil && !writeExample(b, *n.Items, depth+1) {
			return false
		}
		b.WriteString("]")
	default:
		return false
	}
	return true
}

func firstOf(examples []json.RawMessage) []byte {
	if len(examples) == 0 {
		return nil
	}
	return examples[0]
}

// formatExample is a string of the format, or "…" for any text.
func formatExample(format string) string {
	if f := formats[format]; f.example != "" {
		return f.example
	}
	return "…"
}

// numberExample is the smallest number the bounds allow, or 0.
func numberExample(n *schemaNode, integer bool) float64 {
	v := 0.0
	switch {
	case n.Minimum != nil:
		v = *n.Minimum
	case n.ExclMin != nil:
		v = *n.ExclMin + 1
	case n.Maximum != nil && *n.Maximum < 0:
		v = *n.Maximum
	case n.ExclMax != nil && *n.ExclMax <= 0:
		v = *n.ExclMax - 1
	}
	if integer {
		v = math.Ceil(v)
	}
	return v
}
