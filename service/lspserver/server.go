// Package lspserver is lspkit as a language server (lspkit lsp): the server
// side of the protocol, on the generated dispatch, in front of the real
// servers the orchestrator runs. The client's open documents are its text;
// other files follow the disk through the orchestrator's read-your-writes
// barrier. Diagnostics of every server of a file are merged and published
// with the client's document version; requests go to the servers of their
// file. Positions pass through unchanged: the client and every server speak
// UTF-16 (the orchestrator offers servers that encoding alone).
package lspserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/transport"
)

// Backend is what a Server fronts: *orchestrator.Orchestrator.
type Backend interface {
	Root() string
	Hold(ctx context.Context, file string, text *string, method string, all bool) ([]orchestrator.Held, error)
	Recheck(ctx context.Context, file string, text *string) ([]orchestrator.Held, error)
	StartServers(ctx context.Context, ids []string) []orchestrator.Started
	HoldServer(ctx context.Context, id string) (orchestrator.Held, error)
	OnFilesChanged(fn func(paths []string)) (stop func())
	OnServerEvent(fn func(server string, e client.Event)) (stop func())
}

// Options configures a Server.
type Options struct {
	// Servers are the ids of the servers fronted, started at initialize;
	// none: every enabled server with a root marker at the root.
	Servers []string
	Logger  *slog.Logger
}

// A Server is one client's language server.
type Server struct {
	protocol.UnimplementedServer
	b    Backend
	opts Options
	log  *slog.Logger
	conn *transport.Conn

	mu       sync.Mutex
	state    state
	docs     map[protocol.DocumentURI]*document
	commands map[string]string // each command the servers offer: the server
	// symbolServers are the fronted servers offering workspace symbols.
	symbolServers []string
	clientCaps    protocol.ClientCapabilities
	legends       *legends // the servers' semantic token legends merged; nil: none offers them
	exited        chan struct{}
	exitCode      int

	diags  *publisher
	events *relay
}

type state int

const (
	stateNew state = iota
	stateInitializing
	stateRunning
	stateShutDown
)

// document is one document the client has open: its text is the client's.
type document struct {
	languageID string
	version    int32
	text       string
}

// New returns a Server over b.
func New(b Backend, opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{b: b, opts: opts, log: log, docs: map[protocol.DocumentURI]*document{}, exited: make(chan struct{})}
	s.diags = newPublisher(s)
	s.events = newRelay(s)
	return s
}

// Serve answers the client on rwc until it exits or the connection ends;
// it returns the process's exit code: 0 after shutdown and exit, 1 when
// the client left without them (the protocol's rule).
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	ready := make(chan struct{})
	s.conn = transport.NewConn(rwc, transport.Options{
		Params: protocol.DecodeServerParams,
		Logger: s.log,
		Handler: transport.HandlerFunc(func(ctx context.Context, req *transport.Request) (any, error) {
			<-ready
			if err := s.admit(req.Method); err != nil {
				return nil, err
			}
			if req.Method == protocol.InitializeRequest.Method() {
				req.AfterReply(s.events.open) // the servers' events may follow it
			}
			if req.Decoded == nil {
				return protocol.DispatchServer(ctx, s, req.Method, req.Params)
			}
			return protocol.CallServer(ctx, s, req.Method, req.Decoded)
		}),
	})
	close(ready)
	// Another process's writes change what the client's documents mean
	// (a file they import): their findings are checked again.
	defer s.b.OnFilesChanged(func([]string) { s.diags.scheduleOpen() })()
	// What the servers tell a user, relayed in order.
	relayCtx, stopRelay := context.WithCancel(ctx)
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		s.events.run(relayCtx)
	}()
	defer func() {
		stopRelay()
		<-relayDone
	}()
	defer s.b.OnServerEvent(s.events.add)()
	select {
	case <-s.exited:
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	s.diags.stop()
	// Close does not return while a read of the stream is blocked, and a
	// read of a stdin that cannot be polled stays blocked until the client
	// closes it: the server exits without waiting for that.
	go s.conn.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.exited:
		return s.exitCode
	default:
		return 1
	}
}

