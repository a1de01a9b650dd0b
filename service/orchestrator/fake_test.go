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

// fakeServer is a configuration entry for a fake server with a behavior
// serving extensions.
func fakeServer(behavior string, extensions ...string) string {
	exe, _ := os.Executable() // any existing file: the launcher ignores it
	exts := `".fk"`
	if len(extensions) > 0 {
		exts = `"` + strings.Join(extensions, `","`) + `"`
	}
	return fmt.Sprintf(`{"command": %q, "args": [%q], "extensions": [%s], "impact": "self"}`, exe, behavior, exts)
}

// newFake writes files into a new root and starts an orchestrator over it
// with the configuration doc, whose servers run behaviors in-process.
func newFake(t *testing.T, files map[string]string, doc string, behaviors map[string]lsptest.Behavior) *fake {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
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

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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

func lspConfig(extra string, servers ...string) string {
	return `{"lsp":{"autoInstall":false` + extra + `,"servers":{` + strings.Join(servers, ",") + `}}}`
}

// TestCheckSettles: a check waits for the server's diagnostics for the text
// it sent; the text given is authoritative over the disk's; columns are
// code points.
func TestCheckSettles(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "fine\n"}, lspConfig("", `"fake": `+fakeServer("ok")), map[string]lsptest.Behavior{"ok": {}})
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
	f := newFake(t, map[string]string{"a.fk": "x ERROR\ny ERROR\n"}, lspConfig("", `"waves": `+fakeServer("waves")),
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
		lspConfig(`,"diagnosticTimeout":100,"firstTouchTimeout":20000`, `"slow": `+fakeServer("slow")),
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
	f := newFake(t, map[string]string{"a.fk": "x ERROR\n"}, lspConfig("", `"pull": `+fakeServer("pull")), map[string]lsptest.Behavior{"pull": {Pull: true}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk"})
	if !res.Checked || len(res.Diagnostics) != 1 || res.Servers[0].Verdict != api.VerdictSettled {
		t.Fatalf("pull: %+v", res)
	}
}

// TestUnversionedServer: a server that publishes without versions settles
// after its quiet window.
func TestUnversionedServer(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x ERROR\n"}, lspConfig("", `"nov": `+fakeServer("nov")), map[string]lsptest.Behavior{"nov": {Unversioned: true}})
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
	writeFiles(t, sibling, map[string]string{"b.fk": "ERROR\n"})
	writeFiles(t, parent, map[string]string{"out.fk": "ERROR\n"})
	writeFiles(t, root, map[string]string{"bin.fk": "x\x00\x01", "notes.unknownext": "x\n"})
	if err := os.Symlink(filepath.Join(sibling, "b.fk"), filepath.Join(root, "link.fk")); err != nil {
		t.Fatal(err)
	}
	cfg, _ := config.Parse([]byte(lspConfig("", `"fake": `+fakeServer("ok"))), "test")
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
		{"server disabled", lspConfig("", `"fake": {"enabled": false}`), "no language server handles .fk files", "disabled by configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.doc
			if tc.name == "server disabled" {
				doc = lspConfig("", `"fake": `+strings.TrimSuffix(fakeServer("ok"), "}")+`, "enabled": false}`)
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
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lspConfig(`,"restart":{"maxRestarts":2,"windowMs":60000}`, `"crashy": `+fakeServer("crash")),
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
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lspConfig(`,"restart":{"maxRestarts":0}`, `"crashy": `+fakeServer("crash")),
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
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lspConfig(`,"firstTouchTimeout":300`, `"hangs": `+fakeServer("hang")),
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
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lspConfig(`,"restart":{"maxRestarts":0}`, `"garbage": `+fakeServer("garbage")),
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
	f := newFake(t, map[string]string{"a.fk": "ERROR\n"}, lspConfig(`,"firstTouchTimeout":1500`, `"good": `+fakeServer("ok"), `"hangs": `+fakeServer("hang")),
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
	f := newFake(t, files, lspConfig("", `"fake": `+fakeServer("ok")), map[string]lsptest.Behavior{"ok": {Delay: 20 * time.Millisecond}})
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
		lspConfig("", `"fake": `+strings.TrimSuffix(fakeServer("ok"), "}")+`, "rootMarkers": ["mark"]}`), map[string]lsptest.Behavior{"ok": {}})
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
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lspConfig("", `"fake": `+fakeServer("ok")), map[string]lsptest.Behavior{"ok": {}})
	if st := f.status("fake"); st.Status != api.StatusIdle || st.ServerPID != 0 || st.Root != "" {
		t.Fatalf("before any check: %+v", st)
	}
	f.check(t, api.CheckParams{FilePath: "a.fk"})
	if st := f.status("fake"); st.Status != api.StatusActive || st.Root != f.root {
		t.Fatalf("after a check: %+v", st)
	}
}

// TestReportWrite: a write report lists the file and the other files the
// servers reported on.
func TestReportWrite(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "ERROR a\n", "b.fk": "ERROR b\n"}, lspConfig("", `"fake": `+fakeServer("ok")), map[string]lsptest.Behavior{"ok": {}})
	f.check(t, api.CheckParams{FilePath: "b.fk"})
	rep, err := f.Report(context.Background(), api.ReportParams{FilePath: "a.fk", Mode: "write"})
	if err != nil {
		t.Fatal(err)
	}
	want := "LSP errors detected in this file, please fix:\n<diagnostics file=\"a.fk\">\nERROR [1:1] error on line 1\n</diagnostics>\n\n" +
		"LSP errors detected in other files:\n<diagnostics file=\"b.fk\">\nERROR [1:1] error on line 1\n</diagnostics>\n"
	if rep.Text != want {
		t.Fatalf("report:\n%s\nwant:\n%s", rep.Text, want)
	}
	if _, err := f.Report(context.Background(), api.ReportParams{FilePath: "a.fk", Mode: "both"}); !isCode(err, transport.CodeInvalidParams) || !strings.Contains(err.Error(), "mode") {
		t.Fatalf("bad mode: %v", err)
	}
}

// TestNavigationErrors: the orchestrator's errors say what is wrong, with
// the contract's codes.
func TestNavigationErrors(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "one\ntwo\nidle(id, x.id) + é\n", "dir/x": "", "notes.xyz": "x\n"}, lspConfig("", `"fake": `+fakeServer("ok")), map[string]lsptest.Behavior{"ok": {}})
	ctx := context.Background()
	for _, tc := range []struct {
		p    api.PositionParams
		code int64
		want string
	}{
		{api.PositionParams{File: "a.fk", Line: 0, Character: 1}, transport.CodeInvalidParams, "line must be ≥ 1"},
		{api.PositionParams{File: "a.fk", Line: 9, Character: 1}, transport.CodeInvalidParams, "line 9 is past the end of a.fk (3 lines)"},
		{api.PositionParams{File: "a.fk", Line: 2, Character: 80}, transport.CodeInvalidParams, "character 80 is past the end of line 2 (3 characters)"},
		{api.PositionParams{File: "a.fk", Line: 3, Symbol: "dle"}, transport.CodeInvalidParams, `symbol "dle" does not occur on line 3`},
		{api.PositionParams{File: "a.fk", Line: 3, Symbol: "id", Occurrence: 3}, transport.CodeInvalidParams, `occurrence 3: "id" appears 2 times on line 3 of a.fk`},
		{api.PositionParams{File: "a.fk", Line: 1}, transport.CodeInvalidParams, "character is required"},
		{api.PositionParams{File: "a.fk", Line: 2, Symbol: "nope"}, transport.CodeInvalidParams, `symbol "nope" does not occur on line 2`},
		{api.PositionParams{File: "", Line: 1, Character: 1}, transport.CodeInvalidParams, "file is required"},
		{api.PositionParams{File: "../x.fk", Line: 1, Character: 1}, api.CodeOutsideRoot, "outside the workspace root"},
		{api.PositionParams{File: "missing.fk", Line: 1, Character: 1}, api.CodeNotFound, "no such file: missing.fk"},
		{api.PositionParams{File: "dir", Line: 1, Character: 1}, transport.CodeInvalidParams, "dir is a directory"},
		{api.PositionParams{File: "notes.xyz", Line: 1, Character: 1}, api.CodeNoServer, "no language server handles .xyz files"},
	} {
		_, err := f.Definition(ctx, tc.p)
		if !isCode(err, tc.code) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want code %d with %q", tc.p, err, tc.code, tc.want)
		}
	}
	res, err := f.Definition(ctx, api.PositionParams{File: "a.fk", Line: 2, Symbol: "two"})
	if err != nil || len(res.Locations) != 1 || res.Locations[0].File != "a.fk" || res.Locations[0].Line != 2 || res.Note != "" || res.Locations[0].Source != "two" {
		t.Fatalf("definition: %+v %v", res, err)
	}
	// Whole identifiers: "id" is not the one inside "idle"; several on the
	// line are chosen among with occurrence, and the answer says when none
	// was given. (The fake's definition is the position asked about.)
	for _, tc := range []struct {
		p    api.PositionParams
		col  int
		note string
	}{
		{api.PositionParams{File: "a.fk", Line: 3, Symbol: "id"}, 6, `"id" appears 2 times on line 3; used the first; pass occurrence`},
		{api.PositionParams{File: "a.fk", Line: 3, Symbol: "id", Occurrence: 2}, 12, ""},
		{api.PositionParams{File: "a.fk", Line: 3, Symbol: "idle"}, 1, ""},
		{api.PositionParams{File: "a.fk", Line: 3, Symbol: "+"}, 16, ""},
		{api.PositionParams{File: "a.fk", Line: 3, Character: 19}, 19, ""}, // the end of the line, after é
	} {
		res, err := f.Definition(ctx, tc.p)
		if err != nil || len(res.Locations) != 1 || res.Locations[0].Character != tc.col || res.Note != tc.note {
			t.Errorf("%+v: %+v %v, want column %d, note %q", tc.p, res, err, tc.col, tc.note)
		}
	}
	hov, err := f.Hover(ctx, api.PositionParams{File: "a.fk", Line: 1, Character: 1})
	if err != nil || hov.Content == nil || *hov.Content != "line 1: one" {
		t.Fatalf("hover: %+v %v", hov, err)
	}
	if _, err := f.References(ctx, api.PositionParams{File: "a.fk", Line: 1, Character: 1}); !isCode(err, api.CodeNoServer) || !strings.Contains(err.Error(), "fake does not offer textDocument/references") {
		t.Fatalf("references from a server without them: %v", err)
	}
}

// TestCannotStartSaidAtOnce: a server that exits at start the same way
// twice is unavailable with the line it wrote as the reason — tried twice,
// not restarted with backoff under the crash policy.
func TestCannotStartSaidAtOnce(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lspConfig(``, `"dead": `+fakeServer("dead")),
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
