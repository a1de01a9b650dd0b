package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client/filewatch"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// Config describes one language server for one workspace root.
type Config struct {
	Name    string  // the server's id, for logs and errors (e.g. "gopls")
	Command Command // how to start it; Dir defaults to Root
	Root    string  // the workspace root, absolute
	// Folders are further workspace folders (absolute) the server serves
	// from its start, beside Root.
	Folders []string

	// InitializationOptions are sent in initialize; nil sends none.
	InitializationOptions jsontext.Value
	// Settings is the settings object: it answers workspace/configuration
	// by section path and is sent in workspace/didChangeConfiguration.
	Settings jsontext.Value

	// Launch starts the server; nil starts a process (LaunchProcess).
	Launch Launch
	// ApplyEdit handles workspace/applyEdit outside the commands
	// ExecuteCommand runs (whose edits go to its caller); nil refuses
	// such edits.
	ApplyEdit func(context.Context, *protocol.ApplyWorkspaceEditParams) (protocol.ApplyWorkspaceEditResult, error)
	// Logger receives the server's log messages and lifecycle events.
	Logger *slog.Logger
	// OnEvent, when set, hears of what the server tells a user: its
	// work-done progress and the messages it shows (window/showMessage,
	// and window/showMessageRequest, which the client answers with no
	// choice). It runs on the connection's reading path, in order, and
	// must not block.
	OnEvent func(Event)
	// NoFileWatcher leaves workspace/didChangeWatchedFiles out of the
	// capabilities: for one-shot uses, where files do not change while the
	// server runs.
	NoFileWatcher bool
	// Watcher, when set, is the workspace's shared file watcher: the
	// client adds the server's registered patterns to it instead of
	// running a watcher of its own, and its owner passes the changes to
	// FilesChanged.
	Watcher *filewatch.Watcher
	// WatchBudget is how many directories the file watcher watches at
	// most (default filewatch.DefaultBudget); beyond it, or when the system's
	// watch limit is hit, the rest is polled and status says watching is
	// degraded.
	WatchBudget int
	// Settle says how the server says it is done with a text (Diagnose).
	Settle SettlePolicy
	// StopGrace is how long Shutdown waits for the server to exit before
	// terminating it, and then before killing it (2 s).
	StopGrace time.Duration
	// RequestTimeout bounds each request to the server after initialize
	// (transport.Conn.SetCallTimeout): one unanswered within it is
	// cancelled and fails with a *transport.CallTimeoutError; 0: no bound.
	RequestTimeout time.Duration
	// PositionEncodings are the position encodings offered to the server,
	// preferred first; nil offers UTF-8, UTF-32 and UTF-16 (every
	// position lspkit itself reports is converted). A front end that
	// passes positions through unconverted (lspkit lsp) offers its
	// client's one.
	PositionEncodings []protocol.PositionEncodingKind
}

// A Client drives one language server for one workspace root. Its state
// lives in parts with one job and one lock each: the lifecycle, the open
// documents, the diagnostics store, the registrations (with the file
// watcher), work-done progress and the pulls.
type Client struct {
	cfg  Config
	log  *slog.Logger
	proc Proc
	conn *transport.Conn
	caps atomic.Pointer[protocol.ServerCapabilities] // set by initialize

	life     lifecycle
	changes  *changes
	inputs   atomic.Uint64 // advances on everything that may change what the server finds (see inputChanged)
	docs     *docStore
	docLocks *docLocks
	diags    *diagStore
	regs     *registry
	progress *progressSet
	shown    atomic.Pointer[string] // the last error the server showed the user (window/showMessage)
	pulls    *puller
	folders  folders    // the workspace folders: Root, Config.Folders, those added
	sink     editSink   // takes applyEdit while a command of ours runs
	cmdMu    sync.Mutex // one command of ours at a time

	syncMu sync.Mutex // serializes document changes on the wire
	regMu  sync.Mutex // serializes (un)registrations, which may restart the watcher

	watchMu      sync.Mutex
	watcher      *filewatch.Watcher  // nil until the server registers watched files (and without a shared Watcher)
	patterns     []filewatch.Pattern // the server's registered patterns, with a shared Watcher
	watchClosing sync.WaitGroup      // watchers being closed after an unregistration
}

