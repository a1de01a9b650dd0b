package protocol_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// pipes joins a child's stdout and stdin into one ReadWriteCloser.
type pipes struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipes) Close() error {
	return errors.Join(p.WriteCloser.Close(), p.ReadCloser.Close())
}

// goplsClient answers what gopls asks of a client, through the generated
// protocol.Client interface, and passes diagnostics to the test.
type goplsClient struct {
	protocol.UnimplementedClient
	diagnostics chan protocol.PublishDiagnosticsParams
	configAsked chan struct{}
}

func (c *goplsClient) WorkspaceConfiguration(_ context.Context, p *protocol.ConfigurationParams) ([]jsontext.Value, error) {
	select {
	case c.configAsked <- struct{}{}:
	default:
	}
	res := make([]jsontext.Value, len(p.Items))
	for i := range res {
		res[i] = jsontext.Value("{}")
	}
	return res, nil
}

func (c *goplsClient) WindowWorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}
func (c *goplsClient) ClientRegisterCapability(context.Context, *protocol.RegistrationParams) error {
	return nil
}
func (c *goplsClient) WindowLogMessage(context.Context, *protocol.LogMessageParams) error { return nil }
func (c *goplsClient) Progress(context.Context, *protocol.ProgressParams) error           { return nil }
func (c *goplsClient) TextDocumentPublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	c.diagnostics <- *p
	return nil
}

// TestGoplsSession drives a real gopls with the generated protocol types over
// transport.Conn: initialize (gopls's server-to-client requests answered by
// protocol.DispatchClient), a type error reported at the right place, its
// fix clearing it, a hover, and a clean shutdown and exit.
func TestGoplsSession(t *testing.T) {
	gopls := servertest.Binary(t, "gopls")
	dir := t.TempDir()
	src := "package demo\n\nfunc Answer() int {\n\tvar x int = \"forty-two\"\n\treturn x\n}\n"
	for name, text := range map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n", "demo.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(gopls)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})

	client := &goplsClient{diagnostics: make(chan protocol.PublishDiagnosticsParams, 16), configAsked: make(chan struct{}, 1)}
	conn := transport.NewConn(pipes{stdout, stdin}, transport.Options{
		Handler: transport.HandlerFunc(func(ctx context.Context, req *transport.Request) (any, error) {
			res, err := protocol.DispatchClient(ctx, client, req.Method, req.Params)
			if err != nil {
				return nil, err
			}
			return res, nil
		}),
	})
	defer func() { conn.Close(); conn.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	root, err := protocol.FileURI(dir)
	if err != nil {
		t.Fatal(err)
	}
	uri := root + "/demo.go"
	var init protocol.InitializeResult
	params := protocol.InitializeParams{
		ProcessID: protocol.NewNullable(int32(os.Getpid())),
		// RootURI is deprecated: its zero value sends null, and the folder
		// goes in WorkspaceFolders.
		Capabilities: protocol.ClientCapabilities{
			Workspace: &protocol.WorkspaceClientCapabilities{Configuration: protocol.Ptr(true)},
			Window:    &protocol.WindowClientCapabilities{WorkDoneProgress: protocol.Ptr(true)},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Hover: &protocol.HoverClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.MarkupKindMarkdown}},
			},
		},
		WorkspaceFolders: protocol.Ptr(protocol.NewNullable([]protocol.WorkspaceFolder{{URI: protocol.URI(root), Name: "demo"}})),
	}
	if err := conn.Call(ctx, protocol.MethodInitialize, params, &init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if init.ServerInfo == nil || init.ServerInfo.Name != "gopls" {
		t.Fatalf("server info: %+v", init.ServerInfo)
	}
	if _, ok := init.Capabilities.HoverProvider.AsBoolean(); !ok {
		t.Fatalf("hoverProvider is %v", init.Capabilities.HoverProvider.Kind())
	}
	if err := conn.Notify(ctx, protocol.MethodInitialized, protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	open := protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "go", Version: 1, Text: src}}
	if err := conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, open); err != nil {
		t.Fatal(err)
	}
	waitDiagnostics := func(version int32, wantErrors bool) []protocol.Diagnostic {
		t.Helper()
		for {
			select {
			case p := <-client.diagnostics:
				if p.URI != uri || (len(p.Diagnostics) > 0) != wantErrors {
					continue
				}
				if v := p.Version; v != nil && *v != version {
					continue
				}
				return p.Diagnostics
			case <-ctx.Done():
				t.Fatalf("no diagnostics for version %d", version)
			}
		}
	}
	diags := waitDiagnostics(1, true)
	d := diags[0]
	if d.Range.Start.Line != 3 || d.Range.Start.Character != 13 || !strings.Contains(messageText(d), "cannot use") {
		t.Fatalf("diagnostic: %+v %q", d.Range, messageText(d))
	}
	if sev := d.Severity; sev == nil || *sev != protocol.DiagnosticSeverityError {
		t.Fatalf("severity %v", sev)
	}
	// gopls asks before it diagnoses; the handlers of its request and of
	// the publish run concurrently, so the answer to it may come second.
	select {
	case <-client.configAsked:
	case <-ctx.Done():
		t.Fatal("gopls never asked for workspace/configuration")
	}

	fixed := strings.Replace(src, `"forty-two"`, "42", 1)
	change := protocol.DidChangeTextDocumentParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{URI: uri, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{
			protocol.NewTextDocumentContentChangeEventTextDocumentContentChangeWholeDocument(protocol.TextDocumentContentChangeWholeDocument{Text: fixed}),
		},
	}
	if err := conn.Notify(ctx, protocol.MethodTextDocumentDidChange, change); err != nil {
		t.Fatal(err)
	}
	waitDiagnostics(2, false)

	var hover protocol.Nullable[protocol.Hover]
	hp := protocol.HoverParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: 2, Character: 6}}
	if err := conn.Call(ctx, protocol.MethodTextDocumentHover, hp, &hover); err != nil {
		t.Fatal(err)
	}
	h, ok := hover.Get()
	mc, isMarkup := h.Contents.AsMarkupContent()
	if !ok || !isMarkup || !strings.Contains(mc.Value, "func Answer() int") {
		t.Fatalf("hover: %v %v %q", ok, h.Contents.Kind(), mc.Value)
	}

	if err := conn.Call(ctx, protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if err := conn.Notify(ctx, protocol.MethodExit, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Fatalf("gopls exited with %v", err)
		}
	case <-ctx.Done():
		t.Fatal("gopls did not exit after shutdown and exit")
	}
}

func messageText(d protocol.Diagnostic) string {
	if s, ok := d.Message.AsString(); ok {
		return s
	}
	m, _ := d.Message.AsMarkupContent()
	return m.Value
}
