package lspserver

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// The requests routed to the servers of their document. Each goes to the
// first server of the file that offers it, except code actions, which
// every server offering them answers (TypeScript's fixes beside ESLint's),
// merged. Each is the generated descriptor's own method: its params and
// result are passed through as the protocol types.

// TextDocumentReferences asks every server of the file offering
// references and merges their answers in server order, each location once.
func (s *Server) TextDocumentReferences(ctx context.Context, p *protocol.ReferenceParams) (protocol.Nullable[[]protocol.Location], error) {
	answers, _, err := eachFrom(ctx, s, p.TextDocument.URI, protocol.ReferencesRequest, *p)
	if err != nil || len(answers) == 0 {
		return protocol.Nullable[[]protocol.Location]{}, err
	}
	if len(answers) == 1 {
		return answers[0].r, nil
	}
	var all []protocol.Location
	for _, a := range answers {
		locs, _ := a.r.Get()
		for _, l := range locs {
			if !slices.Contains(all, l) {
				all = append(all, l)
			}
		}
	}
	return protocol.NewNullable(orEmpty(all)), nil
}

// TextDocumentDocumentHighlight asks the file's server.
func (s *Server) TextDocumentDocumentHighlight(ctx context.Context, p *protocol.DocumentHighlightParams) (protocol.Nullable[[]protocol.DocumentHighlight], error) {
	return first(ctx, s, p.TextDocument.URI, protocol.DocumentHighlightRequest, *p)
}

// TextDocumentDocumentSymbol asks the file's server.
func (s *Server) TextDocumentDocumentSymbol(ctx context.Context, p *protocol.DocumentSymbolParams) (protocol.Nullable[protocol.SymbolInformationSliceOrDocumentSymbolSlice], error) {
	return first(ctx, s, p.TextDocument.URI, protocol.DocumentSymbolRequest, *p)
}

// TextDocumentSignatureHelp asks the file's server.
func (s *Server) TextDocumentSignatureHelp(ctx context.Context, p *protocol.SignatureHelpParams) (protocol.Nullable[protocol.SignatureHelp], error) {
	return first(ctx, s, p.TextDocument.URI, protocol.SignatureHelpRequest, *p)
}

// TextDocumentFormatting asks the file's server.
func (s *Server) TextDocumentFormatting(ctx context.Context, p *protocol.DocumentFormattingParams) (protocol.Nullable[[]protocol.TextEdit], error) {
	return first(ctx, s, p.TextDocument.URI, protocol.DocumentFormattingRequest, *p)
}

// TextDocumentRangeFormatting asks the file's server.
func (s *Server) TextDocumentRangeFormatting(ctx context.Context, p *protocol.DocumentRangeFormattingParams) (protocol.Nullable[[]protocol.TextEdit], error) {
	return first(ctx, s, p.TextDocument.URI, protocol.DocumentRangeFormattingRequest, *p)
}

// TextDocumentRename asks the file's server; its edit names the client's
// document versions.
func (s *Server) TextDocumentRename(ctx context.Context, p *protocol.RenameParams) (protocol.Nullable[protocol.WorkspaceEdit], error) {
	r, _, vs, err := firstFrom(ctx, s, p.TextDocument.URI, protocol.RenameRequest, *p)
	if e, ok := r.Get(); ok {
		vs.apply(&e)
		r = protocol.NewNullable(e)
	}
	return r, err
}

// TextDocumentPrepareRename asks the file's server.
func (s *Server) TextDocumentPrepareRename(ctx context.Context, p *protocol.PrepareRenameParams) (protocol.Nullable[protocol.PrepareRenameResult], error) {
	return first(ctx, s, p.TextDocument.URI, protocol.PrepareRenameRequest, *p)
}

// TextDocumentFoldingRange asks the file's server.
func (s *Server) TextDocumentFoldingRange(ctx context.Context, p *protocol.FoldingRangeParams) (protocol.Nullable[[]protocol.FoldingRange], error) {
	return first(ctx, s, p.TextDocument.URI, protocol.FoldingRangeRequest, *p)
}

// TextDocumentSelectionRange asks the file's server.
func (s *Server) TextDocumentSelectionRange(ctx context.Context, p *protocol.SelectionRangeParams) (protocol.Nullable[[]protocol.SelectionRange], error) {
	return first(ctx, s, p.TextDocument.URI, protocol.SelectionRangeRequest, *p)
}

// apply gives an edit's documents the client's versions: a server names
// the versions lspkit gave it, which are not the client's. A document the
// client has open gets the version the server answered for; one it has
// not, none (the disk's).
func (vs versions) apply(e *protocol.WorkspaceEdit) {
	for i, ch := range e.DocumentChanges {
		te, ok := ch.AsTextDocumentEdit()
		if !ok {
			continue
		}
		if v, open := vs[te.TextDocument.URI]; open {
			te.TextDocument.Version = protocol.NewNullable(v)
		} else {
			te.TextDocument.Version = protocol.Null[int32]()
		}
		e.DocumentChanges[i] = protocol.NewWorkspaceEditDocumentChangesElemTextDocumentEdit(te)
	}
}

// WorkspaceExecuteCommand runs a command on the server that offers it.
// The edits the server sends back with workspace/applyEdit while it runs
// are relayed to the client, in order, once the command has returned,
// each with the client's document versions; the command's result is the
// server's.
func (s *Server) WorkspaceExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (jsontext.Value, error) {
	s.mu.Lock()
	id, ok := s.commands[p.Command]
	s.mu.Unlock()
	if !ok {
		return nil, &transport.Error{Code: transport.CodeInvalidParams, Message: fmt.Sprintf("no server offers the command %q", p.Command)}
	}
	h, err := s.b.HoldServer(ctx, id)
	if err != nil {
		return nil, s.unanswered(ctx, "", protocol.ExecuteCommandRequest.Method(), err)
	}
	_, vs := s.snapshot("")
	var edits []protocol.WorkspaceEdit
	res, err := h.Client.ExecuteCommand(ctx, protocol.Command{Command: p.Command, Arguments: p.Arguments}, func(e protocol.WorkspaceEdit) {
		edits = append(edits, e)
	})
	h.Release()
	if err != nil {
		if ctx.Err() != nil {
			return nil, cancelled(ctx)
		}
		return nil, forwardError(id, protocol.ExecuteCommandRequest.Method(), err)
	}
	for _, e := range edits {
		vs.apply(&e)
		r, err := protocol.ApplyWorkspaceEditRequest.Call(ctx, s.conn, protocol.ApplyWorkspaceEditParams{Label: protocol.Ptr(p.Command), Edit: e})
		if err != nil {
			return nil, fmt.Errorf("workspace/applyEdit of %s's edit: %w", id, err)
		}
		if !r.Applied {
			reason := ""
			if r.FailureReason != nil {
				reason = ": " + *r.FailureReason
			}
			s.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("lspkit: the client did not apply %s's edit for %s%s", id, p.Command, reason))
		}
	}
	return res, nil
}
