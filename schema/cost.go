package schema

import (
	"errors"
	"fmt"
	"math"
	"regexp/syntax"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validating costs what the schema makes the validator do for each value in the answer, and a
// schema is a program: small ones can ask for a lot. Two subschemas that each refer twice to the
// next, thirteen deep, make 4^13 checks of every value (1.4 KB of schema, hours of CPU), and
// 3,000 entries of allOf under items make a 60 KB answer take two minutes. Depth and size bounds
// on the schema's text catch neither, so the compiled schema is costed instead:
//
//   - work(s) is what applying subschema s to one value does on that value: one unit for s,
//     one more per enum value, const or required name, a sixteenth of a unit per instruction
//     of a pattern's compiled program, plus the
//     work of every subschema applied to the same value ($ref, $dynamicRef, $recursiveRef,
//     allOf, anyOf, oneOf, not, if/then/else, dependentSchemas), counted as many times as it is
//     reached;
//   - perDepth[d] is the most work the schema does on one value d levels below the answer's
//     root: a value inside an object gets the subschemas of properties (the largest one: a
//     name matches one), patternProperties (all of them), additionalProperties,
//     unevaluatedProperties and propertyNames; one inside an array those of prefixItems (the
//     largest), items, additionalItems, contains and unevaluatedItems.
//
// Dynamic references count every subschema that they could resolve to. The bound is
// conservative (anyOf is counted in full although the validator may stop early), and the
// answer's cost is the sum over its values of perDepth at the value's depth, a value weighing
// one unit and a sixteenth of a unit per byte of its strings and member names (patterns and
// formats read them). An array that uniqueItems applies to costs, besides, each of its items'
// size times half their number (every pair is compared).
const (
	// MaxWorkPerValue bounds the work a schema may do on one value of the answer: a schema
	// that needs more is refused when compiled.
	MaxWorkPerValue = 10_000
	// MaxWork bounds the work of validating one answer, about a second of one CPU: an answer
	// that needs more is refused without being validated.
	MaxWork = 1_000_000
	// costDepth is how deep the cost is computed; deeper values are charged the most that any
	// level costs. (hitl refuses answers nested deeper than 64.)
	costDepth = 64
)

// saturated is where costs stop growing: beyond every bound, and far from overflowing.
const saturated = math.MaxInt64 / 4

func add(a, b int64) int64 { return min(a+b, saturated) }

var errSelfReference = errors.New("refers to itself without going into the value (an endless loop)")

// cost is what a compiled schema costs, for answerCost.
type cost struct {
	// perDepth[d] is the most work the schema does on one value d levels deep (see above).
	perDepth []int64
	// unique[d] is how many uniqueItems checks may apply to an array d levels deep: each
	// compares every pair of its items, a cost that grows with the square of their number.
	unique []int64
}

// costOf computes the cost of a compiled schema, or refuses a schema that does too much
// work on one value (or loops for ever).
func costOf(root *jsonschema.Schema) (cost, error) {
	g := newGraph(root)
	order, err := g.sameOrder()
	if err != nil {
		return cost{}, err
	}
	c := cost{perDepth: g.perDepth(order, g.weight)}
	for _, w := range c.perDepth {
		if w > MaxWorkPerValue {
			return cost{}, fmt.Errorf("makes validation too costly: one value would take more than %d checks, counting every subschema that $ref, allOf, anyOf, oneOf and the like apply to it", MaxWorkPerValue)
		}
	}
	unique := make([]int64, len(g.nodes))
	for i, s := range g.nodes {
		if s.UniqueItems {
			unique[i] = 1
		}
	}
	c.unique = g.perDepth(order, unique)
	return c, nil
}

// perDepth propagates the weights of the nodes to the values they apply to: the result's
// [d] is the most weight applied to one value d levels below the answer's root, trimmed of
// trailing zeros (a schema that looks at no member or item costs nothing below the root).
func (g *graph) perDepth(order []int, weight []int64) []int64 {
	n := len(g.nodes)
	work := make([]int64, n) // at the current depth, per node
	for _, i := range order {
		work[i] = weight[i]
		for _, j := range g.same[i] {
			work[i] = add(work[i], work[j])
		}
	}
	perDepth := []int64{work[0]}
	obj, arr, next := make([]int64, n), make([]int64, n), make([]int64, n)
	for d := 1; d <= costDepth; d++ {
		// obj[i], arr[i]: the work on a member (an item) of the value s_i applies to, from
		// s_i's own applicators and those of every subschema it applies to the same value.
		for _, i := range order {
			c := g.child[i]
			o := add(maxOf(work, c.properties), sumOf(work, c.members))
			a := add(maxOf(work, c.prefix), sumOf(work, c.items))
			for _, j := range g.same[i] {
				o, a = add(o, obj[j]), add(a, arr[j])
			}
			obj[i], arr[i] = o, a
		}
		zero := true
		for i := range next {
			next[i] = max(obj[i], arr[i])
			zero = zero && next[i] == 0
		}
		if zero {
			break
		}
		work, next = next, work
		perDepth = append(perDepth, work[0])
	}
	return perDepth
}

func maxOf(work []int64, is []int) int64 {
	var m int64
	for _, i := range is {
		m = max(m, work[i])
	}
	return m
}

func sumOf(work []int64, is []int) int64 {
	var s int64
	for _, i := range is {
		s = add(s, work[i])
	}
	return s
}

// graph is a compiled schema's subschemas (nodes[0] is the root) and how they apply.
type graph struct {
	nodes  []*jsonschema.Schema
	index  map[*jsonschema.Schema]int
	weight []int64
	same   [][]int // subschemas applied to the same value, once per reference
	child  []children
}

type children struct {
	properties []int // at most one applies to a member
	members    []int // all may apply to a member
	prefix     []int // at most one applies to an item
	items      []int // all may apply to an item
}

func newGraph(root *jsonschema.Schema) *graph {
	g := &graph{index: map[*jsonschema.Schema]int{}}
	g.visit(root)
	// Dynamic references resolve, while validating, to any subschema with their anchor.
	dynamic := map[string][]int{}
	var recursive []int
	for i, s := range g.nodes {
		if s.DynamicAnchor != "" {
			dynamic[s.DynamicAnchor] = append(dynamic[s.DynamicAnchor], i)
		}
		if s.RecursiveAnchor {
			recursive = append(recursive, i)
		}
	}
	for i, s := range g.nodes {
		if s.DynamicRef != nil && s.DynamicRef.Anchor != "" {
			g.same[i] = append(g.same[i], dynamic[s.DynamicRef.Anchor]...)
		}
		if s.RecursiveRef != nil {
			g.same[i] = append(g.same[i], recursive...)
		}
	}
	return g
}

// visit adds s and what it reaches; it returns s's index.
func (g *graph) visit(s *jsonschema.Schema) int {
	if i, ok := g.index[s]; ok {
		return i
	}
	i := len(g.nodes)
	g.index[s] = i
	g.nodes = append(g.nodes, s)
	g.same = append(g.same, nil)
	g.child = append(g.child, children{})
	g.weight = append(g.weight, weightOf(s))

	var same []int
	one := func(list *[]int, s *jsonschema.Schema) {
		if s != nil {
			*list = append(*list, g.visit(s))
		}
	}
	anyOne := func(list *[]int, v any) { // nil, a bool, a *Schema or a []*Schema
		switch v := v.(type) {
		case *jsonschema.Schema:
			one(list, v)
		case []*jsonschema.Schema:
			for _, s := range v {
				one(list, s)
			}
		}
	}
	one(&same, s.Ref)
	one(&same, s.RecursiveRef)
	if s.DynamicRef != nil {
		one(&same, s.DynamicRef.Ref)
	}
	one(&same, s.Not)
	one(&same, s.If)
	one(&same, s.Then)
	one(&same, s.Else)
	for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, c := range list {
			one(&same, c)
		}
	}
	for _, c := range s.DependentSchemas {
		one(&same, c)
	}
	for _, d := range s.Dependencies {
		anyOne(&same, d)
	}

	var c children
	for _, p := range s.Properties {
		one(&c.properties, p)
	}
	for _, p := range s.PatternProperties {
		one(&c.members, p)
	}
	anyOne(&c.members, s.AdditionalProperties)
	one(&c.members, s.UnevaluatedProperties)
	one(&c.members, s.PropertyNames)
	for _, p := range s.PrefixItems {
		one(&c.prefix, p)
	}
	if list, ok := s.Items.([]*jsonschema.Schema); ok { // draft 2019-09 and before: items as a list
		for _, p := range list {
			one(&c.prefix, p)
		}
	} else {
		anyOne(&c.items, s.Items)
	}
	one(&c.items, s.Items2020)
	anyOne(&c.items, s.AdditionalItems)
	one(&c.items, s.Contains)
	one(&c.items, s.UnevaluatedItems)

	g.same[i], g.child[i] = same, c
	return i
}

