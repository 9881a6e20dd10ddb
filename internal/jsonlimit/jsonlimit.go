// Package jsonlimit reads untrusted JSON in one pass and refuses what would be costly to keep
// or to work with later: nesting deeper than a bound, numbers with more digits or a larger
// exponent than a bound, and objects that name a member twice (parsers disagree on which of
// the two counts). Every refusal says where, as a JSON Pointer (RFC 6901).
//
// The bounds are the caller's business; this package only applies them.
package jsonlimit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// Limits bound one JSON value. A zero field does not bound.
type Limits struct {
	// Depth is how deeply arrays and objects may nest: [] and {} are 1 deep, [[1]] 2, and a
	// scalar 0.
	Depth int
	// Digits is how many digits a number may have before its exponent (1.50e3 has 3).
	Digits int
	// Exponent bounds the exponent as written: 1e-400 and 1e400 have ±400.
	Exponent int
}

// Error is a value that is not valid JSON or that breaks a limit.
type Error struct {
	Pointer string // where, in the value read ("" is the whole value)
	Message string // what, for people
}

func (e *Error) Error() string {
	if e.Pointer == "" {
		return e.Message
	}
	return e.Pointer + ": " + e.Message
}

// Check reads exactly one JSON value and reports the first problem as an *Error.
func Check(data []byte, l Limits) error {
	r := newReader(data, l)
	defer r.free()
	return r.all(false)
}

// Decode is Check that also returns the value compacted (member order and the text of
// strings and numbers kept) and decoded as encoding/json decodes into an interface with
// UseNumber: map[string]any, []any, json.Number, string, bool and nil. Both come from the one
// pass that checked the value, so what is kept is what was checked.
func Decode(data []byte, l Limits) (compact []byte, v any, err error) {
	r := newReader(data, l)
	defer r.free()
	r.out = make([]byte, 0, len(data))
	if err := r.all(true); err != nil {
		return nil, nil, err
	}
	return r.out, r.v, nil
}

type reader struct {
	dec *jsontext.Decoder
	l   Limits
	out []byte // the compact value (Decode)
	v   any    // the decoded value (Decode)
}

// Decoders are worth reusing: answers and contexts are checked on every request.
var pool = sync.Pool{New: func() any { return &reader{dec: jsontext.NewDecoder(empty)} }}

var empty = bytes.NewReader(nil)

func newReader(data []byte, l Limits) *reader {
	r := pool.Get().(*reader)
	// From a bytes.Buffer the decoder reads in place, without copying. Duplicate names and
	// invalid UTF-8 are refused: those are jsontext's defaults.
	r.dec.Reset(bytes.NewBuffer(data))
	r.l = l
	return r
}

func (r *reader) free() {
	r.dec.Reset(empty)
	r.out, r.v = nil, nil
	pool.Put(r)
}

func (r *reader) all(decode bool) error {
	v, err := r.value(decode)
	if err != nil {
		return r.wrap(err)
	}
	if _, err := r.dec.ReadToken(); err != io.EOF {
		if err == nil {
			return &Error{Message: "is followed by more JSON; send one value"}
		}
		return r.wrap(err)
	}
	r.v = v
	return nil
}

// value reads the next value; decoded, it is also appended to out and returned.
func (r *reader) value(decode bool) (any, error) {
	switch k := r.dec.PeekKind(); k {
	case '{', '[':
		if r.l.Depth > 0 && r.dec.StackDepth() >= r.l.Depth {
			return nil, &Error{Pointer: r.next(), Message: fmt.Sprintf("is nested more than %d deep", r.l.Depth)}
		}
		if _, err := r.dec.ReadToken(); err != nil {
			return nil, err
		}
		if k == '{' {
			return r.object(decode)
		}
		return r.array(decode)
	case '0':
		raw, err := r.dec.ReadValue()
		if err != nil {
			return nil, err
		}
		if msg := r.number(raw); msg != "" {
			return nil, &Error{Pointer: string(r.dec.StackPointer()), Message: msg}
		}
		if !decode {
			return nil, nil
		}
		r.out = append(r.out, raw...)
		return json.Number(raw), nil
	default: // a string, true, false, null, or an error PeekKind leaves for the read
		raw, err := r.dec.ReadValue()
		if err != nil || !decode {
			return nil, err
		}
		r.out = append(r.out, raw...)
		switch raw[0] {
		case 'n':
			return nil, nil
		case 't':
			return true, nil
		case 'f':
			return false, nil
		}
		s, err := jsontext.AppendUnquote(nil, raw)
		return string(s), err
	}
}

