// Package features answers the lspkit service contract's questions about
// code — navigation, type information, symbol context, addressing by
// name, code actions, renames, formatting and fix-all — and its reports
// and sweeps of findings, over the
// orchestrator's core, which owns the server processes and their
// freshness. A feature reaches the core only through Core, the contract
// docs/architecture.md writes down (TestOnlyTheCore enforces it), as
// gopls's features (internal/golang) reach its state only through a
// snapshot.
package features

import (
	"context"
	"log/slog"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/burst"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/orchestrator"
)

// Core is what features ask of the orchestrator's core (see
// orchestrator's contract.go): a file's servers held fresh, every running
// server, a server again; checks, of a file or of files as on disk; the
// read-your-writes barrier; the servers' findings, merged, and what a
// caller was shown; paths and files of the root; the configuration and
// the log.
type Core interface {
	Hold(ctx context.Context, file string, text *string, method string, all bool) ([]orchestrator.Held, error)
	HoldRunning(ctx context.Context, method string) ([]orchestrator.Held, string, error)
	HoldAgain(ctx context.Context, c *client.Client) (orchestrator.Held, error)
	Check(ctx context.Context, p api.CheckParams) (api.CheckResult, error)
	Refresh(ctx context.Context) string
	ServersOf(path string) []orchestrator.Serving
	CheckOnDisk(ctx context.Context, sv orchestrator.Serving, files []string, advance func(n int)) ([]api.Diagnostic, []string, string)
	Barrier(ctx context.Context) string
	PastBarrier(ctx context.Context) context.Context
	Epoch() uint64
	SettleAfter(ctx context.Context, epoch uint64, wait time.Duration)
	Diagnostics() api.FileDiagnostics
	CurrentDiagnostics(ctx context.Context) (api.FileDiagnostics, error)
	Merge(in []api.Diagnostic, severities []string) []api.Diagnostic
	ShowFindings(ctx context.Context, file string, current []api.Diagnostic, delta bool) ([]api.Diagnostic, int)
	Root() string
	Rel(path string) string
	Resolve(file string) (string, error)
	ReadFile(file string) (string, error)
	Skipped(path string, dir bool) bool
	Findings(server string, c *client.Client, uri protocol.DocumentURI, diags []protocol.Diagnostic) []api.Diagnostic
	Config() config.Config
	Logger() *slog.Logger
}

var _ Core = (*orchestrator.Orchestrator)(nil)

// Features answers the contract's questions about code over one
// workspace's core.
type Features struct {
	core     Core
	cfg      config.Config // the core's, read once
	root     string
	log      *slog.Logger
	actions  actionStore  // the code actions listed, by id
	previews previewStore // the edits shown and not written, by id
}

// New returns the features over core.
func New(core Core) *Features {
	return &Features{core: core, cfg: core.Config(), root: core.Root(), log: core.Logger()}
}

// A Service is what the adapters (rpc, mcpserver, lspserver) serve: a
// workspace's core, with its own answers (checks, diagnostics, reports,
// status, lifecycle), the features over it, and the bursts of edits its
// hosts' hooks tell of (lsp/burst).
type Service struct {
	*orchestrator.Orchestrator
	*Features
	Bursts *burst.Tracker
}

// NewService returns the service of o: o, the features over it and its
// bursts.
func NewService(o *orchestrator.Orchestrator) *Service {
	return &Service{Orchestrator: o, Features: New(o), Bursts: burst.New(o)}
}

// Held is the core's hold of one server of a file.
type Held = orchestrator.Held

// open holds the first server of file that offers method (see Core.Hold).
func (f *Features) open(ctx context.Context, file, method string) (Held, error) {
	hs, err := f.core.Hold(ctx, file, nil, method, false)
	if err != nil {
		return Held{}, err
	}
	return hs[0], nil
}

// openServers holds every server of file that offers method (all), or
// the first.
func (f *Features) openServers(ctx context.Context, file, method string, all bool) ([]Held, error) {
	return f.core.Hold(ctx, file, nil, method, all)
}

// inRoot reports whether path (absolute) is the root or inside it.
func (f *Features) inRoot(path string) bool {
	_, err := f.core.Resolve(path)
	return err == nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
