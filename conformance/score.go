package conformance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
)

// The checks of a report card, in the order a card shows them.
const (
	CheckServerTypes       = "types: server messages"
	CheckClientTypes       = "types: lspkit's messages"
	CheckBeforeInitialize  = "lifecycle: before the initialize answer"
	CheckAfterShutdown     = "lifecycle: after the shutdown answer"
	CheckExit              = "lifecycle: exit status"
	CheckDirection         = "direction"
	CheckUnadvertised      = "capabilities: a request not advertised"
	CheckAdvertised        = "capabilities: requests advertised"
	CheckServerRequests    = "capabilities: what the client offered"
	CheckProgress          = "capabilities: progress tokens"
	CheckRegistrations     = "capabilities: dynamic registration"
	CheckVersions          = "documents: diagnostic versions"
	CheckPositions         = "documents: positions"
	CheckAnswered          = "liveness: every request answered in time"
	CheckCancel            = "liveness: $/cancelRequest"
	maxEvidence            = 3
	maxEvidenceChars       = 240
	requestCancelledCode   = -32800
	methodNotFoundCode     = -32601
	defaultScoreTimeout    = 10 * time.Second
	extensionNoteThreshold = 1
)

var checkOrder = []string{
	CheckServerTypes, CheckClientTypes, CheckBeforeInitialize, CheckAfterShutdown, CheckExit, CheckDirection,
	CheckUnadvertised, CheckAdvertised, CheckServerRequests, CheckProgress, CheckRegistrations,
	CheckVersions, CheckPositions, CheckAnswered, CheckCancel,
}

// Facts are what a live session knows beyond its messages; a transcript
// scored offline has none of them, and the checks that need them are not
// exercised.
type Facts struct {
	// Exited: the server's exit status is known (ExitCode).
	Exited   bool
	ExitCode int
	// Timeout is the time every request must be answered in (10 s).
	Timeout time.Duration
	// Unadvertised is the method sent as a request the server did not
	// advertise, if one was.
	Unadvertised string
	// Complete: the session ran to its end (shutdown and exit), so a
	// request left without an answer was never answered.
	Complete bool
}

// Scorer checks a session's messages, in order, against the protocol.
type Scorer struct {
	v     *protocol.Validator
	facts Facts
	card  *Card
	rows  map[string]*Row

	requests     map[string]*pendingRequest // dir + id → the request
	initAnswered bool
	shutdownAt   int // index of the shutdown answer, or -1
	shutdownSent bool
	exitSent     bool
	clientCaps   jsontext.Value
	serverCaps   *protocol.ServerCapabilities
	encoding     protocol.PositionEncodingKind
	docs         map[string]*document // URI → what the client sent
	given, made  map[string]bool      // progress tokens: in requests, created by the server
	progress     map[string]string    // token → "begin" or "end"
	cancelled    map[string]bool      // ids of client requests the client cancelled
	extensions   map[string]int       // extension member paths (indices folded)
	extMethods   map[string]int
	uriSpellings map[string]bool
	index        int
	lastMS       int64
}

type pendingRequest struct {
	method string
	ms     int64
	params jsontext.Value
	index  int
}

// NewScorer returns a scorer for one session.
func NewScorer(v *protocol.Validator, facts Facts) *Scorer {
	if facts.Timeout <= 0 {
		facts.Timeout = defaultScoreTimeout
	}
	s := &Scorer{
		v: v, facts: facts, card: &Card{LSP: protocol.ModelVersion}, rows: map[string]*Row{},
		requests: map[string]*pendingRequest{}, shutdownAt: -1, encoding: protocol.PositionEncodingKindUTF16,
		docs: map[string]*document{}, given: map[string]bool{}, made: map[string]bool{}, progress: map[string]string{},
		cancelled: map[string]bool{}, extensions: map[string]int{}, extMethods: map[string]int{}, uriSpellings: map[string]bool{},
	}
	for _, c := range checkOrder {
		s.rows[c] = &Row{Check: c}
	}
	return s
}

