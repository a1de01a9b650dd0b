// Package daemon starts an lspkit daemon (`lspkit serve`) and talks to it,
// so that an agent written in Go needs no JSON-RPC code of its own: Start
// spawns it in its own process group and waits for lsp/ready; every method
// of the service contract is a typed call; Stop shuts it down and kills
// whatever of its process group is left.
//
//	d, err := daemon.Start(ctx, daemon.Options{Root: repo})
//	...
//	defer d.Stop(context.Background())
//	res, err := d.Check(ctx, api.CheckParams{FilePath: "main.go"})
//
// With Options.Shared the program attaches to the workspace's shared
// daemon instead (`lspkit serve --shared`: one daemon, and one set of
// language servers, for every agent of the user on that root, started if
// none runs). Stop then detaches: the shared daemon and its servers stay
// for the others, and exit a while after the last client left.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// Options says how to start the daemon.
type Options struct {
	// Binary is the lspkit executable: a path, or a name looked up on
	// PATH ("lspkit" when empty).
	Binary string
	// Root is the workspace root (--root); empty uses the daemon's default
	// (its working directory, or LSPKIT_BOOTSTRAP's workspaceRoot).
	Root string
	// Config is a configuration file (--config).
	Config string
	// Dir is the daemon's working directory (default: Root, else ours).
	Dir string
	// Env is added to the daemon's environment (LSPKIT_BOOTSTRAP,
	// LSPKIT_LOG, …).
	Env []string
	// ReadyTimeout bounds the wait for lsp/ready (10 s when zero).
	ReadyTimeout time.Duration
	// StopGrace is how long Stop waits for the daemon to exit after
	// lsp/shutdown before it kills its process group (10 s when zero).
	StopGrace time.Duration
	// Shared attaches to the workspace's shared daemon, starting it if
	// none runs, through a relay process (`lspkit serve --shared`): PID
	// is the relay's, Ready().PID the shared daemon's; Stop and Kill end
	// the relay, detaching this client alone.
	Shared bool
}

// A Daemon is a running lspkit daemon.
type Daemon struct {
	proc    *client.Process // nil: a connection made with Connect
	readyMu *sync.Mutex     // guards ready, set after Connect returns
	conn    *transport.Conn
	ready   api.ReadyParams
	grace   time.Duration
}

