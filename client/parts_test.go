package client

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
)

func TestStateString(t *testing.T) {
	for s, want := range map[State]string{StateStarting: "starting", StateActive: "active", StateStopped: "stopped", StateBroken: "broken", State(9): "State(9)", State(-1): "State(-1)"} {
		if got := s.String(); got != want {
			t.Errorf("State(%d).String() = %q, want %q", int(s), got, want)
		}
	}
	if got := Settle(7).String(); got != "Settle(7)" {
		t.Errorf("Settle(7) = %q", got)
	}
}

func TestLifecycleFinal(t *testing.T) {
	var l lifecycle
	if !l.set(StateActive, "") || !l.set(StateBroken, "crashed") || l.set(StateActive, "") {
		t.Fatal("broken must be final")
	}
	if s, r := l.get(); s != StateBroken || r != "crashed" {
		t.Fatalf("%s %q", s, r)
	}
	if l.stop() || !l.stop() || !l.isStopping() {
		t.Fatal("stop reports whether it already was")
	}
}

func TestChanges(t *testing.T) {
	c := newChanges()
	ch := c.wait()
	if e := c.advance(); e != 1 || c.current() != 1 {
		t.Fatalf("epoch %d", e)
	}
	select {
	case <-ch:
		t.Fatal("advance woke a waiter before wake")
	default:
	}
	c.wake()
	select {
	case <-ch:
	default:
		t.Fatal("wake did not wake the waiter")
	}
	if c.wait() == ch {
		t.Fatal("the channel was not replaced")
	}
}

func TestDocStore(t *testing.T) {
	s := newDocStore()
	var epoch uint64
	next := func() uint64 { epoch++; return epoch }
	uri := protocol.DocumentURI("file:///a.go")
	_, d, open, changed := s.update(uri, "go", "one", next)
	if open || !changed || d.version != 1 || d.changeEpoch != 1 || d.sent != 0 {
		t.Fatalf("open: %+v open=%v changed=%v", d, open, changed)
	}
	if _, _, _, changed := s.update(uri, "go", "one", next); changed {
		t.Fatal("the same text changed the document")
	}
	s.markSent(uri, 1)
	before, d, open, changed := s.update(uri, "go", "two", next)
	if !open || !changed || before.text != "one" || d.version != 2 || d.sent != 1 || d.changeEpoch != 2 {
		t.Fatalf("change: before %+v after %+v", before, d)
	}
	s.markSent(uri, 1) // a stale version is not recorded as sent
	if v := s.sentVersions()[uri]; v != 1 {
		t.Fatalf("sent %d", v)
	}
	s.markSent(uri, 2)
	if v := s.sentVersions()[uri]; v != 2 {
		t.Fatalf("sent %d", v)
	}
	if !s.remove(uri) || s.remove(uri) {
		t.Fatal("remove reports whether it was open")
	}
	if _, ok := s.text(uri); ok || len(s.uris()) != 0 {
		t.Fatal("removed document still there")
	}
}

func diag(msg string) protocol.Diagnostic {
	return protocol.Diagnostic{Message: protocol.NewStringOrMarkupContentString(msg)}
}

