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
	if want := `{"id":"gopls","language":"go","status":"idle","reason":"not started"}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
}