// ScoreTranscript scores a recorded session.
func ScoreTranscript(v *protocol.Validator, t *Transcript, facts Facts) *Card {
	s := NewScorer(v, facts)
	for _, e := range t.Entries {
		if e.Dir != Expect {
			s.Message(e.Dir, e.MS, e.Msg)
		}
	}
	return s.Card()
}

// exercised marks a check as run on something.
func (s *Scorer) exercised(check string) { s.rows[check].Exercised++ }

// fail records a violation of check with its evidence.
func (s *Scorer) fail(check, evidence string) {
	r := s.rows[check]
	r.Exercised++
	r.Count++
	if len(r.Evidence) < maxEvidence {
		if len(evidence) > maxEvidenceChars {
			evidence = evidence[:maxEvidenceChars-1] + "…"
		}
		r.Evidence = append(r.Evidence, evidence)
	}
}

type envelope struct {
	ID     jsontext.Value `json:"id,omitzero"`
	Method string         `json:"method,omitzero"`
	Params jsontext.Value `json:"params,omitzero"`
	Result jsontext.Value `json:"result,omitzero"`
	Error  *struct {
		Code    int64          `json:"code"`
		Message string         `json:"message"`
		Data    jsontext.Value `json:"data,omitzero"`
	} `json:"error,omitzero"`
}

// Message scores one message going dir (ClientToServer or
// ServerToClient) at ms milliseconds into the session.
func (s *Scorer) Message(dir string, ms int64, msg []byte) {
	s.index++
	s.lastMS = ms
	var env envelope
	if err := json.Unmarshal(msg, &env, json.RejectUnknownMembers(false)); err != nil {
		check := CheckServerTypes
		if dir == ClientToServer {
			check = CheckClientTypes
		}
		s.fail(check, fmt.Sprintf("an unreadable message: %v: %s", err, msg))
		return
	}
	server := dir == ServerToClient
	typesCheck := CheckClientTypes
	if server {
		typesCheck = CheckServerTypes
	}
	switch {
	case env.Method != "":
		id := string(env.ID)
		if env.ID != nil {
			s.requests[dir+id] = &pendingRequest{method: env.Method, ms: ms, params: env.Params, index: s.index}
		}
		if server {
			s.serverMessage(env, env.ID != nil)
		} else {
			s.clientMessage(env)
		}
		s.validate(typesCheck, env.Method, protocol.PartParams, env.Params, "params of "+env.Method)
	default:
		other := ClientToServer
		if !server {
			other = ServerToClient
		}
		req, ok := s.requests[other+string(env.ID)]
		if !ok {
			if env.Error != nil && (env.ID == nil || string(env.ID) == "null") {
				return // the answer to a message that could not be read: JSON-RPC's id null
			}
			s.fail(typesCheck, fmt.Sprintf("a response to no request (id %s)", env.ID))
			return
		}
		delete(s.requests, other+string(env.ID))
		if server {
			s.serverResponse(env, req, ms)
		} else {
			s.clientResponse(env, req)
		}
		if env.Error != nil {
			if env.Error.Data != nil {
				s.validate(typesCheck, req.method, protocol.PartErrorData, env.Error.Data, "error data of "+req.method)
			}
			return
		}
		if env.Result == nil {
			s.fail(typesCheck, fmt.Sprintf("the answer to %s (id %s) has neither result nor error", req.method, env.ID))
			return
		}
		s.validate(typesCheck, req.method, protocol.PartResult, env.Result, "result of "+req.method)
	}
}

// validate checks one part of a message against the model.
func (s *Scorer) validate(check, method string, part protocol.Part, raw jsontext.Value, what string) {
	problems, err := s.v.Check(method, part, raw)
	if err == protocol.ErrUnknownMethod {
		return // an extension method: noted where it is seen
	}
	if err != nil {
		s.fail(check, fmt.Sprintf("%s: %v", what, err))
		return
	}
	s.exercised(check)
	for _, p := range problems {
		if p.Extension {
			s.extensions[method+" "+foldIndices(p.Path)]++
			continue
		}
		s.fail(check, fmt.Sprintf("%s: %s", what, p))
	}
}