func weightOf(s *jsonschema.Schema) int64 {
	w := int64(1)
	if s.Enum != nil {
		w += int64(len(s.Enum.Values))
	}
	if s.Const != nil {
		w++
	}
	// required lists names that are looked up, and each one missing is an error to build.
	w += int64(len(s.Required))
	for _, names := range s.DependentRequired {
		w += 1 + int64(len(names))
	}
	if s.Pattern != nil {
		w += patternWeight(s.Pattern.String())
	}
	for re := range s.PatternProperties {
		w += 1 + patternWeight(re.String())
	}
	return w
}

// patternWeight is what matching a pattern costs per sixteen bytes of a string: Go's regexp
// runs in time proportional to the string's length times the size of the compiled program,
// and a short pattern can compile to a large one ("[a-z]{1000}" is a thousand instructions).
func patternWeight(src string) int64 {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return int64(len(src)) / 16 // the validator compiled it; this cannot happen
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return int64(len(src)) / 16
	}
	return int64(len(prog.Inst)) / 16
}

// sameOrder orders the nodes so that every node comes after those it applies to the same
// value; a cycle among them is a schema that never finishes validating.
func (g *graph) sameOrder() ([]int, error) {
	const (
		unseen = iota
		open
		done
	)
	state := make([]byte, len(g.nodes))
	order := make([]int, 0, len(g.nodes))
	// Iterative depth-first search: the graph can be as deep as the schema is long.
	type frame struct{ node, next int }
	for start := range g.nodes {
		if state[start] != unseen {
			continue
		}
		stack := []frame{{start, 0}}
		state[start] = open
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < len(g.same[f.node]) {
				j := g.same[f.node][f.next]
				f.next++
				switch state[j] {
				case open:
					return nil, errSelfReference
				case unseen:
					state[j] = open
					stack = append(stack, frame{j, 0})
				}
				continue
			}
			state[f.node] = done
			order = append(order, f.node)
			stack = stack[:len(stack)-1]
		}
	}
	return order, nil
}

