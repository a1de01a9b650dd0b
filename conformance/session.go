package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// SessionOptions say which server to score and on what.
type SessionOptions struct {
	// Command starts the server (its Dir is the workspace root).
	Command client.Command
	// Launch starts it; nil starts a process (client.LaunchProcess).
	Launch client.Launch
	// Root is the workspace; File the document the script aims at
	// (relative to Root), LanguageID its language.
	Root, File, LanguageID string
	// Timeout bounds each request's answer (10 s).
	Timeout time.Duration
	// InitializationOptions and Settings are the server's configuration
	// (workspace/configuration is answered from Settings).
	InitializationOptions jsontext.Value
	Settings              jsontext.Value
	// Lspkit is lspkit's version, for the card.
	Lspkit string
	// Transcript, when set, receives the session as a transcript.
	Transcript io.Writer
	// Name names the server on the card when it does not say (serverInfo).
	Name string
}

// ErrCouldNotRun wraps the reasons a session could not score a server:
// it did not start, or ended or hung before answering initialize.
var ErrCouldNotRun = errors.New("could not run the server")

// killWait bounds RunSession's wait for its killed server to be gone.
const killWait = 5 * time.Second

// RunSession runs the scripted session against a live server and returns
// its report card. An error wrapping ErrCouldNotRun means there is no card
// (exit status 2 of lspkit conform); a server that fails later gets a card
// that says where the session stopped.
//
// The server is killed, and waited for (at most killWait), before it
// returns.
func RunSession(ctx context.Context, v *protocol.Validator, opts SessionOptions) (*Card, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = defaultScoreTimeout
	}
	launch := opts.Launch
	if launch == nil {
		launch = client.LaunchProcess
	}
	text, err := os.ReadFile(filepath.Join(opts.Root, opts.File))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCouldNotRun, err)
	}
	proc, err := launch(ctx, opts.Command)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCouldNotRun, err)
	}
	defer func() {
		// Killed and gone before the session returns: a caller that exits
		// next leaves no server behind (a SIGKILL alone is delivered in
		// its own time; seen under load, the server still running).
		proc.Kill()
		t := time.NewTimer(killWait)
		defer t.Stop()
		select {
		case <-proc.Done():
		case <-t.C:
		}
	}()
	facts := Facts{Timeout: opts.Timeout}
	sess := &session{opts: opts, v: v, text: string(text), published: make(chan struct{}, 1), pullRegistered: make(chan struct{}, 1)}
	sess.scorer = NewScorer(v, facts)
	if opts.Transcript != nil {
		sess.w = NewWriter(opts.Transcript)
	}
	sess.start = time.Now()
	rec := &recorder{rwc: proc.Stdio(), s: sess}
	sess.conn = transport.NewConn(rec, transport.Options{Handler: transport.HandlerFunc(sess.handle), MaxConcurrentRequests: 64})
	defer sess.conn.Close()
	stopped := sess.run(ctx, proc)
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if !sess.initialized {
		reason := stopped
		if reason == "" {
			reason = "no answer to initialize"
		}
		return nil, fmt.Errorf("%w: %s", ErrCouldNotRun, reason)
	}
	card := sess.scorer.Card()
	card.Lspkit, card.Stopped = opts.Lspkit, stopped
	if card.Server == "" {
		card.Server = opts.Name
	}
	return card, nil
}

// session is one scripted run.
type session struct {
	opts   SessionOptions
	v      *protocol.Validator
	conn   *transport.Conn
	text   string
	start  time.Time
	w      *Writer
	caps   protocol.ServerCapabilities
	uri    protocol.DocumentURI
	ident  string
	pos    protocol.Position
	encode protocol.PositionEncodingKind

	mu          sync.Mutex
	scorer      *Scorer
	initialized bool
	published   chan struct{}                  // a publish for the document arrived
	onRequest   func(method string, id string) // sees each client request as it goes out
	awaitID     string                         // a request whose answer closes awaited
	awaited     chan struct{}
	registered  map[string]bool // methods the server registered dynamically
	// pullRegistered hears of a registration of pull diagnostics.
	pullRegistered chan struct{}
}

