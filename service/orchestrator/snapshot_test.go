package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// snapshotText is check i's text: its number on the first line, and an
// error after i astral characters (two UTF-16 units each) on the second,
// so a column mapped with another check's text comes out wrong.
func snapshotText(i int) string {
	return fmt.Sprintf("check %d\n%sERROR\n", i, strings.Repeat("😀", i))
}

// checkAtOnce runs n checks of file at once, check i with text(i), and
// returns their results in order.
func checkAtOnce(n int, file string, text func(int) string, check func(api.CheckParams) api.CheckResult) []api.CheckResult {
	results := make([]api.CheckResult, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i] = check(api.CheckParams{FilePath: file, Text: new(text(i)), TimeoutMs: int(servertest.Scale(90 * time.Second).Milliseconds())})
		})
	}
	wg.Wait()
	return results
}

// firstLineError is a fake's diagnose: one error, on the line with ERROR,
// whose message is the text's first line (which check's text it saw).
func firstLineError(text string) []protocol.Diagnostic {
	out := lsptest.ErrorLines(text)
	for i := range out {
		out[i].Message = protocol.NewStringOrMarkupContentString(strings.SplitN(text, "\n", 2)[0])
	}
	return out
}

// TestConcurrentChecksOwnText: 24 checks of one file at once, each with
// its own text, each answered with the findings for exactly its text and
// columns mapped with it — against servers that publish in waves after a
// delay, and that answer pulls.
func TestConcurrentChecksOwnText(t *testing.T) {
	t.Parallel()
	behaviors := map[string]lsptest.Behavior{
		"waves": {Diagnose: firstLineError, Waves: 2, Delay: 2 * time.Millisecond, WaveGap: time.Millisecond},
		"pull":  {Diagnose: firstLineError, Pull: true, Delay: time.Millisecond},
	}
	for name := range behaviors {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, map[string]string{"a.fk": "check -1\n"}, lsptest.Config("", `"`+name+`": `+lsptest.ServerEntry(name)), behaviors)
			results := checkAtOnce(24, "a.fk", snapshotText, func(p api.CheckParams) api.CheckResult { return f.check(t, p) })
			for i, res := range results {
				want := []api.Diagnostic{{File: "a.fk", Line: 2, Character: i + 1, EndLine: 2, EndCharacter: i + 6, Severity: "error", Message: fmt.Sprintf("check %d", i), Source: "fake", Server: name}}
				if !res.Checked || fmt.Sprint(res.Diagnostics) != fmt.Sprint(want) {
					t.Errorf("check %d: checked %v (%s), got %+v, want %+v", i, res.Checked, res.Reason, res.Diagnostics, want)
				}
			}
		})
	}
}

// TestBusyDocumentTimesOut: a check that waits its whole time for another
// check of the same file says so, and does not wait past its timeout.
func TestBusyDocumentTimesOut(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lsptest.Config("", `"slow": `+lsptest.ServerEntry("slow")),
		map[string]lsptest.Behavior{"slow": {Delay: 700 * time.Millisecond}})
	first := "ERROR one\n"
	second := "ERROR two\n"
	var wg sync.WaitGroup
	var long api.CheckResult
	wg.Add(1)
	go func() {
		defer wg.Done()
		long = f.check(t, api.CheckParams{FilePath: "a.fk", Text: &first, TimeoutMs: 20000})
	}()
	// The first check holds the document once it has sent it.
	f.waitOpen(t, "slow", "a.fk")
	start := time.Now()
	short := f.check(t, api.CheckParams{FilePath: "a.fk", Text: &second, TimeoutMs: 200})
	waited := time.Since(start)
	wg.Wait()
	if short.Checked || short.Servers[0].Verdict != api.VerdictTimedOut || !strings.Contains(short.Reason, "other checks of the file") {
		t.Errorf("the waiting check: %+v", short)
	}
	if waited > 1500*time.Millisecond {
		t.Errorf("the waiting check took %v with a 200 ms timeout", waited)
	}
	if !long.Checked || len(long.Diagnostics) != 1 {
		t.Errorf("the first check: %+v", long)
	}
}

