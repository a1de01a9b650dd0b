package client

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
)

// CodeActions asks the server for the code actions in rng of the open
// document uri, for the diagnostics given (those the server published
// there; they carry its data), of the kinds only (every kind when
// empty). Bare commands come back as actions with only a title and a
// command.
func (c *Client) CodeActions(ctx context.Context, uri protocol.DocumentURI, rng protocol.Range, diags []protocol.Diagnostic, only []protocol.CodeActionKind) ([]protocol.CodeAction, error) {
	if diags == nil {
		diags = []protocol.Diagnostic{}
	}
	p := protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Range: rng, Context: protocol.CodeActionContext{
		Diagnostics: diags, Only: only, TriggerKind: protocol.Ptr(protocol.CodeActionTriggerKindInvoked),
	}}
	res, err := protocol.CodeActionRequest.Call(ctx, c.conn, p)
	if err != nil {
		return nil, fmt.Errorf("client: %s: %s: %w", c.cfg.Name, protocol.CodeActionRequest.Method(), err)
	}
	list, _ := res.Get()
	out := make([]protocol.CodeAction, 0, len(list))
	for _, item := range list {
		if a, ok := item.AsCodeAction(); ok {
			out = append(out, a)
		} else if cmd, ok := item.AsCommand(); ok {
			out = append(out, protocol.CodeAction{Title: cmd.Title, Command: &cmd})
		}
	}
	return out, nil
}

// ResolvesCodeActions reports whether the server fills in actions on
// codeAction/resolve.
func (c *Client) ResolvesCodeActions() bool {
	caps := c.ServerCapabilities()
	if o, ok := caps.CodeActionProvider.AsCodeActionOptions(); ok {
		return o.ResolveProvider != nil && *o.ResolveProvider
	}
	return false
}

// ResolveCodeAction has the server fill in a's edit (codeAction/resolve).
func (c *Client) ResolveCodeAction(ctx context.Context, a protocol.CodeAction) (protocol.CodeAction, error) {
	res, err := protocol.CodeActionResolveRequest.Call(ctx, c.conn, a)
	if err != nil {
		return a, fmt.Errorf("client: %s: %s: %w", c.cfg.Name, protocol.CodeActionResolveRequest.Method(), err)
	}
	return res, nil
}

// editSink takes the edits a server sends with workspace/applyEdit while a
// command of ours runs.
type editSink struct {
	mu   sync.Mutex
	take func(protocol.WorkspaceEdit)
}

// ExecuteCommand runs cmd on the server (workspace/executeCommand). The
// edits the server sends back with workspace/applyEdit while it runs go to
// collect — they are answered applied; the caller applies them — and
// outside a command of ours such edits are refused.
func (c *Client) ExecuteCommand(ctx context.Context, cmd protocol.Command, collect func(protocol.WorkspaceEdit)) (jsontext.Value, error) {
	c.cmdMu.Lock() // one command at a time: its edits are its own
	defer c.cmdMu.Unlock()
	c.sink.mu.Lock()
	c.sink.take = collect
	c.sink.mu.Unlock()
	defer func() {
		c.sink.mu.Lock()
		c.sink.take = nil
		c.sink.mu.Unlock()
	}()
	c.inputChanged() // a command may change anything the server holds
	res, err := protocol.ExecuteCommandRequest.Call(ctx, c.conn, protocol.ExecuteCommandParams{Command: cmd.Command, Arguments: cmd.Arguments})
	if err != nil {
		return nil, fmt.Errorf("client: %s: %s %s: %w", c.cfg.Name, protocol.ExecuteCommandRequest.Method(), cmd.Command, err)
	}
	return res, nil
}

// takeEdit gives a server's applyEdit to the running command's collector,
// or reports that none runs.
func (c *Client) takeEdit(edit protocol.WorkspaceEdit) bool {
	c.sink.mu.Lock()
	defer c.sink.mu.Unlock()
	if c.sink.take == nil {
		return false
	}
	c.sink.take(edit)
	return true
}

// Format asks the server for the edits that format the open document uri
// (its range rng when given) with opts.
func (c *Client) Format(ctx context.Context, uri protocol.DocumentURI, rng *protocol.Range, opts protocol.FormattingOptions) ([]protocol.TextEdit, error) {
	doc := protocol.TextDocumentIdentifier{URI: uri}
	var res protocol.Nullable[[]protocol.TextEdit]
	var err error
	method := protocol.DocumentFormattingRequest.Method()
	if rng != nil {
		method = protocol.DocumentRangeFormattingRequest.Method()
		res, err = protocol.DocumentRangeFormattingRequest.Call(ctx, c.conn, protocol.DocumentRangeFormattingParams{TextDocument: doc, Range: *rng, Options: opts})
	} else {
		res, err = protocol.DocumentFormattingRequest.Call(ctx, c.conn, protocol.DocumentFormattingParams{TextDocument: doc, Options: opts})
	}
	if err != nil {
		return nil, fmt.Errorf("client: %s: %s: %w", c.cfg.Name, method, err)
	}
	edits, _ := res.Get()
	return edits, nil
}
