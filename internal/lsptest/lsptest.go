// Package lsptest is a fake language server for lspkit's tests, built on
// the generated protocol dispatch: it runs in-process behind client.Launch
// (fast orchestrator tests under -race) or over stdio in a re-executed test
// binary (tests that need a real process: signals, exit codes, orphans). It
// can be told to publish in waves, delay, crash, hang, send garbage,
// register watchers and answer pulls — the faults a real server cannot be
// made to show. Real servers stay the happy path of the live suite.
package lsptest

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// server is one fake server on one connection.
type server struct {
	protocol.UnimplementedServer
	b    Behavior
	conn *transport.Conn
	exit func(code int, stderr string) // ends the server

	mu        sync.Mutex
	docs      map[protocol.DocumentURI]string
	versions  map[protocol.DocumentURI]int32    // the versions of docs
	closed    map[protocol.DocumentURI]struct{} // documents closed and not opened again
	lastAsked protocol.DocumentURI              // Items: the document of the last code action request
	saves     int
	known     map[string]string      // Behavior.Remember: path -> first line
	folders   []string               // Behavior.Folders: the workspace folders' names
	dirs      []protocol.DocumentURI // Behavior.Folders: the workspace folders, for workspace/symbol
	root      protocol.DocumentURI

	watchNotes, watchEvents int // workspace/didChangeWatchedFiles received, and their events
	pullsCancelled          int // Behavior.PullCancels: pulls answered ServerCancelled so far
	commands                int // workspace/executeCommand received

	// publishing counts the publishes under way (in their goroutines);
	// published is signalled, under mu, when it falls to zero: fake.settle
	// waits for it.
	publishing int
	published  *sync.Cond

	afterShutdown chan struct{} // Liar: closed when its request after the shutdown answer is answered
}

var _ protocol.Server = (*server)(nil)