// supports reports whether the server offers method: in its capabilities
// or by a dynamic registration.
func (s *session) supports(method string) bool {
	if s.caps.Supports(method) {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.registered[method]
}

// message records and scores one message.
func (s *session) message(dir string, msg []byte) {
	ms := time.Since(s.start).Milliseconds()
	s.mu.Lock()
	s.scorer.Message(dir, ms, msg)
	hook := s.onRequest
	s.mu.Unlock()
	if s.w != nil {
		s.w.Message(dir, msg)
	}
	if dir == ClientToServer && hook != nil {
		var env struct {
			ID     jsontext.Value `json:"id,omitzero"`
			Method string         `json:"method"`
		}
		if json.Unmarshal(msg, &env, json.RejectUnknownMembers(false)) == nil && env.ID != nil && env.Method != "" {
			hook(env.Method, string(env.ID))
		}
	}
	if dir == ServerToClient {
		var env struct {
			ID     jsontext.Value `json:"id,omitzero"`
			Method string         `json:"method"`
			Params struct {
				URI         protocol.DocumentURI `json:"uri"`
				Diagnostics jsontext.Value       `json:"diagnostics"`
			} `json:"params"`
		}
		if json.Unmarshal(msg, &env, json.RejectUnknownMembers(false)) != nil {
			return
		}
		if env.Method == "" && env.ID != nil {
			s.mu.Lock()
			if s.awaited != nil && string(env.ID) == s.awaitID {
				close(s.awaited)
				s.awaited = nil
			}
			s.mu.Unlock()
		}
		if env.Method == protocol.MethodTextDocumentPublishDiagnostics && env.Params.URI.Canonical() == s.uri.Canonical() {
			select {
			case s.published <- struct{}{}:
			default:
			}
		}
	}
}

// handle answers the server's requests as lspkit's client would.
func (s *session) handle(_ context.Context, req *transport.Request) (any, error) {
	switch req.Method {
	case protocol.MethodWorkspaceConfiguration:
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		json.Unmarshal(req.Params, &p, json.RejectUnknownMembers(false))
		out := make([]jsontext.Value, len(p.Items))
		for i, item := range p.Items {
			out[i] = section(s.opts.Settings, item.Section)
		}
		return out, nil
	case protocol.MethodWorkspaceWorkspaceFolders:
		root, _ := protocol.FileURI(s.opts.Root)
		return []protocol.WorkspaceFolder{{URI: protocol.URI(root), Name: filepath.Base(s.opts.Root)}}, nil
	case protocol.MethodWorkspaceApplyEdit:
		return map[string]any{"applied": false, "failureReason": "lspkit conform applies no edits"}, nil
	case protocol.MethodWindowShowDocument:
		return map[string]any{"success": false}, nil
	case protocol.MethodClientRegisterCapability:
		var p struct {
			Registrations []struct {
				Method string `json:"method"`
			} `json:"registrations"`
		}
		json.Unmarshal(req.Params, &p, json.RejectUnknownMembers(false))
		s.mu.Lock()
		if s.registered == nil {
			s.registered = map[string]bool{}
		}
		for _, r := range p.Registrations {
			s.registered[r.Method] = true
			if r.Method == protocol.MethodTextDocumentDiagnostic {
				select {
				case s.pullRegistered <- struct{}{}:
				default:
				}
			}
		}
		s.mu.Unlock()
		return jsontext.Value("null"), nil
	case protocol.MethodWindowWorkDoneProgressCreate, protocol.MethodClientUnregisterCapability,
		protocol.MethodWindowShowMessageRequest, protocol.MethodWorkspaceDiagnosticRefresh, protocol.MethodWorkspaceSemanticTokensRefresh,
		protocol.MethodWorkspaceInlayHintRefresh, protocol.MethodWorkspaceCodeLensRefresh, protocol.MethodWorkspaceInlineValueRefresh,
		protocol.MethodWorkspaceFoldingRangeRefresh:
		return jsontext.Value("null"), nil
	}
	if req.Notification {
		return nil, nil
	}
	return nil, transport.Errorf(transport.CodeMethodNotFound, "lspkit conform does not implement %s", req.Method)
}

// section is the settings at a dotted section ("" for all of them), or
// null.
func section(settings jsontext.Value, name string) jsontext.Value {
	if settings == nil {
		return jsontext.Value("null")
	}
	v := settings
	for _, part := range strings.Split(name, ".") {
		if part == "" {
			continue
		}
		var m map[string]jsontext.Value
		if json.Unmarshal(v, &m) != nil {
			return jsontext.Value("null")
		}
		next, ok := m[part]
		if !ok {
			return jsontext.Value("null")
		}
		v = next
	}
	return v
}

// call sends a request and waits up to the timeout; the answer is scored
// as it is read.
func (s *session) call(ctx context.Context, method string, params any) (jsontext.Value, error) {
	return s.callWithin(ctx, s.opts.Timeout, method, params)
}

// callWithin is call with its own time limit.
func (s *session) callWithin(ctx context.Context, limit time.Duration, method string, params any) (jsontext.Value, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var out jsontext.Value
	err := s.conn.CallRaw(ctx, method, params, func(b []byte) error { out = bytes.Clone(b); return nil })
	if errors.Is(err, context.DeadlineExceeded) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		s.mu.Lock()
		s.scorer.fail(CheckAnswered, fmt.Sprintf("%s not answered in %v (then cancelled)", method, limit))
		s.mu.Unlock()
	}
	return out, err
}

