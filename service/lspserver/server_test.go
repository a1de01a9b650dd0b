package lspserver_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/lspserver"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/transport"
)

// editor is the test's side of the connection: an LSP client that keeps
// what the server sends it.
type editor struct {
	conn *transport.Conn
	done chan int // Serve's exit code
	wire *wire    // what the server wrote, in order

	mu       sync.Mutex
	diags    map[protocol.DocumentURI][]protocol.PublishDiagnosticsParams
	logs     []string
	edits    []protocol.ApplyWorkspaceEditParams // workspace/applyEdit received (answered applied)
	asked    []string                            // the other requests received, by method
	shown    []string                            // window/showMessage received
	progress []protocol.ProgressParams           // $/progress received
	got      chan struct{}                       // a notification arrived
}

// start runs lspkit lsp's server over two fake servers (a and b, both
// serving .fk, both publishing an error for each line with ERROR) on a root
// holding files.
func start(t *testing.T, files map[string]string) (*editor, string) {
	t.Helper()
	return startWith(t, files, lsptest.Behavior{})
}

// startWith is start with server a's behavior.
func startWith(t *testing.T, files map[string]string, a lsptest.Behavior) (*editor, string) {
	t.Helper()
	return startBoth(t, files, a, lsptest.Behavior{})
}

// startBoth is start with both servers' behaviors.
func startBoth(t *testing.T, files map[string]string, a, b lsptest.Behavior) (*editor, string) {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe, _ := os.Executable()
	doc := fmt.Sprintf(`{"lsp": {"diagnosticTimeout": 1000, "firstTouchTimeout": 1000, "servers": {"a": {"command": %q, "args": ["a"], "extensions": [".fk"]}, "b": {"command": %q, "args": ["b"], "extensions": [".fk"]}}}}`, exe, exe)
	cfg, err := config.Parse([]byte(doc), "test")
	if err != nil {
		t.Fatal(err)
	}
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"a": a, "b": b}}
	o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg, Launch: l.Launch, StopGrace: time.Second,
		PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16}})
	if err != nil {
		t.Fatal(err)
	}
	serverSide, clientSide := net.Pipe()
	e := &editor{done: make(chan int, 1), diags: map[protocol.DocumentURI][]protocol.PublishDiagnosticsParams{}, got: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		e.done <- lspserver.New(o, lspserver.Options{Servers: []string{"a", "b"}}).Serve(ctx, serverSide)
	}()
	e.wire = &wire{Conn: clientSide}
	e.conn = transport.NewConn(e.wire, transport.Options{Handler: transport.HandlerFunc(e.handle)})
	t.Cleanup(func() {
		cancel()
		e.conn.Close()
		o.Shutdown(context.Background())
		if n := l.Alive(); n != 0 {
			t.Errorf("%d fake servers still running", n)
		}
	})
	return e, o.Root()
}

// wire is the client's end of the connection, keeping every byte read
// from it: the order the server sent its messages in, which the order the
// client's handlers run in does not show.
type wire struct {
	net.Conn
	mu   sync.Mutex
	read []byte
}

func (w *wire) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	w.mu.Lock()
	w.read = append(w.read, p[:n]...)
	w.mu.Unlock()
	return n, err
}

// frames returns the messages the server has sent so far, in order.
func (w *wire) frames(t *testing.T) []string {
	t.Helper()
	w.mu.Lock()
	r := transport.NewReader(strings.NewReader(string(w.read)), transport.ReaderOptions{})
	w.mu.Unlock()
	var out []string
	for {
		f, err := r.ReadFrame()
		if err != nil {
			return out
		}
		out = append(out, string(f))
	}
}

