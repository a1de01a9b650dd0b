package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// Config describes one language server for one workspace root.
type Config struct {
	Name    string  // the server's id, for logs and errors (e.g. "gopls")
	Command Command // how to start it; Dir defaults to Root
	Root    string  // the workspace root, absolute

	// InitializationOptions are sent in initialize; nil sends none.
	InitializationOptions jsontext.Value
	// Settings is the settings object: it answers workspace/configuration
	// by section path and is sent in workspace/didChangeConfiguration.
	Settings jsontext.Value

	// ApplyEdit handles workspace/applyEdit; nil refuses every edit.
	ApplyEdit func(context.Context, *protocol.ApplyWorkspaceEditParams) (protocol.ApplyWorkspaceEditResult, error)
	// Logger receives the server's log messages and lifecycle events.
	Logger *slog.Logger
	// NoFileWatcher leaves workspace/didChangeWatchedFiles out of the
	// capabilities: for one-shot uses, where files do not change while the
	// server runs.
	NoFileWatcher bool
	// StopGrace is how long Shutdown waits for the server to exit before
	// SIGTERM, and then before SIGKILL (2 s).
	StopGrace time.Duration
}

// State is where a client is in its life.
type State int

// The states of a client: starting → active → stopped, or broken when the
// server failed (crashed, or never finished initializing).
const (
	StateStarting State = iota
	StateActive
	StateStopped
	StateBroken
)

func (s State) String() string {
	return [...]string{"starting", "active", "stopped", "broken"}[s]
}

// Status is a client's state, with the reason for stopped and broken.
type Status struct {
	State  State
	PID    int
	Reason string // why it stopped or broke: exit status, signal, last stderr lines
}

// A Client drives one language-server process for one workspace root.
type Client struct {
	cfg  Config
	log  *slog.Logger
	proc *Process
	conn *transport.Conn

	syncMu        sync.Mutex // serializes document changes
	mu            sync.Mutex
	state         State
	reason        string
	stopping      bool
	capabilities  protocol.ServerCapabilities
	registrations map[string]protocol.Registration // by id
	provider      pullProvider                     // read from capabilities and registrations when they change
	progress      map[string]bool                  // token -> begun and not ended
	changed       chan struct{}                    // closed and replaced on every change
	docs          map[protocol.DocumentURI]*document
	diags         map[protocol.DocumentURI]*fileDiagnostics
	epoch         uint64 // advances on every document change and diagnostics update

	wsRunning bool          // the workspace diagnostics loop is running
	wsToken   string        // the partial-result token of its open request
	wsKick    chan struct{} // asks it for another pull

	regMu   sync.Mutex // serializes (un)registrations, which may restart the watcher
	watchMu sync.Mutex
	watcher *fileWatcher // nil until the server registers watched files

	watchClosing sync.WaitGroup // watchers being closed after an unregistration

	life    context.Context // cancelled by Shutdown: background pulls end with it
	endLife context.CancelFunc
	pulls   sync.WaitGroup
}

// Start starts the server, initializes it (within ctx) and returns an active
// client. On failure the process is stopped and the error carries the
// server's last stderr lines.
func Start(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = 2 * time.Second
	}
	if cfg.Command.Dir == "" {
		cfg.Command.Dir = cfg.Root
	}
	c := &Client{
		cfg:           cfg,
		log:           cfg.Logger.With("server", cfg.Name),
		registrations: map[string]protocol.Registration{},
		progress:      map[string]bool{},
		changed:       make(chan struct{}),
		docs:          map[protocol.DocumentURI]*document{},
		diags:         map[protocol.DocumentURI]*fileDiagnostics{},
		wsKick:        make(chan struct{}, 1),
	}
	c.life, c.endLife = context.WithCancel(context.Background())
	proc, err := StartProcess(cfg.Command)
	if err != nil {
		return nil, fmt.Errorf("client: %s: %w", cfg.Name, err)
	}
	c.proc = proc
	c.conn = transport.NewConn(proc.Stdio(), transport.Options{Handler: transport.HandlerFunc(c.handle), Logger: c.log})
	go c.watch()
	if err := c.initialize(ctx); err != nil {
		es := c.stopProcess()
		return nil, fmt.Errorf("client: %s: initialize: %w (%s)", cfg.Name, err, es)
	}
	c.mu.Lock()
	c.startWorkspacePullsLocked()
	c.mu.Unlock()
	c.setState(StateActive, "")
	c.log.Info("server active", "pid", proc.PID())
	return c, nil
}

