package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/transport"
)

// fake is an orchestrator whose servers are in-process fakes.
type fake struct {
	*Orchestrator
	root     string
	launcher *lsptest.Launcher
}

// newFake writes files into a new root and starts an orchestrator over it
// with the configuration doc, whose servers run behaviors in-process.
func newFake(t *testing.T, files map[string]string, doc string, behaviors map[string]lsptest.Behavior) *fake {
	t.Helper()
	root := t.TempDir()
	lsptest.WriteFiles(t, root, files)
	cfg, err := config.Parse([]byte(doc), "test")
	if err != nil {
		t.Fatal(err)
	}
	l := &lsptest.Launcher{Behaviors: behaviors}
	o, err := New(Options{Root: root, Config: cfg, Launch: l.Launch, StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		o.Shutdown(context.Background())
		if n := l.Alive(); n != 0 {
			t.Errorf("%d fake servers still running after Shutdown", n)
		}
	})
	return &fake{Orchestrator: o, root: o.Root(), launcher: l}
}

func (f *fake) check(t *testing.T, p api.CheckParams) api.CheckResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := f.Check(ctx, p)
	if err != nil {
		t.Fatalf("check %+v: %v", p, err)
	}
	return res
}

func (f *fake) status(id string) api.ServerStatus {
	var last api.ServerStatus
	for _, s := range f.Status() {
		if s.ID == id {
			last = s
		}
	}
	return last
}

// TestCheckSettles: a check waits for the server's diagnostics for the text
// it sent; the text given is authoritative over the disk's; columns are
// code points.
func TestCheckSettles(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "fine\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("ok")), map[string]lsptest.Behavior{"ok": {}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk"})
	if !res.Checked || len(res.Diagnostics) != 0 || len(res.Servers) != 1 || res.Servers[0].Verdict != api.VerdictSettled {
		t.Fatalf("clean file: %+v", res)
	}
	text := "fine\né🙂 ERROR here\n"
	res = f.check(t, api.CheckParams{FilePath: "a.fk", Text: &text})
	want := api.Diagnostic{File: "a.fk", Line: 2, Character: 4, EndLine: 2, EndCharacter: 14, Severity: "error", Message: "error on line 2", Source: "fake", Server: "fake"}
	if !res.Checked || len(res.Diagnostics) != 1 || res.Diagnostics[0] != want {
		t.Fatalf("error: %+v", res)
	}
	if got := f.Diagnostics(); len(got["a.fk"]) != 1 {
		t.Fatalf("lsp/diagnostics: %+v", got)
	}
	if f.launcher.Launched("ok") != 1 {
		t.Fatalf("%d servers started", f.launcher.Launched("ok"))
	}
}

// TestWavesComplete: a server that publishes a version's findings in two
// waves (as gopls does: type errors first, analyzers later) is not settled
// by the first: the check waits out the quiet window and has both, on the
// first check and on a re-check of the same text.
func TestWavesComplete(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x ERROR\ny ERROR\n"}, lsptest.Config("", `"waves": `+lsptest.ServerEntry("waves")),
		map[string]lsptest.Behavior{"waves": {Waves: 2, WaveGap: 30 * time.Millisecond}})
	for round := range 2 {
		res := f.check(t, api.CheckParams{FilePath: "a.fk"})
		if !res.Checked || len(res.Diagnostics) != 2 || res.Servers[0].Verdict != api.VerdictSettled {
			t.Fatalf("round %d: want both waves' findings, settled: %+v", round, res)
		}
	}
}

// TestColdChecksAtOnce: files checked at once while their server starts
// all get the first-touch timeout, not only the one that started it.
func TestColdChecksAtOnce(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x ERROR\n", "b.fk": "y ERROR\n"},
		lsptest.Config(`,"diagnosticTimeout":100,"firstTouchTimeout":20000`, `"slow": `+lsptest.ServerEntry("slow")),
		map[string]lsptest.Behavior{"slow": {Delay: 300 * time.Millisecond}})
	results := make([]api.CheckResult, 2)
	var wg sync.WaitGroup
	for i, file := range []string{"a.fk", "b.fk"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = f.check(t, api.CheckParams{FilePath: file})
		}()
	}
	wg.Wait()
	for i, res := range results {
		if !res.Checked || len(res.Diagnostics) != 1 {
			t.Errorf("file %d: %+v", i, res)
		}
	}
}

