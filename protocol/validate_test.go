package protocol_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/protocol"
)

// TestValidatorPlanted: one publishDiagnostics with a violation of every
// kind gets every problem listed, each with its JSON path; members the
// model does not have are notes, not violations.
func TestValidatorPlanted(t *testing.T) {
	v := protocol.NewValidator()
	params := `{"uri":"file:///a.go","version":-5000000000,"diagnostics":[
		{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":2}},"message":"fine"},
		{"range":{"start":{"line":-1,"character":1.5},"end":{"line":0}},"severity":7,"source":null,"tags":[1,9],"message":"x","serverOwn":true},
		{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"code":{"n":1},"message":{"kind":"markdown","value":"ok"}},
		{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}}}
	],"extra":1}`
	problems, err := v.Check(protocol.MethodTextDocumentPublishDiagnostics, protocol.PartParams, []byte(params))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		s := p.Path
		if p.Extension {
			s += " (extension)"
		}
		got = append(got, s)
	}
	want := []string{
		"params.version",
		"params.diagnostics[1].range.start.line",
		"params.diagnostics[1].range.start.character",
		"params.diagnostics[1].range.end.character",
		"params.diagnostics[1].severity",
		"params.diagnostics[1].source",
		"params.diagnostics[1].tags[1]",
		"params.diagnostics[1].serverOwn (extension)",
		"params.diagnostics[2].code",
		"params.diagnostics[3].message",
		"params.extra (extension)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant paths:\n%s", join(problems), strings.Join(want, "\n"))
	}
	for _, w := range []string{
		"integer out of range", "expected uinteger, got the number 1.5", "missing required member of Position",
		"7 is not a value of the closed enumeration DiagnosticSeverity", "null is not allowed (an optional member",
		"missing required member of Diagnostic (string | MarkupContent)",
	} {
		if !strings.Contains(join(problems), w) {
			t.Errorf("no problem says %q:\n%s", w, join(problems))
		}
	}
	// A clean message has no problem; an unknown method and a missing
	// part are errors.
	if p, err := v.Check(protocol.MethodTextDocumentPublishDiagnostics, protocol.PartParams, []byte(`{"uri":"file:///a.go","diagnostics":[]}`)); err != nil || len(p) != 0 {
		t.Errorf("a clean publish: %v %v", p, err)
	}
	if _, err := v.Check("nope/nope", protocol.PartParams, []byte(`{}`)); err != protocol.ErrUnknownMethod {
		t.Errorf("an unknown method: %v", err)
	}
	if _, err := v.Check(protocol.MethodTextDocumentPublishDiagnostics, protocol.PartResult, []byte(`null`)); err != protocol.ErrNoPart {
		t.Errorf("a notification's result: %v", err)
	}
	// Null where the model allows it; a missing result that cannot be null.
	if p, _ := v.Check(protocol.MethodTextDocumentHover, protocol.PartResult, []byte(`null`)); len(p) != 0 {
		t.Errorf("a null hover: %v", p)
	}
	if p, _ := v.Check(protocol.MethodTextDocumentHover, protocol.PartResult, []byte(`{"contents":{"kind":"plaintext","value":"x"},"range":null}`)); len(p) != 1 || p[0].Path != "result.range" {
		t.Errorf("a hover with a null range: %v", p)
	}
}