// run is the script; it returns where it stopped, or "".
func (s *session) run(ctx context.Context, proc client.Proc) string {
	root, err := protocol.FileURI(s.opts.Root)
	if err != nil {
		return err.Error()
	}
	if s.uri, err = protocol.FileURI(filepath.Join(s.opts.Root, s.opts.File)); err != nil {
		return err.Error()
	}
	folders := []protocol.WorkspaceFolder{{URI: protocol.URI(root), Name: filepath.Base(s.opts.Root)}}
	init := protocol.InitializeParams{
		ProcessID:             protocol.NewNullable(int32(os.Getpid())),
		ClientInfo:            &protocol.ClientInfo{Name: "lspkit conform", Version: protocol.Ptr(s.opts.Lspkit)},
		Capabilities:          client.Capabilities(),
		InitializationOptions: s.opts.InitializationOptions,
		WorkspaceFolders:      protocol.Ptr(protocol.NewNullable(folders)),
	}
	//lint:ignore SA1019 older servers still read rootUri
	init.RootURI = protocol.NewNullable(root)
	res, err := s.callWithin(ctx, 6*s.opts.Timeout, protocol.MethodInitialize, init) // a cold start may index
	if err != nil {
		return stoppedBy("initialize", err, proc)
	}
	var result protocol.InitializeResult
	if err := json.Unmarshal(res, &result, json.RejectUnknownMembers(false)); err != nil {
		// The card lists what is wrong with it; the script goes on with
		// what can be read.
		var loose struct {
			Capabilities jsontext.Value `json:"capabilities"`
		}
		json.Unmarshal(res, &loose, json.RejectUnknownMembers(false))
		json.Unmarshal(loose.Capabilities, &result.Capabilities, json.RejectUnknownMembers(false))
	}
	s.mu.Lock()
	s.initialized = true
	s.mu.Unlock()
	s.caps = result.Capabilities
	s.encode = protocol.PositionEncodingKindUTF16
	if s.caps.PositionEncoding != nil {
		s.encode = *s.caps.PositionEncoding
	}
	if err := s.conn.Notify(ctx, protocol.MethodInitialized, jsontext.Value("{}")); err != nil {
		return stoppedBy("initialized", err, proc)
	}
	settings := s.opts.Settings
	if settings == nil {
		settings = jsontext.Value("{}")
	}
	s.conn.Notify(ctx, protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": settings})

	// The document: open, wait for its diagnostics, change, save.
	s.ident, s.pos = aim(s.text, client.Mapper{Encoding: s.encode})
	open := map[string]any{"textDocument": map[string]any{"uri": s.uri, "languageId": s.opts.LanguageID, "version": 1, "text": s.text}}
	if err := s.conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, open); err != nil {
		return stoppedBy("didOpen", err, proc)
	}
	// A server that is asked for diagnostics (pull) is asked; one that
	// publishes them is waited for.
	pull := func() {
		s.call(ctx, protocol.MethodTextDocumentDiagnostic, map[string]any{"textDocument": map[string]any{"uri": s.uri}})
	}
	settle := func() {
		if s.supports(protocol.MethodTextDocumentDiagnostic) {
			pull()
			return
		}
		// A publish, or a registration of pull diagnostics (pyright
		// registers them after initialized), whichever comes first.
		select {
		case <-s.published:
		case <-s.pullRegistered:
			pull()
		case <-time.After(s.opts.Timeout):
		case <-ctx.Done():
		}
	}
	settle()
	changed := s.text + "\n"
	lines := strings.Count(s.text, "\n")
	var change any = map[string]any{"text": changed}
	if syncKindOf(s.caps) == protocol.TextDocumentSyncKindIncremental {
		last := s.text[strings.LastIndexByte(s.text, '\n')+1:]
		end := protocol.Position{Line: uint32(lines), Character: client.Mapper{Encoding: s.encode}.Column(last, len([]rune(last)))}
		change = map[string]any{"range": protocol.Range{Start: end, End: end}, "text": "\n"}
	}
	if err := s.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument": map[string]any{"uri": s.uri, "version": 2}, "contentChanges": []any{change},
	}); err != nil {
		return stoppedBy("didChange", err, proc)
	}
	settle()
	s.conn.Notify(ctx, protocol.MethodTextDocumentDidSave, map[string]any{"textDocument": map[string]any{"uri": s.uri}, "text": changed})
	s.text = changed

	// Every request the server advertises that the script can aim.
	if stop := s.requests(ctx, proc); stop != "" {
		return stop
	}

	s.conn.Notify(ctx, protocol.MethodTextDocumentDidClose, map[string]any{"textDocument": map[string]any{"uri": s.uri}})
	if _, err := s.call(ctx, protocol.MethodShutdown, nil); err != nil {
		return stoppedBy("shutdown", err, proc)
	}
	s.conn.Notify(ctx, protocol.MethodExit, nil)
	// A server given exit ends at once or not at all: the wait is not
	// the answers' (which a loaded machine stretches), and the card
	// reads the same whatever they are given.
	exitWait := min(s.opts.Timeout, maxExitWait)
	select {
	case <-proc.Done():
	case <-time.After(exitWait):
		proc.Kill()
		<-proc.Done()
		s.mu.Lock()
		s.scorer.fail(CheckExit, fmt.Sprintf("still running %v after exit: killed", exitWait))
		s.mu.Unlock()
		return ""
	}
	es := proc.Exit()
	s.mu.Lock()
	s.scorer.facts.Exited, s.scorer.facts.ExitCode, s.scorer.facts.Complete = true, es.Code, true
	s.mu.Unlock()
	return ""
}