func (e *editor) handle(_ context.Context, req *transport.Request) (any, error) {
	e.mu.Lock()
	switch req.Method {
	case protocol.PublishDiagnosticsNotification.Method():
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(req.Params, &p); err == nil {
			e.diags[p.URI] = append(e.diags[p.URI], p)
		}
	case protocol.LogMessageNotification.Method():
		var p protocol.LogMessageParams
		if err := json.Unmarshal(req.Params, &p); err == nil {
			e.logs = append(e.logs, p.Message)
		}
	case protocol.ShowMessageNotification.Method():
		var p protocol.ShowMessageParams
		if err := json.Unmarshal(req.Params, &p); err == nil {
			e.shown = append(e.shown, p.Message)
		}
	case protocol.ProgressNotification.Method():
		var p protocol.ProgressParams
		if err := json.Unmarshal(req.Params, &p); err == nil {
			e.progress = append(e.progress, p)
		}
	case protocol.ApplyWorkspaceEditRequest.Method():
		var p protocol.ApplyWorkspaceEditParams
		if err := json.Unmarshal(req.Params, &p); err == nil {
			e.edits = append(e.edits, p)
		}
		e.mu.Unlock()
		return protocol.ApplyWorkspaceEditResult{Applied: true}, nil
	default:
		if !req.Notification {
			e.asked = append(e.asked, req.Method)
		}
	}
	e.mu.Unlock()
	select {
	case e.got <- struct{}{}:
	default:
	}
	return nil, nil
}

// await waits until cond holds of what arrived, or fails at the deadline.
func (e *editor) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	limit := servertest.Scale(20 * time.Second)
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		ok := cond()
		e.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-e.got:
		case <-deadline.C:
			t.Fatalf("no %s within %s", what, limit)
		}
	}
}

// published returns the last publish for uri with version v, if any.
func (e *editor) published(uri protocol.DocumentURI, v int32) (protocol.PublishDiagnosticsParams, bool) {
	for _, p := range e.diags[uri] {
		if p.Version != nil && *p.Version == v {
			return p, true
		}
	}
	return protocol.PublishDiagnosticsParams{}, false
}

func (e *editor) call(t *testing.T, method string, params any) (jsontext.Value, error) {
	t.Helper()
	return e.callB(t, method, params)
}

func (e *editor) callB(t testing.TB, method string, params any) (jsontext.Value, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out jsontext.Value
	err := e.conn.Call(ctx, method, params, &out)
	return out, err
}

func (e *editor) notify(t *testing.T, method string, params any) {
	t.Helper()
	err := e.conn.Notify(context.Background(), method, params)
	if err != nil && method == protocol.ExitNotification.Method() && errors.Is(err, io.EOF) {
		err = nil // the server ended on it before the write was reported done
	}
	if err != nil {
		t.Fatal(err)
	}
}

func code(err error) int64 {
	if te, ok := errors.AsType[*transport.Error](err); ok {
		return te.Code
	}
	return 0
}