// serve runs a fake server over rwc until the connection ends. exit ends
// the server process (or its in-process stand-in).
func serve(b Behavior, rwc io.ReadWriteCloser, raw io.Writer, exit func(code int, stderr string)) *server {
	s := &server{b: b, exit: exit, docs: map[protocol.DocumentURI]string{}, versions: map[protocol.DocumentURI]int32{}, closed: map[protocol.DocumentURI]struct{}{}, known: map[string]string{}}
	ready := make(chan struct{}) // s.conn is set: the handler may use it
	s.conn = transport.NewConn(rwc, transport.Options{
		Params: protocol.DecodeServerParams,
		Handler: transport.HandlerFunc(func(ctx context.Context, req *transport.Request) (any, error) {
			<-ready
			switch req.Method {
			case b.CrashOn:
				exit(3, "fake: crashing on "+req.Method)
				<-ctx.Done()
				return nil, ctx.Err()
			case b.HangOn:
				<-ctx.Done()
				return nil, ctx.Err()
			case b.RawOn:
				raw.Write([]byte(b.Raw))
				<-ctx.Done()
				return nil, ctx.Err()
			}
			if b.ExitOnShutdown && req.Method == protocol.ShutdownRequest.Method() {
				req.AfterReply(func() { exit(0, "") })
			}
			if b.Liar {
				if res, err, ok := s.lie(ctx, req); ok {
					return res, err
				}
			}
			if b.Delay > 0 && !req.Notification {
				select {
				case <-time.After(b.Delay):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			if req.Decoded == nil {
				return protocol.DispatchServer(ctx, s, req.Method, req.Params)
			}
			return protocol.CallServer(ctx, s, req.Method, req.Decoded)
		}),
	})
	close(ready)
	return s
}

// Initialize announces the capabilities.
func (s *server) Initialize(_ context.Context, p *protocol.InitializeParams) (protocol.InitializeResult, error) {
	caps := map[string]jsontext.Value{
		"textDocumentSync":   jsontext.Value(`{"openClose":true,"change":2,"save":{"includeText":false}}`),
		"hoverProvider":      jsontext.Value(`true`),
		"definitionProvider": jsontext.Value(`true`),
	}
	if s.b.Folders {
		caps["workspace"] = jsontext.Value(`{"workspaceFolders":{"supported":true,"changeNotifications":true}}`)
		if p.WorkspaceFolders != nil {
			if fs, ok := p.WorkspaceFolders.Get(); ok {
				s.mu.Lock()
				for _, f := range fs {
					s.folders = append(s.folders, f.Name)
					s.dirs = append(s.dirs, protocol.DocumentURI(f.URI))
				}
				s.mu.Unlock()
			}
		}
	}
	if p.WorkspaceFolders != nil {
		if fs, ok := p.WorkspaceFolders.Get(); ok && len(fs) > 0 {
			s.mu.Lock()
			s.root = protocol.DocumentURI(fs[0].URI)
			s.mu.Unlock()
		}
	}
	if s.b.Symbols {
		caps["documentSymbolProvider"] = jsontext.Value(`true`)
		caps["workspaceSymbolProvider"] = jsontext.Value(`true`)
	}
	if s.b.Liar {
		caps["documentSymbolProvider"] = jsontext.Value(`true`)
		caps["foldingRangeProvider"] = jsontext.Value(`true`)
		// Before the answer: a publish.
		s.conn.Notify(context.Background(), protocol.MethodTextDocumentPublishDiagnostics, jsontext.Value(`{"uri":"file:///early","diagnostics":[]}`))
	}
	if s.b.Actions {
		caps["codeActionProvider"] = jsontext.Value(`{"codeActionKinds":["quickfix","source.fixAll"]}`)
		caps["executeCommandProvider"] = jsontext.Value(`{"commands":["fake.fix"]}`)
	}
	if s.b.Items {
		for k, v := range itemsCapabilities {
			caps[k] = v
		}
	}
	if s.b.Pull {
		caps["diagnosticProvider"] = jsontext.Value(`{"interFileDependencies":false,"workspaceDiagnostics":false}`)
	}
	if s.b.Capabilities != "" {
		var extra map[string]jsontext.Value
		if err := json.Unmarshal([]byte(s.b.Capabilities), &extra); err != nil {
			return protocol.InitializeResult{}, err
		}
		for k, v := range extra {
			caps[k] = v
		}
	}
	raw, err := json.Marshal(caps)
	if err != nil {
		return protocol.InitializeResult{}, err
	}
	var res protocol.InitializeResult
	if err := json.Unmarshal(raw, &res.Capabilities); err != nil {
		return res, err
	}
	res.ServerInfo = &protocol.ServerInfo{Name: "lsptest"}
	return res, nil
}

// Initialized registers the watchers, if told to.
func (s *server) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	if s.b.Loading != "" {
		token := protocol.NewProgressTokenString("load")
		begin, _ := json.Marshal(map[string]any{"kind": "begin", "title": s.b.Loading})
		// Begun before the server answers anything else: requests wait on
		// it (the client's answer is read by the connection meanwhile).
		if _, err := protocol.WorkDoneProgressCreateRequest.Call(context.Background(), s.conn, protocol.WorkDoneProgressCreateParams{Token: token}); err != nil {
			return err
		}
		if err := protocol.ProgressNotification.Notify(context.Background(), s.conn, protocol.ProgressParams{Token: token, Value: begin}); err != nil {
			return err
		}
	}
	if s.b.Load != "" {
		token := protocol.NewProgressTokenString("loaded")
		if _, err := protocol.WorkDoneProgressCreateRequest.Call(context.Background(), s.conn, protocol.WorkDoneProgressCreateParams{Token: token}); err != nil {
			return err
		}
		for _, v := range []map[string]any{{"kind": "begin", "title": s.b.Load}, {"kind": "end"}} {
			value, _ := json.Marshal(v)
			if err := protocol.ProgressNotification.Notify(context.Background(), s.conn, protocol.ProgressParams{Token: token, Value: value}); err != nil {
				return err
			}
		}
	}
	if s.b.Ask != "" {
		go func() {
			protocol.ShowMessageNotification.Notify(context.Background(), s.conn, protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: s.b.Ask})
			protocol.ShowMessageRequest.Call(context.Background(), s.conn, protocol.ShowMessageRequestParams{Type: protocol.MessageTypeWarning, Message: s.b.Ask + "?",
				Actions: []protocol.MessageActionItem{{Title: "Yes"}, {Title: "No"}}})
		}()
	}
	if len(s.b.Watch) == 0 {
		return nil
	}
	go func() {
		var watchers []string
		for _, g := range s.b.Watch {
			watchers = append(watchers, fmt.Sprintf(`{"globPattern":%q}`, g))
		}
		opts := jsontext.Value(`{"watchers":[` + strings.Join(watchers, ",") + `]}`)
		protocol.RegistrationRequest.Call(context.Background(), s.conn, protocol.RegistrationParams{Registrations: []protocol.Registration{
			{ID: "watch", Method: protocol.DidChangeWatchedFilesNotification.Method(), RegisterOptions: opts},
		}})
	}()
	return nil
}