// watch marks the client broken when the server exits unasked.
func (c *Client) watch() {
	<-c.proc.Done()
	es := c.proc.Exit()
	c.mu.Lock()
	stopping := c.stopping
	c.mu.Unlock()
	c.conn.Close()
	if stopping {
		return
	}
	c.log.Error("server exited", "status", es.String())
	c.setState(StateBroken, es.String())
}

func (c *Client) initialize(ctx context.Context) error {
	root, err := protocol.FileURI(c.cfg.Root)
	if err != nil {
		return err
	}
	params := protocol.InitializeParams{
		ProcessID:             protocol.NewNullable(int32(os.Getpid())),
		ClientInfo:            &protocol.ClientInfo{Name: "lspkit"},
		Capabilities:          capabilities(c.cfg.ApplyEdit != nil, !c.cfg.NoFileWatcher),
		InitializationOptions: c.cfg.InitializationOptions,
		WorkspaceFolders:      protocol.Ptr(protocol.NewNullable([]protocol.WorkspaceFolder{c.folder(root)})),
	}
	//lint:ignore SA1019 older servers still read rootUri
	params.RootURI = protocol.NewNullable(root)
	var res protocol.InitializeResult
	if err := c.conn.Call(ctx, protocol.MethodInitialize, params, &res); err != nil {
		return err
	}
	c.mu.Lock()
	c.capabilities = res.Capabilities
	c.provider = readPullProvider(c.capabilities, c.registrations)
	c.mu.Unlock()
	if err := c.conn.Notify(ctx, protocol.MethodInitialized, protocol.InitializedParams{}); err != nil {
		return err
	}
	settings := c.cfg.Settings
	if settings == nil {
		settings = jsontext.Value("{}")
	}
	return c.conn.Notify(ctx, protocol.MethodWorkspaceDidChangeConfiguration, protocol.DidChangeConfigurationParams{Settings: settings})
}

func (c *Client) folder(root protocol.DocumentURI) protocol.WorkspaceFolder {
	return protocol.WorkspaceFolder{URI: protocol.URI(root), Name: filepath.Base(c.cfg.Root)}
}

// capabilities is what this client implements — and nothing it does not.
func capabilities(applyEdit, watchFiles bool) protocol.ClientCapabilities {
	caps := protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{
			ApplyEdit:              protocol.Ptr(applyEdit),
			Configuration:          protocol.Ptr(true),
			WorkspaceFolders:       protocol.Ptr(true),
			DidChangeConfiguration: &protocol.DidChangeConfigurationClientCapabilities{DynamicRegistration: protocol.Ptr(true)},
			DidChangeWatchedFiles: &protocol.DidChangeWatchedFilesClientCapabilities{
				DynamicRegistration:    protocol.Ptr(true),
				RelativePatternSupport: protocol.Ptr(true),
			},
			Symbol: &protocol.WorkspaceSymbolClientCapabilities{},
		},
		Window: &protocol.WindowClientCapabilities{
			WorkDoneProgress: protocol.Ptr(true),
			ShowMessage:      &protocol.ShowMessageRequestClientCapabilities{},
			ShowDocument:     &protocol.ShowDocumentClientCapabilities{Support: false},
		},
		TextDocument: &protocol.TextDocumentClientCapabilities{
			Synchronization: &protocol.TextDocumentSyncClientCapabilities{DidSave: protocol.Ptr(true)},
			PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{
				VersionSupport:         protocol.Ptr(true),
				RelatedInformation:     protocol.Ptr(true),
				CodeDescriptionSupport: protocol.Ptr(true),
				DataSupport:            protocol.Ptr(true),
			},
			Diagnostic:     &protocol.DiagnosticClientCapabilities{DynamicRegistration: protocol.Ptr(true)},
			Definition:     &protocol.DefinitionClientCapabilities{LinkSupport: protocol.Ptr(true)},
			TypeDefinition: &protocol.TypeDefinitionClientCapabilities{LinkSupport: protocol.Ptr(true)},
			Implementation: &protocol.ImplementationClientCapabilities{LinkSupport: protocol.Ptr(true)},
			References:     &protocol.ReferenceClientCapabilities{},
			Hover:          &protocol.HoverClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.MarkupKindMarkdown, protocol.MarkupKindPlainText}},
			DocumentSymbol: &protocol.DocumentSymbolClientCapabilities{HierarchicalDocumentSymbolSupport: protocol.Ptr(true)},
		},
		General: &protocol.GeneralClientCapabilities{
			PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF32, protocol.PositionEncodingKindUTF16},
		},
	}
	if !watchFiles {
		caps.Workspace.DidChangeWatchedFiles = nil
	}
	return caps
}

