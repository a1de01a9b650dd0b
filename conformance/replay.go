package conformance

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// Placeholders that recorded transcripts carry instead of machine paths.
const (
	RootPlaceholder    = "$ROOT"
	ServersPlaceholder = "$SERVERS"
)

// Replayer is a fake server driven by a transcript. Each message the
// client sends is matched with the next recorded client message of the same
// kind (request or notification by method, response by id), compared after
// normalizing volatile values, and answered with the server messages that
// followed it in the recording. Differences, unexpected messages and
// recorded messages the client never sent are divergences.
type Replayer struct {
	t          *Transcript
	serversDir string // replaces $SERVERS

	// OnDivergence, when set, hears of each divergence as it is found.
	OnDivergence func(string)

	mu          sync.Mutex
	root        string                    // the client's root, from its initialize
	ids         map[string]jsontext.Value // recorded client request id → actual
	held        map[string][]int          // server responses to requests the client has not sent yet
	asked       map[string]string         // server request id → its method
	sent        map[string]bool           // server request ids sent to the client
	pending     []int                     // indices of unmatched client entries, in order
	followers   map[int][]int             // client entry → the server entries after it
	pullAt      map[int]int32             // recorded pull entry → its document's version then
	live        map[string]int32          // document URI (normalized) → the version the client last sent
	divergences []string
}

// NewReplayer returns a replayer for t; serversDir stands for $SERVERS.
func NewReplayer(t *Transcript, serversDir string) *Replayer {
	r := &Replayer{t: t, serversDir: serversDir, ids: map[string]jsontext.Value{}, held: map[string][]int{}, asked: map[string]string{}, sent: map[string]bool{}, followers: map[int][]int{},
		pullAt: map[int]int32{}, live: map[string]int32{}}
	last := -1
	recorded := map[string]int32{} // document version as the recording's client had sent it
	for i, e := range t.Entries {
		switch e.Dir {
		case ClientToServer:
			if method(e.Msg) == "$/cancelRequest" {
				continue // timing: a client cancels what it stopped waiting for
			}
			if uri, v, ok := documentVersion(e.Msg); ok {
				recorded[uri] = v
			}
			if optional(e.Msg) {
				r.pullAt[i] = recorded[documentURI(e.Msg)]
			}
			r.pending = append(r.pending, i)
			last = i
		case ServerToClient:
			r.followers[last] = append(r.followers[last], i)
			if id, ok := idOf(e.Msg); ok && method(e.Msg) != "" {
				r.asked[string(id)] = method(e.Msg)
			}
		}
	}
	return r
}

// Divergences returns what did not match, in the order found.
func (r *Replayer) Divergences() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.divergences)
}

// Waiting describes the first n recorded client messages the replay has
// not seen yet, and the server messages it holds back: what a stalled
// replay waits for.
func (r *Replayer) Waiting(n int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, i := range r.pending[:min(n, len(r.pending))] {
		e := r.t.Entries[i]
		out = append(out, fmt.Sprintf("transcript line %d: %s", e.Line, r.describe(e.Msg)))
	}
	for id, held := range r.held {
		out = append(out, fmt.Sprintf("held until the client sends request %s: %d server messages", id, len(held)))
	}
	return out
}

func (r *Replayer) diverge(format string, args ...any) {
	d := fmt.Sprintf(format, args...)
	r.divergences = append(r.divergences, d)
	if r.OnDivergence != nil {
		r.OnDivergence(d)
	}
}

// Serve plays the server on in/out until the client's exit notification or
// the end of in; then every recorded client message must have been seen.
// After exit it still reads the answers to requests it sent the client: a
// request that crossed the client's shutdown on the wire is answered after
// it.
func (r *Replayer) Serve(in io.Reader, out io.Writer) {
	rd := transport.NewReader(in, transport.ReaderOptions{})
	w := transport.NewWriter(out)
	r.emit(w, -1)
	exited := false
	for !exited || r.awaitingAnswers() {
		frame, err := rd.ReadFrame()
		if err != nil {
			break
		}
		msg := bytes.Clone(frame)
		if method(msg) == "$/cancelRequest" {
			continue
		}
		if r.handle(w, msg) {
			exited = true
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, i := range r.pending {
		e := r.t.Entries[i]
		if !optional(e.Msg) {
			r.diverge("transcript line %d: the client never sent %s", e.Line, r.describe(e.Msg))
		}
	}
}

// awaitingAnswers reports whether a recorded client answer to a request
// the replay has sent is still unmatched.
func (r *Replayer) awaitingAnswers() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, i := range r.pending {
		msg := r.t.Entries[i].Msg
		if id, ok := idOf(msg); ok && method(msg) == "" && r.sent[string(id)] {
			return true
		}
	}
	return false
}

// optional reports whether a recorded client message is a diagnostic pull:
// how many a client makes depends on timing (refreshes, registrations,
// edits racing), so pulls may be fewer or more than recorded; the outcome
// check holds the client to the right diagnostics instead.
func optional(msg []byte) bool {
	_, isRequest := idOf(msg)
	return isRequest && method(msg) == protocol.MethodTextDocumentDiagnostic
}

// documentURI is a request's params.textDocument.uri.
func documentURI(msg []byte) string {
	var v struct {
		Params struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		} `json:"params"`
	}
	json.Unmarshal(msg, &v)
	return v.Params.TextDocument.URI
}

