package protocol_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := jsonv2.Marshal(v)
	if err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	return string(b)
}

// TestAbsentNullZero: absent, null and zero stay three different things.
func TestAbsentNullZero(t *testing.T) {
	caps := `"capabilities":{}`
	// processId is integer | null and required.
	p := decodeAs[protocol.InitializeParams](t, `{"processId":null,"rootUri":null,`+caps+`}`)
	if !p.ProcessID.IsNull() || !p.RootURI.IsNull() {
		t.Fatal("null processId/rootUri decoded as a value")
	}
	p = decodeAs[protocol.InitializeParams](t, `{"processId":0,"rootUri":"file:///w",`+caps+`}`)
	if pid, ok := p.ProcessID.Get(); !ok || pid != 0 {
		t.Fatalf("processId 0: got %v %v", pid, ok)
	}
	if _, err := decodeErr[protocol.InitializeParams](`{"rootUri":null,` + caps + `}`); err == nil || !strings.Contains(err.Error(), "processId: missing required property") {
		t.Fatalf("missing processId: %v", err)
	}
	// The zero value encodes the required nullable members as null.
	if got := encode(t, protocol.InitializeParams{}); !strings.Contains(got, `"processId":null`) || !strings.Contains(got, `"rootUri":null`) {
		t.Fatalf("zero InitializeParams: %s", got)
	}
	// workspaceFolders is optional and nullable: absent, null and [] differ.
	for _, in := range []string{``, `,"workspaceFolders":null`, `,"workspaceFolders":[]`} {
		p := decodeAs[protocol.InitializeParams](t, `{"processId":1,"rootUri":null,`+caps+in+`}`)
		switch {
		case in == "" && p.WorkspaceFolders != nil:
			t.Error("absent workspaceFolders is set")
		case strings.Contains(in, "null") && (p.WorkspaceFolders == nil || !p.WorkspaceFolders.IsNull()):
			t.Error("null workspaceFolders is not null")
		case strings.Contains(in, "[]"):
			if p.WorkspaceFolders == nil {
				t.Fatal("[] workspaceFolders is absent")
			}
			if v, ok := p.WorkspaceFolders.Get(); !ok || v == nil || len(v) != 0 {
				t.Errorf("[] workspaceFolders: %v %v", v, ok)
			}
		}
	}
	// Optional scalars are pointers: absent is nil, false is false.
	c := decodeAs[protocol.HoverClientCapabilities](t, `{"dynamicRegistration":false}`)
	if c.DynamicRegistration == nil || *c.DynamicRegistration {
		t.Fatal("dynamicRegistration false lost")
	}
	if got := encode(t, protocol.HoverClientCapabilities{}); got != `{}` {
		t.Fatalf("empty capabilities encode as %s", got)
	}
	// Optional members sent as null read as absent.
	c = decodeAs2[protocol.HoverClientCapabilities](t, `{"dynamicRegistration":null}`)
	if c.DynamicRegistration != nil {
		t.Fatal("null optional member is set")
	}
	// A required array encodes as [], never null.
	if got := encode(t, protocol.PublishDiagnosticsParams{URI: "file:///a.go"}); got != `{"uri":"file:///a.go","diagnostics":[]}` {
		t.Fatalf("required nil slice: %s", got)
	}
	// version: integer | null, required.
	v := decodeAs[protocol.OptionalVersionedTextDocumentIdentifier](t, `{"uri":"file:///a","version":null}`)
	if !v.Version.IsNull() {
		t.Fatal("null version")
	}
	// LSPAny stays raw, including null.
	d := decodeAs[protocol.Diagnostic](t, `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"message":"m","data":{"fix":[1,"a",null]}}`)
	if string(d.Data) != `{"fix":[1,"a",null]}` {
		t.Fatalf("data: %s", d.Data)
	}
}

func decodeErr[T any](in string) (T, error) {
	var v T
	err := jsonv2.Unmarshal([]byte(in), &v)
	return v, err
}

// decodeAs2 decodes without requiring a byte-exact round trip.
func decodeAs2[T any](t *testing.T, in string) T {
	t.Helper()
	v, err := decodeErr[T](in)
	if err != nil {
		t.Fatalf("decode %s: %v", in, err)
	}
	return v
}

