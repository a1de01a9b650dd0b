package rpc

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/features"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/transport"
)

// serve runs Serve in-process over a pipe, with fake servers for .fk
// files, and returns the agent's end of the connection.
func serve(t *testing.T, files map[string]string) *transport.Conn {
	t.Helper()
	return serveWith(t, files, lsptest.Behavior{}, "")
}

// serveWith is serve with the fake servers' behavior and more
// configuration (",key:value…" inside the lsp object).
func serveWith(t *testing.T, files map[string]string, behavior lsptest.Behavior, options string) *transport.Conn {
	t.Helper()
	conn, _, _ := serveRaw(t, files, behavior, options, false)
	return conn
}

// serveRaw is serveWith; with raw, the agent's end is returned as the
// bare stream and a frame reader on it instead (nil Conn), lsp/ready
// already read.
func serveRaw(t *testing.T, files map[string]string, behavior lsptest.Behavior, options string, raw bool) (*transport.Conn, *transport.Reader, net.Conn) {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe, _ := os.Executable()
	cfg, err := config.Parse([]byte(`{"lsp":{"autoInstall":false`+options+`,"servers":{"fake":{"command":`+quote(exe)+`,"args":["ok"],"extensions":[".fk"]}}}}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"ok": behavior}}
	o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg, Launch: l.Launch})
	if err != nil {
		t.Fatal(err)
	}
	agent, daemon := net.Pipe()
	if raw {
		done := make(chan error, 1)
		go func() { done <- Serve(context.Background(), features.NewService(o), daemon, Options{Version: "test"}) }()
		t.Cleanup(func() {
			agent.Close()
			if err := <-done; err != nil {
				t.Error(err)
			}
			if n := l.Alive(); n != 0 {
				t.Errorf("%d servers left", n)
			}
		})
		r := transport.NewReader(agent, transport.ReaderOptions{})
		if _, err := r.ReadFrame(); err != nil {
			t.Fatalf("lsp/ready: %v", err)
		}
		return nil, r, agent
	}
	ready := make(chan struct{})
	conn := transport.NewConn(agent, transport.Options{Handler: transport.HandlerFunc(func(_ context.Context, req *transport.Request) (any, error) {
		if req.Method == api.MethodReady {
			close(ready)
		}
		return nil, nil
	})})
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), features.NewService(o), daemon, Options{Version: "test"}) }()
	t.Cleanup(func() {
		conn.Close()
		if err := <-done; err != nil {
			t.Error(err)
		}
		if n := l.Alive(); n != 0 {
			t.Errorf("%d servers left", n)
		}
	})
	select {
	case <-ready:
	case <-time.After(servertest.Scale(10 * time.Second)):
		t.Fatal("no lsp/ready")
	}
	return conn, nil, nil
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

// TestErrors: unknown methods, bad params (naming the field), positions
// that do not exist and paths outside the root get their codes; the daemon
// keeps answering.
func TestErrors(t *testing.T) {
	conn := serve(t, map[string]string{"a.fk": "one\n"})
	cases := []struct {
		method string
		params any
		code   int64
		field  string
	}{
		{"lsp/nope", nil, transport.CodeMethodNotFound, ""},
		{api.MethodCheckFile, map[string]any{}, transport.CodeInvalidParams, "params.filePath"},
		{api.MethodCheckFile, map[string]any{"filePath": 7}, transport.CodeInvalidParams, "params.filePath: expected a string, got the number 7"},
		{api.MethodCheckFile, map[string]any{"filePath": "a.fk", "timeoutMs": "x"}, transport.CodeInvalidParams, "params.timeoutMs: expected an integer"},
		{api.MethodDefinition, map[string]any{"file": "a.fk", "line": 0, "character": 1}, transport.CodeInvalidParams, "line must be ≥ 1"},
		{api.MethodReport, map[string]any{"filePath": "a.fk", "mode": "both"}, transport.CodeInvalidParams, "mode"},
		{api.MethodDiagnosticsAfter, map[string]any{}, transport.CodeInvalidParams, "params.afterEpoch"},
		{api.MethodCheckFile, []int{1}, transport.CodeInvalidParams, "params must be an object"},
		{api.MethodDefinition, map[string]any{"file": "../outside.fk", "line": 1, "character": 1}, api.CodeOutsideRoot, "../outside.fk"},
		{api.MethodHover, map[string]any{"file": "gone.fk", "line": 1, "character": 1}, api.CodeNotFound, "no such file: gone.fk"},
		{api.MethodCallHierarchy, map[string]any{"file": "a.fk", "line": 1, "character": 1}, transport.CodeInvalidParams, "params.direction"},
		{api.MethodCallHierarchy, map[string]any{"file": "a.fk", "line": 1, "character": 1, "direction": "up"}, transport.CodeInvalidParams, `direction must be "incoming" or "outgoing", not "up"`},
		{api.MethodRename, map[string]any{"file": "a.fk", "line": 1, "character": 1}, transport.CodeInvalidParams, "params.newName"},
		{api.MethodRename, map[string]any{"file": "a.fk", "line": 1, "character": 1, "newName": "x", "apply": "yes"}, transport.CodeInvalidParams, "params.apply"},
		{api.MethodRename, map[string]any{"file": "a.fk", "line": 1, "character": 1, "newName": "x"}, api.CodeNoServer, "does not offer textDocument/rename"},
		{api.MethodCallHierarchy, map[string]any{"file": "a.fk", "line": 1, "character": 1, "direction": "incoming"}, api.CodeNoServer, "does not offer textDocument/prepareCallHierarchy"},
	}
	for _, tc := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := conn.Call(ctx, tc.method, tc.params, nil)
		cancel()
		var rpcErr *transport.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != tc.code || !strings.Contains(rpcErr.Message, tc.field) {
			t.Errorf("%s %v: got %v, want code %d naming %q", tc.method, tc.params, err, tc.code, tc.field)
		}
	}
	var epoch uint64
	if err := conn.Call(context.Background(), api.MethodGetDiagnosticEpoch, nil, &epoch); err != nil {
		t.Fatal(err)
	}
}

// TestRoundTrip: each method's params and result go through the table.
func TestRoundTrip(t *testing.T) {
	conn := serve(t, map[string]string{"a.fk": "x ERROR\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res api.CheckResult
	if err := conn.Call(ctx, api.MethodCheck, api.CheckParams{FilePath: "a.fk"}, &res); err != nil || !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("check: %+v %v", res, err)
	}
	var diags []api.Diagnostic
	if err := conn.Call(ctx, api.MethodCheckFile, map[string]any{"filePath": "../elsewhere.fk"}, &diags); err != nil || diags == nil || len(diags) != 0 {
		t.Fatalf("checkFile outside the root: %+v %v", diags, err)
	}
	var all jsontext.Value
	if err := conn.Call(ctx, api.MethodDiagnostics, nil, &all); err != nil || !strings.HasPrefix(string(all), `{"a.fk":[{"file":"a.fk","line":1,"character":3`) {
		t.Fatalf("diagnostics: %s %v", all, err)
	}
	var hover api.HoverResult
	if err := conn.Call(ctx, api.MethodHover, api.PositionParams{File: "a.fk", Line: 1, Character: 1}, &hover); err != nil || hover.Content == nil {
		t.Fatalf("hover: %+v %v", hover, err)
	}
	var sts []api.ServerStatus
	if err := conn.Call(ctx, api.MethodStatus, nil, &sts); err != nil || len(sts) < 20 {
		t.Fatalf("status: %d %v", len(sts), err)
	}
	var null jsontext.Value
	if err := conn.Call(ctx, api.MethodShutdown, nil, &null); err != nil || string(null) != "null" {
		t.Fatalf("shutdown: %s %v", null, err)
	}
	select {
	case <-conn.Done():
	case <-time.After(servertest.Scale(10 * time.Second)):
		t.Fatal("the connection stayed up after lsp/shutdown")
	}
}

// halfClosed is a stream whose input is fixed (it ends after it) and
// whose output is collected.
type halfClosed struct {
	in  *strings.Reader
	out strings.Builder
}

func (h *halfClosed) Read(p []byte) (int, error)  { return h.in.Read(p) }
func (h *halfClosed) Write(p []byte) (int, error) { return h.out.Write(p) }
func (h *halfClosed) Close() error                { return nil }

// TestAnswersBeforeEOF: a request followed at once by the end of input is
// answered before Serve shuts down (the check takes a while: its server
// waits before answering).
func TestAnswersBeforeEOF(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.fk"), []byte("x ERROR\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	cfg, err := config.Parse([]byte(`{"lsp":{"autoInstall":false,"servers":{"fake":{"command":`+quote(exe)+`,"args":["ok"],"extensions":[".fk"]}}}}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"ok": {Delay: 100 * time.Millisecond}}}
	o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg, Launch: l.Launch})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":7,"method":"lsp/checkFile","params":{"filePath":"a.fk"}}`
	stream := &halfClosed{in: strings.NewReader("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)}
	if err := Serve(context.Background(), features.NewService(o), stream, Options{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if out := stream.out.String(); !strings.Contains(out, `"id":7,"result":[{`) || !strings.Contains(out, "error on line 1") {
		t.Fatalf("the request was not answered:\n%s", out)
	}
	if n := l.Alive(); n != 0 {
		t.Errorf("%d servers left", n)
	}
}

// TestCancelCheck: $/cancelRequest for lsp/checkFile and lsp/check (a
// host that gives up, as LLxprt Code's edit tools do at 5 s) is answered
// at once with what is known — a result, not an error: [] for checkFile,
// and for check "not checked" with the reason — and the daemon stops
// waiting (the checks' timeouts are ten minutes).
func TestCancelCheck(t *testing.T) {
	_, r, agent := serveRaw(t, map[string]string{"a.fk": "x ERROR\n"}, lsptest.Behavior{Silent: true}, `,"diagnosticTimeout":600000,"firstTouchTimeout":600000`, true)
	w := transport.NewWriter(agent)
	send := func(msg string) {
		t.Helper()
		if err := w.WriteFrame([]byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	agent.SetReadDeadline(time.Now().Add(30 * time.Second))
	send(`{"jsonrpc":"2.0","id":1,"method":"lsp/checkFile","params":{"filePath":"a.fk"}}`)
	send(`{"jsonrpc":"2.0","id":"two","method":"lsp/check","params":{"filePath":"a.fk"}}`)
	send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
	send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"two"}}`)
	got := map[string]string{}
	for range 2 {
		frame, err := r.ReadFrame()
		if err != nil {
			t.Fatalf("no answer to a cancelled check: %v (answered: %v)", err, got)
		}
		var msg struct {
			ID     jsontext.Value `json:"id"`
			Result jsontext.Value `json:"result"`
			Error  jsontext.Value `json:"error"`
		}
		if err := json.Unmarshal(frame, &msg); err != nil {
			t.Fatal(err)
		}
		if msg.Error != nil {
			t.Fatalf("an error for a cancelled check: %s", frame)
		}
		got[string(msg.ID)] = string(msg.Result)
	}
	if got["1"] != "[]" {
		t.Errorf("checkFile: %s", got["1"])
	}
	var res api.CheckResult
	if err := json.Unmarshal([]byte(got[`"two"`]), &res); err != nil || res.Checked || !strings.Contains(res.Reason, "cancelled by its caller") {
		t.Errorf("check: %s", got[`"two"`])
	}
}

// TestBatch: lsp/batch answers its questions in order, each with its own
// result or error — a position by name, a bad position, a method that
// writes (refused), an unknown one — and refuses an empty batch.
func TestBatch(t *testing.T) {
	conn := serveWith(t, map[string]string{"a.fk": "class Router\n  def Handle\ndef URLParam\n"}, lsptest.Behavior{Symbols: true}, "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var check api.CheckResult
	if err := conn.Call(ctx, api.MethodCheck, map[string]any{"filePath": "a.fk"}, &check); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Answers []struct {
			Result jsontext.Value   `json:"result"`
			Error  *api.AnswerError `json:"error"`
		} `json:"answers"`
	}
	err := conn.Call(ctx, api.MethodBatch, jsontext.Value(`{"questions": [
		{"method": "lsp/definition", "params": {"symbol": "Router.Handle"}},
		{"method": "lsp/hover", "params": {"file": "a.fk", "line": 99, "character": 1}},
		{"method": "lsp/rename", "params": {"symbol": "URLParam", "newName": "P"}},
		{"method": "lsp/nope"},
		{"method": "lsp/documentSymbols", "params": {"file": "a.fk"}}]}`), &res)
	if err != nil || len(res.Answers) != 5 {
		t.Fatalf("batch: %+v, %v", res, err)
	}
	var def api.LocationsResult
	if err := json.Unmarshal(res.Answers[0].Result, &def); err != nil || len(def.Locations) != 1 || def.Locations[0].Line != 2 || def.Locations[0].Character != 7 {
		t.Errorf("answer 1: %s, %v", res.Answers[0].Result, err)
	}
	if e := res.Answers[1].Error; e == nil || e.Code != transport.CodeInvalidParams || !strings.Contains(e.Message, "line 99 is past the end") {
		t.Errorf("answer 2: %+v", res.Answers[1])
	}
	for i := 2; i <= 3; i++ {
		if e := res.Answers[i].Error; e == nil || e.Code != transport.CodeInvalidParams || !strings.Contains(e.Message, "cannot be asked in a batch") {
			t.Errorf("answer %d: %+v", i+1, res.Answers[i])
		}
	}
	var syms api.SymbolsResult
	if err := json.Unmarshal(res.Answers[4].Result, &syms); err != nil || len(syms.Symbols) != 2 {
		t.Errorf("answer 5: %s, %v", res.Answers[4].Result, err)
	}
	err = conn.Call(ctx, api.MethodBatch, jsontext.Value(`{"questions": []}`), &res)
	if e, ok := errors.AsType[*transport.Error](err); !ok || e.Code != transport.CodeInvalidParams {
		t.Errorf("an empty batch: %v", err)
	}
}