// answerExtraPull answers a pull the recording did not make with the
// result of the last pull the recording made at the same document version:
// the answer the server gave for the same text. It reports whether there
// was one.
func (r *Replayer) answerExtraPull(w *transport.Writer, msg []byte) bool {
	uri := r.normalizeText(documentURI(msg))
	version := r.live[uri]
	var pullID jsontext.Value
	for k, e := range r.t.Entries {
		if e.Dir == ClientToServer && optional(e.Msg) && documentURI(e.Msg) == uri && r.pullAt[k] == version {
			pullID, _ = idOf(e.Msg)
		}
	}
	if pullID == nil {
		return false
	}
	for _, e := range r.t.Entries {
		if id, ok := idOf(e.Msg); ok && e.Dir == ServerToClient && method(e.Msg) == "" && bytes.Equal(id, pullID) {
			actual, _ := idOf(msg)
			w.WriteFrame(setID(r.rewrite(e.Msg), actual))
			return true
		}
	}
	return false
}

// documentVersion reads the document and version a didOpen or didChange
// sends.
func documentVersion(msg []byte) (string, int32, bool) {
	switch method(msg) {
	case protocol.DidOpenTextDocumentNotification.Method(), protocol.DidChangeTextDocumentNotification.Method():
	default:
		return "", 0, false
	}
	var v struct {
		Params struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version int32  `json:"version"`
			} `json:"textDocument"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &v) != nil {
		return "", 0, false
	}
	return v.Params.TextDocument.URI, v.Params.TextDocument.Version, true
}

// normalizeText puts the placeholders into a text from the client.
func (r *Replayer) normalizeText(s string) string {
	if r.root != "" {
		s = strings.ReplaceAll(s, r.root, RootPlaceholder)
	}
	if r.serversDir != "" {
		s = strings.ReplaceAll(s, r.serversDir, ServersPlaceholder)
	}
	return s
}

// handle matches one client message; it reports whether it was exit.
func (r *Replayer) handle(w *transport.Writer, msg []byte) bool {
	r.mu.Lock()
	if r.root == "" && method(msg) == protocol.MethodInitialize {
		r.root = initializeRoot(msg)
	}
	// The first recorded message of the same kind that matches exactly,
	// else the first of the same kind (a divergence): a client's
	// concurrent requests may go out in another order than recorded.
	if uri, v, ok := documentVersion(msg); ok {
		r.live[r.normalizeText(uri)] = v
	}
	sig := signature(msg)
	got := r.normalize(msg, false)
	// A pull is answered for the document's text: it matches only a pull
	// the recording made at the same version (pulls carry no version, and
	// how many a client makes is timing).
	version, isPull := int32(0), optional(msg)
	if isPull {
		version = r.live[r.normalizeText(documentURI(msg))]
	}
	at := -1
	for k, i := range r.pending {
		if signature(r.t.Entries[i].Msg) != sig || isPull && r.pullAt[i] != version {
			continue
		}
		if at < 0 {
			at = k
		}
		if cmp.Equal(r.normalize(r.t.Entries[i].Msg, true), got) {
			at = k
			break
		}
	}
	if at < 0 && optional(msg) && r.answerExtraPull(w, msg) {
		r.mu.Unlock()
		return false
	}
	if at < 0 {
		r.diverge("unexpected client message %s:\n%s", r.describe(msg), msg)
		r.mu.Unlock()
		if id, ok := idOf(msg); ok && method(msg) != "" {
			w.WriteFrame(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"replay: not in the transcript"}}`, id))
		}
		return method(msg) == protocol.MethodExit
	}
	// Pulls recorded before this message that the client did not make are
	// passed over, and what the server said after them is sent now.
	var skipped []int
	for k := 0; k < at; k++ {
		if optional(r.t.Entries[r.pending[k]].Msg) {
			skipped = append(skipped, r.pending[k])
			r.pending = slices.Delete(r.pending, k, k+1)
			k--
			at--
		}
	}
	i := r.pending[at]
	r.pending = slices.Delete(r.pending, at, at+1)
	e := r.t.Entries[i]
	if diff := cmp.Diff(r.normalize(e.Msg, true), got); diff != "" {
		r.diverge("transcript line %d: client message %s differs (-recorded +actual):\n%s", e.Line, r.describe(e.Msg), diff)
	}
	var held []int
	if recID, ok := idOf(e.Msg); ok && method(e.Msg) != "" {
		if id, ok := idOf(msg); ok {
			r.ids[string(recID)] = id
		}
		held = r.held[string(recID)]
		delete(r.held, string(recID))
	}
	r.mu.Unlock()
	for _, k := range skipped {
		r.emit(w, k)
	}
	r.send(w, held)
	r.emit(w, i)
	return method(msg) == protocol.MethodExit
}