// Start starts the server, initializes it (within ctx) and returns an active
// client. On failure the server is stopped and the error carries its last
// stderr lines.
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
	if cfg.Launch == nil {
		cfg.Launch = LaunchProcess
	}
	c := newClient(cfg)
	proc, err := cfg.Launch(ctx, cfg.Command)
	if err != nil {
		return nil, &StartError{Server: cfg.Name, Path: cfg.Command.Path, Err: err}
	}
	c.proc = proc
	c.conn = transport.NewConn(proc.Stdio(), transport.Options{
		Handler:    transport.HandlerFunc(c.handle),
		Params:     protocol.DecodeClientParams,
		Logger:     c.log,
		Unreadable: c.unreadable,
		// A server may send $/progress on a token right behind the
		// request creating it (a replayed one does): the token is
		// recorded before that progress is read, or its end would come
		// first and the token would stay "announced" for good.
		InOrder: func(method string) bool { return method == protocol.MethodWindowWorkDoneProgressCreate },
	})
	go c.watch()
	if err := c.initialize(ctx); err != nil {
		// A server that ended its stream, closed its input or exited
		// before initialize's deadline (not one that answered initialize
		// with an error, which is alive, nor one whose bytes made no sense,
		// which is hung up on) may be exiting by itself: it is
		// given a moment to be reaped, so that its own exit, not our stop,
		// is what is told.
		exited := false
		var refused *transport.Error
		var garbled *transport.FrameError
		var unreadable *transport.ScanError
		if ctx.Err() == nil && !errors.As(err, &refused) && !errors.As(err, &garbled) && !errors.As(err, &unreadable) {
			t := time.NewTimer(startExitWait)
			select {
			case <-proc.Done():
				exited = true
			case <-t.C:
			}
			t.Stop()
		}
		es := c.stopProcess()
		return nil, &StartError{Server: cfg.Name, Path: cfg.Command.Path, Err: fmt.Errorf("initialize: %w", err), Exit: &es, Exited: exited}
	}
	c.conn.SetCallTimeout(cfg.RequestTimeout) // initialize had its own time
	c.pulls.startWorkspace()
	c.setState(StateActive, "")
	c.log.Info("server active", "pid", proc.PID())
	return c, nil
}

// startExitWait is how long Start waits for a server that failed
// initialize without its deadline running out to exit by itself.
const startExitWait = 2 * time.Second

// StartError is Start's error: the server did not become active.
type StartError struct {
	Server string
	// Path is the server's command (Command.Path).
	Path string
	Err  error // what failed: the launch, or initialize
	// Exit is how the process ended, when it was started.
	Exit *ExitStatus
	// Exited is set when the process ended by itself before it answered
	// initialize: a server that cannot start, as against one that was
	// stopped for taking too long.
	Exited bool
}

// Error is the whole story, stderr included, for the log.
func (e *StartError) Error() string {
	if e.Exit == nil {
		return fmt.Sprintf("client: %s: %v", e.Server, e.Err)
	}
	return fmt.Sprintf("client: %s: %v (%s)", e.Server, e.Err, e.Exit)
}

func (e *StartError) Unwrap() error { return e.Err }

// Summary is the failure in one line for a person: the exit and the line
// of stderr that says why when the process ended by itself, else the
// error.
func (e *StartError) Summary() string {
	if e.Exited && e.Exit != nil && (e.Exit.Code != 0 || e.Exit.Signal != 0 || TellingLine(e.Exit.Lines()) != "") {
		return e.Exit.Summary()
	}
	return e.Err.Error()
}

// newClient returns a client with its parts and no server yet.
func newClient(cfg Config) *Client {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		cfg:      cfg,
		log:      cfg.Logger.With("server", cfg.Name),
		changes:  newChanges(),
		docs:     newDocStore(),
		docLocks: newDocLocks(),
		diags:    newDiagStore(),
		regs:     newRegistry(),
		progress: newProgressSet(),
	}
	c.caps.Store(&protocol.ServerCapabilities{})
	c.pulls = newPuller(c)
	c.folders.paths = append([]string{cfg.Root}, cfg.Folders...)
	return c
}

// watch marks the client broken when the server exits unasked.
func (c *Client) watch() {
	<-c.proc.Done()
	es := c.proc.Exit()
	c.conn.Close()
	if c.life.isStopping() {
		return
	}
	c.log.Error("server exited", "status", es.Summary())
	c.log.Debug("server exited", "status", es.String())
	c.setState(StateBroken, es.Summary())
}