// waitOpen waits until server id's client has the file open.
func (f *fake) waitOpen(t *testing.T, id, file string) {
	t.Helper()
	uri, _ := protocol.FileURI(filepath.Join(f.root, file))
	deadline := time.After(servertest.Scale(10 * time.Second))
	for {
		f.mu.Lock()
		var sess *session
		for _, s := range f.sessions {
			if s.spec.ID == id {
				sess = s
			}
		}
		f.mu.Unlock()
		// The next event that can open it: the client's next change, the
		// session's start, or (before the check made the session) a tick.
		var next <-chan struct{}
		var tick <-chan time.Time
		switch c := (*client.Client)(nil); {
		case sess == nil:
			tick = time.After(time.Millisecond)
		default:
			if c = sess.current(); c == nil {
				sess.mu.Lock()
				next = sess.ready
				sess.mu.Unlock()
				break
			}
			next = c.Changed()
			if _, open := c.DocumentText(uri); open {
				return
			}
		}
		select {
		case <-next:
		case <-tick:
		case <-deadline:
			t.Fatalf("%s never had %s open", id, file)
		}
	}
}

// TestPushAndPull: a server that answers pulls and also publishes has both
// kinds of findings in a check and in lsp/diagnostics, neither replacing
// the other.
func TestPushAndPull(t *testing.T) {
	t.Parallel()
	pushed := func(text string) []protocol.Diagnostic {
		out := []protocol.Diagnostic{}
		for i, line := range strings.Split(text, "\n") {
			if strings.Contains(line, "WARN") {
				out = append(out, protocol.Diagnostic{
					Range:    protocol.Range{Start: protocol.Position{Line: uint32(i)}, End: protocol.Position{Line: uint32(i), Character: 4}},
					Severity: protocol.Ptr(protocol.DiagnosticSeverityError), Message: protocol.NewStringOrMarkupContentString("pushed"),
				})
			}
		}
		return out
	}
	f := newFake(t, map[string]string{"a.fk": "x ERROR\nWARN\n"}, lsptest.Config("", `"both": `+lsptest.ServerEntry("both")),
		map[string]lsptest.Behavior{"both": {Pull: true, Push: pushed}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk"})
	if !res.Checked || len(res.Diagnostics) != 2 || res.Diagnostics[0].Message != "error on line 1" || res.Diagnostics[1].Message != "pushed" {
		t.Fatalf("check: %+v", res)
	}
	if all := f.Diagnostics(); len(all["a.fk"]) != 2 {
		t.Fatalf("lsp/diagnostics: %+v", all)
	}
}

// TestExclusionsAndLimits: excluded files and files over maxFileBytes are
// not checked, start no server, and say why.
func TestExclusionsAndLimits(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{
		"node_modules/m/a.fk": "ERROR\n", ".git/b.fk": "ERROR\n", "gen/c.fk": "ERROR\n",
		"big.fk": strings.Repeat("x", 100) + "\n", "ok.fk": "ERROR\n",
	}, lsptest.Config(`,"exclude":["**/node_modules/**","**/.git/**","gen/**"],"maxFileBytes":64`, `"fake": `+lsptest.ServerEntry("fake")),
		map[string]lsptest.Behavior{"fake": {}})
	for file, want := range map[string]string{
		"node_modules/m/a.fk": `node_modules/m/a.fk is excluded by "**/node_modules/**" (config exclude)`,
		".git/b.fk":           `.git/b.fk is excluded by "**/.git/**" (config exclude)`,
		"gen/c.fk":            `gen/c.fk is excluded by "gen/**" (config exclude)`,
		"big.fk":              "big.fk is 101 bytes, over the 64 bytes limit (maxFileBytes)",
	} {
		if res := f.check(t, api.CheckParams{FilePath: file}); res.Checked || res.Reason != want || len(res.Servers) != 0 {
			t.Errorf("%s: %+v, want reason %q", file, res, want)
		}
	}
	big := strings.Repeat("y", 65)
	if res := f.check(t, api.CheckParams{FilePath: "ok.fk", Text: &big}); res.Checked || res.Reason != "the text of ok.fk is 65 bytes, over the 64 bytes limit (maxFileBytes)" {
		t.Errorf("big text: %+v", res)
	}
	if n := f.launcher.Launched("fake"); n != 0 {
		t.Errorf("%d servers started for files not checked", n)
	}
	if res := f.check(t, api.CheckParams{FilePath: "ok.fk"}); !res.Checked || len(res.Diagnostics) != 1 {
		t.Errorf("ok.fk: %+v", res)
	}
}

// TestSaveAndClose: a check of a file's own content is followed by
// didSave; beyond maxOpenDocuments the least recently checked document is
// closed, its diagnostics kept.
func TestSaveAndClose(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("f%d.fk", i)] = "ERROR\n"
	}
	f := newFake(t, files, lsptest.Config(`,"maxOpenDocuments":3`, `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {}})
	for i := range 10 {
		if res := f.check(t, api.CheckParams{FilePath: fmt.Sprintf("f%d.fk", i)}); !res.Checked || len(res.Diagnostics) != 1 {
			t.Fatalf("f%d.fk: %+v", i, res)
		}
	}
	text := "ERROR given\n"
	if res := f.check(t, api.CheckParams{FilePath: "f9.fk", Text: &text}); !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("given text: %+v", res)
	}
	// Notifications are in order on the wire: a hover on f9 is answered
	// after the server took every close and save before it.
	if _, err := hover(t.Context(), f.Orchestrator, api.PositionParams{File: "f9.fk", Line: 1, Character: 1}); err != nil {
		t.Fatal(err)
	}
	if open, saves := f.launcher.Documents(); open != 3 || saves != 10 {
		t.Errorf("the server has %d documents open (want 3) and was sent %d saves (want 10: not for the given text)", open, saves)
	}
	if all := f.Diagnostics(); len(all) != 10 {
		t.Errorf("diagnostics of closed documents not kept: %d files", len(all))
	}
}

// TestWatchingInStatus: a server that registered watched files shows how
// its watcher is doing, degraded beyond the watch budget.
func TestWatchingInStatus(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.fk": "x\n"}
	for i := range 5 {
		files[fmt.Sprintf("d%d/b.fk", i)] = "x\n"
	}
	f := newFake(t, files, lsptest.Config(`,"watchBudget":3`, `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {Watch: []string{"**/*.fk"}}})
	if res := f.check(t, api.CheckParams{FilePath: "a.fk"}); !res.Checked {
		t.Fatalf("%+v", res)
	}
	deadline := time.After(servertest.Scale(10 * time.Second))
	for {
		w := f.status("fake").Watching
		if strings.HasPrefix(w, "degraded: the watch budget of 3 directories is spent; 3 directories watched") {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("watching: %q", w)
		case <-time.After(10 * time.Millisecond): // polling status, with a deadline
		}
	}
}