// admit says whether method may be handled in the server's state: a
// method no client sends a server (of the meta model) is -32601 in every
// state, so a client trying a draft method falls back at once; before
// initialize only initialize and exit (-32002 for requests), after
// shutdown only exit (-32600).
func (s *Server) admit(method string) error {
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	switch m, known := protocol.LookupMethod(method); {
	case !known || m.Direction == protocol.ServerToClient:
		return &transport.Error{Code: transport.CodeMethodNotFound, Message: "method not found: " + method}
	case method == protocol.ExitNotification.Method():
		return nil
	case st == stateNew && method != protocol.InitializeRequest.Method():
		return &transport.Error{Code: int64(protocol.ErrorCodesServerNotInitialized), Message: "the server is not initialized: initialize first"}
	case st == stateShutDown:
		return &transport.Error{Code: transport.CodeInvalidRequest, Message: "the server is shut down: only exit is accepted"}
	}
	return nil
}

// file is the path of uri, for the backend.
func file(uri protocol.DocumentURI) (string, error) {
	path, err := uri.Path()
	if err != nil {
		return "", fmt.Errorf("%s: %w", uri, err)
	}
	return filepath.Clean(path), nil
}

// versions are the client's open documents' versions when a request was
// sent to the servers: the versions of the texts they answered for.
type versions map[protocol.DocumentURI]int32

// snapshot returns the client's text of uri (nil when the client does not
// have it open: the disk's is used) and the versions of its open documents.
func (s *Server) snapshot(uri protocol.DocumentURI) (*string, versions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := make(versions, len(s.docs))
	for u, d := range s.docs {
		vs[u] = d.version
	}
	if d, ok := s.docs[uri]; ok {
		t := d.text
		return &t, vs
	}
	return nil, vs
}

// hold holds the servers of uri offering method, with the client's text.
func (s *Server) hold(ctx context.Context, uri protocol.DocumentURI, method string, all bool) ([]orchestrator.Held, versions, error) {
	path, err := file(uri)
	if err != nil {
		return nil, nil, &transport.Error{Code: transport.CodeInvalidParams, Message: err.Error()}
	}
	text, vs := s.snapshot(uri)
	held, err := s.b.Hold(ctx, path, text, method, all)
	return held, vs, err
}

// first asks the first server of uri offering t's method, and answers
// empty (with a log message saying why) when none can.
func first[P, R any](ctx context.Context, s *Server, uri protocol.DocumentURI, t protocol.RequestType[P, R], params P) (R, error) {
	r, _, _, err := firstFrom(ctx, s, uri, t, params)
	return r, err
}

// unanswered turns a backend's refusal into the client's answer: a file
// no server handles (or none can answer for) gets an empty result and a
// window/logMessage saying why — not an error for each keystroke; other
// failures are errors with the reason.
func (s *Server) unanswered(ctx context.Context, uri protocol.DocumentURI, method string, err error) error {
	if ctx.Err() != nil {
		return cancelled(ctx)
	}
	if te, ok := errors.AsType[*transport.Error](err); ok && (te.Code == api.CodeNoServer || te.Code == api.CodeOutsideRoot) {
		s.logMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("lspkit: %s for %s: %s", method, uri, te.Message))
		return nil
	}
	return passError(err)
}

// cancelled is the answer to a request the client cancelled (or that
// outlived the connection).
func cancelled(ctx context.Context) error {
	return &transport.Error{Code: int64(protocol.LSPErrorCodesRequestCancelled), Message: "cancelled: " + ctx.Err().Error()}
}

// forwardError is the client's answer when a server's request failed: the
// server's own error answer as it is; a server that stopped while it
// answered (crashed, killed) said so — the next request starts it again.
func forwardError(server, method string, err error) error {
	if te, ok := errors.AsType[*transport.Error](err); ok {
		return te
	}
	if errors.Is(err, transport.ErrClosed) || errors.Is(err, io.EOF) {
		return &transport.Error{Code: transport.CodeInternalError, Message: fmt.Sprintf("lspkit: %s stopped while answering %s (%v); it is started again for the next request", server, method, err)}
	}
	return &transport.Error{Code: transport.CodeInternalError, Message: fmt.Sprintf("lspkit: %s: %s: %v", server, method, err)}
}

// passError keeps a server's own error answer (its code and message).
func passError(err error) error {
	if te, ok := errors.AsType[*transport.Error](err); ok {
		return te
	}
	return &transport.Error{Code: transport.CodeInternalError, Message: err.Error()}
}

