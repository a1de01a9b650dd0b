package orchestrator

import (
	"strings"
	"testing"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
)

// TestUnreadablePublishSaidAtOnce: a server whose publish of diagnostics
// cannot be read (a diagnostic without its required message) does not
// leave the check waiting out its timeout: the check says at once that
// the file was not checked, naming the server, the method and the member.
func TestUnreadablePublishSaidAtOnce(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lsptest.Config(`,"diagnosticTimeout":600000`, `"liar": `+lsptest.ServerEntry("bad")),
		map[string]lsptest.Behavior{"bad": {BadPublish: true}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk"}) // fails the test if it waits 30 s
	if res.Checked || len(res.Servers) != 1 || res.Servers[0].Verdict != api.VerdictBroken {
		t.Fatalf("want not checked, broken: %+v", res)
	}
	for _, want := range []string{"liar sent textDocument/publishDiagnostics that lspkit could not read", "Diagnostic.message: missing required property"} {
		if !strings.Contains(res.Reason, want) || !strings.Contains(res.Servers[0].Reason, want) {
			t.Errorf("the reason lacks %q: %+v", want, res)
		}
	}
}