// Status returns the client's state, its server's pid and the reason it
// stopped or broke.
func (c *Client) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Status{State: c.state, PID: c.proc.PID(), Reason: c.reason}
}

// ServerCapabilities returns what the server announced in initialize.
func (c *Client) ServerCapabilities() protocol.ServerCapabilities {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.capabilities
}

// Registrations returns the server's current dynamic registrations of method.
func (c *Client) Registrations(method string) []protocol.Registration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []protocol.Registration
	for _, r := range c.registrations {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// Busy reports whether the server has work-done progress running (begun
// and not ended), such as indexing.
func (c *Client) Busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.busyLocked()
}

// Changed returns a channel closed at the next change of state,
// registrations or progress: wait on it, then look again.
func (c *Client) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// changedLocked wakes everyone waiting on Changed.
func (c *Client) changedLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *Client) setState(s State, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == StateStopped || c.state == StateBroken {
		return // final
	}
	c.state, c.reason = s, reason
	c.changedLocked()
}

// Shutdown ends the server politely: the shutdown request (without params),
// the exit notification, a wait for it to exit, then SIGTERM and SIGKILL to
// its process group. No process of the group survives it.
func (c *Client) Shutdown(ctx context.Context) error {
	c.mu.Lock()
	if c.stopping {
		c.mu.Unlock()
		<-c.proc.Done()
		return nil
	}
	c.stopping = true
	c.mu.Unlock()
	var err error
	select {
	case <-c.proc.Done():
	default:
		ctx, cancel := context.WithTimeout(ctx, c.cfg.StopGrace)
		defer cancel()
		if err = c.conn.Call(ctx, protocol.MethodShutdown, nil, nil); err == nil {
			err = c.conn.Notify(ctx, protocol.MethodExit, nil)
		}
		select {
		case <-c.proc.Done():
		case <-ctx.Done():
		}
	}
	es := c.stopProcess()
	c.setState(StateStopped, es.String())
	if err != nil && !errors.Is(err, transport.ErrClosed) {
		return fmt.Errorf("client: %s: shutdown: %w (%s)", c.cfg.Name, err, es)
	}
	return nil
}

// Kill ends the server at once: SIGKILL to its process group, without the
// shutdown handshake and without waiting. It is for callers about to exit
// (a one-shot check); others use Shutdown.
func (c *Client) Kill() {
	c.mu.Lock()
	c.stopping = true
	c.mu.Unlock()
	c.proc.Kill()
}

// stopProcess stops the process group and the connection.
func (c *Client) stopProcess() ExitStatus {
	c.mu.Lock()
	c.stopping = true
	c.mu.Unlock()
	c.endLife()
	c.watchMu.Lock()
	if c.watcher != nil {
		c.watcher.close()
		c.watcher = nil
	}
	c.watchMu.Unlock()
	c.watchClosing.Wait()
	es := c.proc.Stop(c.cfg.StopGrace)
	c.conn.Close()
	c.conn.Wait()
	c.pulls.Wait()
	return es
}

