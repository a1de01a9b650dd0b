package transport

import (
	"errors"
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
		{`{"jsonrpc":"2.0","method":"$\/progress","params":{},"extra":{"ignored":[true,false,1.5e-3]}}`, KindNotification, IDNone, 0, "", "$/progress", `{}`, "", ""},
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
		{`{"jsonrpc":"2.0","id":4,"method":"a","params":{"x":}}`, "invalid character", true, true},
		{`{"jsonrpc":"2.0","id":4,"method":"a","params":{"x":"\q"}}`, "invalid escape", true, true},
		{"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"a\",\"params\":{\"x\":\"a\x01\"}}", "control character", true, true},
		{`{"jsonrpc":"2.0","id":4,"method":"a","params":{"x":01}}`, "expected ',' or '}' in object", true, true},
		{`{"jsonrpc":"2.0","id":4,"method":"a","params":{"x":1.}}`, "invalid number", true, true},
		{`{"jsonrpc":"2.0","id":4,"method":"a","params":{"x":tru}}`, "invalid literal", true, true},
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
		{`{"jsonrpc":"2.0","method":"a","params":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`, "nested too deeply", true, false},
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