func (c *Client) initialize(ctx context.Context) error {
	root, err := protocol.FileURI(c.cfg.Root)
	if err != nil {
		return err
	}
	folders, err := workspaceFolders(c.folders.list())
	if err != nil {
		return err
	}
	params := protocol.InitializeParams{
		ProcessID:             protocol.NewNullable(int32(os.Getpid())),
		ClientInfo:            &protocol.ClientInfo{Name: "lspkit"},
		Capabilities:          capabilities(!c.cfg.NoFileWatcher, c.cfg.PositionEncodings),
		InitializationOptions: c.cfg.InitializationOptions,
		WorkspaceFolders:      protocol.Ptr(protocol.NewNullable(folders)),
	}
	//lint:ignore SA1019 older servers still read rootUri
	params.RootURI = protocol.NewNullable(root)
	res, err := protocol.InitializeRequest.Call(ctx, c.conn, params)
	if err != nil {
		return err
	}
	c.caps.Store(&res.Capabilities)
	c.regs.setCapabilities(&res.Capabilities)
	c.inputChanged()
	if err := protocol.InitializedNotification.Notify(ctx, c.conn, protocol.InitializedParams{}); err != nil {
		return err
	}
	settings := c.cfg.Settings
	if settings == nil {
		settings = jsontext.Value("{}")
	}
	return protocol.DidChangeConfigurationNotification.Notify(ctx, c.conn, protocol.DidChangeConfigurationParams{Settings: settings})
}

// Capabilities returns the client capabilities lspkit sends in initialize
// (with file watching): what conform offers a server it scores.
func Capabilities() protocol.ClientCapabilities { return capabilities(true, nil) }

// capabilities is what this client implements — and nothing it does not.
func capabilities(watchFiles bool, encodings []protocol.PositionEncodingKind) protocol.ClientCapabilities {
	if encodings == nil {
		encodings = []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF32, protocol.PositionEncodingKindUTF16}
	}
	caps := protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{
			ApplyEdit:              protocol.Ptr(true), // taken from the commands lspkit runs (ExecuteCommand), refused otherwise unless Config.ApplyEdit
			Configuration:          protocol.Ptr(true),
			WorkspaceFolders:       protocol.Ptr(true),
			DidChangeConfiguration: &protocol.DidChangeConfigurationClientCapabilities{DynamicRegistration: protocol.Ptr(true)},
			DidChangeWatchedFiles: &protocol.DidChangeWatchedFilesClientCapabilities{
				DynamicRegistration:    protocol.Ptr(true),
				RelativePatternSupport: protocol.Ptr(true),
			},
			Symbol:         &protocol.WorkspaceSymbolClientCapabilities{},
			ExecuteCommand: &protocol.ExecuteCommandClientCapabilities{},
			WorkspaceEdit:  &protocol.WorkspaceEditClientCapabilities{DocumentChanges: protocol.Ptr(true)},
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
			CallHierarchy:  &protocol.CallHierarchyClientCapabilities{},
			Rename:         &protocol.RenameClientCapabilities{},
			CodeAction: &protocol.CodeActionClientCapabilities{
				CodeActionLiteralSupport: &protocol.ClientCodeActionLiteralOptions{CodeActionKind: protocol.ClientCodeActionKindOptions{ValueSet: []protocol.CodeActionKind{
					protocol.CodeActionKindEmpty, protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactor, protocol.CodeActionKindRefactorExtract,
					protocol.CodeActionKindRefactorInline, protocol.CodeActionKindRefactorRewrite, protocol.CodeActionKindSource,
					protocol.CodeActionKindSourceOrganizeImports, protocol.CodeActionKindSourceFixAll,
				}}},
				IsPreferredSupport: protocol.Ptr(true),
				DisabledSupport:    protocol.Ptr(true),
				DataSupport:        protocol.Ptr(true),
				ResolveSupport:     &protocol.ClientCodeActionResolveOptions{Properties: []string{"edit"}},
			},
			Declaration:       &protocol.DeclarationClientCapabilities{LinkSupport: protocol.Ptr(true)},
			DocumentHighlight: &protocol.DocumentHighlightClientCapabilities{},
			SignatureHelp: &protocol.SignatureHelpClientCapabilities{SignatureInformation: &protocol.ClientSignatureInformationOptions{
				DocumentationFormat:    []protocol.MarkupKind{protocol.MarkupKindMarkdown, protocol.MarkupKindPlainText},
				ParameterInformation:   &protocol.ClientSignatureParameterInformationOptions{LabelOffsetSupport: protocol.Ptr(true)},
				ActiveParameterSupport: protocol.Ptr(true),
			}},
			InlayHint:     &protocol.InlayHintClientCapabilities{},
			TypeHierarchy: &protocol.TypeHierarchyClientCapabilities{},
			// No snippets: an agent reads the text it would insert.
			Completion: &protocol.CompletionClientCapabilities{CompletionItem: &protocol.ClientCompletionItemOptions{
				DocumentationFormat: []protocol.MarkupKind{protocol.MarkupKindMarkdown, protocol.MarkupKindPlainText},
				DeprecatedSupport:   protocol.Ptr(true),
				LabelDetailsSupport: protocol.Ptr(true),
				ResolveSupport:      &protocol.ClientCompletionItemResolveOptions{Properties: []string{"documentation", "detail"}},
			}},
			// Semantic tokens: for lspkit lsp's clients (editors highlight
			// with them), whole documents and ranges, the standard types.
			SemanticTokens: &protocol.SemanticTokensClientCapabilities{
				Requests: protocol.ClientSemanticTokensRequestOptions{
					Range: protocol.NewBooleanOrEmptyObjectBoolean(true),
					Full:  protocol.NewClientSemanticTokensRequestOptionsFullBoolean(true),
				},
				TokenTypes:     semanticTokenTypes,
				TokenModifiers: semanticTokenModifiers,
				Formats:        []protocol.TokenFormat{protocol.TokenFormatRelative},
			},
			Formatting:      &protocol.DocumentFormattingClientCapabilities{},
			RangeFormatting: &protocol.DocumentRangeFormattingClientCapabilities{},
		},
		General: &protocol.GeneralClientCapabilities{
			PositionEncodings: encodings,
		},
	}
	if !watchFiles {
		caps.Workspace.DidChangeWatchedFiles = nil
	}
	return caps
}