// TestDeletedFileDropped: once a checked file is deleted, lsp/diagnostics
// no longer lists it, and its document is closed.
func TestDeletedFileDropped(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "ERROR\n", "b.fk": "ERROR\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {}})
	for _, file := range []string{"a.fk", "b.fk"} {
		if res := f.check(t, api.CheckParams{FilePath: file}); !res.Checked || len(res.Diagnostics) != 1 {
			t.Fatalf("%s: %+v", file, res)
		}
	}
	if err := os.Remove(filepath.Join(f.root, "a.fk")); err != nil {
		t.Fatal(err)
	}
	if all := f.Diagnostics(); len(all) != 1 || len(all["b.fk"]) != 1 {
		t.Fatalf("after deleting a.fk: %+v", all)
	}
	// The next check (of b.fk) waits for nothing of a.fk's; a check of
	// a.fk says it is gone.
	if res := f.check(t, api.CheckParams{FilePath: "a.fk"}); res.Checked || res.Reason != "a.fk does not exist" {
		t.Fatalf("a.fk: %+v", res)
	}
}

// TestLongPathRefused: a path longer than any file system allows is
// refused without being echoed.
func TestLongPathRefused(t *testing.T) {
	t.Parallel()
	f := newFake(t, nil, lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {}})
	long := strings.Repeat("a", 10<<20)
	_, err := f.Check(t.Context(), api.CheckParams{FilePath: long})
	if !isCode(err, transport.CodeInvalidParams) || !strings.HasSuffix(err.Error(), "filePath is 10485760 bytes long; a path is at most 4096") {
		t.Errorf("check: %v", err)
	}
	_, err = hover(t.Context(), f.Orchestrator, api.PositionParams{File: long, Line: 1, Character: 1})
	if !isCode(err, transport.CodeInvalidParams) || len(err.Error()) > 100 {
		t.Errorf("hover: %.200v", err)
	}
}