func TestEnums(t *testing.T) {
	if s := protocol.DiagnosticSeverityError.String(); s != "Error" {
		t.Errorf("String: %q", s)
	}
	if s := protocol.DiagnosticSeverity(9).String(); s != "DiagnosticSeverity(9)" {
		t.Errorf("String of unknown: %q", s)
	}
	if !protocol.SymbolKindFunction.IsKnown() || protocol.SymbolKind(99).IsKnown() {
		t.Error("IsKnown")
	}
	// Open enumerations accept values the model does not list.
	a := decodeAs[protocol.CodeAction](t, `{"title":"t","kind":"source.organizeImports.custom"}`)
	if a.Kind == nil || *a.Kind != "source.organizeImports.custom" || a.Kind.IsKnown() {
		t.Fatalf("open CodeActionKind: %v", a.Kind)
	}
	if k := decodeAs[protocol.SemanticTokensLegend](t, `{"tokenTypes":["namespace","myOwnType"],"tokenModifiers":[]}`); len(k.TokenTypes) != 2 {
		t.Fatal("open token types")
	}
	// Closed ones do not.
	if _, err := decodeErr[protocol.Diagnostic](`{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"message":"m","severity":5}`); err == nil || !strings.Contains(err.Error(), "closed enumeration") {
		t.Fatalf("closed enum: %v", err)
	}
}

// testServer implements two methods; UnimplementedServer answers the rest.
type testServer struct {
	protocol.UnimplementedServer
	opened []protocol.DocumentURI
}

func (s *testServer) TextDocumentHover(_ context.Context, p *protocol.HoverParams) (protocol.Nullable[protocol.Hover], error) {
	if p.Position.Line == 99 {
		return protocol.Null[protocol.Hover](), nil
	}
	return protocol.NewNullable(protocol.Hover{Contents: protocol.NewHoverContentsMarkupContent(protocol.MarkupContent{Kind: protocol.MarkupKindPlainText, Value: "hi " + string(p.TextDocument.URI)})}), nil
}

func (s *testServer) TextDocumentDidOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams) error {
	s.opened = append(s.opened, p.TextDocument.URI)
	return nil
}

func (s *testServer) Shutdown(context.Context) error { return nil }

func TestDispatch(t *testing.T) {
	ctx := context.Background()
	s := &testServer{}
	code := func(err error) int64 {
		var re *transport.Error
		if !errors.As(err, &re) {
			t.Fatalf("error %v is not a *transport.Error", err)
		}
		return re.Code
	}
	res, err := protocol.DispatchServer(ctx, s, protocol.MethodTextDocumentHover, jsontext.Value(`{"textDocument":{"uri":"file:///a.go"},"position":{"line":1,"character":2}}`))
	if err != nil || string(res) != `{"contents":{"kind":"plaintext","value":"hi file:///a.go"}}` {
		t.Fatalf("hover: %s %v", res, err)
	}
	res, err = protocol.DispatchServer(ctx, s, "textDocument/hover", jsontext.Value(`{"textDocument":{"uri":"file:///a.go"},"position":{"line":99,"character":2}}`))
	if err != nil || string(res) != `null` {
		t.Fatalf("null hover: %s %v", res, err)
	}
	for _, params := range []string{``, `null`} {
		_, err = protocol.DispatchServer(ctx, s, "textDocument/hover", jsontext.Value(params))
		if code(err) != -32602 || !strings.Contains(err.Error(), "textDocument/hover") {
			t.Fatalf("params %q: %v", params, err)
		}
	}
	_, err = protocol.DispatchServer(ctx, s, "textDocument/hover", jsontext.Value(`{"textDocument":{"uri":"file:///a.go"}}`))
	if code(err) != -32602 || !strings.Contains(err.Error(), "position") {
		t.Fatalf("missing position: %v", err)
	}
	_, err = protocol.DispatchServer(ctx, s, "textDocument/definition", jsontext.Value(`{"textDocument":{"uri":"file:///a.go"},"position":{"line":1,"character":2}}`))
	if code(err) != -32601 {
		t.Fatalf("unimplemented: %v", err)
	}
	_, err = protocol.DispatchServer(ctx, s, "no/such", nil)
	if code(err) != -32601 {
		t.Fatalf("unknown: %v", err)
	}
	if res, err = protocol.DispatchServer(ctx, s, "textDocument/didOpen", jsontext.Value(`{"textDocument":{"uri":"file:///b.go","languageId":"go","version":1,"text":""}}`)); err != nil || res != nil || len(s.opened) != 1 {
		t.Fatalf("didOpen: %s %v %v", res, err, s.opened)
	}
	if res, err = protocol.DispatchServer(ctx, s, "shutdown", nil); err != nil || string(res) != "null" {
		t.Fatalf("shutdown: %s %v", res, err)
	}
	// A server-to-client method is not a Server method.
	if _, err = protocol.DispatchServer(ctx, s, "workspace/configuration", jsontext.Value(`{"items":[]}`)); code(err) != -32601 {
		t.Fatalf("wrong direction: %v", err)
	}
}