// Start spawns the daemon in its own process group (on Linux it also dies
// with this process) and waits for lsp/ready. On failure nothing is left
// running and the error carries the daemon's last stderr lines.
func Start(ctx context.Context, opts Options) (*Daemon, error) {
	if opts.Binary == "" {
		opts.Binary = "lspkit"
	}
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = 10 * time.Second
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = 10 * time.Second
	}
	args := []string{"serve"}
	if opts.Shared {
		args = append(args, "--shared")
	}
	if opts.Root != "" {
		args = append(args, "--root", opts.Root)
	}
	if opts.Config != "" {
		args = append(args, "--config", opts.Config)
	}
	dir := opts.Dir
	if dir == "" {
		dir = opts.Root
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("daemon: %w", err)
		}
		dir = wd
	}
	proc, err := client.StartProcess(client.Command{Path: opts.Binary, Args: args, Dir: dir, Env: opts.Env, Breakaway: opts.Shared})
	if err != nil {
		return nil, fmt.Errorf("daemon: %w", err)
	}
	d := &Daemon{proc: proc, grace: opts.StopGrace}
	ready := make(chan api.ReadyParams, 1)
	d.conn = transport.NewConn(proc.Stdio(), transport.Options{Handler: transport.HandlerFunc(func(_ context.Context, req *transport.Request) (any, error) {
		if req.Method == api.MethodReady {
			var p api.ReadyParams
			json.Unmarshal(req.Params, &p)
			select {
			case ready <- p:
			default:
			}
		}
		return nil, nil
	})})
	timer := time.NewTimer(opts.ReadyTimeout)
	defer timer.Stop()
	select {
	case d.ready = <-ready:
		return d, nil
	case <-proc.Done():
		err = fmt.Errorf("the daemon exited before lsp/ready: %s", proc.Exit())
	case <-d.conn.Done():
		err = fmt.Errorf("the daemon's stdout closed before lsp/ready: %v", d.conn.Err())
	case <-timer.C:
		err = fmt.Errorf("no lsp/ready within %s", opts.ReadyTimeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	d.Kill()
	if tail := proc.StderrTail(); len(tail) > 0 {
		err = fmt.Errorf("%w; stderr: %s", err, strings.Join(tail, " | "))
	}
	return nil, fmt.Errorf("daemon: process %d stopped: %w", proc.PID(), err)
}

// Connect speaks the contract over rwc, a connection to a daemon the
// caller made itself (a shared daemon's socket, attached in-process, as
// lspkit's hooks do): no process is started, waited for or stopped; Stop
// and Kill close the connection, which detaches from a shared daemon.
// Ready says what the daemon's lsp/ready said once it has come.
func Connect(rwc io.ReadWriteCloser) *Daemon {
	d := &Daemon{}
	var mu sync.Mutex
	d.readyMu = &mu
	d.conn = transport.NewConn(rwc, transport.Options{Handler: transport.HandlerFunc(func(_ context.Context, req *transport.Request) (any, error) {
		if req.Method == api.MethodReady {
			var p api.ReadyParams
			json.Unmarshal(req.Params, &p)
			mu.Lock()
			d.ready = p
			mu.Unlock()
		}
		return nil, nil
	})})
	return d
}

// Ready returns what the daemon said in lsp/ready: its version and pid.
func (d *Daemon) Ready() api.ReadyParams {
	if d.readyMu != nil {
		d.readyMu.Lock()
		defer d.readyMu.Unlock()
	}
	return d.ready
}

// PID returns the daemon's process id (with Options.Shared, the relay's).
// It is 0 for a connection made with Connect.
func (d *Daemon) PID() int {
	if d.proc == nil {
		return 0
	}
	return d.proc.PID()
}

// Alive reports whether the daemon is running and its connection up.
func (d *Daemon) Alive() bool {
	var exited <-chan struct{}
	if d.proc != nil {
		exited = d.proc.Done()
	}
	select {
	case <-exited:
		return false
	case <-d.conn.Done():
		return false
	default:
		return true
	}
}

// StderrTail returns the daemon's last stderr lines (its logs).
func (d *Daemon) StderrTail() []string {
	if d.proc == nil {
		return nil
	}
	return d.proc.StderrTail()
}

// Stop asks the daemon to shut down (lsp/shutdown: its servers get
// shutdown and exit), waits for it to exit within the stop grace, then kills
// its whole process group. It returns how the daemon ended when that was
// not a clean exit.
func (d *Daemon) Stop(ctx context.Context) error {
	if d.proc == nil {
		d.conn.Close()
		d.conn.Wait()
		return nil
	}
	if d.Alive() {
		ctx, cancel := context.WithTimeout(ctx, d.grace)
		defer cancel()
		d.Shutdown(ctx)
		select {
		case <-d.proc.Done():
		case <-ctx.Done():
		}
	}
	es := d.proc.Stop(time.Second)
	d.conn.Close()
	d.conn.Wait()
	if es.Code != 0 || es.Signal != 0 {
		return fmt.Errorf("daemon: %s", es)
	}
	return nil
}

// Kill kills the daemon's process group at once.
func (d *Daemon) Kill() {
	if d.proc != nil {
		d.proc.Kill()
	}
	d.conn.Close()
}

// call makes one typed request of the contract.
func call[R any](ctx context.Context, d *Daemon, method string, params any) (R, error) {
	var r R
	err := d.conn.CallRaw(ctx, method, params, func(raw []byte) error { return json.Unmarshal(raw, &r) })
	if err != nil {
		var zero R
		if e, ok := errors.AsType[*transport.Error](err); ok {
			return zero, e // the contract's error, with its code
		}
		return zero, fmt.Errorf("daemon: %s: %w", method, err)
	}
	return r, nil
}

// CheckFile is lsp/checkFile: the file's diagnostics.
func (d *Daemon) CheckFile(ctx context.Context, p api.CheckParams) ([]api.Diagnostic, error) {
	return call[[]api.Diagnostic](ctx, d, api.MethodCheckFile, p)
}

// Check is lsp/check: the diagnostics, whether the file was fully checked
// and each server's verdict.
func (d *Daemon) Check(ctx context.Context, p api.CheckParams) (api.CheckResult, error) {
	return call[api.CheckResult](ctx, d, api.MethodCheck, p)
}

// Diagnostics is lsp/diagnostics: every known file's diagnostics.
func (d *Daemon) Diagnostics(ctx context.Context) (api.FileDiagnostics, error) {
	return call[api.FileDiagnostics](ctx, d, api.MethodDiagnostics, struct{}{})
}

// DiagnosticEpoch is lsp/getDiagnosticEpoch.
func (d *Daemon) DiagnosticEpoch(ctx context.Context) (uint64, error) {
	return call[uint64](ctx, d, api.MethodGetDiagnosticEpoch, struct{}{})
}

// DiagnosticsAfter is lsp/diagnosticsAfter.
func (d *Daemon) DiagnosticsAfter(ctx context.Context, p api.DiagnosticsAfterParams) (api.FileDiagnostics, error) {
	return call[api.FileDiagnostics](ctx, d, api.MethodDiagnosticsAfter, p)
}

// Report is lsp/report: the feedback block for the model.
func (d *Daemon) Report(ctx context.Context, p api.ReportParams) (api.ReportResult, error) {
	return call[api.ReportResult](ctx, d, api.MethodReport, p)
}

// Burst is lsp/burst: what a host's hook tells of the model's tool calls,
// answered with the feedback of its bursts of edits.
func (d *Daemon) Burst(ctx context.Context, p api.BurstParams) (api.BurstResult, error) {
	return call[api.BurstResult](ctx, d, api.MethodBurst, p)
}

// Status is lsp/status.
func (d *Daemon) Status(ctx context.Context) ([]api.ServerStatus, error) {
	return call[[]api.ServerStatus](ctx, d, api.MethodStatus, struct{}{})
}

// Definition is lsp/definition.
func (d *Daemon) Definition(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return call[api.LocationsResult](ctx, d, api.MethodDefinition, p)
}

// TypeDefinition is lsp/typeDefinition.
func (d *Daemon) TypeDefinition(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return call[api.LocationsResult](ctx, d, api.MethodTypeDefinition, p)
}

// Implementation is lsp/implementation.
func (d *Daemon) Implementation(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return call[api.LocationsResult](ctx, d, api.MethodImplementation, p)
}

// References is lsp/references.
func (d *Daemon) References(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return call[api.LocationsResult](ctx, d, api.MethodReferences, p)
}

// CallHierarchy is lsp/callHierarchy.
func (d *Daemon) CallHierarchy(ctx context.Context, p api.CallHierarchyParams) (api.CallHierarchyResult, error) {
	return call[api.CallHierarchyResult](ctx, d, api.MethodCallHierarchy, p)
}

// Rename is lsp/rename: nothing is written unless p.Apply.
func (d *Daemon) Rename(ctx context.Context, p api.RenameParams) (api.RenameResult, error) {
	return call[api.RenameResult](ctx, d, api.MethodRename, p)
}

// ApplyEdits is lsp/applyEdits: the edits checked as one what-if with
// their impact, then written (every file or none) when p.When allows.
func (d *Daemon) ApplyEdits(ctx context.Context, p api.ApplyEditsParams) (api.ApplyEditsResult, error) {
	return call[api.ApplyEditsResult](ctx, d, api.MethodApplyEdits, p)
}

// ReplaceSymbolBody is lsp/replaceSymbolBody, through lsp/applyEdits.
func (d *Daemon) ReplaceSymbolBody(ctx context.Context, p api.SymbolEditParams) (api.SymbolEditResult, error) {
	return call[api.SymbolEditResult](ctx, d, api.MethodReplaceSymbolBody, p)
}

// InsertBeforeSymbol is lsp/insertBeforeSymbol, through lsp/applyEdits.
func (d *Daemon) InsertBeforeSymbol(ctx context.Context, p api.SymbolEditParams) (api.SymbolEditResult, error) {
	return call[api.SymbolEditResult](ctx, d, api.MethodInsertBeforeSymbol, p)
}

// InsertAfterSymbol is lsp/insertAfterSymbol, through lsp/applyEdits.
func (d *Daemon) InsertAfterSymbol(ctx context.Context, p api.SymbolEditParams) (api.SymbolEditResult, error) {
	return call[api.SymbolEditResult](ctx, d, api.MethodInsertAfterSymbol, p)
}

// SafeDelete is lsp/safeDelete: refused while references remain, unless
// forced.
func (d *Daemon) SafeDelete(ctx context.Context, p api.SymbolEditParams) (api.SymbolEditResult, error) {
	return call[api.SymbolEditResult](ctx, d, api.MethodSafeDelete, p)
}

// CodeActions is lsp/codeActions: the actions the servers offer there,
// each with an id for ApplyCodeAction.
func (d *Daemon) CodeActions(ctx context.Context, p api.CodeActionsParams) (api.CodeActionsResult, error) {
	return call[api.CodeActionsResult](ctx, d, api.MethodCodeActions, p)
}

// ApplyCodeAction is lsp/applyCodeAction: nothing is written unless
// p.Apply.
func (d *Daemon) ApplyCodeAction(ctx context.Context, p api.ApplyCodeActionParams) (api.RenameResult, error) {
	return call[api.RenameResult](ctx, d, api.MethodApplyCodeAction, p)
}

// Format is lsp/format: nothing is written unless p.Apply.
func (d *Daemon) Format(ctx context.Context, p api.FormatParams) (api.RenameResult, error) {
	return call[api.RenameResult](ctx, d, api.MethodFormat, p)
}

// FixAll is lsp/fixAll: every fix the servers offer for the file,
// combined; nothing is written unless p.Apply.
func (d *Daemon) FixAll(ctx context.Context, p api.FixAllParams) (api.FixAllResult, error) {
	return call[api.FixAllResult](ctx, d, api.MethodFixAll, p)
}

// Hover is lsp/hover.
func (d *Daemon) Hover(ctx context.Context, p api.PositionParams) (api.HoverResult, error) {
	return call[api.HoverResult](ctx, d, api.MethodHover, p)
}

// DocumentSymbols is lsp/documentSymbols.
func (d *Daemon) DocumentSymbols(ctx context.Context, p api.FileParams) (api.SymbolsResult, error) {
	return call[api.SymbolsResult](ctx, d, api.MethodDocumentSymbols, p)
}

// WorkspaceSymbols is lsp/workspaceSymbols.
func (d *Daemon) WorkspaceSymbols(ctx context.Context, p api.QueryParams) (api.WorkspaceSymbolsResult, error) {
	return call[api.WorkspaceSymbolsResult](ctx, d, api.MethodWorkspaceSymbols, p)
}

// Shutdown is lsp/shutdown: the daemon stops its servers and exits. Stop
// calls it and then makes sure.
func (d *Daemon) Shutdown(ctx context.Context) error {
	_, err := call[struct{}](ctx, d, api.MethodShutdown, struct{}{})
	return err
}

// Declaration is lsp/declaration.
func (d *Daemon) Declaration(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return call[api.LocationsResult](ctx, d, api.MethodDeclaration, p)
}

// DocumentHighlights is lsp/documentHighlights.
func (d *Daemon) DocumentHighlights(ctx context.Context, p api.PositionParams) (api.HighlightsResult, error) {
	return call[api.HighlightsResult](ctx, d, api.MethodDocumentHighlights, p)
}

// SignatureHelp is lsp/signatureHelp.
func (d *Daemon) SignatureHelp(ctx context.Context, p api.PositionParams) (api.SignatureHelpResult, error) {
	return call[api.SignatureHelpResult](ctx, d, api.MethodSignatureHelp, p)
}

// InlayHints is lsp/inlayHints.
func (d *Daemon) InlayHints(ctx context.Context, p api.InlayHintsParams) (api.InlayHintsResult, error) {
	return call[api.InlayHintsResult](ctx, d, api.MethodInlayHints, p)
}

// TypeHierarchy is lsp/typeHierarchy.
func (d *Daemon) TypeHierarchy(ctx context.Context, p api.TypeHierarchyParams) (api.TypeHierarchyResult, error) {
	return call[api.TypeHierarchyResult](ctx, d, api.MethodTypeHierarchy, p)
}

// Completion is lsp/completion.
func (d *Daemon) Completion(ctx context.Context, p api.CompletionParams) (api.CompletionResult, error) {
	return call[api.CompletionResult](ctx, d, api.MethodCompletion, p)
}

// SymbolContext is lsp/symbolContext.
func (d *Daemon) SymbolContext(ctx context.Context, p api.PositionParams) (api.SymbolContextResult, error) {
	return call[api.SymbolContextResult](ctx, d, api.MethodSymbolContext, p)
}

// Batch is lsp/batch: each answer's Result is the method's result as
// decoded JSON (maps and slices); decode it again into the method's
// result type where the type matters.
func (d *Daemon) Batch(ctx context.Context, p api.BatchParams) (api.BatchResult, error) {
	return call[api.BatchResult](ctx, d, api.MethodBatch, p)
}