// emit sends the server messages recorded after client entry i, with the
// client's ids and paths. A response to a request the client has not sent
// yet (its requests may go out in another order than recorded) is held
// until it does; one to a request it will not send is dropped.
func (r *Replayer) emit(w *transport.Writer, i int) {
	r.mu.Lock()
	var now []int
	for _, j := range r.followers[i] {
		msg := r.t.Entries[j].Msg
		if id, ok := idOf(msg); ok && method(msg) == "" && r.ids[string(id)] == nil {
			if r.requestPending(id) {
				r.held[string(id)] = append(r.held[string(id)], j)
			}
			// else: the answer to a pull the client did not make; its
			// recorded id could be one of the client's live ones.
			continue
		}
		now = append(now, j)
	}
	r.mu.Unlock()
	r.send(w, now)
}

// send writes recorded server entries, rewritten for this client.
func (r *Replayer) send(w *transport.Writer, entries []int) {
	r.mu.Lock()
	frames := make([][]byte, 0, len(entries))
	for _, j := range entries {
		msg := r.t.Entries[j].Msg
		if id, ok := idOf(msg); ok && method(msg) != "" {
			r.sent[string(id)] = true
		}
		frames = append(frames, r.rewrite(msg))
	}
	r.mu.Unlock()
	for _, f := range frames {
		w.WriteFrame(f)
	}
}

// requestPending reports whether a recorded client request with this id
// has not been matched yet.
func (r *Replayer) requestPending(id jsontext.Value) bool {
	for _, i := range r.pending {
		msg := r.t.Entries[i].Msg
		if got, ok := idOf(msg); ok && method(msg) != "" && bytes.Equal(got, id) {
			return true
		}
	}
	return false
}

// rewrite turns a recorded server message into the one to send: the
// response id the client used, its root and server directory.
func (r *Replayer) rewrite(msg []byte) []byte {
	s := string(msg)
	if r.root != "" {
		s = strings.ReplaceAll(s, RootPlaceholder, r.root)
	}
	s = strings.ReplaceAll(s, ServersPlaceholder, r.serversDir)
	out := []byte(s)
	if method(out) == "" {
		if recID, ok := idOf(out); ok {
			if id, ok := r.ids[string(recID)]; ok {
				out = setID(out, id)
			}
		}
	}
	return out
}

// normalize decodes a message for comparison: paths become placeholders,
// request ids and process ids are dropped.
func (r *Replayer) normalize(msg []byte, recorded bool) any {
	s := string(msg)
	if !recorded {
		s = r.normalizeText(s)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	if _, isRequest := v["method"]; isRequest {
		delete(v, "id")
	}
	if p, ok := v["params"].(map[string]any); ok {
		delete(p, "processId")
		if v["method"] == protocol.MethodTextDocumentDiagnostic {
			delete(p, "previousResultId") // which result a pull follows is timing
		}
	}
	return v
}

// The envelope's parts, read without decoding the payload.

func method(msg []byte) string {
	var env transport.Envelope
	if env.Scan(msg) != nil {
		return ""
	}
	return string(env.Method)
}

func idOf(msg []byte) (jsontext.Value, bool) {
	var v struct {
		ID jsontext.Value `json:"id"`
	}
	if json.Unmarshal(msg, &v) != nil || len(v.ID) == 0 || string(v.ID) == "null" {
		return nil, false
	}
	return v.ID, true
}

// signature is what matches a client message with a recorded one: the
// method for requests and notifications, the id for responses (to the
// server's requests, whose ids the replay keeps).
func signature(msg []byte) string {
	if m := method(msg); m != "" {
		if _, ok := idOf(msg); ok {
			return "request " + m
		}
		return "notification " + m
	}
	id, _ := idOf(msg)
	return "response " + string(id)
}

// describe names a message for a report.
func (r *Replayer) describe(msg []byte) string {
	if m := method(msg); m != "" {
		return m
	}
	id, _ := idOf(msg)
	if m, ok := r.asked[string(id)]; ok {
		return fmt.Sprintf("the response to %s (server request %s)", m, id)
	}
	return "the response to server request " + string(id)
}

// setID replaces a message's top-level id.
func setID(msg []byte, id jsontext.Value) []byte {
	var v map[string]jsontext.Value
	if json.Unmarshal(msg, &v) != nil {
		return msg
	}
	v["id"] = id
	out, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return msg
	}
	return out
}

// initializeRoot is the client's root path from its initialize request.
func initializeRoot(msg []byte) string {
	var v struct {
		Params struct {
			RootURI protocol.DocumentURI `json:"rootUri"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &v) != nil || v.Params.RootURI == "" {
		return ""
	}
	p, err := v.Params.RootURI.Path()
	if err != nil {
		return ""
	}
	return p
}