func TestDiagStore(t *testing.T) {
	s := newDiagStore()
	a := protocol.DocumentURI("file:///a.go")
	v := int32(3)
	s.publish(&protocol.PublishDiagnosticsParams{URI: a, Version: &v, Diagnostics: []protocol.Diagnostic{diag("pushed")}}, 5)
	f, ok := s.get(a)
	if !ok || f.pushEpoch != 5 || *f.pushVersion != 3 || MessageText(f.current()[0]) != "pushed" {
		t.Fatalf("push: %+v", f)
	}
	items := []protocol.Diagnostic{diag("pulled v4")}
	s.storePull(a, 4, &items, protocol.Ptr("r4"), 6)
	old := []protocol.Diagnostic{diag("pulled v2")}
	s.storePull(a, 2, &old, protocol.Ptr("r2"), 7) // older: dropped
	f, _ = s.get(a)
	if MessageText(f.current()[0]) != "pulled v4" || f.pullResultID != "r4" || s.resultID(a) != "r4" || f.pullEpoch != 6 {
		t.Fatalf("pull: %+v", f)
	}
	s.storePull(a, 5, nil, protocol.Ptr("r5"), 8) // unchanged: the items stand
	if f, _ = s.get(a); MessageText(f.current()[0]) != "pulled v4" || f.pullVersion != 5 || f.pullEpoch != 8 {
		t.Fatalf("unchanged: %+v", f)
	}
	if ids := s.resultIDs(); len(ids) != 1 || ids[0].Value != "r5" {
		t.Fatalf("result ids %+v", ids)
	}
	empty := []protocol.Diagnostic{}
	s.storePull("file:///b.go", 1, &empty, nil, 9)
	s.markSettled(a, 10)
	if f, _ = s.get(a); f.settledEpoch != 10 {
		t.Fatalf("settled: %+v", f)
	}
	// Pulled and pushed findings are both the server's: merged, neither
	// replacing the other, repeats dropped.
	s.publish(&protocol.PublishDiagnosticsParams{URI: a, Version: &v, Diagnostics: []protocol.Diagnostic{diag("pushed"), diag("pulled v4")}}, 11)
	if all := s.all(); len(all) != 1 || len(all[a]) != 2 || MessageText(all[a][0]) != "pulled v4" || MessageText(all[a][1]) != "pushed" {
		t.Fatalf("all: %+v", all)
	}
	s.forget(a)
	if _, ok := s.get(a); ok {
		t.Fatal("forgotten file still there")
	}
}

func TestProgressSet(t *testing.T) {
	p := newProgressSet()
	p.create("1")
	if !p.busy() || p.describe() != "work announced" {
		t.Fatalf("created but not begun is work about to start: %q", p.describe())
	}
	if !p.report("1", readProgress([]byte(`{"kind":"begin","title":"indexing"}`))) || !p.busy() {
		t.Fatal("begin makes it busy")
	}
	if p.report("1", readProgress([]byte(`{"kind":"partial"}`))) {
		t.Fatal("not a work-done kind")
	}
	p.report("1", readProgress([]byte(`{"kind":"report","message":"3/7 files","percentage":40}`)))
	if got := p.describe(); got != "indexing 3/7 files (40%)" {
		t.Fatalf("describe: %q", got)
	}
	p.report("1", readProgress([]byte(`{"kind":"end"}`)))
	if p.busy() || p.describe() != "" {
		t.Fatal("end ends it")
	}
	if readProgress([]byte(`[1]`)).Kind != "" {
		t.Fatal("readProgress of a non-object")
	}
	if tokenKey(protocol.NewProgressTokenInteger(7)) == tokenKey(protocol.NewProgressTokenString("7")) {
		t.Fatal("integer and string tokens collide")
	}
}

func registrationOf(t *testing.T, id, method, options string) protocol.Registration {
	t.Helper()
	r := protocol.Registration{ID: id, Method: method}
	if options != "" {
		r.RegisterOptions = jsontext.Value(options)
	}
	return r
}