// TestLSPServer: the lifecycle's rules, the client's text as the servers'
// (an incremental change applied, hover answered from it, not the disk's),
// both servers' findings merged and published with the client's version,
// a file no server handles answered empty with a log message, and the exit
// code.
func TestLSPServer(t *testing.T) {
	e, root := start(t, map[string]string{"a.fk": "disk line\nsecond\n", "notes.txt": "x\n"})
	uri, _ := protocol.FileURI(filepath.Join(root, "a.fk"))
	hover := map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 1}}

	if _, err := e.call(t, protocol.HoverRequest.Method(), hover); code(err) != -32002 {
		t.Fatalf("hover before initialize: %v, want -32002", err)
	}
	// A method lspkit does not know is -32601 before initialize too: a
	// client trying a draft method (Copilot CLI's server/discover) falls
	// back at once.
	if _, err := e.call(t, "server/discover", map[string]any{}); code(err) != -32601 {
		t.Fatalf("server/discover before initialize: %v, want -32601", err)
	}
	res, err := e.call(t, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var init protocol.InitializeResult
	if err := json.Unmarshal(res, &init); err != nil {
		t.Fatal(err)
	}
	sync, _ := init.Capabilities.TextDocumentSync.AsTextDocumentSyncOptions()
	if init.Capabilities.HoverProvider.IsZero() || init.Capabilities.DefinitionProvider.IsZero() || sync.Change == nil || *sync.Change != protocol.TextDocumentSyncKindIncremental ||
		*init.Capabilities.PositionEncoding != protocol.PositionEncodingKindUTF16 {
		t.Fatalf("capabilities: %s", res)
	}
	if !strings.Contains(*init.ServerInfo.Version, "a b") {
		t.Errorf("serverInfo %+v, want both servers named", init.ServerInfo)
	}
	e.notify(t, protocol.InitializedNotification.Method(), map[string]any{})
	if _, err := e.call(t, "server/discover", map[string]any{}); code(err) != -32601 {
		t.Fatalf("server/discover: %v, want -32601", err)
	}

	// The client's text, not the disk's: two ERROR lines, one finding
	// each from each server.
	e.notify(t, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "fk", "version": 1, "text": "héllo 🙂 ERROR\nfine\nERROR here\n"}})
	e.await(t, "publish of version 1", func() bool { _, ok := e.published(uri, 1); return ok })
	e.mu.Lock()
	p1, _ := e.published(uri, 1)
	e.mu.Unlock()
	if len(p1.Diagnostics) != 4 {
		t.Fatalf("version 1: %d findings, want 4 (2 lines × 2 servers): %+v", len(p1.Diagnostics), p1.Diagnostics)
	}

	// An incremental change, in UTF-16 (the emoji is two units): the first
	// line's ERROR becomes "fixed".
	e.notify(t, protocol.DidChangeTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 0, "character": 9}, "end": map[string]any{"line": 0, "character": 14}}, "text": "fixed"}}})
	e.await(t, "publish of version 2", func() bool { _, ok := e.published(uri, 2); return ok })
	e.mu.Lock()
	p2, _ := e.published(uri, 2)
	e.mu.Unlock()
	if len(p2.Diagnostics) != 2 || p2.Diagnostics[0].Range.Start.Line != 2 {
		t.Fatalf("version 2: %+v, want the third line's 2 findings", p2.Diagnostics)
	}
	res, err = e.call(t, protocol.HoverRequest.Method(), hover)
	if err != nil || !strings.Contains(string(res), "héllo 🙂 fixed") {
		t.Fatalf("hover: %s %v, want the client's edited first line", res, err)
	}

	// Closed: the servers follow the disk again, the findings are cleared.
	e.notify(t, protocol.DidCloseTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri}})
	e.await(t, "the clearing publish", func() bool {
		ps := e.diags[uri]
		return len(ps) > 0 && ps[len(ps)-1].Version == nil && len(ps[len(ps)-1].Diagnostics) == 0
	})
	res, err = e.call(t, protocol.HoverRequest.Method(), hover)
	if err != nil || !strings.Contains(string(res), "disk line") {
		t.Fatalf("hover after close: %s %v, want the disk's first line", res, err)
	}

	// No server for .txt: an empty answer and a log message, no error.
	txt, _ := protocol.FileURI(filepath.Join(root, "notes.txt"))
	res, err = e.call(t, protocol.DefinitionRequest.Method(), map[string]any{"textDocument": map[string]any{"uri": txt}, "position": map[string]any{"line": 0, "character": 0}})
	if err != nil || string(res) != "null" {
		t.Fatalf("definition in notes.txt: %s %v, want null", res, err)
	}
	e.await(t, "a log message naming notes.txt", func() bool {
		return len(e.logs) > 0 && strings.Contains(e.logs[len(e.logs)-1], "notes.txt")
	})

	if _, err := e.call(t, protocol.ShutdownRequest.Method(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.call(t, protocol.HoverRequest.Method(), hover); code(err) != -32600 {
		t.Fatalf("hover after shutdown: %v, want -32600", err)
	}
	e.notify(t, protocol.ExitNotification.Method(), nil)
	select {
	case c := <-e.done:
		if c != 0 {
			t.Errorf("exit code %d after shutdown and exit, want 0", c)
		}
	case <-time.After(servertest.Scale(20 * time.Second)):
		t.Fatal("Serve did not return after exit")
	}
}

// TestLSPServerExitWithoutShutdown: exit without shutdown is exit code 1.
func TestLSPServerExitWithoutShutdown(t *testing.T) {
	e, _ := start(t, nil)
	if _, err := e.call(t, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	e.notify(t, protocol.ExitNotification.Method(), nil)
	select {
	case c := <-e.done:
		if c != 1 {
			t.Errorf("exit code %d, want 1", c)
		}
	case <-time.After(servertest.Scale(20 * time.Second)):
		t.Fatal("Serve did not return after exit")
	}
}

// TestLSPServerCommand: a code action's command runs on the server that
// offers it; the edit the server sends back while it runs reaches the
// client as workspace/applyEdit, and the command answers.
func TestLSPServerCommand(t *testing.T) {
	e, root := startWith(t, map[string]string{"a.fk": "x ERROR\n"}, lsptest.Behavior{Actions: true})
	uri, _ := protocol.FileURI(filepath.Join(root, "a.fk"))
	res, err := e.call(t, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}})
	if err != nil || !strings.Contains(string(res), `"executeCommandProvider":{"commands":["fake.fix"]}`) {
		t.Fatalf("initialize: %s %v, want fake.fix offered", res, err)
	}
	e.notify(t, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "fk", "version": 1, "text": "x ERROR\n"}})
	res, err = e.call(t, protocol.CodeActionRequest.Method(), map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 7}}, "context": map[string]any{"diagnostics": []any{}}})
	if err != nil {
		t.Fatal(err)
	}
	var actions []struct {
		Title   string            `json:"title"`
		Command *protocol.Command `json:"command"`
	}
	json.Unmarshal(res, &actions)
	var cmd *protocol.Command
	for _, a := range actions {
		if a.Command != nil && a.Command.Command == "fake.fix" {
			cmd = a.Command
		}
	}
	if cmd == nil {
		t.Fatalf("code actions %s: none runs fake.fix", res)
	}
	if _, err := e.call(t, protocol.ExecuteCommandRequest.Method(), map[string]any{"command": cmd.Command, "arguments": cmd.Arguments}); err != nil {
		t.Fatalf("executeCommand: %v", err)
	}
	e.mu.Lock()
	edits := slices.Clone(e.edits)
	e.mu.Unlock()
	if len(edits) != 1 || !strings.Contains(fmt.Sprint(edits[0].Edit), "fixed") {
		t.Fatalf("applyEdit received: %+v, want the fix's edit", edits)
	}
	if _, err := e.call(t, protocol.ExecuteCommandRequest.Method(), map[string]any{"command": "nobody.offers"}); code(err) != -32602 {
		t.Errorf("an unknown command: %v, want -32602", err)
	}
}

