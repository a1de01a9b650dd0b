// Package rpc is the daemon's JSON-RPC surface: the service contract's
// methods over LSP framing, as one table of typed handlers over the
// orchestrator's Go API. Params are decoded with encoding/json/v2 into the
// api package's structs; a missing or ill-typed member is -32602 naming it;
// the orchestrator's errors go out with their codes unchanged.
package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/batch"
	"github.com/lspkit/lspkit/service/features"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/transport"
)

// Options configures Serve.
type Options struct {
	// Version is lspkit's version, said in lsp/ready.
	Version string
	// Logger receives protocol problems; nil discards them.
	Logger *slog.Logger
	// Attached serves one of several clients of a shared daemon: the
	// connection's requests are its own caller's (orchestrator.Attach);
	// lsp/shutdown, exit and the end of its stream end this connection
	// alone, cancelling what it still has in flight (its relay has already
	// waited for its answers), and the servers keep running for the others.
	Attached bool
	// Notes are said in lsp/ready and on lsp/status's lspkit entry: how
	// this client is served otherwise than it may expect (a shared
	// daemon's servers' environment).
	Notes []string
}

// Serve answers the contract's methods on rwc until lsp/shutdown, the peer
// hangs up or ctx ends, then stops every server and returns. It sends
// lsp/ready first. It does not wait for a read blocked on rwc to return (a
// blocking stdin cannot be interrupted by closing it): the caller exits, or
// closes the stream's other end.
func Serve(ctx context.Context, o *features.Service, rwc io.ReadWriteCloser, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &handler{o: o, routes: Routes(o), quit: make(chan struct{}), attached: opts.Attached, caller: ctx, log: opts.Logger}
	shutdown := o.Shutdown
	if opts.Attached {
		var detach func()
		h.caller, detach = o.Attach(ctx, opts.Notes...)
		defer detach()
		shutdown = func(context.Context) {}
	}
	// lsp/ready is the first message, written before anything is read: a
	// client whose input ends at once still gets it before the answers.
	ready, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method"`
		Params  api.ReadyParams `json:"params"`
	}{"2.0", api.MethodReady, api.ReadyParams{Version: opts.Version, PID: os.Getpid(), Notes: opts.Notes}})
	if err == nil {
		err = transport.NewWriter(rwc).WriteFrame(ready)
	}
	if err != nil {
		shutdown(context.Background())
		return fmt.Errorf("rpc: %s: %w", api.MethodReady, err)
	}
	conn := transport.NewConn(rwc, transport.Options{Handler: h, Logger: opts.Logger, MaxConcurrentRequests: 64, AnswerAfterEOF: !opts.Attached})
	select {
	case <-conn.Done():
	case <-h.quit:
		// Not waited for: closing stdin does not interrupt a read
		// blocked on it; the connection is down at once all the same.
		go conn.Close()
		<-conn.Done()
	case <-ctx.Done():
		go conn.Close()
	}
	shutdown(context.Background())
	if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, transport.ErrClosed) && ctx.Err() == nil {
		// A broken frame: the stream cannot be read on.
		return fmt.Errorf("rpc: input: %w", err)
	}
	return nil
}

// A Route is one method of the table: its required params members and
// the typed call that answers it.
type Route struct {
	Required []string
	Call     func(ctx context.Context, method string, params jsontext.Value) (any, error)
}

// route makes a Route from a typed handler: params decoded into P, the
// result R encoded as the answer.
func route[P, R any](fn func(context.Context, P) (R, error), required ...string) Route {
	return Route{Required: required, Call: func(ctx context.Context, method string, raw jsontext.Value) (any, error) {
		p, err := api.Decode[P](method, raw, required...)
		if err != nil {
			return nil, err
		}
		return fn(ctx, p)
	}}
}

// none adapts a handler without params.
func none[R any](fn func() R) func(context.Context, struct{}) (R, error) {
	return func(context.Context, struct{}) (R, error) { return fn(), nil }
}

// noParams adapts a method without params that takes a context.
func noParams[R any](fn func(context.Context) (R, error)) func(context.Context, struct{}) (R, error) {
	return func(ctx context.Context, _ struct{}) (R, error) { return fn(ctx) }
}

