package transport

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestEnvelopeKinds(t *testing.T) {
	cases := []struct {
		in                           string
		kind                         MessageKind
		idKind                       IDKind
		idNum                        int64
		idStr, method                string
		params, result, errorPayload string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"a":[1,2]}}`, KindRequest, IDNumber, 1, "", "textDocument/hover", `{"a":[1,2]}`, "", ""},
		{`{"id":"ts1","method":"workspace/configuration","jsonrpc":"2.0","params":{}}`, KindRequest, IDString, 0, "ts1", "workspace/configuration", `{}`, "", ""},
		{` { "jsonrpc" : "2.0" , "method" : "initialized" , "params" : { } } `, KindNotification, IDNone, 0, "", "initialized", `{ }`, "", ""},
		{`{"jsonrpc":"2.0","method":"exit"}`, KindNotification, IDNone, 0, "", "exit", "", "", ""},
		{`{"jsonrpc":"2.0","method":"m","params":[1,"two",null]}`, KindNotification, IDNone, 0, "", "m", `[1,"two",null]`, "", ""},
		{`{"jsonrpc":"2.0","method":"shutdown","id":0,"params":null}`, KindRequest, IDNumber, 0, "", "shutdown", `null`, "", ""},
		{`{"jsonrpc":"2.0","id":-7,"result":null}`, KindResponse, IDNumber, -7, "", "", "", "null", ""},
		{`{"jsonrpc":"2.0","id":9223372036854775807,"result":[{"x":"\u00e9\ud83d\ude42"}]}`, KindResponse, IDNumber, 9223372036854775807, "", "", "", `[{"x":"\u00e9\ud83d\ude42"}]`, ""},
		{`{"jsonrpc":"2.0","id":"a\"b\\u0041","result":true}`, KindResponse, IDString, 0, `a"b\u0041`, "", "", "true", ""},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"nope"}}`, KindError, IDNumber, 3, "", "", "", "", `{"code":-32601,"message":"nope"}`},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, KindError, IDNull, 0, "", "", "", "", `{"code":-32700,"message":"parse error"}`},
		{`{"jsonrpc":"2.0","method":"$\/progress","extra":{"ignored":[true,false,1.5e-3]},"params":{}}`, KindNotification, IDNone, 0, "", "$/progress", `{}`, "", ""},
	}
	var e Envelope
	for _, c := range cases {
		if err := e.Scan([]byte(c.in)); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if e.Kind != c.kind || e.IDKind != c.idKind || e.IDNum != c.idNum || string(e.IDStr) != c.idStr || string(e.Method) != c.method ||
			string(e.Params) != c.params || string(e.Result) != c.result || string(e.Error) != c.errorPayload {
			t.Errorf("%s:\n got %v %v %d %q %q %q %q %q", c.in, e.Kind, e.IDKind, e.IDNum, e.IDStr, e.Method, e.Params, e.Result, e.Error)
		}
	}
}

