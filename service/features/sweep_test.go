package features

import (
	"context"
	"testing"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// TestSweep: every source file of the root is checked (excluded ones
// not), with their findings and how many were checked; progress is told.
func TestSweep(t *testing.T) {
	t.Parallel()
	files := lsptest.Dependents(3, true)
	files["vendor/skip.fk"] = "ERROR excluded\n"
	files["node_modules/dep/x.fk"] = "ERROR installed\n"
	files["notes.txt"] = "ERROR no server\n"
	f := newFake(t, files, lsptest.Config(`,"exclude":["vendor/**"]`, `"fake": `+lsptest.ImportingEntry("ok")), map[string]lsptest.Behavior{"ok": {}})
	var last [2]int
	ctx := WithProgress(context.Background(), func(done, total int, _ string) { last = [2]int{done, total} })
	res, err := f.Sweep(ctx, api.DiagnosticsParams{Sweep: true})
	if err != nil || !res.Complete || res.Files != 5 || res.Checked != 5 || len(res.Diagnostics) != 4 || res.Diagnostics["alone.fk"] == nil || res.Diagnostics["vendor/skip.fk"] != nil {
		t.Fatalf("sweep: %+v %v", res, err)
	}
	if last != [2]int{5, 5} {
		t.Fatalf("progress: last %v, want 5 of 5", last)
	}
	if uris := f.launcher.OpenOnce(0); len(uris) != 0 {
		t.Fatalf("open after the sweep: %v", uris)
	}
	if _, err := f.Sweep(ctx, api.DiagnosticsParams{Sweep: true, Severities: []string{"fatal"}}); !isCode(err, transport.CodeInvalidParams) {
		t.Fatalf("bad severity: %v", err)
	}
}