func (s *Server) logMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	if err := protocol.LogMessageNotification.Notify(ctx, s.conn, protocol.LogMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Debug("lsp: logMessage", "err", err)
	}
}

// Initialize starts the fronted servers and announces what they offer.
func (s *Server) Initialize(ctx context.Context, p *protocol.InitializeParams) (protocol.InitializeResult, error) {
	s.mu.Lock()
	if s.state != stateNew {
		s.mu.Unlock()
		return protocol.InitializeResult{}, &transport.Error{Code: transport.CodeInvalidRequest, Message: "initialize was already sent"}
	}
	s.state = stateInitializing
	s.clientCaps = p.Capabilities
	s.mu.Unlock()
	started := s.b.StartServers(ctx, s.opts.Servers)
	var caps []protocol.ServerCapabilities
	var names, symbolServers []string
	commands := map[string]string{}
	for _, st := range started {
		if st.Capabilities == nil {
			s.log.Warn("lsp: a server is not running", "server", st.Server, "reason", st.Reason)
			continue
		}
		caps = append(caps, *st.Capabilities)
		names = append(names, st.Server)
		if st.Capabilities.Supports(protocol.WorkspaceSymbolRequest.Method()) {
			symbolServers = append(symbolServers, st.Server)
		}
		if ec := st.Capabilities.ExecuteCommandProvider; ec != nil {
			for _, c := range ec.Commands {
				if _, taken := commands[c]; !taken {
					commands[c] = st.Server
				}
			}
		}
	}
	res := protocol.InitializeResult{
		Capabilities: union(caps),
		ServerInfo:   &protocol.ServerInfo{Name: "lspkit", Version: protocol.Ptr(version(names))},
	}
	legends := newLegends(names, caps)
	if legends != nil {
		res.Capabilities.SemanticTokensProvider = legends.options()
	}
	if len(commands) > 0 {
		res.Capabilities.ExecuteCommandProvider = &protocol.ExecuteCommandOptions{Commands: slices.Sorted(maps.Keys(commands))}
	}
	s.mu.Lock()
	s.state = stateRunning
	s.commands = commands
	s.symbolServers = symbolServers
	s.legends = legends
	s.mu.Unlock()
	if pulls(p.Capabilities) {
		s.diags.mu.Lock()
		s.diags.pull = true
		s.diags.mu.Unlock()
		res.Capabilities.DiagnosticProvider = protocol.NewServerCapabilitiesDiagnosticProviderDiagnosticOptions(protocol.DiagnosticOptions{
			Identifier: protocol.Ptr("lspkit"), InterFileDependencies: true,
		})
	}
	return res, nil
}

func version(servers []string) string {
	if len(servers) == 0 {
		return "fronting no server"
	}
	return "fronting " + fmt.Sprint(servers)
}

// Initialized is noted.
func (s *Server) Initialized(context.Context, *protocol.InitializedParams) error { return nil }

// Shutdown stops answering; the servers stop with the process.
func (s *Server) Shutdown(context.Context) error {
	s.mu.Lock()
	s.state = stateShutDown
	s.mu.Unlock()
	return nil
}

// Exit ends Serve: 0 after shutdown, 1 without.
func (s *Server) Exit(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.exited:
		return nil
	default:
	}
	s.exitCode = 1
	if s.state == stateShutDown {
		s.exitCode = 0
	}
	close(s.exited)
	return nil
}

// SetTrace is accepted (lspkit logs to its own stderr).
func (s *Server) SetTrace(context.Context, *protocol.SetTraceParams) error { return nil }

// CancelRequest is handled by the connection; nothing is left here.
func (s *Server) CancelRequest(context.Context, *protocol.CancelParams) error { return nil }

// WorkspaceDidChangeConfiguration is accepted: the servers' settings are
// lspkit's configuration's.
func (s *Server) WorkspaceDidChangeConfiguration(context.Context, *protocol.DidChangeConfigurationParams) error {
	return nil
}

// WorkspaceDidChangeWatchedFiles is accepted: lspkit watches the
// workspace itself (the barrier).
func (s *Server) WorkspaceDidChangeWatchedFiles(context.Context, *protocol.DidChangeWatchedFilesParams) error {
	return nil
}