// TestPullServer: a server that answers pulls and publishes nothing.
func TestPullServer(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x ERROR\n"}, lsptest.Config("", `"pull": `+lsptest.ServerEntry("pull")), map[string]lsptest.Behavior{"pull": {Pull: true}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk"})
	if !res.Checked || len(res.Diagnostics) != 1 || res.Servers[0].Verdict != api.VerdictSettled {
		t.Fatalf("pull: %+v", res)
	}
}

// TestUnversionedServer: a server that publishes without versions settles
// after its quiet window.
func TestUnversionedServer(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x ERROR\n"}, lsptest.Config("", `"nov": `+lsptest.ServerEntry("nov")), map[string]lsptest.Behavior{"nov": {Unversioned: true}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk"})
	if !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("unversioned: %+v", res)
	}
}

// TestBoundary: paths that escape the root, binary files and unknown
// extensions are not checked, say why, and start nothing.
func TestBoundary(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	root := filepath.Join(parent, "ws")
	sibling := filepath.Join(parent, "ws2")
	lsptest.WriteFiles(t, sibling, map[string]string{"b.fk": "ERROR\n"})
	lsptest.WriteFiles(t, parent, map[string]string{"out.fk": "ERROR\n"})
	lsptest.WriteFiles(t, root, map[string]string{"bin.fk": "x\x00\x01", "notes.unknownext": "x\n"})
	if err := os.Symlink(filepath.Join(sibling, "b.fk"), filepath.Join(root, "link.fk")); err != nil {
		t.Fatal(err)
	}
	cfg, _ := config.Parse([]byte(lsptest.Config("", `"fake": `+lsptest.ServerEntry("ok"))), "test")
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"ok": {}}}
	o, err := New(Options{Root: root, Config: cfg, Launch: l.Launch})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Shutdown(context.Background())
	f := &fake{Orchestrator: o, root: o.Root(), launcher: l}
	cases := map[string]string{
		"../out.fk":                     "outside the workspace root",
		filepath.Join(parent, "out.fk"): "outside the workspace root",
		"link.fk":                       "outside the workspace root",
		filepath.Join(sibling, "b.fk"):  "outside the workspace root",
		"../ws2/b.fk":                   "outside the workspace root",
		"bin.fk":                        "binary file",
		"notes.unknownext":              "no language server handles .unknownext files (configured: ",
	}
	if _, err := os.Stat(filepath.Join(root, "link.fk")); err != nil {
		// Wine 8.0 makes the link but cannot follow it.
		t.Logf("the symbolic link does not resolve here (%v): its case is left out", err)
		delete(cases, "link.fk")
	}
	for p, reason := range cases {
		res := f.check(t, api.CheckParams{FilePath: p})
		if res.Checked || len(res.Diagnostics) != 0 || !strings.Contains(res.Reason, reason) {
			t.Errorf("%s: %+v, want not checked: %s", p, res, reason)
		}
	}
	if n := l.Launched("ok"); n != 0 {
		t.Fatalf("%d servers started for escaping paths", n)
	}
	if _, err := f.Check(context.Background(), api.CheckParams{}); !isCode(err, transport.CodeInvalidParams) {
		t.Fatalf("empty path: %v", err)
	}
}

func isCode(err error, code int64) bool {
	var e *transport.Error
	return errors.As(err, &e) && e.Code == code
}

// TestDisabled: lsp false and a disabled server check nothing and say so.
func TestDisabled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc, reason, status string }{
		{"lsp false", `{"lsp": false}`, "LSP is disabled", "LSP disabled by configuration"},
		{"server disabled", lsptest.Config("", `"fake": {"enabled": false}`), "no language server handles .fk files", "disabled by configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.doc
			if tc.name == "server disabled" {
				doc = lsptest.Config("", `"fake": `+strings.TrimSuffix(lsptest.ServerEntry("ok"), "}")+`, "enabled": false}`)
			}
			f := newFake(t, map[string]string{"a.fk": "ERROR\n"}, doc, map[string]lsptest.Behavior{"ok": {}})
			res := f.check(t, api.CheckParams{FilePath: "a.fk"})
			if res.Checked || !strings.Contains(res.Reason, tc.reason) {
				t.Fatalf("check: %+v", res)
			}
			if st := f.status("fake"); tc.name == "server disabled" && (st.Status != api.StatusDisabled || st.Reason != tc.status) {
				t.Fatalf("status: %+v", st)
			}
			if n := f.launcher.Launched("ok"); n != 0 {
				t.Fatalf("%d servers started", n)
			}
		})
	}
}