// handle answers the server's requests and notifications.
func (c *Client) handle(ctx context.Context, req *transport.Request) (any, error) {
	res, err := protocol.DispatchClient(ctx, serverRequests{c}, req.Method, req.Params)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// serverRequests implements protocol.Client for the server's traffic.
// Anything it does not implement is answered MethodNotFound.
type serverRequests struct{ c *Client }

var _ protocol.Client = serverRequests{}

func (s serverRequests) WorkspaceConfiguration(_ context.Context, p *protocol.ConfigurationParams) ([]jsontext.Value, error) {
	out := make([]jsontext.Value, len(p.Items))
	for i, item := range p.Items {
		section := ""
		if item.Section != nil {
			section = *item.Section
		}
		out[i] = settingsSection(s.c.cfg.Settings, section)
	}
	return out, nil
}

func (s serverRequests) WorkspaceWorkspaceFolders(context.Context) (protocol.Nullable[[]protocol.WorkspaceFolder], error) {
	root, err := protocol.FileURI(s.c.cfg.Root)
	if err != nil {
		return protocol.Null[[]protocol.WorkspaceFolder](), err
	}
	return protocol.NewNullable([]protocol.WorkspaceFolder{s.c.folder(root)}), nil
}

func (s serverRequests) ClientRegisterCapability(ctx context.Context, p *protocol.RegistrationParams) error {
	pullNow := false
	s.c.register(func(regs map[string]protocol.Registration) {
		for _, r := range p.Registrations {
			regs[r.ID] = r
			pullNow = pullNow || r.Method == protocol.MethodTextDocumentDiagnostic
		}
	})
	if pullNow {
		// Pull diagnostics just became available: documents opened before
		// now have been waiting for a push that will not come.
		return s.WorkspaceDiagnosticRefresh(ctx)
	}
	return nil
}

func (s serverRequests) ClientUnregisterCapability(_ context.Context, p *protocol.UnregistrationParams) error {
	s.c.register(func(regs map[string]protocol.Registration) {
		for _, u := range p.Unregisterations {
			delete(regs, u.ID)
		}
	})
	return nil
}

// register applies a change to the registrations: when the watched-file
// registrations change, the file watcher is updated (its directories
// watched) before the change becomes visible.
func (c *Client) register(change func(map[string]protocol.Registration)) {
	c.regMu.Lock()
	defer c.regMu.Unlock()
	c.mu.Lock()
	regs := maps.Clone(c.registrations)
	c.mu.Unlock()
	change(regs)
	before := c.Registrations(protocol.MethodWorkspaceDidChangeWatchedFiles)
	var after []protocol.Registration
	for _, r := range regs {
		if r.Method == protocol.MethodWorkspaceDidChangeWatchedFiles {
			after = append(after, r)
		}
	}
	if len(before) > 0 || len(after) > 0 {
		c.watchFiles(after)
	}
	c.mu.Lock()
	c.registrations = regs
	c.provider = readPullProvider(c.capabilities, regs)
	c.startWorkspacePullsLocked()
	c.changedLocked()
	c.mu.Unlock()
}

func (s serverRequests) WindowWorkDoneProgressCreate(_ context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	s.c.progress[tokenKey(p.Token)] = false
	return nil
}

func (s serverRequests) Progress(_ context.Context, p *protocol.ProgressParams) error {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	key := tokenKey(p.Token)
	if s.c.workspacePartialLocked(key, p.Value) {
		return nil
	}
	var v struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(p.Value, &v) != nil {
		return nil // not work-done progress (partial results)
	}
	switch v.Kind {
	case "begin", "report":
		s.c.progress[key] = true
	case "end":
		delete(s.c.progress, key)
	default:
		return nil
	}
	s.c.changedLocked()
	return nil
}

func tokenKey(t protocol.ProgressToken) string {
	if n, ok := t.AsInteger(); ok {
		return fmt.Sprint(n)
	}
	s, _ := t.AsString()
	return "s:" + s
}

func (s serverRequests) WindowShowMessageRequest(_ context.Context, p *protocol.ShowMessageRequestParams) (protocol.Nullable[protocol.MessageActionItem], error) {
	s.c.log.Info("server asked", "message", p.Message)
	return protocol.Null[protocol.MessageActionItem](), nil // no one to choose
}

func (s serverRequests) WindowShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	s.c.log.Log(context.Background(), logLevel(p.Type), "server message", "message", p.Message)
	return nil
}

