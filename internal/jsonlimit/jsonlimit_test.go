package jsonlimit_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl/internal/jsonlimit"
)

var limits = jsonlimit.Limits{Depth: 3, Digits: 10, Exponent: 20}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		in, pointer, message string
	}{
		{`[[[[1]]]]`, "/0/0/0", "is nested more than 3 deep"},
		{`{"a":{"b":{"c":{}}}}`, "/a/b/c", "is nested more than 3 deep"},
		{`{"a":[1,{"b":[]}]}`, "/a/1/b", "is nested more than 3 deep"},
		{`[1,2,[3,[[]]]]`, "/2/1/0", "is nested more than 3 deep"},
		{`[[[]],[[],[[]]]]`, "/1/1/0", "is nested more than 3 deep"},
		{`{"a":"str","a":1}`, "/a", `duplicate key "a"`},
		{`{"x":[{"a/b":1,"a/b":2}]}`, "/x/0/a~1b", `duplicate key "a/b"`},
		{`{"n":12345678901}`, "/n", "is a number of 11 digits; at most 10 are allowed"},
		{`[0.00000000001]`, "/0", "is a number of 12 digits; at most 10 are allowed"},
		{`1e21`, "", "is a number whose exponent is beyond ±20"},
		{`{"a":[1,-1E-21]}`, "/a/1", "is a number whose exponent is beyond ±20"},
		{`1e99999999999999999999999`, "", "is a number whose exponent is beyond ±20"},
		{`{"a":1} 2`, "", "is followed by more JSON; send one value"},
		{`{"a":`, "/a", "is not valid JSON: it ends too early"},
		{``, "", "is not valid JSON: it ends too early"},
		{`{"a":tru}`, "/a", ""},
		{"\"\xff\"", "", ""},
	} {
		err := jsonlimit.Check([]byte(tc.in), limits)
		var le *jsonlimit.Error
		if !errors.As(err, &le) {
			t.Errorf("%s: %v, want a *jsonlimit.Error", tc.in, err)
			continue
		}
		if le.Pointer != tc.pointer || tc.message != "" && le.Message != tc.message {
			t.Errorf("%s: %q %q, want %q %q", tc.in, le.Pointer, le.Message, tc.pointer, tc.message)
		}
		if _, _, err2 := jsonlimit.Decode([]byte(tc.in), limits); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("%s: Decode says %v, Check %v", tc.in, err2, err)
		}
	}
}

func TestDecodeKeepsWhatItChecked(t *testing.T) {
	for _, in := range []string{
		`{ "b" : [ 1 , 2.50 , -3e+20, 5e0, 5E-00, 0.5e+020 ] , "a" : { "\u00e9\n" : null , "t" : true , "f" : false } , "s" : "x\"y" }`,
		`[]`, `{}`, `"just text"`, `0`, `null`, `[[[]]]`, `{"a":[{},[]]}`,
	} {
		compact, v, err := jsonlimit.Decode([]byte(in), limits)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(in)); err != nil {
			t.Fatal(err)
		}
		if string(compact) != want.String() {
			t.Errorf("compact %s, want %s", compact, want.String())
		}
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		var std any
		if err := dec.Decode(&std); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(v, std) {
			t.Errorf("%s: decoded %#v, want %#v", in, v, std)
		}
		if err := jsonlimit.Check([]byte(in), limits); err != nil {
			t.Errorf("%s: Check: %v", in, err)
		}
	}
}

func TestZeroLimitsDoNotBound(t *testing.T) {
	in := strings.Repeat("[", 500) + "1e999999" + strings.Repeat("]", 500)
	if err := jsonlimit.Check([]byte(in), jsonlimit.Limits{}); err != nil {
		t.Fatal(err)
	}
}

// FuzzDecode: whatever Decode accepts, encoding/json reads as the same value and compacts to
// the same text.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,{"b":null}],"c":"\u00e9"}`, `[[[[]]]]`, `{"a":1,"a":2}`, `1e999`, `"\ud800"`, `{"":[]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		compact, v, err := jsonlimit.Decode([]byte(in), jsonlimit.Limits{Depth: 64, Digits: 100, Exponent: 400})
		if err != nil {
			if cerr := jsonlimit.Check([]byte(in), jsonlimit.Limits{Depth: 64, Digits: 100, Exponent: 400}); cerr == nil || cerr.Error() != err.Error() {
				t.Fatalf("Decode: %v; Check: %v", err, cerr)
			}
			return
		}
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(in)); err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", in, err)
		}
		if string(compact) != want.String() {
			t.Fatalf("compact %s, want %s", compact, want.String())
		}
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		var std any
		if err := dec.Decode(&std); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(v, std) {
			t.Fatalf("decoded %#v, want %#v", v, std)
		}
	})
}

func BenchmarkDecodeAnswer(b *testing.B) {
	in := []byte(`{"approved": true, "comment": "looks good to me", "items": [1, 2, 3, {"n": 4.5}]}`)
	for b.Loop() {
		if _, _, err := jsonlimit.Decode(in, jsonlimit.Limits{Depth: 64, Digits: 100, Exponent: 400}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStdCompactAndDecode(b *testing.B) {
	in := []byte(`{"approved": true, "comment": "looks good to me", "items": [1, 2, 3, {"n": 4.5}]}`)
	for b.Loop() {
		var buf bytes.Buffer
		json.Compact(&buf, in)
		dec := json.NewDecoder(bytes.NewReader(in))
		dec.UseNumber()
		var v any
		dec.Decode(&v)
	}
}