func join(ps []protocol.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String())
		if p.Extension {
			b.WriteString(" [extension]")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestValidatorAgreesWithDecoders: over every message recorded from real
// servers, and variants of each with one member dropped, nulled or of the
// wrong kind: whatever the generated decoder rejects, the validator
// reports a violation of; whatever the validator finds clean, the decoder
// accepts. (The decoder is lenient where the validator is not: a null
// optional member is read as absent.) lspkit's own messages are clean.
func TestValidatorAgreesWithDecoders(t *testing.T) {
	v := protocol.NewValidator()
	files, _ := filepath.Glob("testdata/traffic/*.jsonl")
	conformance, _ := filepath.Glob("../conformance/testdata/*.jsonl")
	checked, variants := 0, 0
	for _, file := range append(files, conformance...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		pending := map[string]string{}
		for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var entry struct {
				From    string          `json:"from"`
				Dir     string          `json:"dir"`
				Message json.RawMessage `json:"message"`
				Msg     json.RawMessage `json:"msg"`
			}
			if err := json.Unmarshal(line, &entry); err != nil {
				t.Fatalf("%s:%d: %v", file, i+1, err)
			}
			from, msg := entry.From, entry.Message
			if entry.Dir != "" {
				from, msg = map[string]string{"c2s": "client", "s2c": "server"}[entry.Dir], entry.Msg
			}
			if from == "" || msg == nil {
				continue
			}
			var env struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(msg, &env); err != nil {
				t.Fatalf("%s:%d: %v", file, i+1, err)
			}
			var method string
			var part protocol.Part
			var raw json.RawMessage
			switch {
			case env.Method != "":
				if env.ID != nil {
					pending[from+":"+string(env.ID)] = env.Method
				}
				method, part, raw = env.Method, protocol.PartParams, env.Params
			case env.Error != nil:
				continue
			default:
				other := map[string]string{"client": "server", "server": "client"}[from]
				method, part, raw = pending[other+":"+string(env.ID)], protocol.PartResult, env.Result
			}
			info, ok := protocol.LookupMethod(method)
			if !ok || raw == nil {
				continue
			}
			newTarget := info.NewParams
			if part == protocol.PartResult {
				newTarget = info.NewResult
			}
			problems, err := v.Check(method, part, raw)
			if err != nil {
				t.Fatalf("%s:%d: %v", file, i+1, err)
			}
			if from == "client" && violations(problems) > 0 {
				t.Errorf("%s:%d: lspkit's own %s %s: %s", file, i+1, method, part, join(problems))
			}
			agree(t, v, method, part, raw, newTarget, file, i+1)
			checked++
			for _, variant := range mutations(raw) {
				agree(t, v, method, part, variant, newTarget, file, i+1)
				variants++
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d messages checked", checked)
	}
	t.Logf("%d messages and %d variants checked", checked, variants)
}

func violations(ps []protocol.Problem) int {
	n := 0
	for _, p := range ps {
		if !p.Extension {
			n++
		}
	}
	return n
}

// agree checks the implication both ways for one value.
func agree(t *testing.T, v *protocol.Validator, method string, part protocol.Part, raw []byte, newTarget func() any, file string, line int) {
	t.Helper()
	problems, err := v.Check(method, part, raw)
	if err != nil {
		t.Fatalf("%s:%d: %v", file, line, err)
	}
	decodeErr := jsonv2.Unmarshal(raw, newTarget())
	switch {
	case decodeErr != nil && violations(problems) == 0:
		t.Errorf("%s:%d: %s %s: the decoder rejects (%v) what the validator finds clean:\n%.300s", file, line, method, part, decodeErr, raw)
	case decodeErr == nil && violations(problems) > 0 && !onlyLenient(problems):
		t.Errorf("%s:%d: %s %s: the validator finds %s in what the decoder accepts:\n%.300s", file, line, method, part, join(problems), raw)
	}
}

// onlyLenient reports whether every violation is one the decoder is
// lenient about by design: a null optional member, read as absent; a
// number out of an integer type's range or an unknown value of a closed
// enumeration, kept as sent.
func onlyLenient(ps []protocol.Problem) bool {
	for _, p := range ps {
		if p.Extension {
			continue
		}
		if !strings.Contains(p.Msg, "an optional member") && !strings.Contains(p.Msg, "out of range") &&
			!strings.Contains(p.Msg, "closed enumeration") && !strings.Contains(p.Msg, "with a scheme") {
			return false
		}
	}
	return true
}

// mutations returns variants of an object value: each top-level member
// dropped, made null, made a string, made a fraction.
func mutations(raw []byte) [][]byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	var out [][]byte
	for k := range obj {
		for _, repl := range []json.RawMessage{nil, json.RawMessage(`null`), json.RawMessage(`"x"`), json.RawMessage(`1.5`)} {
			m := map[string]json.RawMessage{}
			for k2, v2 := range obj {
				m[k2] = v2
			}
			if repl == nil {
				delete(m, k)
			} else {
				m[k] = repl
			}
			b, _ := json.Marshal(m)
			out = append(out, b)
		}
	}
	return out
}
