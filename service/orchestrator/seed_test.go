package orchestrator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// waitOpen waits until the fake servers have n documents open.
func waitOpen(t *testing.T, f *fake, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if open, _ := f.launcher.Documents(); open >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d documents Held", n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCancelledCheck: a check whose caller gives up (LLxprt Code's edit
// tools abort at 5 s; a JSON-RPC client sends $/cancelRequest) answers at
// once with what is known, saying it was not fully checked because it was
// cancelled, and stops waiting.
func TestCancelledCheck(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x ERROR\n"}, lsptest.Config(`,"diagnosticTimeout":600000,"firstTouchTimeout":600000`, `"fake": `+lsptest.ServerEntry("silent")),
		map[string]lsptest.Behavior{"silent": {Silent: true}})
	ctx, cancel := context.WithCancel(context.Background())
	type answer struct {
		res api.CheckResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := f.Check(ctx, api.CheckParams{FilePath: "a.fk"})
		done <- answer{res, err}
	}()
	waitOpen(t, f, 1)
	cancel()
	var a answer
	select {
	case a = <-done:
	case <-time.After(servertest.Scale(30 * time.Second)):
		t.Fatal("a cancelled check is still waiting")
	}
	if a.err != nil || a.res.Checked || len(a.res.Servers) != 1 || a.res.Servers[0].Verdict != api.VerdictTimedOut ||
		!strings.Contains(a.res.Reason, "cancelled") {
		t.Fatalf("%+v %v", a.res, a.err)
	}
}

// TestFirstTouchOncePerProcess: the first-touch wait is spent by the first
// check that runs its course on a server process, settled or not: a
// server that never settles costs it once, not on every edit; a restarted
// server gets it again.
func TestFirstTouchOncePerProcess(t *testing.T) {
	t.Parallel()
	const firstTouch = 1500
	f := newFake(t, map[string]string{"a.fk": "x ERROR\n"}, lsptest.Config(`,"diagnosticTimeout":50,"firstTouchTimeout":1500,"restart":{"maxRestarts":5,"windowMs":60000}`, `"fake": `+lsptest.ServerEntry("silent")),
		map[string]lsptest.Behavior{"silent": {Silent: true, CrashOn: "textDocument/hover"}})
	ms := func() int64 {
		t.Helper()
		res := f.check(t, api.CheckParams{FilePath: "a.fk"})
		if res.Checked || res.Servers[0].Verdict != api.VerdictTimedOut {
			t.Fatalf("a server that never publishes: %+v", res)
		}
		return res.Servers[0].MS
	}
	if got := ms(); got < firstTouch {
		t.Fatalf("first check after the start waited %d ms, want the first touch (%d ms)", got, firstTouch)
	}
	for range 3 {
		if got := ms(); got >= firstTouch {
			t.Fatalf("a later check waited %d ms: the first touch again", got)
		}
	}
	if _, err := hover(context.Background(), f.Orchestrator, api.PositionParams{File: "a.fk", Line: 1, Character: 1}); err == nil {
		t.Fatal("hover of a crashing server answered")
	}
	if got := ms(); got < firstTouch {
		t.Fatalf("first check after a restart waited %d ms, want the first touch again", got)
	}
	if st := f.status("fake"); st.Restarts != 1 {
		t.Fatalf("not restarted: %+v", st)
	}
	if got := ms(); got >= firstTouch {
		t.Fatalf("a later check after the restart waited %d ms", got)
	}
}

// TestMergedFindings: the same finding from two servers of a file
// (TypeScript and ESLint both saying it) appears once; findings are
// ordered by line, then column; lsp/diagnostics keeps the configured
// severities; status is ordered by id.
func TestMergedFindings(t *testing.T) {
	t.Parallel()
	at := func(line, col uint32, sev protocol.DiagnosticSeverity, msg string) protocol.Diagnostic {
		return protocol.Diagnostic{Range: protocol.Range{Start: protocol.Position{Line: line, Character: col}, End: protocol.Position{Line: line, Character: col + 1}},
			Severity: protocol.Ptr(sev), Message: protocol.NewStringOrMarkupContentString(msg)}
	}
	both := func(string) []protocol.Diagnostic {
		return []protocol.Diagnostic{at(2, 4, protocol.DiagnosticSeverityError, "shared"), at(0, 9, protocol.DiagnosticSeverityError, "late"), at(0, 2, protocol.DiagnosticSeverityWarning, "a warning")}
	}
	second := func(string) []protocol.Diagnostic {
		return []protocol.Diagnostic{at(2, 4, protocol.DiagnosticSeverityError, "shared"), at(0, 1, protocol.DiagnosticSeverityError, "early")}
	}
	f := newFake(t, map[string]string{"a.fk": "0123456789\n\n0123456789\n"}, lsptest.Config("", `"zz-lint": `+lsptest.ServerEntry("second"), `"aa-types": `+lsptest.ServerEntry("both")),
		map[string]lsptest.Behavior{"both": {Diagnose: both}, "second": {Diagnose: second}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk"})
	var got []string
	for _, d := range res.Diagnostics {
		got = append(got, fmt.Sprintf("%d:%d %s", d.Line, d.Character, d.Message))
	}
	if strings.Join(got, "; ") != "1:2 early; 1:10 late; 3:5 shared" {
		t.Fatalf("check: %v", got)
	}
	all := f.Diagnostics()
	if len(all["a.fk"]) != 3 {
		t.Fatalf("lsp/diagnostics keeps only errors, once each: %+v", all)
	}
	var ids []string
	for _, st := range f.Status() {
		ids = append(ids, st.ID)
	}
	if !slices.IsSorted(ids) {
		t.Fatalf("status order: %v", ids)
	}
}

// TestPullRetriggered: a pull server that answers ServerCancelled asking
// for the pull again (busy loading) is pulled again, and the check settles
// with its findings instead of waiting out its timeout.
func TestPullRetriggered(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x ERROR\n"}, lsptest.Config(`,"firstTouchTimeout":600000`, `"fake": `+lsptest.ServerEntry("busy")),
		map[string]lsptest.Behavior{"busy": {Pull: true, PullCancels: 3}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk"})
	if !res.Checked || len(res.Diagnostics) != 1 || res.Servers[0].Verdict != api.VerdictSettled {
		t.Fatalf("%+v", res)
	}
}