// stoppedBy says why the script stopped at step.
func stoppedBy(step string, err error, proc client.Proc) string {
	select {
	case <-proc.Done():
		return fmt.Sprintf("at %s: the server ended (%s)", step, proc.Exit())
	default:
	}
	return fmt.Sprintf("at %s: %v", step, err)
}

// syncKindOf is the server's document sync kind.
func syncKindOf(caps protocol.ServerCapabilities) protocol.TextDocumentSyncKind {
	if k, ok := caps.TextDocumentSync.AsTextDocumentSyncKind(); ok {
		return k
	}
	if o, ok := caps.TextDocumentSync.AsTextDocumentSyncOptions(); ok && o.Change != nil {
		return *o.Change
	}
	return protocol.TextDocumentSyncKindNone
}

// unadvertised are requests the script can aim at a document, tried in
// order for the one the server does not advertise.
var unadvertised = []string{
	protocol.MethodTextDocumentLinkedEditingRange, protocol.MethodTextDocumentMoniker, protocol.MethodTextDocumentDocumentColor,
	protocol.MethodTextDocumentDocumentLink, protocol.MethodTextDocumentCodeLens, protocol.MethodTextDocumentFoldingRange,
	protocol.MethodTextDocumentDocumentHighlight, protocol.MethodTextDocumentHover,
}