// WorkspaceDidChangeConfiguration accepts settings.
func (s *server) WorkspaceDidChangeConfiguration(context.Context, *protocol.DidChangeConfigurationParams) error {
	return nil
}

// WorkspaceDidChangeWatchedFiles accepts file events; with
// Behavior.Remember it reads the files they name.
func (s *server) WorkspaceDidChangeWatchedFiles(_ context.Context, p *protocol.DidChangeWatchedFilesParams) error {
	s.mu.Lock()
	s.watchNotes++
	s.watchEvents += len(p.Changes)
	first := s.watchNotes == 1
	s.mu.Unlock()
	if first && s.b.Reanalyze != "" {
		token := protocol.NewProgressTokenString("reanalyze")
		begin, _ := json.Marshal(map[string]any{"kind": "begin", "title": s.b.Reanalyze})
		go func() { // the client answers create while this notification's handler waits
			if _, err := protocol.WorkDoneProgressCreateRequest.Call(context.Background(), s.conn, protocol.WorkDoneProgressCreateParams{Token: token}); err == nil {
				protocol.ProgressNotification.Notify(context.Background(), s.conn, protocol.ProgressParams{Token: token, Value: begin})
			}
		}()
	}
	if !s.b.Remember {
		return nil
	}
	for _, e := range p.Changes {
		path, err := e.URI.Path()
		if err != nil {
			continue
		}
		data, err := os.ReadFile(path)
		s.mu.Lock()
		if err != nil {
			delete(s.known, path)
		} else {
			first, _, _ := strings.Cut(string(data), "\n")
			s.known[path] = first
		}
		s.mu.Unlock()
	}
	return nil
}

// knownFiles is what the server knows of files from watched-file events
// (Behavior.Remember): "name=first line", in path order.
func (s *server) knownFiles() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	for _, path := range slices.Sorted(maps.Keys(s.known)) {
		parts = append(parts, filepath.Base(path)+"="+s.known[path])
	}
	return strings.Join(parts, " ")
}

// TextDocumentDidOpen stores the text and publishes.
func (s *server) TextDocumentDidOpen(ctx context.Context, p *protocol.DidOpenTextDocumentParams) error {
	s.set(p.TextDocument.URI, p.TextDocument.Text)
	s.mu.Lock()
	_, reopened := s.closed[p.TextDocument.URI]
	delete(s.closed, p.TextDocument.URI)
	s.versions[p.TextDocument.URI] = p.TextDocument.Version
	s.mu.Unlock()
	if reopened && s.b.LateClear {
		clear := protocol.PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}}
		if err := protocol.PublishDiagnosticsNotification.Notify(ctx, s.conn, clear); err != nil {
			return err
		}
	}
	s.publish(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
	return nil
}

// TextDocumentDidChange applies the changes and publishes.
func (s *server) TextDocumentDidChange(_ context.Context, p *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	text := s.docs[p.TextDocument.URI]
	for _, ch := range p.ContentChanges {
		if whole, ok := ch.AsTextDocumentContentChangeWholeDocument(); ok {
			text = whole.Text
		} else if part, ok := ch.AsTextDocumentContentChangePartial(); ok {
			text = apply(text, part.Range, part.Text)
		}
	}
	s.docs[p.TextDocument.URI] = text
	s.versions[p.TextDocument.URI] = p.TextDocument.Version
	s.mu.Unlock()
	s.publish(p.TextDocument.URI, p.TextDocument.Version, text)
	return nil
}

// TextDocumentDidClose forgets the document.
func (s *server) TextDocumentDidClose(_ context.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	delete(s.docs, p.TextDocument.URI)
	s.closed[p.TextDocument.URI] = struct{}{}
	s.mu.Unlock()
	return nil
}

// TextDocumentDidSave counts saves.
func (s *server) TextDocumentDidSave(context.Context, *protocol.DidSaveTextDocumentParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saves++
	return nil
}