// TestServerCrashes: a server that dies on every didOpen is restarted
// within the policy, then broken with its reason; checks keep answering.
func TestServerCrashes(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lsptest.Config(`,"restart":{"maxRestarts":2,"windowMs":60000}`, `"crashy": `+lsptest.ServerEntry("crash")),
		map[string]lsptest.Behavior{"crash": {CrashOn: "textDocument/didOpen"}})
	var verdicts []api.Verdict
	for range 8 {
		res := f.check(t, api.CheckParams{FilePath: "a.fk", TimeoutMs: 5000})
		verdicts = append(verdicts, res.Servers[0].Verdict)
		if res.Checked {
			t.Fatalf("a crashing server checked the file: %+v", res)
		}
		if res.Servers[0].Verdict == api.VerdictBroken && f.status("crashy").Status == api.StatusBroken {
			break
		}
	}
	st := f.status("crashy")
	if st.Status != api.StatusBroken || st.Restarts != 2 || !strings.Contains(st.Reason, "exit status 3") || !strings.Contains(st.Reason, "crashing on textDocument/didOpen") {
		t.Fatalf("status after %v: %+v", verdicts, st)
	}
	if n := f.launcher.Launched("crash"); n != 3 {
		t.Fatalf("%d starts, want 3 (the first and two restarts)", n)
	}
}

// TestNoRestarts: maxRestarts 0 makes the first crash final.
func TestNoRestarts(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lsptest.Config(`,"restart":{"maxRestarts":0}`, `"crashy": `+lsptest.ServerEntry("crash")),
		map[string]lsptest.Behavior{"crash": {CrashOn: "textDocument/didOpen"}})
	for range 3 {
		res := f.check(t, api.CheckParams{FilePath: "a.fk", TimeoutMs: 5000})
		if res.Servers[0].Verdict != api.VerdictBroken {
			t.Fatalf("check: %+v", res.Servers)
		}
	}
	if st := f.status("crashy"); st.Status != api.StatusBroken || st.Restarts != 0 {
		t.Fatalf("status: %+v", st)
	}
}