// Routes is the contract's method table over o. lsp/shutdown is answered
// by Serve's handler, which also closes the connection.
func Routes(o *features.Service) map[string]Route {
	routes := map[string]Route{
		api.MethodCheckFile:          route(o.CheckFile, "filePath"),
		api.MethodCheck:              route(o.Check),
		api.MethodDiagnostics:        route(o.DiagnosticsOf),
		api.MethodGetDiagnosticEpoch: route(none(o.Epoch)),
		api.MethodDiagnosticsAfter:   route(o.DiagnosticsAfter, "afterEpoch"),
		api.MethodReport:             route(o.Report, "filePath", "mode"),
		api.MethodBurst:              route(o.Bursts.Burst, "event"),
		api.MethodStatus:             route(noParams(func(ctx context.Context) ([]api.ServerStatus, error) { return o.StatusOf(ctx), nil })),
		api.MethodDefinition:         route(o.Definition),
		api.MethodTypeDefinition:     route(o.TypeDefinition),
		api.MethodImplementation:     route(o.Implementation),
		api.MethodDeclaration:        route(o.Declaration),
		api.MethodReferences:         route(o.References),
		api.MethodCallHierarchy:      route(o.CallHierarchy, "direction"),
		api.MethodTypeHierarchy:      route(o.TypeHierarchy, "direction"),
		api.MethodDocumentHighlights: route(o.DocumentHighlights),
		api.MethodSignatureHelp:      route(o.SignatureHelp),
		api.MethodInlayHints:         route(o.InlayHints, "file"),
		api.MethodCompletion:         route(o.Completion),
		api.MethodSymbolContext:      route(o.SymbolContext),
		api.MethodRename:             route(o.Rename, "newName"),
		api.MethodCodeActions:        route(o.CodeActions),
		api.MethodApplyCodeAction:    route(o.ApplyCodeAction, "id"),
		api.MethodFormat:             route(o.Format, "file"),
		api.MethodFixAll:             route(o.FixAll, "file"),
		api.MethodApplyEdits:         route(o.ApplyEdits, "edits"),
		api.MethodReplaceSymbolBody:  route(o.ReplaceSymbolBody, "body"),
		api.MethodInsertBeforeSymbol: route(o.InsertBeforeSymbol, "text"),
		api.MethodInsertAfterSymbol:  route(o.InsertAfterSymbol, "text"),
		api.MethodSafeDelete:         route(o.SafeDelete),
		api.MethodHover:              route(o.Hover),
		api.MethodDocumentSymbols:    route(o.DocumentSymbols, "file"),
		api.MethodWorkspaceSymbols:   route(o.WorkspaceSymbols, "query"),
	}
	routes[api.MethodBatch] = route(func(ctx context.Context, p api.BatchParams) (api.BatchResult, error) {
		answers, err := batch.Run(ctx, p.Questions, func(ctx context.Context, q api.Question) (any, error) {
			if !slices.Contains(api.BatchMethods, q.Method) {
				return nil, transport.Errorf(transport.CodeInvalidParams, "method %q cannot be asked in a batch; these can: %s", q.Method, strings.Join(api.BatchMethods, ", "))
			}
			return routes[q.Method].Call(ctx, q.Method, q.Params)
		})
		return api.BatchResult{Answers: answers}, err
	}, "questions")
	return routes
}

type handler struct {
	o        *features.Service
	routes   map[string]Route
	quit     chan struct{} // closed when the client said exit, or shutdown was answered
	once     sync.Once
	attached bool            // one client of a shared daemon
	caller   context.Context // names the client (orchestrator.Attach) when attached
	log      *slog.Logger
}

// end asks Serve to close the connection.
func (h *handler) end() { h.once.Do(func() { close(h.quit) }) }

// Handle dispatches a request through the table.
func (h *handler) Handle(ctx context.Context, req *transport.Request) (any, error) {
	if req.Notification {
		if req.Method == "exit" || req.Method == "lsp/exit" {
			h.end()
		}
		return nil, nil
	}
	switch req.Method {
	case api.MethodShutdown, "shutdown":
		if !h.attached {
			h.o.Shutdown(ctx) // a shared daemon's servers stay for its other clients
		}
		req.AfterReply(h.end)
		return nil, nil
	}
	r, ok := h.routes[req.Method]
	if !ok {
		return nil, transport.ErrMethodNotFound
	}
	h.log.Debug("request", "method", req.Method)
	ctx, cancel := orchestrator.Join(ctx, h.caller)
	defer cancel()
	return r.Call(ctx, req.Method, req.Params)
}
