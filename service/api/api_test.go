package api

import (
	"testing"

	"github.com/go-json-experiment/json"
)

// TestIdleHasNoPID: a server that runs nowhere is idle with no pid and no
// restarts on the wire.
func TestIdleHasNoPID(t *testing.T) {
	out, err := json.Marshal(ServerStatus{ID: "gopls", Language: "go", Status: StatusIdle, Reason: "not started"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"gopls","language":"go","status":"idle","reason":"not started","serverId":"gopls","state":"idle"}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
}

// TestHostNames: on the wire a diagnostic carries column beside character
// and a status serverId and state, in the words LLxprt Code's client reads
// (lsp-service-client.ts, lsp-status-normalizer.ts): a running server is
// "ok" (healthy there), and nothing of lspkit's own members changes.
func TestHostNames(t *testing.T) {
	out, err := json.Marshal(FileDiagnostics{"a.go": {{File: "a.go", Line: 6, Character: 14, EndLine: 6, EndCharacter: 20, Severity: "error", Message: "m", Code: "E1", Server: "gopls"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a.go":[{"file":"a.go","line":6,"character":14,"column":14,"endLine":6,"endCharacter":20,"severity":"error","message":"m","code":"E1","server":"gopls"}]}`; string(out) != want {
		t.Fatalf("got %s\nwant %s", out, want)
	}
	var back []Diagnostic
	if err := json.Unmarshal([]byte(`[{"file":"a.go","line":6,"character":14,"column":14,"severity":"error","message":"m","server":"gopls"}]`), &back); err != nil || back[0].Character != 14 {
		t.Fatalf("read back: %+v %v", back, err)
	}
	for status, state := range map[string]string{StatusActive: "ok", StatusStarting: "starting", StatusBroken: "broken", StatusUnavailable: "broken", StatusIdle: "idle", StatusDisabled: "idle"} {
		out, err := json.Marshal([]ServerStatus{{ID: "gopls", Language: "go", Status: status, ServerPID: 7}})
		if err != nil {
			t.Fatal(err)
		}
		var m []map[string]any
		if err := json.Unmarshal(out, &m); err != nil || m[0]["serverId"] != "gopls" || m[0]["state"] != state || m[0]["status"] != status || m[0]["id"] != "gopls" {
			t.Errorf("%s: %s", status, out)
		}
	}
}
