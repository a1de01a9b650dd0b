package lspserver_test

import (
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/protocol"
)

// report is a pull's answer, either kind.
type report struct {
	Kind     string                `json:"kind"`
	ResultID string                `json:"resultId"`
	Items    []protocol.Diagnostic `json:"items"`
}

// TestLSPServerPull: a client that pulls diagnostics (and can be told to
// pull again) gets them only by pulling — never pushed as well: both
// servers' findings merged for its current version, "unchanged" for the
// result it has, the new version's after a change; a server whose
// findings were not complete in time is asked again and the client told
// to pull again (workspace/diagnostic/refresh), and its next pull has
// them all.
func TestLSPServerPull(t *testing.T) {
	var answered atomic.Bool
	e, root := startWith(t, map[string]string{"a.fk": "x ERROR\n"}, lsptest.Behavior{
		SilentOn: func(string) bool { return !answered.Swap(true) }, // nothing for the first text it is given
	})
	uri, _ := protocol.FileURI(filepath.Join(root, "a.fk"))
	caps := map[string]any{"textDocument": map[string]any{"diagnostic": map[string]any{}}, "workspace": map[string]any{"diagnostics": map[string]any{"refreshSupport": true}}}
	res, err := e.call(t, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps})
	init := decode[protocol.InitializeResult](t, "initialize", res, err)
	if init.Capabilities.DiagnosticProvider.IsZero() {
		t.Fatalf("no diagnosticProvider for a pulling client: %s", res)
	}
	pull := func(previous string) report {
		t.Helper()
		params := map[string]any{"textDocument": map[string]any{"uri": uri}}
		if previous != "" {
			params["previousResultId"] = previous
		}
		res, err := e.call(t, protocol.DocumentDiagnosticRequest.Method(), params)
		return decode[report](t, "textDocument/diagnostic", res, err)
	}
	e.notify(t, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "fk", "version": 1, "text": "x ERROR\n"}})

	first := pull("")
	if first.Kind != "full" || len(first.Items) != 1 {
		t.Fatalf("first pull: %+v, want b's finding alone (a's not come in time)", first)
	}
	e.await(t, "workspace/diagnostic/refresh once a's findings came", func() bool {
		return slices.Contains(e.asked, protocol.DiagnosticRefreshRequest.Method())
	})
	second := pull(first.ResultID)
	if second.Kind != "full" || len(second.Items) != 2 {
		t.Fatalf("the pull after the refresh: %+v, want both servers' findings", second)
	}
	if same := pull(second.ResultID); same.Kind != "unchanged" || same.ResultID != second.ResultID {
		t.Errorf("a pull with the result it has: %+v, want unchanged", same)
	}

	e.notify(t, protocol.DidChangeTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": "x fixed\n"}}})
	if fixed := pull(second.ResultID); fixed.Kind != "full" || len(fixed.Items) != 0 || fixed.ResultID == second.ResultID {
		t.Errorf("the pull after the fix: %+v, want no finding, a new result", fixed)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if n := len(e.diags[uri]); n != 0 {
		t.Errorf("%d publishes to a pulling client, want none: %+v", n, e.diags[uri])
	}
}

// TestLSPServerPullWithoutRefresh: a client that pulls but cannot be told
// to pull again (Qwen Code), and one that never said it pulls, are pushed
// the findings and answered them by pull too — the error for the text
// they have, then none after the fix — never an empty report while the
// servers report findings, or before the round of their text ran.
func TestLSPServerPullWithoutRefresh(t *testing.T) {
	for name, caps := range map[string]map[string]any{
		"pull, no refresh": {"textDocument": map[string]any{"diagnostic": map[string]any{}}},
		"push only":        {},
	} {
		t.Run(name, func(t *testing.T) {
			e, root := start(t, map[string]string{"a.fk": "x ERROR\n"})
			uri, _ := protocol.FileURI(filepath.Join(root, "a.fk"))
			res, err := e.call(t, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps})
			decode[protocol.InitializeResult](t, "initialize", res, err)
			pull := func() report {
				t.Helper()
				res, err := e.call(t, protocol.DocumentDiagnosticRequest.Method(), map[string]any{"textDocument": map[string]any{"uri": uri}})
				return decode[report](t, "textDocument/diagnostic", res, err)
			}
			e.notify(t, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "fk", "version": 1, "text": "x ERROR\n"}})
			if r := pull(); r.Kind != "full" || len(r.Items) != 2 {
				t.Fatalf("the pull of version 1: %+v, want both servers' findings", r)
			}
			e.notify(t, protocol.DidChangeTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
				"contentChanges": []any{map[string]any{"text": "x fixed\n"}}})
			if r := pull(); r.Kind != "full" || len(r.Items) != 0 {
				t.Fatalf("the pull after the fix: %+v, want no finding", r)
			}
			e.await(t, "version 1's findings pushed too", func() bool { p, ok := e.published(uri, 1); return ok && len(p.Diagnostics) == 2 })
		})
	}
}