// foldIndices replaces array indices in a path with [] so that one
// extension member is one note.
func foldIndices(path string) string {
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		if path[i] == '[' && i+1 < len(path) && path[i+1] >= '0' && path[i+1] <= '9' {
			j := strings.IndexByte(path[i:], ']')
			if j > 0 {
				b.WriteString("[]")
				i += j
				continue
			}
		}
		b.WriteByte(path[i])
	}
	return b.String()
}

// clientMessage tracks what the client sends: capabilities, documents,
// progress tokens, cancellations, the lifecycle.
func (s *Scorer) clientMessage(env envelope) {
	switch env.Method {
	case protocol.MethodInitialize:
		var p struct {
			Capabilities jsontext.Value `json:"capabilities"`
		}
		json.Unmarshal(env.Params, &p, json.RejectUnknownMembers(false))
		s.clientCaps = p.Capabilities
	case protocol.MethodShutdown:
		s.shutdownSent = true
	case protocol.MethodExit:
		s.exitSent = true
	case protocol.MethodTextDocumentDidOpen:
		var p protocol.DidOpenTextDocumentParams
		if json.Unmarshal(env.Params, &p) == nil {
			s.docs[string(p.TextDocument.URI)] = &document{text: p.TextDocument.Text, version: p.TextDocument.Version, open: true}
		}
	case protocol.MethodTextDocumentDidChange:
		var p protocol.DidChangeTextDocumentParams
		if json.Unmarshal(env.Params, &p) == nil {
			if d, ok := s.docs[string(p.TextDocument.URI)]; ok {
				d.version = p.TextDocument.Version
				m := client.Mapper{Encoding: s.encoding}
				for _, ch := range p.ContentChanges {
					if whole, ok := ch.AsTextDocumentContentChangeWholeDocument(); ok {
						d.text = whole.Text
					} else if part, ok := ch.AsTextDocumentContentChangePartial(); ok {
						start, _ := offsetOf(d.text, part.Range.Start, m)
						end, _ := offsetOf(d.text, part.Range.End, m)
						if start <= end {
							d.text = d.text[:start] + part.Text + d.text[end:]
						}
					}
				}
			}
		}
	case protocol.MethodTextDocumentDidClose:
		var p protocol.DidCloseTextDocumentParams
		if json.Unmarshal(env.Params, &p) == nil {
			if d, ok := s.docs[string(p.TextDocument.URI)]; ok {
				d.open = false
			}
		}
	case "$/cancelRequest":
		var p struct {
			ID jsontext.Value `json:"id"`
		}
		if json.Unmarshal(env.Params, &p, json.RejectUnknownMembers(false)) == nil {
			s.cancelled[string(p.ID)] = true
		}
	}
	if env.ID != nil {
		var p struct {
			WorkDone jsontext.Value `json:"workDoneToken"`
			Partial  jsontext.Value `json:"partialResultToken"`
		}
		if json.Unmarshal(env.Params, &p, json.RejectUnknownMembers(false)) == nil {
			for _, t := range []jsontext.Value{p.WorkDone, p.Partial} {
				if t != nil {
					s.given[string(t)] = true
				}
			}
		}
	}
}

// beforeInitialize is what a server may send before its initialize answer.
var beforeInitialize = []string{
	protocol.MethodWindowLogMessage, protocol.MethodWindowShowMessage, protocol.MethodTelemetryEvent,
	protocol.MethodProgress, protocol.MethodWindowWorkDoneProgressCreate,
}