func TestEnvelopeErrors(t *testing.T) {
	cases := []struct {
		in, want string
		syntax   bool
		idKept   bool // the id was read before the problem
	}{
		{``, "empty message", true, false},
		{`[{"jsonrpc":"2.0","method":"a"}]`, "batch", false, false},
		{`"hello"`, "must be a JSON object", false, false},
		{`{"jsonrpc":"2.0","method":"a"`, "expected ',' or '}'", true, false},
		{`{"jsonrpc":"2.0","id":4,"method":"a"} x`, "data after the message", true, true},
		{`{"jsonrpc":"1.0","id":4,"method":"a"}`, `"jsonrpc" must be "2.0"`, false, false},
		{`{"id":4,"method":"a"}`, `missing "jsonrpc"`, false, true},
		{`{"jsonrpc":"2.0","id":4,"id":5,"method":"a"}`, `duplicate member "id"`, false, true},
		{`{"jsonrpc":"2.0","id":1.5,"result":1}`, "must be an integer", false, false},
		{`{"jsonrpc":"2.0","id":true,"result":1}`, "an id must be", false, false},
		{`{"jsonrpc":"2.0","id":4,"method":7}`, `"method" must be a string`, false, true},
		{`{"jsonrpc":"2.0","id":4,"method":"a","params":"x"}`, `"params" must be an object or an array`, false, true},
		{`{"jsonrpc":"2.0","id":4,"result":1,"error":{"code":1,"message":""}}`, "neither a request", false, true},
		{`{"jsonrpc":"2.0","id":4}`, "neither a request", false, true},
		{`{"jsonrpc":"2.0","id":null,"method":"a"}`, "request id must not be null", false, false},
		{`{"jsonrpc":"2.0","id":4,"error":"bad"}`, `"error" must be an object`, false, true},
	}
	var e Envelope
	for _, c := range cases {
		err := e.Scan([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60s: got %v, want %q", c.in, err, c.want)
			continue
		}
		if se, ok := errors.AsType[*ScanError](err); ok && se.Syntax != c.syntax {
			t.Errorf("%.60s: Syntax = %v, want %v", c.in, se.Syntax, c.syntax)
		}
		if kept := e.IDKind == IDNumber && e.IDNum == 4; kept != c.idKept {
			t.Errorf("%.60s: id kept = %v, want %v", c.in, kept, c.idKept)
		}
	}
}

// TestEnvelopeDefersPayload: Scan does not read inside params, result and
// error; Validate finds what is wrong there.
func TestEnvelopeDefersPayload(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":4,"method":"a","params":{"x":}}`, "invalid character"},
		{`{"jsonrpc":"2.0","id":4,"method":"a","params":{"x":"\q"}}`, "invalid escape"},
		{"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"a\",\"params\":{\"x\":\"a\x01\"}}", "control character"},
		{`{"jsonrpc":"2.0","id":4,"method":"a","params":{"x":01}}`, "expected ',' or '}' in object"},
		{`{"jsonrpc":"2.0","id":4,"method":"a","params":{"x":1.}}`, "invalid number"},
		{`{"jsonrpc":"2.0","id":4,"method":"a","params":{"x":tru}}`, "invalid literal"},
		{`{"jsonrpc":"2.0","id":4,"result":[1,2}]}`, "expected ',' or ']' in array"},
		{`{"jsonrpc":"2.0","method":"a","params":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`, "nested too deeply"},
	}
	var e Envelope
	for _, c := range cases {
		if err := e.Scan([]byte(c.in)); err != nil {
			t.Errorf("%.60s: Scan: %v", c.in, err)
			continue
		}
		span := e.Params
		if span == nil {
			span = e.Result
		}
		err := Validate(span)
		se, ok := errors.AsType[*ScanError](err)
		if !ok || !se.Syntax || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60s: Validate(%.30s): %v, want a syntax error containing %q", c.in, span, err, c.want)
		}
	}
}

