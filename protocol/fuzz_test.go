package protocol_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
)

// directTargets decode with the generated decoders directly, as the typed
// descriptors and transport.Conn's read path do, without json/v2 in front.
var directTargets = []struct {
	name   string
	decode func([]byte) (any, error)
	fresh  func() any
}{
	{"InitializeResult", func(b []byte) (any, error) { return protocol.InitializeRequest.DecodeResult(b) }, func() any { return new(protocol.InitializeResult) }},
	{"Hover", func(b []byte) (any, error) { return protocol.HoverRequest.DecodeResult(b) }, func() any { return new(protocol.Nullable[protocol.Hover]) }},
	{"PublishDiagnosticsParams", func(b []byte) (any, error) { return protocol.PublishDiagnosticsNotification.DecodeParams(b) }, func() any { return new(protocol.PublishDiagnosticsParams) }},
	{"Definition", func(b []byte) (any, error) { return protocol.DefinitionRequest.DecodeResult(b) }, func() any { return new(protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice]) }},
	{"DocumentDiagnosticReport", func(b []byte) (any, error) { return protocol.DocumentDiagnosticRequest.DecodeResult(b) }, func() any { return new(protocol.DocumentDiagnosticReport) }},
	{"RegistrationParams", func(b []byte) (any, error) { return protocol.RegistrationRequest.DecodeParams(b) }, func() any { return new(protocol.RegistrationParams) }},
	{"WorkspaceSymbol", func(b []byte) (any, error) { return protocol.WorkspaceSymbolRequest.DecodeResult(b) }, func() any {
		return new(protocol.Nullable[protocol.SymbolInformationSliceOrWorkspaceSymbolSlice])
	}},
	{"DocumentSymbol", func(b []byte) (any, error) { return protocol.DocumentSymbolRequest.DecodeResult(b) }, func() any {
		return new(protocol.Nullable[protocol.SymbolInformationSliceOrDocumentSymbolSlice])
	}},
}

// FuzzDecoder: the generated decoders accept only valid JSON (duplicate
// member names allowed, last wins; a lone UTF-16 surrogate escape, which
// JavaScript servers can send, becomes U+FFFD, but raw invalid UTF-8 is
// rejected), never panic, decode what they accept exactly as
// encoding/json/v2 does through UnmarshalJSONFrom, and what they decode
// re-encodes to JSON that decodes again. The seeds include every payload of
// the recorded gopls traffic.
func FuzzDecoder(f *testing.F) {
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
	for _, s := range []string{
		`{"contents":{"kind":"markdown","value":"x"}}`, `[{"targetUri":"file:///a","targetRange":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"targetSelectionRange":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}]`,
		`{"uri":"file:///a","diagnostics":[{"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":3}},"message":"m\u00e9\ud83d\ude00","code":"x","severity":1}]}`,
		`{"kind":"full","items":[]}`, `[{"name":"a","kind":12,"location":{"uri":"file:///a"}}]`, `{"registrations":[{"id":"1","method":"m","registerOptions":{"a":[1,{}]}}]}`,
		`[{"name":"f","kind":12,"range":{"start":{"line":0,"character":0},"end":{"line":1,"character":0}},"selectionRange":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"children":[]}]`,
		`{"capabilities":{"textDocumentSync":2,"positionEncoding":"utf-8"}}`, `null`, `[]`, `{"a":1e400}`, `{"x":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		valid := jsontext.Value(in).IsValid(jsontext.AllowDuplicateNames(true)) ||
			utf8.Valid(in) && jsontext.Value(in).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
		for _, target := range directTargets {
			v, err := target.decode(in)
			if err != nil {
				continue
			}
			if !valid {
				t.Fatalf("%s accepted invalid JSON %q", target.name, in)
			}
			if !jsontext.Value(in).IsValid() {
				continue // duplicate names: json/v2 rejects them
			}
			via := target.fresh()
			if err := jsonv2.Unmarshal(in, via); err != nil {
				t.Fatalf("%s: decoded %q directly, json/v2 says %v", target.name, in, err)
			}
			direct, err := jsonv2.Marshal(v)
			twice, _ := jsonv2.Marshal(via)
			if !bytes.Equal(direct, twice) {
				t.Fatalf("%s: %q decoded directly as %s, through json/v2 as %s", target.name, in, direct, twice)
			}
			if err != nil {
				continue // only an unset union in a required place cannot encode
			}
			if _, err := target.decode(direct); err != nil {
				t.Fatalf("%s: %q decoded, re-encoded as %s, which does not decode: %v", target.name, in, direct, err)
			}
		}
	})
}