// The semantic token types and modifiers the protocol defines, offered to
// servers.
var (
	semanticTokenTypes = []string{"namespace", "type", "class", "enum", "interface", "struct", "typeParameter", "parameter", "variable", "property",
		"enumMember", "event", "function", "method", "macro", "keyword", "modifier", "comment", "string", "number", "regexp", "operator", "decorator", "label"}
	semanticTokenModifiers = []string{"declaration", "definition", "readonly", "static", "deprecated", "abstract", "async", "modification", "documentation", "defaultLibrary"}
)

// Status returns the client's state, its server's pid and the reason it
// stopped or broke.
func (c *Client) Status() Status {
	state, reason := c.life.get()
	return Status{State: state, PID: c.proc.PID(), Reason: reason}
}

// ResidentMemory returns the resident memory of the server's process and
// its helpers (the processes of its group; its Job Object on Windows),
// and whether it could be measured (not for an in-process server).
func (c *Client) ResidentMemory() (uint64, bool) {
	if p, ok := c.proc.(interface{ ResidentBytes() (uint64, bool) }); ok {
		return p.ResidentBytes()
	}
	return 0, false
}

// SharedWith returns how many other clients the server's process serves
// (a process shared among worktrees, client/procshare); 0 for a process
// of its own.
func (c *Client) SharedWith() int {
	if p, ok := c.proc.(interface{ Sharers() int }); ok {
		return p.Sharers()
	}
	return 0
}

// StderrTail returns the server's last stderr lines.
func (c *Client) StderrTail() []string { return c.proc.StderrTail() }

// ServerCapabilities returns what the server announced in initialize.
func (c *Client) ServerCapabilities() protocol.ServerCapabilities { return *c.caps.Load() }

// PositionEncoding returns the encoding the server counts columns in: what
// it chose from the client's offer (utf-8, utf-32, utf-16), utf-16 if it
// chose nothing.
func (c *Client) PositionEncoding() protocol.PositionEncodingKind {
	if e := c.caps.Load().PositionEncoding; e != nil && *e != "" {
		return *e
	}
	return protocol.PositionEncodingKindUTF16
}

