package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// Error codes of the agent-facing surface beyond JSON-RPC's.
const (
	CodeOutsideRoot = -32001 // navigation on a path outside the root
)

// ServeOptions configures Serve.
type ServeOptions struct {
	Version string
	Logger  *slog.Logger
}

// Serve answers the contract's JSON-RPC methods on rwc (LSP framing) until
// lsp/shutdown, the peer hangs up or ctx ends, then stops every server and
// returns. It sends lsp/ready first. It does not wait for a read blocked on
// rwc to return (a blocking stdin cannot be interrupted by closing it): the
// caller exits, or closes the stream's other end.
func Serve(ctx context.Context, o *Orchestrator, rwc io.ReadWriteCloser, opts ServeOptions) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &rpcHandler{o: o, log: opts.Logger}
	conn := transport.NewConn(rwc, transport.Options{Handler: h, Logger: opts.Logger, MaxConcurrentRequests: 64})
	h.conn = conn
	if err := conn.Notify(ctx, "lsp/ready", map[string]any{"version": opts.Version, "pid": os.Getpid()}); err != nil {
		conn.Close()
		o.Shutdown(context.Background())
		return fmt.Errorf("serve: lsp/ready: %w", err)
	}
	select {
	case <-conn.Done():
	case <-ctx.Done():
		go conn.Close()
	}
	o.Shutdown(context.Background())
	return nil
}

type rpcHandler struct {
	o    *Orchestrator
	log  *slog.Logger
	conn *transport.Conn
}

// invalidParams is a -32602 error naming the method and field.
func invalidParams(method, field, msg string) error {
	return &transport.Error{Code: transport.CodeInvalidParams, Message: fmt.Sprintf("%s: params.%s: %s", method, field, msg)}
}

// params reads a request's params object strictly enough to name what is
// wrong.
type params struct {
	method string
	m      map[string]jsontext.Value
}

func readParams(method string, raw jsontext.Value) (params, error) {
	p := params{method: method, m: map[string]jsontext.Value{}}
	if len(raw) == 0 || string(raw) == "null" {
		return p, nil
	}
	if raw.Kind() != '{' || json.Unmarshal(raw, &p.m) != nil {
		return p, &transport.Error{Code: transport.CodeInvalidParams, Message: method + ": params must be an object"}
	}
	return p, nil
}

func (p params) str(name string, required bool) (*string, error) {
	v, ok := p.m[name]
	if !ok || string(v) == "null" {
		if required {
			return nil, invalidParams(p.method, name, "missing (a string is required)")
		}
		return nil, nil
	}
	var s string
	if v.Kind() != '"' || json.Unmarshal(v, &s) != nil {
		return nil, invalidParams(p.method, name, "expected a string, got "+describe(v))
	}
	return &s, nil
}

func (p params) integer(name string, required bool, min int64) (*int64, error) {
	v, ok := p.m[name]
	if !ok || string(v) == "null" {
		if required {
			return nil, invalidParams(p.method, name, "missing (an integer is required)")
		}
		return nil, nil
	}
	var f float64
	if v.Kind() != '0' || json.Unmarshal(v, &f) != nil || f != float64(int64(f)) {
		return nil, invalidParams(p.method, name, "expected an integer, got "+describe(v))
	}
	if int64(f) < min {
		return nil, invalidParams(p.method, name, fmt.Sprintf("must be ≥ %d", min))
	}
	n := int64(f)
	return &n, nil
}

// fileText reads the filePath (required) and text (optional) params.
func (p params) fileText() (*string, *string, error) {
	file, err := p.str("filePath", true)
	if err != nil {
		return nil, nil, err
	}
	text, err := p.str("text", false)
	return file, text, err
}