func TestDescriptors(t *testing.T) {
	if protocol.HoverRequest.Method() != "textDocument/hover" || protocol.HoverRequest.Info().ServerCapability != "hoverProvider" {
		t.Fatalf("HoverRequest: %+v", protocol.HoverRequest.Info())
	}
	info, ok := protocol.LookupMethod("textDocument/diagnostic")
	if !ok || info.Notification || info.Direction != protocol.ClientToServer || info.NewPartialResult() == nil || info.NewRegistrationOptions() == nil {
		t.Fatalf("textDocument/diagnostic: %+v", info)
	}
	if _, ok := info.NewResult().(*protocol.DocumentDiagnosticReport); !ok {
		t.Fatalf("diagnostic result is %T", info.NewResult())
	}
	if info, _ := protocol.LookupMethod("$/progress"); info.Direction != protocol.BothDirections || !info.Notification {
		t.Fatalf("$/progress: %+v", info)
	}
	if _, ok := protocol.LookupMethod("textDocument/nope"); ok {
		t.Fatal("unknown method found")
	}
	if _, ok := protocol.ShutdownRequest.Info().NewParams().(*protocol.NoParams); !ok {
		t.Fatal("shutdown params")
	}
}

func TestFileURI(t *testing.T) {
	path, want := "/tmp/a b/ü.go", protocol.DocumentURI("file:///tmp/a%20b/%C3%BC.go")
	if runtime.GOOS == "windows" {
		path, want = `C:\tmp\a b\ü.go`, "file:///C:/tmp/a%20b/%C3%BC.go"
	}
	u, err := protocol.FileURI(path)
	if err != nil || u != want {
		t.Fatalf("FileURI: %s %v, want %s", u, err, want)
	}
	if p, err := u.Path(); err != nil || p != path {
		t.Fatalf("Path: %s %v, want %s", p, err, path)
	}
	if _, err := protocol.DocumentURI("https://x/y").Path(); err == nil {
		t.Fatal("non-file URI has a path")
	}
}

// TestSupports: the generated capability check follows the model's paths
// through unions, options and pointers.
func TestSupports(t *testing.T) {
	var caps protocol.ServerCapabilities
	for _, c := range []struct {
		json   string
		method string
		want   bool
	}{
		{`{}`, protocol.MethodTextDocumentHover, false},
		{`{"hoverProvider":true}`, protocol.MethodTextDocumentHover, true},
		{`{"hoverProvider":false}`, protocol.MethodTextDocumentHover, false},
		{`{"hoverProvider":{}}`, protocol.MethodTextDocumentHover, true},
		{`{"renameProvider":true}`, protocol.MethodTextDocumentPrepareRename, false},
		{`{"renameProvider":{"prepareProvider":true}}`, protocol.MethodTextDocumentPrepareRename, true},
		{`{"textDocumentSync":0}`, protocol.MethodTextDocumentDidOpen, false},
		{`{"textDocumentSync":2}`, protocol.MethodTextDocumentDidOpen, true},
		{`{"textDocumentSync":{"openClose":true,"save":{"includeText":true}}}`, protocol.MethodTextDocumentDidSave, true},
		{`{"textDocumentSync":{"openClose":true}}`, protocol.MethodTextDocumentDidSave, false},
		{`{"diagnosticProvider":{"interFileDependencies":true,"workspaceDiagnostics":true}}`, protocol.MethodWorkspaceDiagnostic, true},
		{`{"diagnosticProvider":{"interFileDependencies":true,"workspaceDiagnostics":false}}`, protocol.MethodWorkspaceDiagnostic, false},
		{`{"callHierarchyProvider":true}`, protocol.MethodCallHierarchyIncomingCalls, true},
		{`{"workspace":{"workspaceFolders":{"changeNotifications":"id"}}}`, protocol.MethodWorkspaceDidChangeWorkspaceFolders, true},
		{`{}`, protocol.MethodShutdown, true},
	} {
		if err := jsonv2.Unmarshal([]byte(c.json), &caps); err != nil {
			t.Fatal(err)
		}
		if got := caps.Supports(c.method); got != c.want {
			t.Errorf("%s: Supports(%s) = %v, want %v", c.json, c.method, got, c.want)
		}
	}
}