// Mapper converts the server's columns from and to code points.
func (c *Client) Mapper() Mapper { return Mapper{Encoding: c.PositionEncoding()} }

// Changed returns a channel closed at the next change of documents,
// diagnostics, state, registrations or progress: wait on it, then look
// again.
func (c *Client) Changed() <-chan struct{} { return c.changes.wait() }

func (c *Client) setState(s State, reason string) {
	if c.life.set(s, reason) {
		c.changes.wake()
	}
}

// Shutdown ends the server politely: the shutdown request (without params),
// the exit notification, a wait for it to exit, then terminate and kill to
// its process group. No process of the group survives it.
func (c *Client) Shutdown(ctx context.Context) error {
	if c.life.stop() {
		<-c.proc.Done()
		return nil
	}
	var err error
	select {
	case <-c.proc.Done():
	default:
		ctx, cancel := context.WithTimeout(ctx, c.cfg.StopGrace)
		defer cancel()
		// Answer what the server asked before saying goodbye.
		if derr := c.conn.Drain(ctx); derr != nil {
			c.log.Debug("shutdown: server requests still unanswered", "err", derr)
		}
		_, err = protocol.ShutdownRequest.Call(ctx, c.conn, protocol.NoParams{})
		if _, lied := errors.AsType[*protocol.DecodeError](err); lied {
			// It answered, with something other than null: good enough
			// to go on to exit.
			c.log.Debug("shutdown answered with a non-null result", "err", err)
			err = nil
		}
		if err == nil {
			err = protocol.ExitNotification.Notify(ctx, c.conn, protocol.NoParams{})
		}
		if err == nil {
			// Nothing follows exit: its input ends too. A server that
			// does not exit on exit (buf) exits at the end of its input,
			// not after the grace.
			if cw, ok := c.proc.Stdio().(interface{ CloseWrite() error }); ok {
				cw.CloseWrite()
			}
		}
		select {
		case <-c.proc.Done():
			err = nil // it exited, which is what the handshake is for (some exit as soon as they answer shutdown)
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
	c.life.stop()
	c.proc.Kill()
}

// stopProcess stops the server, the watcher, the pulls and the connection.
func (c *Client) stopProcess() ExitStatus {
	c.life.stop()
	c.pulls.endLife()
	c.watchMu.Lock()
	if c.watcher != nil {
		c.watcher.Close()
		c.watcher = nil
	}
	if c.cfg.Watcher != nil && c.patterns != nil {
		c.cfg.Watcher.SetPatterns(c, nil)
		c.patterns = nil
	}
	c.watchMu.Unlock()
	c.watchClosing.Wait()
	es := c.proc.Stop(c.cfg.StopGrace)
	c.conn.Close()
	c.conn.Wait()
	c.pulls.close()
	return es
}

// pingMethod is a method no server implements: a responsive server answers
// it at once, with "method not found". It is not an LSP method, so it has
// no descriptor in protocol.
const pingMethod = "lspkit/ping"

// Ping asks the server something it must answer at once and reports
// whether it did within ctx: any answer, an error included, means it is
// responsive. A server that does not answer (stopped, or stuck) is not.
func (c *Client) Ping(ctx context.Context) error {
	err := c.conn.Call(ctx, pingMethod, nil, nil)
	if _, answered := errors.AsType[*transport.Error](err); err == nil || answered {
		return nil
	}
	return fmt.Errorf("client: %s: ping: %w", c.cfg.Name, err)
}

// Abandon marks the client broken, with reason, and kills its server: for
// a server that stopped answering. Its supervisor sees a crash.
func (c *Client) Abandon(reason string) {
	c.setState(StateBroken, reason)
	c.proc.Kill()
}

// Exited is closed when the server process has exited.
func (c *Client) Exited() <-chan struct{} { return c.proc.Done() }

// Name returns the server's id as configured (e.g. "gopls").
func (c *Client) Name() string { return c.cfg.Name }

// shownError is the last error the server showed the user
// (window/showMessage of type Error), "" if none.
func (c *Client) shownError() string {
	if p := c.shown.Load(); p != nil {
		return *p
	}
	return ""
}

// inputChanged records that something may change what the server finds:
// a document, a watched file, a folder or a setting sent to it, a command
// run, or a message of its own that is not inert. No answer known before
// stands after (see knownAnswer).
func (c *Client) inputChanged() { c.inputs.Add(1) }