// Handle dispatches a request to the orchestrator.
func (h *rpcHandler) Handle(ctx context.Context, req *transport.Request) (any, error) {
	if req.Notification {
		if req.Method == "exit" || req.Method == "lsp/exit" {
			go h.conn.Close()
		}
		return nil, nil
	}
	p, err := readParams(req.Method, req.Params)
	if err != nil {
		return nil, err
	}
	switch req.Method {
	case "lsp/checkFile", "lsp/check":
		file, text, err := p.fileText()
		if err != nil {
			return nil, err
		}
		timeout, err := p.integer("timeoutMs", false, 1)
		if err != nil {
			return nil, err
		}
		var d time.Duration
		if timeout != nil {
			d = time.Duration(*timeout) * time.Millisecond
		}
		res, err := h.o.CheckFile(ctx, *file, text, d)
		if err != nil {
			return nil, err
		}
		if req.Method == "lsp/check" {
			return res, nil
		}
		return res.Diagnostics, nil
	case "lsp/diagnostics":
		return h.o.Diagnostics(), nil
	case "lsp/getDiagnosticEpoch":
		return h.o.Epoch(), nil
	case "lsp/diagnosticsAfter":
		after, err := p.integer("afterEpoch", true, 0)
		if err != nil {
			return nil, err
		}
		wait, err := p.integer("waitMs", false, 0)
		if err != nil {
			return nil, err
		}
		d := time.Second
		if wait != nil {
			d = time.Duration(*wait) * time.Millisecond
		}
		return h.o.DiagnosticsAfter(ctx, uint64(*after), d), nil
	case "lsp/report":
		file, text, err := p.fileText()
		if err != nil {
			return nil, err
		}
		mode, err := p.str("mode", true)
		if err != nil {
			return nil, err
		}
		if *mode != "edit" && *mode != "write" {
			return nil, invalidParams(req.Method, "mode", fmt.Sprintf("expected \"edit\" or \"write\", got %q", *mode))
		}
		return h.o.Report(ctx, *file, text, *mode)
	case "lsp/status":
		return h.o.Status(), nil
	case "lsp/definition", "lsp/typeDefinition", "lsp/implementation", "lsp/references", "lsp/hover":
		file, err := p.str("file", true)
		if err != nil {
			return nil, err
		}
		line, err := p.integer("line", true, 1)
		if err != nil {
			return nil, err
		}
		char, err := p.integer("character", true, 1)
		if err != nil {
			return nil, err
		}
		if req.Method == "lsp/hover" {
			text, ok, err := h.o.Hover(ctx, *file, Pos{Line: int(*line), Character: int(*char)})
			if err != nil {
				return nil, navError(err)
			}
			if !ok {
				return map[string]any{"content": nil}, nil
			}
			return map[string]any{"content": text}, nil
		}
		method := map[string]string{
			"lsp/definition":     protocol.MethodTextDocumentDefinition,
			"lsp/typeDefinition": protocol.MethodTextDocumentTypeDefinition,
			"lsp/implementation": protocol.MethodTextDocumentImplementation,
			"lsp/references":     protocol.MethodTextDocumentReferences,
		}[req.Method]
		locs, err := h.o.Navigate(ctx, method, *file, Pos{Line: int(*line), Character: int(*char)})
		if err != nil {
			return nil, navError(err)
		}
		return map[string]any{"locations": locs}, nil
	case "lsp/documentSymbols":
		file, err := p.str("file", true)
		if err != nil {
			return nil, err
		}
		syms, err := h.o.DocumentSymbols(ctx, *file)
		if err != nil {
			return nil, navError(err)
		}
		return map[string]any{"symbols": syms}, nil
	case "lsp/workspaceSymbols":
		query, err := p.str("query", true)
		if err != nil {
			return nil, err
		}
		syms, err := h.o.WorkspaceSymbols(ctx, *query)
		if err != nil {
			return nil, err
		}
		return map[string]any{"symbols": syms}, nil
	case "lsp/shutdown", "shutdown":
		h.o.Shutdown(ctx)
		req.AfterReply(func() { go h.conn.Close() })
		return nil, nil
	}
	return nil, transport.ErrMethodNotFound
}

// navError gives paths outside the root their own code, and positions
// that do not exist -32602.
func navError(err error) error {
	var out *OutsideRootError
	if errors.As(err, &out) {
		return &transport.Error{Code: CodeOutsideRoot, Message: out.Error()}
	}
	var pos *PositionError
	if errors.As(err, &pos) {
		return &transport.Error{Code: transport.CodeInvalidParams, Message: pos.Error()}
	}
	return err
}