// serverMessage checks a request or notification from the server.
func (s *Scorer) serverMessage(env envelope, request bool) {
	info, known := protocol.LookupMethod(env.Method)
	if !s.initAnswered {
		s.exercised(CheckBeforeInitialize)
		if !slices.Contains(beforeInitialize, env.Method) {
			s.fail(CheckBeforeInitialize, fmt.Sprintf("%s before the initialize answer", env.Method))
		}
	}
	if s.shutdownAt >= 0 && request {
		s.fail(CheckAfterShutdown, fmt.Sprintf("the request %s after the shutdown answer", env.Method))
	}
	if !known {
		if !strings.HasPrefix(env.Method, "$/") {
			s.extMethods[env.Method]++
		}
		return
	}
	s.exercised(CheckDirection)
	if info.Direction == protocol.ClientToServer || info.Notification == request {
		what := "a notification"
		if request {
			what = "a request"
		}
		s.fail(CheckDirection, fmt.Sprintf("%s sent by the server as %s (the model: %s %s)", env.Method, what, info.Direction, map[bool]string{true: "notification", false: "request"}[info.Notification]))
		return
	}
	// What the client's capabilities offer.
	if info.ClientCapability != "" && s.clientCaps != nil {
		s.exercised(CheckServerRequests)
		if !truthy(s.clientCaps, info.ClientCapability) {
			s.fail(CheckServerRequests, fmt.Sprintf("%s, which the client did not offer (capabilities.%s)", env.Method, info.ClientCapability))
		}
	}
	switch env.Method {
	case protocol.MethodClientRegisterCapability:
		s.registrations(env.Params)
	case protocol.MethodWindowWorkDoneProgressCreate:
		var p struct {
			Token jsontext.Value `json:"token"`
		}
		if json.Unmarshal(env.Params, &p, json.RejectUnknownMembers(false)) == nil && p.Token != nil {
			s.made[string(p.Token)] = true
		}
	case protocol.MethodProgress:
		s.progressMessage(env.Params)
	case protocol.MethodTextDocumentPublishDiagnostics:
		s.publish(env.Params)
	}
}

// registrations checks client/registerCapability: each method's client
// capability must have dynamicRegistration, and the options must fit.
func (s *Scorer) registrations(params jsontext.Value) {
	var p struct {
		Registrations []struct {
			Method          string         `json:"method"`
			RegisterOptions jsontext.Value `json:"registerOptions,omitzero"`
		} `json:"registrations"`
	}
	if json.Unmarshal(params, &p, json.RejectUnknownMembers(false)) != nil {
		return
	}
	for _, r := range p.Registrations {
		info, ok := protocol.LookupMethod(r.Method)
		if !ok {
			continue
		}
		if info.ClientCapability != "" && s.clientCaps != nil {
			s.exercised(CheckRegistrations)
			if !truthy(s.clientCaps, info.ClientCapability+".dynamicRegistration") {
				s.fail(CheckRegistrations, fmt.Sprintf("registers %s, whose capabilities.%s.dynamicRegistration the client did not set", r.Method, info.ClientCapability))
			}
		}
		if r.RegisterOptions != nil {
			if _, err := s.v.Check(r.Method, protocol.PartRegistrationOptions, r.RegisterOptions); err == protocol.ErrNoPart {
				s.extensions["client/registerCapability options for "+r.Method+", which has none in the model"]++
				continue
			}
			s.validate(CheckServerTypes, r.Method, protocol.PartRegistrationOptions, r.RegisterOptions, "registration options of "+r.Method)
		}
	}
}

// progressMessage checks a $/progress: a token the client gave or the
// server created; work-done progress begun once, reported after its
// begin, ended once.
func (s *Scorer) progressMessage(params jsontext.Value) {
	var p struct {
		Token jsontext.Value `json:"token"`
		Value struct {
			Kind string `json:"kind"`
		} `json:"value"`
	}
	if json.Unmarshal(params, &p, json.RejectUnknownMembers(false)) != nil || p.Token == nil {
		return
	}
	token := string(p.Token)
	s.exercised(CheckProgress)
	if !s.given[token] && !s.made[token] {
		s.fail(CheckProgress, fmt.Sprintf("$/progress on token %s, which the client never gave nor the server created", token))
		return
	}
	state := s.progress[token]
	switch p.Value.Kind {
	case "begin":
		if state != "" {
			s.fail(CheckProgress, fmt.Sprintf("token %s begun again (it was %s)", token, state))
		}
		s.progress[token] = "begin"
	case "report":
		if state != "begin" {
			s.fail(CheckProgress, fmt.Sprintf("token %s reported before its begin", token))
		}
	case "end":
		if state != "begin" {
			s.fail(CheckProgress, fmt.Sprintf("token %s ended without being begun, or twice", token))
		}
		s.progress[token] = "end"
	}
}

