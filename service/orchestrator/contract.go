package orchestrator

import (
	"context"
	"log/slog"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// The core's contract: what features (package features) and front ends
// (lspkit lsp) ask of the orchestrator, beside its answers of its own
// (checks, diagnostics, reports, status). docs/architecture.md lists it;
// features hold it as an interface (features.Core) and reach nothing else.
//
//   - a file's servers, fresh, for a method: Hold, Recheck; a server by
//     id: HoldServer; every running server: HoldRunning; one again:
//     HoldAgain;
//   - checks: Check, after writes Refresh; files as on disk on one
//     server: ServersOf, CheckOnDisk;
//   - read-your-writes: Barrier, PastBarrier;
//   - the servers' findings: Epoch, SettleAfter, Diagnostics,
//     CurrentDiagnostics; one server's in the contract's shape: Findings;
//     findings merged: Merge; what a caller was shown: ShowFindings;
//   - paths and files: Root, Rel, Resolve, ReadFile, Skipped;
//   - the configuration and the log: Config, Logger.

// Barrier returns once every change made on disk before it was called has
// reached the servers (the workspace's file watcher flushed, see
// barrier), with a note when it could not promise that.
func (o *Orchestrator) Barrier(ctx context.Context) string { return o.barrier(ctx) }

// PastBarrier is ctx marked as past the barrier: a question whose first
// step (a lookup) passed it does not wait for it again.
func (o *Orchestrator) PastBarrier(ctx context.Context) context.Context { return o.pastBarrier(ctx) }

// Refresh passes the barrier and re-syncs every running server with the
// disk: after a feature's own writes, before the files written are
// checked. It holds each server as any request does: a what-if still
// giving its server the disk's texts back, read before the write, is done
// first (else the text it read could reach the server after the refresh
// had found the server's text, the what-if's, the same as the file
// written, and stay there), and a what-if beside it keeps its given texts.
// A server it cannot hold within ctx is left to the refresh of the next
// request to it. It returns the barrier's note.
func (o *Orchestrator) Refresh(ctx context.Context) string {
	note := o.barrier(ctx)
	for _, s := range o.liveSessions() {
		release, err := s.hold(ctx, false)
		if err != nil {
			continue
		}
		if c := s.current(); c != nil {
			s.refresh(ctx, c, "")
		}
		release()
	}
	return note
}

// Rel is path (absolute) relative to the root, slash-separated; a path
// outside the root is returned as it is.
func (o *Orchestrator) Rel(path string) string { return o.rel(path) }

// Resolve is the absolute path of file (relative to the root, or absolute
// within it), or the contract's error: no path, one too long, one outside
// the root.
func (o *Orchestrator) Resolve(file string) (string, error) {
	if err := validPath("file", file); err != nil {
		return "", err
	}
	abs, ok := o.resolve(file)
	if !ok {
		return "", o.outsideRoot(file)
	}
	return abs, nil
}

// ReadFile returns the text of a file of the root (see Resolve), within
// the configured size limit.
func (o *Orchestrator) ReadFile(file string) (string, error) {
	abs, err := o.Resolve(file)
	if err != nil {
		return "", err
	}
	src, err := readSource(abs, o.maxFileBytes())
	return src.text, err
}

// Findings turns a server's diagnostics for uri into the contract's
// shape, as checks answer them; files outside the root or excluded have
// none.
func (o *Orchestrator) Findings(server string, c *client.Client, uri protocol.DocumentURI, diags []protocol.Diagnostic) []api.Diagnostic {
	return o.convert(server, c, uri, diags, "")
}

// ShowFindings records that ctx's caller is shown file's findings now
// (file relative to the root), and returns those to show: with delta,
// only those the previous check or report of the file did not show, with
// the number left out.
func (o *Orchestrator) ShowFindings(ctx context.Context, file string, current []api.Diagnostic, delta bool) ([]api.Diagnostic, int) {
	return o.shown.Update(shownKey(ctx, file), nil, current, delta)
}

// Skipped reports whether the configuration excludes path (a walk's
// skip, see impact.Walk).
func (o *Orchestrator) Skipped(path string, _ bool) bool {
	_, excluded := o.excluded(path)
	return excluded
}

// Logger is the orchestrator's log.
func (o *Orchestrator) Logger() *slog.Logger { return o.log }