func (r *reader) object(decode bool) (any, error) {
	var m map[string]any
	if decode {
		m = map[string]any{}
		r.out = append(r.out, '{')
	}
	for first := true; r.dec.PeekKind() != '}'; first = false {
		name, err := r.dec.ReadValue() // duplicates are refused here
		if err != nil {
			return nil, err
		}
		var key []byte
		if decode {
			if !first {
				r.out = append(r.out, ',')
			}
			r.out = append(append(r.out, name...), ':')
			if key, err = jsontext.AppendUnquote(nil, name); err != nil {
				return nil, err
			}
		}
		v, err := r.value(decode)
		if err != nil {
			return nil, err
		}
		if decode {
			m[string(key)] = v
		}
	}
	if _, err := r.dec.ReadToken(); err != nil {
		return nil, err
	}
	if !decode {
		return nil, nil
	}
	r.out = append(r.out, '}')
	return m, nil
}

func (r *reader) array(decode bool) (any, error) {
	var a []any
	if decode {
		a = []any{}
		r.out = append(r.out, '[')
	}
	for first := true; r.dec.PeekKind() != ']'; first = false {
		if decode && !first {
			r.out = append(r.out, ',')
		}
		v, err := r.value(decode)
		if err != nil {
			return nil, err
		}
		if decode {
			a = append(a, v)
		}
	}
	if _, err := r.dec.ReadToken(); err != nil {
		return nil, err
	}
	if !decode {
		return nil, nil
	}
	r.out = append(r.out, ']')
	return a, nil
}

// number says what is wrong with a number (valid JSON, as the decoder read it), "" if nothing.
func (r *reader) number(raw []byte) string {
	digits, exp := 0, raw
	for i, c := range raw {
		if c >= '0' && c <= '9' {
			digits++
		} else if c == 'e' || c == 'E' {
			exp = raw[i+1:]
			break
		}
	}
	if len(exp) == len(raw) {
		exp = nil
	}
	if r.l.Digits > 0 && digits > r.l.Digits {
		return fmt.Sprintf("is a number of %d digits; at most %d are allowed", digits, r.l.Digits)
	}
	if r.l.Exponent > 0 && len(exp) > 0 {
		exp = bytes.TrimLeft(bytes.TrimLeft(exp, "+-"), "0") // "" is an exponent of 0
		if n, _ := strconv.Atoi(string(exp)); len(exp) > 9 || n > r.l.Exponent {
			return fmt.Sprintf("is a number whose exponent is beyond ±%d", r.l.Exponent)
		}
	}
	return ""
}

// next is the pointer of the value about to be read: the member just named, or the array's
// next element.
func (r *reader) next() string {
	d := r.dec.StackDepth()
	if d == 0 {
		return ""
	}
	p := string(r.dec.StackPointer())
	if kind, n := r.dec.StackIndex(d); kind == '[' {
		if n > 0 { // the pointer names the previous element
			p = p[:bytes.LastIndexByte([]byte(p), '/')]
		}
		p += "/" + strconv.FormatInt(n, 10)
	}
	return p
}

// wrap turns the decoder's errors into ours.
func (r *reader) wrap(err error) error {
	var le *Error
	if errors.As(err, &le) {
		return le
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		if errors.Is(se.Err, jsontext.ErrDuplicateName) {
			return &Error{Pointer: string(se.JSONPointer), Message: fmt.Sprintf("duplicate key %q", se.JSONPointer.LastToken())}
		}
		if !errors.Is(se.Err, io.ErrUnexpectedEOF) {
			return &Error{Pointer: string(se.JSONPointer), Message: fmt.Sprintf("is not valid JSON (byte %d): %v", se.ByteOffset, se.Err)}
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Pointer: string(r.dec.StackPointer()), Message: "is not valid JSON: it ends too early"}
	}
	return &Error{Message: "is not valid JSON: " + err.Error()}
}