// TestEnvelopeTail covers the backward parse of members after the payload,
// and its fallback to the forward scan.
func TestEnvelopeTail(t *testing.T) {
	cases := []struct {
		in            string
		kind          MessageKind
		id            string
		params, error string
	}{
		{`{"jsonrpc":"2.0","method":"m","params":{"a":"}"},"id":7}`, KindRequest, "7", `{"a":"}"}`, ""},
		{`{"method":"m","params":[1,{"b":[]}] , "id" : "x\"y\\" , "jsonrpc":"2.0" }`, KindRequest, `x"y\`, `[1,{"b":[]}]`, ""},
		{`{"jsonrpc":"2.0","params":{"x":1},"method":"a\u0062","id":-3}`, KindRequest, "-3", `{"x":1}`, ""},
		{`{"jsonrpc":"2.0","method":"m","params":{"x":1},"note":"\"},\"id\":9"}`, KindNotification, "", `{"x":1}`, ""},
		{`{"jsonrpc":"2.0","error":{"code":1,"message":"m"},"id":null}`, KindError, "null", "", `{"code":1,"message":"m"}`},
	}
	var e Envelope
	for _, c := range cases {
		if err := e.Scan([]byte(c.in)); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		id := ""
		switch e.IDKind {
		case IDNumber:
			id = fmt.Sprint(e.IDNum)
		case IDString:
			id = string(e.IDStr)
		case IDNull:
			id = "null"
		}
		if e.Kind != c.kind || id != c.id || string(e.Params) != c.params || string(e.Error) != c.error {
			t.Errorf("%s: got %v id %q params %q error %q", c.in, e.Kind, id, e.Params, e.Error)
		}
	}
	// Duplicates and junk after the payload are still errors.
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{},"id":2}`:   `duplicate member "id"`,
		`{"jsonrpc":"2.0","method":"m","params":{},"jsonrpc":"2.0"}`: `duplicate member "jsonrpc"`,
		`{"jsonrpc":"2.0","method":"m","params":{}} {}`:              "data after the message",
	} {
		if err := e.Scan([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	// A member holding an object after the payload: Scan's span runs past the
	// payload and Validate says so; ScanExact reads the message exactly.
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"m","params":{"x":1},"extra":{"y":2}}`: "",
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1}}`:         "neither a request",
	} {
		if err := e.Scan([]byte(in)); err != nil {
			t.Fatalf("%s: Scan: %v", in, err)
		}
		span := append(append([]byte(nil), e.Params...), e.Result...)
		if se, ok := Validate(span).(*ScanError); !ok || !se.TrailingData() {
			t.Errorf("%s: Validate(%s) = %v, want data after the value", in, span, Validate(span))
		}
		err := e.ScanExact([]byte(in))
		switch {
		case want == "" && (err != nil || string(e.Params) != `{"x":1}`):
			t.Errorf("%s: ScanExact: %q %v", in, e.Params, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: ScanExact: %v, want %q", in, err, want)
		}
	}
}

// TestEnvelopeAgreesWithJSON: whatever Scan accepts is valid JSON, and its
// spans are valid JSON values.
func TestEnvelopeAgreesWithJSON(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"a":[1,2,{"b":null}],"c":"\ud83d\ude42","d":-0.5e+10}}`,
		`{"jsonrpc":"2.0","method":"x","params":{"":{"":[[],{}]}}}`,
	} {
		var e Envelope
		if err := e.Scan([]byte(in)); err != nil {
			t.Fatal(err)
		}
		for _, span := range [][]byte{e.Params, e.Result, e.Error} {
			if span != nil && !jsontext.Value(span).IsValid() {
				t.Errorf("%s: span %s is not valid JSON", in, span)
			}
		}
	}
}

func TestEnvelopeAllocs(t *testing.T) {
	msgs := [][]byte{
		[]byte(`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t1","value":{"kind":"report","message":"indexing","percentage":42}}}`),
		[]byte(`{"jsonrpc":"2.0","id":"ts\u0031","method":"workspace\/configuration","params":{"items":[{"section":"typescript"}]}}`),
		[]byte(`{"jsonrpc":"2.0","id":17,"result":{"contents":{"kind":"markdown","value":"func f()"}}}`),
	}
	var e Envelope
	for _, m := range msgs { // warm the scratch buffer
		if err := e.Scan(m); err != nil {
			t.Fatal(err)
		}
	}
	if allocs := testing.AllocsPerRun(10000, func() {
		for _, m := range msgs {
			if err := e.Scan(m); err != nil {
				t.Fatal(err)
			}
		}
	}); allocs != 0 {
		t.Fatalf("Scan: %v allocations, want 0", allocs)
	}
}

// TestPlainPrefix checks the eight-byte string scan against the plain loop
// for every special byte at every position.
func TestPlainPrefix(t *testing.T) {
	slow := func(b []byte) int {
		for i, c := range b {
			if c == '"' || c == '\\' || c < 0x20 {
				return i
			}
		}
		return len(b)
	}
	base := []byte("abcdefghé€🙂ijklmnopqrstuvwxyz0123456789")
	for n := 0; n <= len(base); n++ {
		for pos := 0; pos < n; pos++ {
			for _, special := range []byte{'"', '\\', 0x00, 0x1f, '\n', 0x7f, 0x80, 0xff, ' ', '!', '#', '[', 0x5d} {
				b := append([]byte(nil), base[:n]...)
				b[pos] = special
				if got, want := plainPrefix(b), slow(b); got != want {
					t.Fatalf("%q: plainPrefix %d, want %d", b, got, want)
				}
			}
		}
	}
}