// TextDocumentDiagnostic answers a pull.
func (s *server) TextDocumentDiagnostic(_ context.Context, p *protocol.DocumentDiagnosticParams) (protocol.DocumentDiagnosticReport, error) {
	s.mu.Lock()
	cancel := s.pullsCancelled < s.b.PullCancels
	if cancel {
		s.pullsCancelled++
	}
	s.mu.Unlock()
	if cancel {
		return protocol.DocumentDiagnosticReport{}, &transport.Error{Code: int64(protocol.LSPErrorCodesServerCancelled), Message: "busy: pull again", Data: jsontext.Value(`{"retriggerRequest":true}`)}
	}
	text, _ := s.get(p.TextDocument.URI)
	return protocol.NewDocumentDiagnosticReportRelatedFullDocumentDiagnosticReport(protocol.RelatedFullDocumentDiagnosticReport{
		Kind: protocol.LiteralFull{}, Items: s.diagnose(p.TextDocument.URI, text),
	}), nil
}

// TextDocumentHover answers with the document's line at the position.
func (s *server) TextDocumentHover(_ context.Context, p *protocol.HoverParams) (protocol.Nullable[protocol.Hover], error) {
	text, _ := s.get(p.TextDocument.URI)
	lines := strings.Split(text, "\n")
	if int(p.Position.Line) >= len(lines) || strings.TrimSpace(lines[p.Position.Line]) == "" {
		return protocol.Null[protocol.Hover](), nil
	}
	value := fmt.Sprintf("line %d: %s", p.Position.Line+1, lines[p.Position.Line])
	if s.b.Remember {
		value += "\nknown: " + s.knownFiles()
	}
	if s.b.Folders {
		s.mu.Lock()
		value += "\nfolders: " + strings.Join(s.folders, ",")
		s.mu.Unlock()
	}
	return protocol.NewNullable(protocol.Hover{Contents: protocol.NewHoverContentsMarkupContent(protocol.MarkupContent{
		Kind: protocol.MarkupKindPlainText, Value: value,
	})}), nil
}

// TextDocumentDefinition answers with the position itself.
func (s *server) TextDocumentDefinition(_ context.Context, p *protocol.DefinitionParams) (protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice], error) {
	loc := protocol.Location{URI: p.TextDocument.URI, Range: protocol.Range{Start: p.Position, End: p.Position}}
	return protocol.NewNullable(protocol.NewDefinitionOrDefinitionLinkSliceDefinition(protocol.NewDefinitionLocation(loc))), nil
}

// TextDocumentCodeAction offers the fixes of Behavior.Actions.
func (s *server) TextDocumentCodeAction(_ context.Context, p *protocol.CodeActionParams) (protocol.Nullable[[]protocol.CommandOrCodeAction], error) {
	text, _ := s.get(p.TextDocument.URI)
	var out []protocol.CommandOrCodeAction
	if s.b.Items {
		s.mu.Lock()
		s.lastAsked = p.TextDocument.URI
		s.mu.Unlock()
		out = append(out, s.itemsCodeAction(p)...)
	}
	if slices.Contains(p.Context.Only, protocol.CodeActionKindSourceFixAll) {
		var edits []protocol.TextEdit
		for _, d := range ErrorLines(text) {
			edits = append(edits, protocol.TextEdit{Range: protocol.Range{Start: d.Range.Start, End: protocol.Position{Line: d.Range.Start.Line, Character: d.Range.Start.Character + 5}}, NewText: "FIXED"})
		}
		if len(edits) > 0 {
			out = append(out, protocol.NewCommandOrCodeActionCodeAction(protocol.CodeAction{
				Title: "Fix all ERRORs", Kind: protocol.Ptr(protocol.CodeActionKindSourceFixAll),
				Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{p.TextDocument.URI: edits}},
			}))
		}
	}
	for _, d := range ErrorLines(text) {
		if d.Range.Start.Line < p.Range.Start.Line || d.Range.Start.Line > p.Range.End.Line {
			continue
		}
		edit, err := fixEdit(p.TextDocument.URI, d.Range)
		if err != nil {
			return protocol.Null[[]protocol.CommandOrCodeAction](), err
		}
		args, err := json.Marshal(edit)
		if err != nil {
			return protocol.Null[[]protocol.CommandOrCodeAction](), err
		}
		out = append(out,
			protocol.NewCommandOrCodeActionCodeAction(protocol.CodeAction{
				Title: "Fix ERROR", Kind: protocol.Ptr(protocol.CodeActionKindQuickFix), IsPreferred: protocol.Ptr(true),
				Diagnostics: []protocol.Diagnostic{d}, Edit: &edit,
			}),
			protocol.NewCommandOrCodeActionCodeAction(protocol.CodeAction{
				Title: "Fix ERROR by command", Kind: protocol.Ptr(protocol.CodeActionKindQuickFix),
				Diagnostics: []protocol.Diagnostic{d},
				Command:     &protocol.Command{Title: "Fix ERROR", Command: "fake.fix", Arguments: []jsontext.Value{args}},
			}))
	}
	return protocol.NewNullable(out), nil
}