// requests sends every request the server advertises and one it does not.
func (s *session) requests(ctx context.Context, proc client.Proc) string {
	doc := map[string]any{"uri": s.uri}
	at := map[string]any{"textDocument": doc, "position": s.pos}
	lines := strings.Count(s.text, "\n")
	whole := protocol.Range{End: protocol.Position{Line: uint32(lines)}}
	line := protocol.Range{Start: protocol.Position{Line: s.pos.Line}, End: protocol.Position{Line: s.pos.Line + 1}}
	type req struct {
		method string
		params any
		then   func(jsontext.Value)
	}
	var script []req
	add := func(method string, params any, then func(jsontext.Value)) {
		if s.caps.Supports(method) {
			script = append(script, req{method, params, then})
		}
	}
	first := func(method string, params func(item jsontext.Value) any) func(jsontext.Value) {
		return func(res jsontext.Value) {
			var items []jsontext.Value
			if json.Unmarshal(res, &items) != nil || len(items) == 0 {
				return
			}
			s.call(ctx, method, params(items[0]))
		}
	}
	add(protocol.MethodTextDocumentHover, at, nil)
	add(protocol.MethodTextDocumentDefinition, at, nil)
	add(protocol.MethodTextDocumentDeclaration, at, nil)
	add(protocol.MethodTextDocumentTypeDefinition, at, nil)
	add(protocol.MethodTextDocumentImplementation, at, nil)
	add(protocol.MethodTextDocumentReferences, map[string]any{"textDocument": doc, "position": s.pos, "context": map[string]any{"includeDeclaration": true}}, nil)
	add(protocol.MethodTextDocumentDocumentHighlight, at, nil)
	add(protocol.MethodTextDocumentDocumentSymbol, map[string]any{"textDocument": doc}, nil)
	add(protocol.MethodWorkspaceSymbol, map[string]any{"query": s.ident}, nil)
	add(protocol.MethodTextDocumentFoldingRange, map[string]any{"textDocument": doc}, nil)
	add(protocol.MethodTextDocumentSelectionRange, map[string]any{"textDocument": doc, "positions": []protocol.Position{s.pos}}, nil)
	add(protocol.MethodTextDocumentSemanticTokensFull, map[string]any{"textDocument": doc}, nil)
	add(protocol.MethodTextDocumentInlayHint, map[string]any{"textDocument": doc, "range": whole}, nil)
	add(protocol.MethodTextDocumentCodeAction, map[string]any{"textDocument": doc, "range": line, "context": map[string]any{"diagnostics": []any{}}}, nil)
	add(protocol.MethodTextDocumentFormatting, map[string]any{"textDocument": doc, "options": map[string]any{"tabSize": 4, "insertSpaces": true}}, nil)
	add(protocol.MethodTextDocumentPrepareRename, at, nil)
	add(protocol.MethodTextDocumentRename, map[string]any{"textDocument": doc, "position": s.pos, "newName": s.ident + "2"}, nil)
	add(protocol.MethodTextDocumentPrepareCallHierarchy, at, func(res jsontext.Value) {
		for _, m := range []string{protocol.MethodCallHierarchyIncomingCalls, protocol.MethodCallHierarchyOutgoingCalls} {
			first(m, func(item jsontext.Value) any { return map[string]any{"item": item} })(res)
		}
	})
	add(protocol.MethodTextDocumentPrepareTypeHierarchy, at, func(res jsontext.Value) {
		for _, m := range []string{protocol.MethodTypeHierarchySupertypes, protocol.MethodTypeHierarchySubtypes} {
			first(m, func(item jsontext.Value) any { return map[string]any{"item": item} })(res)
		}
	})
	add(protocol.MethodTextDocumentSignatureHelp, at, nil)
	add(protocol.MethodTextDocumentCompletion, at, func(res jsontext.Value) {
		if !s.caps.Supports(protocol.MethodCompletionItemResolve) {
			return
		}
		var list struct {
			Items []jsontext.Value `json:"items"`
		}
		var items []jsontext.Value
		if json.Unmarshal(res, &items) != nil && json.Unmarshal(res, &list, json.RejectUnknownMembers(false)) == nil {
			items = list.Items
		}
		if len(items) > 0 {
			s.call(ctx, protocol.MethodCompletionItemResolve, items[0])
		}
	})
	for _, r := range script {
		res, err := s.call(ctx, r.method, r.params)
		// The peer's stream ending fails the call before the connection
		// is down or the process reaped (answering what was read first).
		if down(s.conn) || isDone(proc) || errors.Is(err, io.EOF) {
			return s.ended(r.method, err, proc)
		}
		if err == nil && r.then != nil {
			r.then(res)
		}
	}
	// One request the server did not advertise.
	for _, m := range unadvertised {
		if !s.caps.Supports(m) {
			s.mu.Lock()
			s.scorer.facts.Unadvertised = m
			s.mu.Unlock()
			params := any(at)
			if !slices.Contains([]string{protocol.MethodTextDocumentLinkedEditingRange, protocol.MethodTextDocumentMoniker, protocol.MethodTextDocumentDocumentHighlight, protocol.MethodTextDocumentHover}, m) {
				params = map[string]any{"textDocument": doc}
			}
			s.call(ctx, m, params)
			break
		}
	}
	// A request cancelled as soon as it went out.
	if s.caps.Supports(protocol.MethodTextDocumentDocumentSymbol) || s.caps.Supports(protocol.MethodTextDocumentHover) {
		method := protocol.MethodTextDocumentDocumentSymbol
		var params any = map[string]any{"textDocument": doc}
		if !s.caps.Supports(method) {
			method, params = protocol.MethodTextDocumentHover, at
		}
		cctx, cancel := context.WithCancel(ctx)
		answered := make(chan struct{})
		s.mu.Lock()
		s.onRequest = func(m, id string) {
			if m == method {
				s.mu.Lock()
				s.awaitID, s.awaited = id, answered
				s.mu.Unlock()
				cancel()
			}
		}
		s.mu.Unlock()
		s.conn.CallRaw(cctx, method, params, nil)
		cancel()
		s.mu.Lock()
		s.onRequest = nil
		s.mu.Unlock()
		// The cancelled request is still answered (with RequestCancelled
		// or its result): wait for that before going on.
		select {
		case <-answered:
		case <-time.After(s.opts.Timeout):
		case <-ctx.Done():
		}
	}
	return ""
}

