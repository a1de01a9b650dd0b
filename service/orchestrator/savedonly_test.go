package orchestrator

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
)

// TestSavedOnlyServer: a server that analyses saved files only (fortls:
// settle savedOnly) is not asked about text given instead of the file's —
// the check says why, never "clean" — and checks the file itself.
func TestSavedOnlyServer(t *testing.T) {
	exe, _ := os.Executable()
	f := newFake(t, map[string]string{"main.f90": "x ERROR\n"},
		lsptest.Config("", fmt.Sprintf(`"fortls": {"command": %q, "args": ["ok"]}`, exe)), map[string]lsptest.Behavior{"ok": {}})
	text := "fine\n"
	res := f.check(t, api.CheckParams{FilePath: "main.f90", Text: &text})
	if res.Checked || len(res.Servers) != 1 || res.Servers[0].Verdict != api.VerdictUnavailable || !strings.Contains(res.Servers[0].Reason, "analyses saved files only") {
		t.Fatalf("given text: %+v", res)
	}
	res = f.check(t, api.CheckParams{FilePath: "main.f90"})
	if !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("the file: %+v", res)
	}
}