// TestWithin: containment by whole segments, case folded where the file
// system folds it; both path styles, whatever system runs the test.
func TestWithin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dir, path string
		sep       byte
		fold      bool
		rel       string
		ok        bool
	}{
		{"/ws", "/ws/a/b.go", '/', false, "a/b.go", true},
		{"/ws", "/ws", '/', false, ".", true},
		{"/ws", "/wsx/a.go", '/', false, "", false},
		{"/ws", "/WS/a.go", '/', false, "", false},
		{"/ws", "/WS/a.go", '/', true, "a.go", true},
		{"/", "/a.go", '/', false, "a.go", true},
		{`C:\ws`, `c:\WS\a\b.go`, '\\', true, `a\b.go`, true},
		{`C:\ws`, `C:\ws2\b.go`, '\\', true, "", false},
		{`\\server\share`, `\\SERVER\share\x.go`, '\\', true, "x.go", true},
	} {
		rel, ok := relWithin(tc.dir, tc.path, tc.sep, tc.fold)
		if rel != tc.rel || ok != tc.ok {
			t.Errorf("relWithin(%q, %q, fold %v) = %q %v, want %q %v", tc.dir, tc.path, tc.fold, rel, ok, tc.rel, tc.ok)
		}
	}
}

// TestStillLoading: a server whose project load never ends is waited for
// once, up to the first-touch timeout; that answer and the next (which does
// not wait again) say the server is still loading, never passing a partial
// answer off as complete. On a loaded machine the first touch's 300 ms may
// end before the server has even started: those answers say so (still
// starting, retry), and the retries go on until the server is loading.
func TestStillLoading(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "one ERROR\n"}, lsptest.Config(`,"firstTouchTimeout":300`, `"slow": `+lsptest.ServerEntry("slow")),
		map[string]lsptest.Behavior{"slow": {Loading: "indexing"}})
	ctx := context.Background()
	const loading = "slow is still loading the project (indexing); the answer may be incomplete"
	progress := make(chan struct{}, 1) // the server's load has begun
	stop := f.OnServerEvent(func(_ string, e client.Event) {
		if e.Progress != nil {
			select {
			case progress <- struct{}{}:
			default:
			}
		}
	})
	defer stop()
	for {
		res, err := definition(ctx, f.Orchestrator, api.PositionParams{File: "a.fk", Line: 1, Symbol: "ERROR"})
		if err == nil && strings.Contains(res.Note, loading) {
			break
		}
		if err == nil || !strings.Contains(err.Error(), "slow is still starting; retry in a moment") {
			t.Fatalf("an answer before the server loads: %+v %v; want %q, or still starting", res, err, loading)
		}
		select { // retried once the server reports its load
		case <-progress:
		case <-time.After(servertest.Scale(time.Minute)):
			t.Fatal("the server never began its load")
		}
	}
	if res, err := definition(ctx, f.Orchestrator, api.PositionParams{File: "a.fk", Line: 1, Symbol: "ERROR"}); err != nil || !strings.Contains(res.Note, loading) {
		t.Fatalf("the next answer: %+v %v", res, err)
	}
	for _, s := range f.liveSessions() {
		s.mu.Lock()
		waited := s.loadWaited
		s.mu.Unlock()
		if !waited {
			t.Error("the session does not remember that its load was waited out")
		}
	}
}