// answerCost is the work of validating v against a schema of the given cost; it stops
// counting once past limit.
func answerCost(v any, c cost, limit int64) int64 {
	var total int64
	peak := int64(0)
	for _, w := range c.perDepth {
		peak = max(peak, w)
	}
	at := func(perDepth []int64, peak int64, d int) int64 {
		switch {
		case d < len(perDepth):
			return perDepth[d]
		case len(perDepth) <= costDepth:
			return 0 // the schema looks no deeper
		}
		return peak
	}
	// walk adds the work on v and what it holds, and returns v's size: its weight and
	// that of what it holds.
	var walk func(v any, d int) int64
	walk = func(v any, d int) int64 {
		if total > limit {
			return 0
		}
		weight, size := int64(1), int64(0)
		switch v := v.(type) {
		case string:
			weight += int64(len(v)) / 16
		case map[string]any:
			for k, m := range v {
				weight += 1 + int64(len(k))/16
				size = add(size, walk(m, d+1))
			}
		case []any:
			for _, m := range v {
				size = add(size, walk(m, d+1))
			}
			// uniqueItems compares each item with every later one: (n-1)/2 comparisons
			// of each item, on average, each as costly as the items are large.
			if u := at(c.unique, 0, d); u > 0 && len(v) > 1 {
				total = add(total, mul(u, mul(int64(len(v)-1)/2+1, size)))
			}
		}
		total = add(total, mul(weight, at(c.perDepth, peak, d)))
		return add(size, weight)
	}
	walk(v, 0)
	return total
}

func mul(a, b int64) int64 {
	if a != 0 && b > saturated/a {
		return saturated
	}
	return a * b
}