// lie answers the requests a Liar breaks the protocol on (ok), and after
// the document opens sends what a client never offered.
func (s *server) lie(ctx context.Context, req *transport.Request) (any, error, bool) {
	notify := func(method, params string) {
		s.conn.Notify(context.Background(), method, jsontext.Value(params))
	}
	switch req.Method {
	case protocol.MethodTextDocumentDidOpen:
		open, ok := req.Decoded.(*protocol.DidOpenTextDocumentParams)
		if !ok {
			open = new(protocol.DidOpenTextDocumentParams)
			json.Unmarshal(req.Params, open, json.RejectUnknownMembers(false))
		}
		uri := fmt.Sprintf("%q", open.TextDocument.URI)
		go func() {
			notify(protocol.MethodTextDocumentPublishDiagnostics, `{"uri":`+uri+`,"version":99,"diagnostics":[{"range":{"start":{"line":0,"character":50},"end":{"line":0,"character":51}},"severity":9}]}`)
			protocol.DiagnosticRefreshRequest.Call(context.Background(), s.conn, protocol.NoParams{})
			s.conn.Call(context.Background(), protocol.MethodTextDocumentHover, jsontext.Value(`{"textDocument":{"uri":`+uri+`},"position":{"line":0,"character":0}}`), nil)
			s.conn.Call(context.Background(), protocol.MethodClientRegisterCapability, jsontext.Value(`{"registrations":[{"id":"h","method":"textDocument/hover"}]}`), nil)
			notify(protocol.MethodProgress, `{"token":"nobody","value":{"kind":"begin","title":"x"}}`)
			s.conn.Call(context.Background(), protocol.MethodWindowWorkDoneProgressCreate, jsontext.Value(`{"token":"made"}`), nil)
			notify(protocol.MethodProgress, `{"token":"made","value":{"kind":"begin","title":"x"}}`)
			notify(protocol.MethodProgress, `{"token":"made","value":{"kind":"end"}}`)
			notify(protocol.MethodProgress, `{"token":"made","value":{"kind":"end"}}`)
		}()
		return nil, nil, false
	case protocol.MethodTextDocumentLinkedEditingRange:
		return jsontext.Value("null"), nil, true
	case protocol.MethodTextDocumentDocumentSymbol:
		// Advertised, then MethodNotFound — after a cancellation, if one
		// comes soon (the fake's own pace): not RequestCancelled either.
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
		return nil, transport.Errorf(transport.CodeMethodNotFound, "method not found: %s", req.Method), true
	case protocol.MethodTextDocumentFoldingRange:
		<-ctx.Done()
		return nil, ctx.Err(), true
	case protocol.MethodShutdown:
		done := make(chan struct{})
		s.mu.Lock()
		s.afterShutdown = done
		s.mu.Unlock()
		req.AfterReply(func() {
			go func() {
				defer close(done)
				s.conn.Call(context.Background(), protocol.MethodWorkspaceConfiguration, jsontext.Value(`{"items":[{}]}`), nil)
			}()
		})
	}
	return nil, nil, false
}

// fixEdit is the edit of "Fix ERROR" for the finding at rng of uri.
func fixEdit(uri protocol.DocumentURI, rng protocol.Range) (protocol.WorkspaceEdit, error) {
	path, err := uri.Path()
	if err != nil {
		return protocol.WorkspaceEdit{}, err
	}
	other, err := protocol.FileURI(filepath.Join(filepath.Dir(path), "other.fk"))
	if err != nil {
		return protocol.WorkspaceEdit{}, err
	}
	data, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "other.fk"))
	end := protocol.Position{Line: uint32(strings.Count(string(data), "\n"))}
	word := protocol.Range{Start: rng.Start, End: protocol.Position{Line: rng.Start.Line, Character: rng.Start.Character + 5}}
	return protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{
		uri:   {{Range: word, NewText: "fixed"}},
		other: {{Range: protocol.Range{Start: end, End: end}, NewText: fmt.Sprintf("fixed %s line %d\n", filepath.Base(path), rng.Start.Line+1)}},
	}}, nil
}