// publish checks a publishDiagnostics: its version never ahead of the
// client's, nothing but an empty list for a closed document, every
// position inside the document.
func (s *Scorer) publish(params jsontext.Value) {
	var p struct {
		URI         string         `json:"uri"`
		Version     *int64         `json:"version"`
		Diagnostics jsontext.Value `json:"diagnostics"`
	}
	if json.Unmarshal(params, &p, json.RejectUnknownMembers(false)) != nil {
		return
	}
	d := s.document(p.URI)
	if d == nil {
		return
	}
	s.exercised(CheckVersions)
	if p.Version != nil && *p.Version > int64(d.version) {
		s.fail(CheckVersions, fmt.Sprintf("diagnostics of %s for version %d; the client sent version %d", base(p.URI), *p.Version, d.version))
	}
	empty := len(strings.TrimSpace(string(p.Diagnostics))) <= 2
	if !d.open && !empty {
		s.fail(CheckVersions, fmt.Sprintf("diagnostics of %s after the client closed it", base(p.URI)))
	}
	if d.open {
		s.positions(p.Diagnostics, p.URI, "publishDiagnostics of "+base(p.URI))
	}
}

// serverResponse checks the server's answer to a client request.
func (s *Scorer) serverResponse(env envelope, req *pendingRequest, ms int64) {
	s.exercised(CheckAnswered)
	// A request the client cancelled is answered when the server takes the
	// cancellation (a live session cancels at the deadline and says so).
	if took := time.Duration(ms-req.ms) * time.Millisecond; took >= s.facts.Timeout && !s.cancelled[string(env.ID)] {
		s.fail(CheckAnswered, fmt.Sprintf("%s answered after %v (the limit: %v)", req.method, took, s.facts.Timeout))
	}
	if s.cancelled[string(env.ID)] {
		s.exercised(CheckCancel)
		if env.Error != nil && env.Error.Code != requestCancelledCode {
			s.fail(CheckCancel, fmt.Sprintf("cancelled %s answered with error %d %q, not a result or RequestCancelled (-32800)", req.method, env.Error.Code, env.Error.Message))
		}
	}
	switch req.method {
	case protocol.MethodInitialize:
		s.initAnswered = true
		s.exercised(CheckBeforeInitialize) // the window before it is over
		if env.Result != nil {
			var r struct {
				Capabilities jsontext.Value `json:"capabilities"`
			}
			if json.Unmarshal(env.Result, &r, json.RejectUnknownMembers(false)) == nil && r.Capabilities != nil {
				var caps protocol.ServerCapabilities
				if json.Unmarshal(r.Capabilities, &caps) == nil {
					s.serverCaps = &caps
					if caps.PositionEncoding != nil {
						s.encoding = *caps.PositionEncoding
					}
				}
				var clangd struct {
					OffsetEncoding string `json:"offsetEncoding"`
				}
				if json.Unmarshal(env.Result, &clangd, json.RejectUnknownMembers(false)) == nil && clangd.OffsetEncoding != "" && caps.PositionEncoding == nil {
					s.encoding = protocol.PositionEncodingKind(clangd.OffsetEncoding)
				}
			}
		}
		var info struct {
			ServerInfo struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"serverInfo"`
		}
		if json.Unmarshal(env.Result, &info, json.RejectUnknownMembers(false)) == nil {
			s.card.Server, s.card.ServerVersion = info.ServerInfo.Name, info.ServerInfo.Version
			// gopls's version is its build information as JSON.
			var build struct {
				Version string `json:"Version"`
			}
			if json.Unmarshal([]byte(s.card.ServerVersion), &build, json.RejectUnknownMembers(false)) == nil && build.Version != "" {
				s.card.ServerVersion = build.Version
			}
		}
	case protocol.MethodShutdown:
		s.shutdownAt = s.index
	}
	advertised := s.serverCaps != nil && s.serverCaps.Supports(req.method)
	if req.method == s.facts.Unadvertised && !advertised {
		s.exercised(CheckUnadvertised)
		if env.Error == nil {
			s.fail(CheckUnadvertised, fmt.Sprintf("%s, not advertised, answered with a result: %s", req.method, env.Result))
		}
	} else if s.serverCaps != nil && advertised {
		if _, known := protocol.LookupMethod(req.method); known {
			s.exercised(CheckAdvertised)
			if env.Error != nil && env.Error.Code == methodNotFoundCode {
				s.fail(CheckAdvertised, fmt.Sprintf("%s advertised, answered MethodNotFound: %q", req.method, env.Error.Message))
			}
		}
	}
	if env.Result != nil && strings.HasPrefix(req.method, "textDocument/") {
		var p struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		if json.Unmarshal(req.params, &p, json.RejectUnknownMembers(false)) == nil && p.TextDocument.URI != "" {
			s.positions(env.Result, p.TextDocument.URI, req.method)
		}
	}
}

// clientResponse tracks the client's answers (nothing to check beyond
// their types).
func (s *Scorer) clientResponse(envelope, *pendingRequest) {}

// Card finishes the checks that need the whole session and returns the
// card.
func (s *Scorer) Card() *Card {
	if s.facts.Complete {
		for key, req := range s.requests {
			if strings.HasPrefix(key, ClientToServer) {
				if req.method == protocol.MethodExit {
					continue
				}
				s.fail(CheckAnswered, fmt.Sprintf("%s (id %s) never answered", req.method, strings.TrimPrefix(key, ClientToServer)))
			}
		}
	}
	if s.shutdownAt >= 0 && (s.exitSent || s.facts.Complete) {
		s.exercised(CheckAfterShutdown)
	}
	if s.facts.Exited {
		s.exercised(CheckExit)
		want := 1
		if s.shutdownAt >= 0 {
			want = 0
		}
		if s.facts.ExitCode != want {
			s.fail(CheckExit, fmt.Sprintf("exit status %d after %s (want %d)", s.facts.ExitCode, map[bool]string{true: "shutdown and exit", false: "exit without shutdown"}[s.shutdownAt >= 0], want))
		}
	}
	c := s.card
	for _, name := range checkOrder {
		r := *s.rows[name]
		switch {
		case r.Count > 0:
			r.Verdict = VerdictFail
		case r.Exercised > 0:
			r.Verdict = VerdictPass
		default:
			r.Verdict = VerdictNotExercised
		}
		c.Rows = append(c.Rows, r)
	}
	for _, path := range sortedKeys(s.extensions) {
		what := "extension member "
		if strings.HasPrefix(path, "client/registerCapability") {
			what = ""
		}
		c.Notes = append(c.Notes, fmt.Sprintf("%s%s (%d×)", what, path, s.extensions[path]))
	}
	for _, m := range sortedKeys(s.extMethods) {
		c.Notes = append(c.Notes, fmt.Sprintf("extension method %s (%d×)", m, s.extMethods[m]))
	}
	for _, u := range sortedKeys(s.uriSpellings) {
		c.Notes = append(c.Notes, "another spelling of a document's URI: "+u)
	}
	return c
}

// truthy reports whether the member at a dotted path of a JSON object is
// present and neither false nor null.
func truthy(obj jsontext.Value, path string) bool {
	var tree any
	if json.Unmarshal(obj, &tree) != nil {
		return false
	}
	for _, part := range strings.Split(path, ".") {
		m, ok := tree.(map[string]any)
		if !ok {
			return false
		}
		if tree, ok = m[part]; !ok {
			return false
		}
	}
	return tree != nil && tree != false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// base is the last element of a URI, for evidence.
func base(uri string) string {
	if i := strings.LastIndexByte(uri, '/'); i >= 0 {
		return uri[i+1:]
	}
	return uri
}

func trimText(s string) string {
	if len(s) > 60 {
		return s[:57] + "…"
	}
	return s
}