// TestWorkspaceSymbolsSayMissing: a server whose marker is at the root but
// that does not start in time is named in the note of a workspace-wide
// question (workspace symbols), not left out of an empty list.
func TestWorkspaceSymbolsSayMissing(t *testing.T) {
	t.Parallel()
	exe, _ := os.Executable()
	f := newFake(t, map[string]string{"a.fk": "x\n", "fake.marker": ""}, lsptest.Config(`,"firstTouchTimeout":300`,
		fmt.Sprintf(`"slow": {"command": %q, "args": ["hang"], "extensions": [".fk"], "rootMarkers": ["fake.marker"]}`, exe)),
		map[string]lsptest.Behavior{"hang": {HangOn: "initialize"}})
	held, note, err := f.HoldRunning(context.Background(), protocol.WorkspaceSymbolRequest.Method())
	if err != nil || len(held) != 0 || !strings.Contains(note, "slow is still starting; its symbols are missing") {
		t.Fatalf("running servers for workspace symbols: %+v %q %v", held, note, err)
	}
}

// TestReanalysisNotWaitedOut: once a server has loaded its project, work
// it begins after a change (re-analysis) is waited for briefly, not for
// the first touch's wait: a server that leaves such progress open (pyright
// after a deletion) gets the question at once, with a note saying so.
func TestReanalysisNotWaitedOut(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"main.fk": "hello\n"}, lsptest.Config(`,"firstTouchTimeout":600000`, `"fake": `+lsptest.ServerEntry("fake")),
		map[string]lsptest.Behavior{"fake": {Watch: []string{"**/*.fk"}, Load: "Analyzing", Reanalyze: "1 file to analyze"}})
	// The re-analysis's own begin: the load's progress comes first, and
	// its end may still be on its way when the file is written.
	begun := make(chan struct{}, 1)
	stop := f.OnServerEvent(func(_ string, e client.Event) {
		if e.Progress != nil && strings.Contains(string(e.Progress.Value), "1 file to analyze") {
			select {
			case begun <- struct{}{}:
			default:
			}
		}
	})
	defer stop()
	at := api.PositionParams{File: "main.fk", Line: 1, Character: 1}
	if res, err := hover(t.Context(), f.Orchestrator, at); err != nil || res.Note != "" {
		t.Fatalf("first hover: %+v %v", res, err)
	}
	f.awaitWatching(t)
	lsptest.WriteFiles(t, f.root, map[string]string{"dep.fk": "new\n"})
	<-begun
	// Generous: the first touch's wait would be ten minutes.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := hover(ctx, f.Orchestrator, at)
	if err != nil || !strings.Contains(res.Note, "fake is still loading the project (1 file to analyze); the answer may be incomplete") {
		t.Fatalf("hover during re-analysis: %+v %v", res, err)
	}
}

// TestIdleBeforeWorkIsNotLoaded: a server seen idle before any work of its
// has run (clangd before its background index begins) has not loaded its
// project: its first work is waited for in full, not as a re-analysis.
// One whose load ran to its end has.
func TestIdleBeforeWorkIsNotLoaded(t *testing.T) {
	t.Parallel()
	for _, load := range []string{"", "Analyzing"} {
		f := newFake(t, map[string]string{"main.fk": "hello\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake")),
			map[string]lsptest.Behavior{"fake": {Load: load}})
		if res, err := hover(t.Context(), f.Orchestrator, api.PositionParams{File: "main.fk", Line: 1, Character: 1}); err != nil || res.Note != "" {
			t.Fatalf("hover: %+v %v", res, err)
		}
		s := f.liveSessions()[0]
		s.mu.Lock()
		loaded := s.loadedClient != nil
		s.mu.Unlock()
		if loaded != (load != "") {
			t.Errorf("Load %q: seen as loaded = %v, want %v", load, loaded, load != "")
		}
	}
}