// TestLSPServerSlowFirstAnswer: a server whose findings for a text do not
// come in time (a project still loading) has them asked for again: the
// client gets a publish as far as they came, then the complete one, for
// the same version.
func TestLSPServerSlowFirstAnswer(t *testing.T) {
	var answered atomic.Bool
	e, root := startWith(t, map[string]string{"a.fk": "x ERROR\n"}, lsptest.Behavior{
		SilentOn: func(string) bool { return !answered.Swap(true) }, // nothing for the first text it is given
	})
	uri, _ := protocol.FileURI(filepath.Join(root, "a.fk"))
	if _, err := e.call(t, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	e.notify(t, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "fk", "version": 1, "text": "x ERROR\n"}})
	e.await(t, "a publish of version 1 with both servers' findings", func() bool {
		for _, p := range e.diags[uri] {
			if p.Version != nil && *p.Version == 1 && len(p.Diagnostics) == 2 {
				return true
			}
		}
		return false
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	if first := e.diags[uri][0]; len(first.Diagnostics) != 1 {
		t.Errorf("the first publish: %d findings, want server b's alone (a's not come in time)", len(first.Diagnostics))
	}
	if !slices.ContainsFunc(e.logs, func(l string) bool { return strings.Contains(l, "may be incomplete") }) {
		t.Errorf("no log message said the first findings may be incomplete: %q", e.logs)
	}
}

// TestLSPServerCrash: a server that dies under a request only it answers
// fails that request with the reason — no hang — and is started again for
// the next change, given the client's text: the next version's findings
// are both servers' again.
func TestLSPServerCrash(t *testing.T) {
	e, root := startWith(t, map[string]string{"a.fk": "x\n"}, lsptest.Behavior{CrashOn: protocol.CodeActionRequest.Method(), Actions: true})
	uri, _ := protocol.FileURI(filepath.Join(root, "a.fk"))
	if _, err := e.call(t, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	e.notify(t, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "fk", "version": 1, "text": "x ERROR\n"}})
	e.await(t, "version 1's findings", func() bool { p, ok := e.published(uri, 1); return ok && len(p.Diagnostics) == 2 })

	_, err := e.call(t, protocol.CodeActionRequest.Method(), map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 1}}, "context": map[string]any{"diagnostics": []any{}}})
	if code(err) != -32603 || !strings.Contains(err.Error(), "a stopped while answering textDocument/codeAction") {
		t.Fatalf("codeAction on the one server offering it, which dies under it: %v, want an error saying so", err)
	}
	t.Logf("codeAction: %v", err)

	e.notify(t, protocol.DidChangeTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": "x\ny ERROR\n"}}})
	// Under load a's restart may miss the first publish of version 2 (b's
	// findings alone, a's said to be on their way): a later one has both.
	e.await(t, "version 2's findings from both servers, a started again", func() bool {
		return slices.ContainsFunc(e.diags[uri], func(p protocol.PublishDiagnosticsParams) bool {
			return p.Version != nil && *p.Version == 2 && len(p.Diagnostics) == 2 && p.Diagnostics[0].Range.Start.Line == 1
		})
	})
}