// WorkspaceExecuteCommand runs fake.fix: the edit it carries goes back to
// the client with workspace/applyEdit; and fake.settle, which returns once
// the findings are published (as gopls's diagnose_files).
func (s *server) WorkspaceExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (jsontext.Value, error) {
	s.mu.Lock()
	s.commands++
	s.mu.Unlock()
	if p.Command == "fake.settle" {
		// As gopls's diagnose_files: the answer follows the publishes for
		// what the server has been sent.
		s.mu.Lock()
		for s.publishing > 0 {
			s.settled().Wait()
		}
		s.mu.Unlock()
		return jsontext.Value("null"), nil
	}
	if p.Command != "fake.fix" || len(p.Arguments) != 1 {
		return nil, fmt.Errorf("fake: unknown command %q", p.Command)
	}
	var edit protocol.WorkspaceEdit
	if err := json.Unmarshal(p.Arguments[0], &edit); err != nil {
		return nil, err
	}
	res, err := protocol.ApplyWorkspaceEditRequest.Call(ctx, s.conn, protocol.ApplyWorkspaceEditParams{Label: protocol.Ptr("Fix ERROR"), Edit: edit})
	if err != nil {
		return nil, err
	}
	if !res.Applied {
		return nil, fmt.Errorf("fake: the client did not apply the fix")
	}
	return jsontext.Value("null"), nil
}

// WorkspaceDidChangeWorkspaceFolders takes the folders added and removed.
func (s *server) WorkspaceDidChangeWorkspaceFolders(_ context.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range p.Event.Removed {
		s.folders = slices.DeleteFunc(s.folders, func(n string) bool { return n == f.Name })
		s.dirs = slices.DeleteFunc(s.dirs, func(u protocol.DocumentURI) bool { return u == protocol.DocumentURI(f.URI) })
	}
	for _, f := range p.Event.Added {
		s.folders = append(s.folders, f.Name)
		s.dirs = append(s.dirs, protocol.DocumentURI(f.URI))
	}
	return nil
}

// Shutdown answers null.
func (s *server) Shutdown(context.Context) error { return nil }

// Exit ends the server with status 0 (1 for a liar).
func (s *server) Exit(context.Context) error {
	if s.b.IgnoreExit {
		return nil
	}
	code := 0
	if s.b.Liar {
		code = 1
		s.mu.Lock()
		done := s.afterShutdown
		s.mu.Unlock()
		if done != nil {
			select { // its request after the shutdown answer goes out first
			case <-done:
			case <-time.After(5 * time.Second):
			}
		}
	}
	s.exit(code, "")
	return nil
}

func (s *server) set(uri protocol.DocumentURI, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[uri] = text
}

func (s *server) get(uri protocol.DocumentURI) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text, ok := s.docs[uri]
	return text, ok
}

func (s *server) diagnose(uri protocol.DocumentURI, text string) []protocol.Diagnostic {
	switch {
	case s.b.Diagnose != nil:
		return s.b.Diagnose(text)
	case s.b.Linked:
		return s.linked(uri, text)
	}
	return ErrorLines(text)
}