func (s serverRequests) WindowLogMessage(_ context.Context, p *protocol.LogMessageParams) error {
	s.c.log.Log(context.Background(), logLevel(p.Type), "server log", "message", p.Message)
	return nil
}

func (s serverRequests) WindowShowDocument(context.Context, *protocol.ShowDocumentParams) (protocol.ShowDocumentResult, error) {
	return protocol.ShowDocumentResult{Success: false}, nil
}

func (s serverRequests) WorkspaceApplyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (protocol.ApplyWorkspaceEditResult, error) {
	if s.c.cfg.ApplyEdit == nil {
		return protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: protocol.Ptr("lspkit does not apply edits from servers")}, nil
	}
	return s.c.cfg.ApplyEdit(ctx, p)
}

// The other refresh requests are answered at once; this client keeps no
// state they would invalidate.
func (s serverRequests) WorkspaceDiagnosticRefresh(context.Context) error {
	s.c.mu.Lock()
	open := make(map[protocol.DocumentURI]int32, len(s.c.docs))
	for uri, d := range s.c.docs {
		if d.sent > 0 {
			open[uri] = d.sent
		}
	}
	s.c.mu.Unlock()
	for uri, v := range open {
		s.c.pull(uri, v)
	}
	s.c.mu.Lock()
	s.c.kickWorkspaceLocked()
	s.c.mu.Unlock()
	return nil
}
func (s serverRequests) WorkspaceSemanticTokensRefresh(context.Context) error { return nil }
func (s serverRequests) WorkspaceCodeLensRefresh(context.Context) error       { return nil }
func (s serverRequests) WorkspaceInlayHintRefresh(context.Context) error      { return nil }
func (s serverRequests) WorkspaceInlineValueRefresh(context.Context) error    { return nil }
func (s serverRequests) WorkspaceFoldingRangeRefresh(context.Context) error   { return nil }
func (s serverRequests) WorkspaceTextDocumentContentRefresh(context.Context, *protocol.TextDocumentContentRefreshParams) error {
	return nil
}
func (s serverRequests) TextDocumentPublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	s.c.publish(p)
	return nil
}
func (s serverRequests) TelemetryEvent(context.Context, *jsontext.Value) error { return nil }
func (s serverRequests) LogTrace(context.Context, *protocol.LogTraceParams) error {
	return nil
}
func (s serverRequests) CancelRequest(context.Context, *protocol.CancelParams) error { return nil }

func logLevel(t protocol.MessageType) slog.Level {
	switch t {
	case protocol.MessageTypeError:
		return slog.LevelError
	case protocol.MessageTypeWarning:
		return slog.LevelWarn
	case protocol.MessageTypeInfo:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}

// settingsSection returns the value at a dotted section path of the settings
// object ("" is the whole object), or {} when there is none: servers such as
// the vscode css/html ones throw on null where they expect an object.
func settingsSection(settings jsontext.Value, section string) jsontext.Value {
	empty := jsontext.Value("{}")
	if len(settings) == 0 {
		return empty
	}
	cur := settings
	if section == "" {
		return cur
	}
	for _, key := range strings.Split(section, ".") {
		var obj map[string]jsontext.Value
		if json.Unmarshal(cur, &obj) != nil {
			return empty
		}
		next, ok := obj[key]
		if !ok || string(next) == "null" {
			return empty
		}
		cur = next
	}
	return cur
}
