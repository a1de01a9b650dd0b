package protocol_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/protocol"
)

// fuzzTargets are the union-heavy types a peer sends most.
var fuzzTargets = []func() any{
	func() any { return new(protocol.InitializeResult) },
	func() any { return new(protocol.Hover) },
	func() any { return new(protocol.CompletionList) },
	func() any { return new(protocol.WorkspaceEdit) },
	func() any { return new(protocol.PublishDiagnosticsParams) },
	func() any { return new(protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice]) },
	func() any { return new(protocol.DocumentDiagnosticReport) },
	func() any { return new(protocol.RegistrationParams) },
	func() any { return new(protocol.Nullable[protocol.SymbolInformationSliceOrDocumentSymbolSlice]) },
}

// FuzzDecode: no input panics, and whatever decodes re-encodes to JSON that
// decodes again.
func FuzzDecode(f *testing.F) {
	data, err := os.ReadFile("testdata/traffic/gopls.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var tl trafficLine
		var env envelope
		if json.Unmarshal(line, &tl) == nil && json.Unmarshal(tl.Message, &env) == nil {
			if env.Params != nil {
				f.Add([]byte(env.Params))
			}
			if env.Result != nil {
				f.Add([]byte(env.Result))
			}
		}
	}
	for _, s := range []string{`{"contents":{"language":"go","value":"x"}}`, `[{"targetUri":"file:///a"}]`, `{"documentChanges":[{"kind":"create","uri":"x"}]}`, `{"kind":"full","items":[]}`, `[]`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, target := range fuzzTargets {
			v := target()
			if jsonv2.Unmarshal(in, v) != nil {
				continue
			}
			out, err := jsonv2.Marshal(v)
			if err != nil {
				// Only an unset union in a required place cannot encode.
				continue
			}
			if err := jsonv2.Unmarshal(out, target()); err != nil {
				t.Fatalf("%T: %s decoded, re-encoded as %s, which does not decode: %v", v, in, out, err)
			}
		}
	})
}