// TestInitializeHang: a server that never answers initialize costs a check
// its first-touch timeout, no more, and stays "starting".
func TestInitializeHang(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lsptest.Config(`,"firstTouchTimeout":300`, `"hangs": `+lsptest.ServerEntry("hang")),
		map[string]lsptest.Behavior{"hang": {HangOn: "initialize"}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk"})
	if res.Checked || res.Servers[0].Verdict != api.VerdictTimedOut || !strings.Contains(res.Reason, "still starting") {
		t.Fatalf("check: %+v", res)
	}
	if st := f.status("hangs"); st.Status != api.StatusStarting {
		t.Fatalf("status: %+v", st)
	}
}

// TestGarbageServer: a server that answers initialize with bytes that are
// no frame is broken with the framing error as its reason.
func TestGarbageServer(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lsptest.Config(`,"restart":{"maxRestarts":0}`, `"garbage": `+lsptest.ServerEntry("garbage")),
		map[string]lsptest.Behavior{"garbage": {RawOn: "initialize", Raw: "this is not a header\r\n\r\n{}"}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk", TimeoutMs: 5000})
	if res.Checked || res.Servers[0].Verdict != api.VerdictBroken {
		t.Fatalf("check: %+v", res)
	}
}

// TestSlowServerDoesNotDelay: a server that never initializes shares .fk
// with a good one; the good one's verdict and diagnostics come in its own
// time, the check ends at the slow one's deadline.
func TestSlowServerDoesNotDelay(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "ERROR\n"}, lsptest.Config(`,"firstTouchTimeout":1500`, `"good": `+lsptest.ServerEntry("ok"), `"hangs": `+lsptest.ServerEntry("hang")),
		map[string]lsptest.Behavior{"ok": {}, "hang": {HangOn: "initialize"}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk"})
	verdicts := map[string]api.ServerResult{}
	for _, s := range res.Servers {
		verdicts[s.ID] = s
	}
	if verdicts["good"].Verdict != api.VerdictSettled || verdicts["hangs"].Verdict != api.VerdictTimedOut || len(res.Diagnostics) != 1 || res.Checked {
		t.Fatalf("check: %+v", res)
	}
	if verdicts["good"].MS >= verdicts["hangs"].MS {
		t.Fatalf("the good server (%d ms) waited for the hanging one (%d ms)", verdicts["good"].MS, verdicts["hangs"].MS)
	}
}

// TestSingleFlight: eight concurrent first checks of files of one root
// start one server.
func TestSingleFlight(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 8 {
		files[fmt.Sprintf("f%d.fk", i)] = "ERROR\n"
	}
	f := newFake(t, files, lsptest.Config("", `"fake": `+lsptest.ServerEntry("ok")), map[string]lsptest.Behavior{"ok": {Delay: 20 * time.Millisecond}})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			res, err := f.Check(context.Background(), api.CheckParams{FilePath: fmt.Sprintf("f%d.fk", i)})
			if err == nil && (len(res.Diagnostics) != 1 || !res.Checked) {
				err = fmt.Errorf("f%d.fk: %+v", i, res)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := f.launcher.Launched("ok"); n != 1 {
		t.Fatalf("%d servers started", n)
	}
}

// TestRootsPerMarker: a server runs once per root its markers make.
func TestRootsPerMarker(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a/mark": "", "a/x.fk": "ERROR\n", "b/mark": "", "b/y.fk": "ERROR\n"},
		lsptest.Config("", `"fake": `+strings.TrimSuffix(lsptest.ServerEntry("ok"), "}")+`, "rootMarkers": ["mark"]}`), map[string]lsptest.Behavior{"ok": {}})
	f.check(t, api.CheckParams{FilePath: "a/x.fk"})
	f.check(t, api.CheckParams{FilePath: "b/y.fk"})
	var roots []string
	for _, s := range f.Status() {
		if s.ID == "fake" {
			roots = append(roots, s.Root)
		}
	}
	if len(roots) != 2 || roots[0] != filepath.Join(f.root, "a") || roots[1] != filepath.Join(f.root, "b") {
		t.Fatalf("roots %v", roots)
	}
}

// TestStatusIdle: servers not started anywhere are idle, without a pid.
func TestStatusIdle(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("ok")), map[string]lsptest.Behavior{"ok": {}})
	if st := f.status("fake"); st.Status != api.StatusIdle || st.ServerPID != 0 || st.Root != "" {
		t.Fatalf("before any check: %+v", st)
	}
	f.check(t, api.CheckParams{FilePath: "a.fk"})
	if st := f.status("fake"); st.Status != api.StatusActive || st.Root != f.root {
		t.Fatalf("after a check: %+v", st)
	}
}

// TestCannotStartSaidAtOnce: a server that exits at start the same way
// twice is unavailable with the line it wrote as the reason — tried twice,
// not restarted with backoff under the crash policy.
func TestCannotStartSaidAtOnce(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lsptest.Config(``, `"dead": `+lsptest.ServerEntry("dead")),
		map[string]lsptest.Behavior{"dead": {CrashOn: "initialize"}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk", TimeoutMs: 60000})
	if res.Checked || res.Servers[0].Verdict != api.VerdictUnavailable || !strings.Contains(res.Reason, "cannot start (exit status 3: fake: crashing on initialize)") {
		t.Fatalf("check: %+v", res)
	}
	if st := f.status("dead"); st.Status != api.StatusUnavailable || st.Restarts != 1 {
		t.Fatalf("status: %+v", st)
	}
	if n := f.launcher.Launched("dead"); n != 2 {
		t.Fatalf("%d starts, want 2", n)
	}
	// Asked again, it is not started again: it cannot start here.
	if res := f.check(t, api.CheckParams{FilePath: "a.fk", TimeoutMs: 60000}); res.Servers[0].Verdict != api.VerdictUnavailable {
		t.Fatalf("second check: %+v", res)
	}
	if n := f.launcher.Launched("dead"); n != 2 {
		t.Fatalf("%d starts after a second check, want 2", n)
	}
}