// TestRegistry: registrations with document selectors answer Supports per
// document; the pull provider follows capabilities and registrations.
func TestRegistry(t *testing.T) {
	var caps protocol.ServerCapabilities
	if err := json.Unmarshal([]byte(`{"hoverProvider":true}`), &caps); err != nil {
		t.Fatal(err)
	}
	root := filepath.FromSlash("/work")
	if runtime.GOOS == "windows" {
		root = `C:\work`
	}
	uri := func(rel string) protocol.DocumentURI {
		u, err := protocol.FileURI(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	c := newClient(Config{Root: root})
	c.caps.Store(&caps)
	c.regs.set(map[string]protocol.Registration{
		"d":  registrationOf(t, "d", "textDocument/diagnostic", `{"documentSelector":[{"language":"python"}],"interFileDependencies":true,"workspaceDiagnostics":false}`),
		"f":  registrationOf(t, "f", "textDocument/formatting", `{"documentSelector":[{"pattern":"**/*.go"},{"scheme":"untitled"}]}`),
		"r":  registrationOf(t, "r", "textDocument/rename", `{"documentSelector":null}`),
		"st": registrationOf(t, "st", "textDocument/semanticTokens", `{"documentSelector":[{"language":"go","pattern":{"baseUri":"`+string(uri("sub"))+`","pattern":"*.go"}}]}`),
	}, &caps)
	py, goFile, subGo := uri("a.py"), uri("a.go"), uri("sub/b.go")
	for _, c2 := range []struct {
		method string
		uri    protocol.DocumentURI
		lang   string
		want   bool
	}{
		{"textDocument/hover", goFile, "go", true}, // static
		{"textDocument/definition", goFile, "go", false},
		{"textDocument/diagnostic", py, "python", true},
		{"textDocument/diagnostic", goFile, "go", false},
		{"textDocument/formatting", goFile, "go", true},
		{"textDocument/formatting", py, "python", false},
		{"textDocument/rename", py, "python", true}, // a null selector: every document
		{"textDocument/semanticTokens/full", subGo, "go", true},
		{"textDocument/semanticTokens/range", goFile, "go", false}, // outside the base
		{"textDocument/diagnostic", "", "", true},                  // the server as a whole
	} {
		if got := c.Supports(c2.method, c2.uri, c2.lang); got != c2.want {
			t.Errorf("Supports(%s, %s) = %v, want %v", c2.method, c2.uri, got, c2.want)
		}
	}
	if p := c.regs.pullProvider(); !p.ok || p.workspace {
		t.Fatalf("pull provider %+v", p)
	}
	if got := c.Registrations("textDocument/formatting"); len(got) != 1 || got[0].ID != "f" {
		t.Fatalf("registrations %+v", got)
	}
}

// TestKnownAnswer: a settled answer stands for its version while the
// server's inputs are as they were and nothing new came for the file; a
// publish, a pull, another version, other inputs, a close or a check that
// must follow a save (the answer did not) each end it.
func TestKnownAnswer(t *testing.T) {
	s := newDiagStore()
	a := protocol.DocumentURI("file:///a.go")
	v := int32(2)
	s.publish(&protocol.PublishDiagnosticsParams{URI: a, Version: &v, Diagnostics: []protocol.Diagnostic{diag("x")}}, 3)
	st := s.stampOf(a)
	s.know(a, knownAnswer{version: 2, inputs: 7, stamp: st})
	if !s.stillKnown(a, 2, 7, false) {
		t.Fatal("a fresh answer is not known")
	}
	for _, c := range []struct {
		name    string
		version int32
		inputs  uint64
		saved   bool
	}{{"another version", 3, 7, false}, {"other inputs", 2, 8, false}, {"a check after a save", 2, 7, true}} {
		if s.stillKnown(a, c.version, c.inputs, c.saved) {
			t.Errorf("%s: still known", c.name)
		}
	}
	if s.stillKnown("file:///b.go", 2, 7, false) {
		t.Error("a file never answered is known")
	}
	s.publish(&protocol.PublishDiagnosticsParams{URI: a, Version: &v, Diagnostics: nil}, 4)
	if s.stillKnown(a, 2, 7, false) {
		t.Error("still known after a publish for the file")
	}
	// A publish between the stamp and the record: not recorded.
	s.know(a, knownAnswer{version: 2, inputs: 7, stamp: st})
	if s.stillKnown(a, 2, 7, false) {
		t.Error("an answer older than the file's findings was recorded")
	}
	st = s.stampOf(a)
	s.know(a, knownAnswer{version: 2, inputs: 7, stamp: st, saved: true})
	if !s.stillKnown(a, 2, 7, true) || !s.stillKnown(a, 2, 7, false) {
		t.Error("an answer after a save is not known")
	}
	items := []protocol.Diagnostic{}
	s.storePull(a, 2, &items, nil, 5)
	if s.stillKnown(a, 2, 7, false) {
		t.Error("still known after a pull answer")
	}
	s.know(a, knownAnswer{version: 2, inputs: 7, stamp: s.stampOf(a)})
	s.closed(a)
	if s.stillKnown(a, 2, 7, false) {
		t.Error("still known after a close")
	}
}