// TestLSPServerEvents: what a server tells a user reaches the client after
// the initialize answer — its work-done progress on a token lspkit created
// at the client, its title led by the server's name; the message it shows;
// its question, with its choices and that lspkit answered it with none.
func TestLSPServerEvents(t *testing.T) {
	e, _ := startWith(t, nil, lsptest.Behavior{Loading: "Loading packages", Ask: "Reload the project"})
	res, err := e.call(t, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{"window": map[string]any{"workDoneProgress": true}}})
	if err != nil {
		t.Fatal(err)
	}
	e.await(t, "a's progress and messages", func() bool {
		return len(e.progress) > 0 && len(e.shown) == 2
	})
	// The answer went first on the wire: the client's handlers may run
	// before its call returns, so only the bytes tell.
	if frames := e.wire.frames(t); len(frames) == 0 || !strings.Contains(frames[0], `"capabilities"`) {
		t.Errorf("the server's first messages %q, want the initialize answer %s first", frames[:min(len(frames), 3)], res)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !slices.Contains(e.asked, protocol.WorkDoneProgressCreateRequest.Method()) {
		t.Errorf("no window/workDoneProgress/create before the progress: %q", e.asked)
	}
	if v := string(e.progress[0].Value); !strings.Contains(v, `"title":"a: Loading packages"`) || !strings.Contains(v, `"kind":"begin"`) {
		t.Errorf("progress %s, want a's begin, named", v)
	}
	if !slices.Contains(e.shown, "a: Reload the project") || !slices.ContainsFunc(e.shown, func(m string) bool {
		return strings.HasPrefix(m, "a: Reload the project? [asked: Yes / No; lspkit answered for you: no choice]")
	}) {
		t.Errorf("shown %q, want a's message and its question", e.shown)
	}
}