// linked is Behavior.Linked's diagnostics of the document at uri.
func (s *server) linked(uri protocol.DocumentURI, text string) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	path, err := uri.Path()
	if err != nil {
		return out
	}
	libURI, _ := protocol.FileURI(filepath.Join(filepath.Dir(path), "lib.fk"))
	lib, open := s.get(libURI)
	if !open {
		data, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "lib.fk"))
		lib = string(data)
	}
	defs := map[string]string{}
	for _, line := range strings.Split(lib, "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "def" {
			defs[f[1]] = f[2]
		}
	}
	diag := func(i int, line string, col int, msg string) {
		out = append(out, protocol.Diagnostic{
			Range:    protocol.Range{Start: protocol.Position{Line: uint32(i), Character: utf16Len(line[:col])}, End: protocol.Position{Line: uint32(i), Character: utf16Len(line)}},
			Severity: protocol.Ptr(protocol.DiagnosticSeverityError),
			Source:   protocol.Ptr("fake"),
			Message:  protocol.NewStringOrMarkupContentString(msg),
		})
	}
	for i, line := range strings.Split(text, "\n") {
		if col := strings.Index(line, "ERROR"); col >= 0 {
			diag(i, line, col, strings.TrimSpace(line[col:]))
		}
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "call" {
			continue
		}
		switch want, ok := defs[f[1]]; {
		case !ok:
			diag(i, line, 0, "undefined: "+f[1])
		case want != f[2]:
			diag(i, line, 0, fmt.Sprintf("%s takes %s arguments, not %s", f[1], want, f[2]))
		}
	}
	return out
}

// publish sends the diagnostics of a version, in waves, after the delay.
func (s *server) publish(uri protocol.DocumentURI, version int32, text string) {
	if s.b.Pull && s.b.Push == nil || s.b.Silent || s.b.SilentOn != nil && s.b.SilentOn(text) {
		return
	}
	if s.b.BadPublish {
		raw := fmt.Sprintf(`{"uri":%q,"version":%d,"diagnostics":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"severity":1}]}`, uri, version)
		go s.conn.Notify(context.Background(), protocol.MethodTextDocumentPublishDiagnostics, jsontext.Value(raw))
		return
	}
	diags := s.diagnose(uri, text)
	if s.b.Pull {
		// A server that pulls and pushes publishes as part of taking the
		// change, before it answers the pull that follows: the client
		// learns that pushes are complete from nothing else.
		p := protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: s.b.Push(text), Version: &version}
		protocol.PublishDiagnosticsNotification.Notify(context.Background(), s.conn, p)
		return
	}
	waves := max(s.b.Waves, 1)
	s.mu.Lock()
	s.publishing++
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			if s.publishing--; s.publishing == 0 {
				s.settled().Broadcast()
			}
			s.mu.Unlock()
		}()
		if s.b.Delay > 0 {
			time.Sleep(s.b.Delay) // the fake's own pace, not synchronization
		}
		for w := 1; w <= waves; w++ {
			if w > 1 && s.b.WaveGap > 0 {
				time.Sleep(s.b.WaveGap) // the fake's own pace
			}
			n := len(diags) * w / waves
			p := protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: slices.Clone(diags[:n])}
			if !s.b.Unversioned {
				p.Version = &version
			}
			if err := protocol.PublishDiagnosticsNotification.Notify(context.Background(), s.conn, p); err != nil {
				return
			}
		}
	}()
}

// settled is the condition publishing's fall to zero signals; s.mu is
// held.
func (s *server) settled() *sync.Cond {
	if s.published == nil {
		s.published = sync.NewCond(&s.mu)
	}
	return s.published
}

// apply replaces rng of text (UTF-16 columns) with repl.
func apply(text string, rng protocol.Range, repl string) string {
	start, end := offset(text, rng.Start), offset(text, rng.End)
	return text[:start] + repl + text[end:]
}

// offset is the byte offset of a UTF-16 position in text.
func offset(text string, p protocol.Position) int {
	line, i := uint32(0), 0
	for line < p.Line && i < len(text) {
		if text[i] == '\n' {
			line++
		}
		i++
	}
	col := uint32(0)
	for j, r := range text[i:] {
		if col >= p.Character || r == '\n' {
			return i + j
		}
		col++
		if r >= 0x10000 {
			col++
		}
	}
	return len(text)
}

// Main runs the fake server named by the LSPKIT_FAKE environment variable
// over stdin and stdout and exits, when the test binary is re-executed as
// a server; it returns at once when the variable names none of behaviors.
func Main(behaviors map[string]Behavior) {
	b, ok := behaviors[os.Getenv("LSPKIT_FAKE")]
	if !ok {
		return
	}
	exit := func(code int, stderr string) {
		if stderr != "" {
			fmt.Fprintln(os.Stderr, stderr)
		}
		os.Exit(code)
	}
	if b.Before != nil {
		b.Before()
	}
	s := serve(b, stdio{os.Stdin, os.Stdout}, os.Stdout, exit)
	<-s.conn.Done()
	os.Exit(0)
}

type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }
