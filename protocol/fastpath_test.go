package protocol_test

import (
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/protocol"
)

// TestFastPaths: the decoder's shortcuts for the common shapes (a compact
// Position in the model's order, plain integers, short member names,
// strings sharing a message's chunk) give exactly what the general path
// gives, and hand everything else to it: whitespace, another order, extra
// members, escapes, numbers it does not take, errors.
func TestFastPaths(t *testing.T) {
	for _, c := range []struct {
		in   string
		want protocol.Position
		err  string
	}{
		{in: `{"line":5,"character":3}`, want: protocol.Position{Line: 5, Character: 3}},
		{in: `  {"line":0,"character":0}`, want: protocol.Position{}},
		{in: `{ "line": 5, "character": 3 }`, want: protocol.Position{Line: 5, Character: 3}},
		{in: `{"character":3,"line":5}`, want: protocol.Position{Line: 5, Character: 3}},
		{in: `{"line":5,"character":3,"x":1}`, want: protocol.Position{Line: 5, Character: 3}},
		{in: `{"li\u006ee":5,"character":3}`, want: protocol.Position{Line: 5, Character: 3}},
		{in: `{"line":2147483647,"character":1e1}`, err: "is not an integer"},
		{in: `{"line":2147483648,"character":3}`, err: "is not an integer"},
		{in: `{"line":-1,"character":3}`, err: "is not an integer"},
		{in: `{"line":05,"character":3}`, err: "invalid"},
		{in: `{"line":5.0,"character":3}`, err: "is not an integer"},
		{in: `{"line":5}`, err: "missing required property"},
		{in: `{"line":5,"character":3`, err: "EOF"},
		{in: `{"line":5,"character":null}`, err: "null"},
	} {
		var p protocol.Position
		err := jsonv2.Unmarshal([]byte(c.in), &p)
		switch {
		case c.err == "" && (err != nil || p != c.want):
			t.Errorf("%s: %+v %v, want %+v", c.in, p, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: err %v, want one saying %q", c.in, err, c.err)
		}
	}
	// Integers elsewhere, and strings sharing one chunk: every value as
	// written, the strings unaffected by what is read after them.
	raw := `{"uri":"file:///a.go","version":-7,"diagnostics":[` +
		`{"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":4}},"severity":2,"code":-12,"source":"s1","message":"m1"},` +
		`{"range":{"start":{"line":3,"character":0},"end":{"line":3,"character":1}},"severity":1,"code":"E1","source":"s\u00e9","message":"` + strings.Repeat("x", 2000) + `"}]}`
	var p protocol.PublishDiagnosticsParams
	if err := jsonv2.Unmarshal([]byte(raw), &p); err != nil {
		t.Fatal(err)
	}
	d0, d1 := p.Diagnostics[0], p.Diagnostics[1]
	code0, _ := d0.Code.AsInteger()
	code1, _ := d1.Code.AsString()
	msg0, _ := d0.Message.AsString()
	msg1, _ := d1.Message.AsString()
	if p.URI != "file:///a.go" || *p.Version != -7 || *d0.Severity != 2 || code0 != -12 || *d0.Source != "s1" || msg0 != "m1" ||
		*d1.Severity != 1 || code1 != "E1" || *d1.Source != "sé" || len(msg1) != 2000 || d1.Range.Start.Line != 3 {
		t.Fatalf("decoded: %+v", p)
	}
}
