package client

import (
	"context"
	"log/slog"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// This file answers what the server asks of the client: the settings
// it reads (workspace/configuration), the workspace folders, progress and
// the messages it shows or logs, the edits it applies, its refresh
// requests, and the diagnostics it publishes.

// handle answers the server's requests and notifications, with their params
// decoded on the connection's read path.
func (c *Client) handle(ctx context.Context, req *transport.Request) (any, error) {
	if !inert(req.Method) {
		c.inputChanged() // the server is at work, or asks for what may change what it finds
	}
	params := req.Decoded
	if params == nil {
		return protocol.DispatchClient(ctx, serverRequests{c}, req.Method, req.Params)
	}
	res, err := protocol.CallClient(ctx, serverRequests{c}, req.Method, params)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// inert says whether a message of the server's says nothing of its
// findings changing: its logs, its questions about settings and folders
// (answered the same each time), its publishes, which are recorded per
// file (see knownAnswer), and its progress (no answer is known while work
// runs: see Diagnose; work that changes a file's findings ends in a
// publish for it or a refresh). Anything else it sends — a refresh, an
// edit, a registration — means a known answer may no longer be its answer.
func inert(method string) bool {
	switch method {
	case protocol.MethodTextDocumentPublishDiagnostics, protocol.MethodWindowLogMessage,
		protocol.MethodLogTrace, protocol.MethodTelemetryEvent, protocol.MethodWorkspaceConfiguration,
		protocol.MethodWorkspaceWorkspaceFolders, protocol.MethodCancelRequest,
		protocol.MethodWindowWorkDoneProgressCreate, protocol.MethodProgress:
		return true
	}
	return false
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
	folders, err := workspaceFolders(s.c.folders.list())
	if err != nil {
		return protocol.Null[[]protocol.WorkspaceFolder](), err
	}
	return protocol.NewNullable(folders), nil
}

func (s serverRequests) WindowWorkDoneProgressCreate(_ context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	s.c.progress.create(tokenKey(p.Token))
	return nil
}

func (s serverRequests) Progress(_ context.Context, p *protocol.ProgressParams) error {
	key := tokenKey(p.Token)
	if s.c.pulls.partial(key, p.Value) {
		return nil
	}
	if s.c.progress.report(key, readProgress(p.Value)) {
		s.c.changes.wake()
		if s.c.cfg.OnEvent != nil {
			s.c.cfg.OnEvent(Event{Progress: p})
		}
	}
	return nil
}

func (s serverRequests) WindowShowMessageRequest(_ context.Context, p *protocol.ShowMessageRequestParams) (protocol.Nullable[protocol.MessageActionItem], error) {
	s.c.log.Info("server asked", "message", p.Message)
	if s.c.cfg.OnEvent != nil {
		var actions []string
		for _, a := range p.Actions {
			actions = append(actions, a.Title)
		}
		s.c.cfg.OnEvent(Event{Message: &protocol.ShowMessageParams{Type: p.Type, Message: p.Message}, Actions: actions, Asked: true})
	}
	return protocol.Null[protocol.MessageActionItem](), nil // no one to choose
}

func (s serverRequests) WindowShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	if p.Type == protocol.MessageTypeError {
		msg := p.Message
		s.c.shown.Store(&msg)
	}
	if s.c.cfg.OnEvent != nil {
		s.c.cfg.OnEvent(Event{Message: p})
	}
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
	if s.c.takeEdit(p.Edit) {
		return protocol.ApplyWorkspaceEditResult{Applied: true}, nil
	}
	if s.c.cfg.ApplyEdit == nil {
		return protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: protocol.Ptr("lspkit does not apply edits from servers")}, nil
	}
	return s.c.cfg.ApplyEdit(ctx, p)
}

// WorkspaceDiagnosticRefresh re-pulls the open documents' diagnostics and
// asks for a new workspace pull.
func (s serverRequests) WorkspaceDiagnosticRefresh(context.Context) error {
	for uri, v := range s.c.docs.sentVersions() {
		s.c.pulls.pull(uri, v, 0)
	}
	s.c.pulls.kickWorkspace()
	return nil
}

// The other refresh requests are answered at once; this client keeps no
// state they would invalidate.
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