// maxExitWait bounds the wait for a server to end after exit.
const maxExitWait = 30 * time.Second

// down reports whether the connection to the server has ended.
func down(conn *transport.Conn) bool {
	select {
	case <-conn.Done():
		return true
	default:
		return false
	}
}

// ended says where the session stopped, counting the request the server
// ended without answering as never answered.
func (s *session) ended(method string, err error, proc client.Proc) string {
	select {
	case <-proc.Done():
	case <-time.After(s.opts.Timeout):
	}
	stop := stoppedBy(method, err, proc)
	s.mu.Lock()
	s.scorer.fail(CheckAnswered, fmt.Sprintf("%s never answered: %s", method, strings.TrimPrefix(stop, "at "+method+": ")))
	s.mu.Unlock()
	return stop
}

func isDone(proc client.Proc) bool {
	select {
	case <-proc.Done():
		return true
	default:
		return false
	}
}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// aim picks the position the script asks about: the second occurrence of
// the first name (3 characters or more, not a keyword) that occurs twice —
// a use of something declared — and the name.
func aim(text string, m client.Mapper) (string, protocol.Position) {
	counts := map[string]int{}
	for _, w := range identRE.FindAllString(text, -1) {
		counts[w]++
	}
	for _, loc := range identRE.FindAllStringIndex(text, -1) {
		w := text[loc[0]:loc[1]]
		if counts[w] < 2 || len(w) < 3 || keywords[w] {
			continue
		}
		second := loc[0] + 1 + strings.Index(text[loc[0]+1:], w)
		for second > loc[0] && !isWordAt(text, second, len(w)) {
			next := strings.Index(text[second+1:], w)
			if next < 0 {
				second = -1
				break
			}
			second += 1 + next
		}
		if second <= loc[0] {
			continue
		}
		return w, client.Mapper.Position(m, text, second)
	}
	return "x", protocol.Position{}
}

func isWordAt(text string, at, n int) bool {
	isWord := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return (at == 0 || !isWord(text[at-1])) && (at+n >= len(text) || !isWord(text[at+n]))
}

var keywords = map[string]bool{
	"func": true, "package": true, "import": true, "return": true, "const": true, "var": true, "type": true, "struct": true,
	"int": true, "string": true, "number": true, "export": true, "function": true, "def": true, "class": true, "self": true,
	"include": true, "void": true, "char": true, "true": true, "false": true, "null": true, "let": true, "from": true,
	"echo": true, "local": true, "then": true, "else": true, "body": true, "div": true, "color": true, "name": true,
}

// recorder passes a server's stream through, recording and scoring each
// frame in both directions.
type recorder struct {
	rwc  io.ReadWriteCloser
	s    *session
	rmu  sync.Mutex
	rbuf []byte
	wmu  sync.Mutex
	wbuf []byte
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.rwc.Read(p)
	r.rmu.Lock()
	r.rbuf = frames(append(r.rbuf, p[:n]...), func(body []byte) { r.s.message(ServerToClient, body) })
	r.rmu.Unlock()
	return n, err
}

func (r *recorder) Write(p []byte) (int, error) {
	r.wmu.Lock()
	r.wbuf = frames(append(r.wbuf, p...), func(body []byte) { r.s.message(ClientToServer, body) })
	r.wmu.Unlock()
	return r.rwc.Write(p)
}

func (r *recorder) Close() error { return r.rwc.Close() }

// frames hands each complete frame's body in buf to fn and returns the
// rest.
func frames(buf []byte, fn func([]byte)) []byte {
	for {
		end, body, ok := splitFrame(buf)
		if !ok {
			return buf
		}
		if body != nil {
			fn(body)
		}
		buf = buf[end:]
	}
}
