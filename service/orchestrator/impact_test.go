package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// importing is a fake server's config whose dependents lspkit finds by
// reading Python-style imports in its .fk files.
func importing(behavior string) string {
	return strings.Replace(lsptest.ServerEntry(behavior), `"impact": "self"`, `"impact": "pythonImports"`, 1)
}

// dependents is a project of lib.fk and n files that import it, each with
// an error line when broken.
func dependents(n int, broken bool) map[string]string {
	files := map[string]string{"lib.fk": "fine\n", "alone.fk": "ERROR not a dependent\n"}
	for i := range n {
		text := "import lib\nfine\n"
		if broken {
			text = "import lib\nERROR broken by lib\n"
		}
		files[string(rune('a'+i))+".fk"] = text
	}
	return files
}

// openOnce returns the documents the fake servers hold once they have
// read the closes sent to them (notifications, taken in their own time):
// when n are open, or at the deadline.
func openOnce(t *testing.T, f *fake, n int) []protocol.DocumentURI {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		uris := f.launcher.Open()
		if len(uris) == n || time.Now().After(deadline) {
			return uris
		}
		<-time.After(10 * time.Millisecond)
	}
}

// TestImpactFake: a check with impact reports the findings of the files
// that import the changed one (not of the others), how many it checked,
// and that this is all of them.
func TestImpactFake(t *testing.T) {
	t.Parallel()
	f := newFake(t, dependents(3, true), lsptest.Config("", `"fake": `+importing("ok")), map[string]lsptest.Behavior{"ok": {}})
	res := f.check(t, api.CheckParams{FilePath: "lib.fk", Impact: true})
	imp := res.Impact
	if imp == nil || !imp.Complete || imp.Checked != 3 || len(imp.Files) != 3 || imp.Files[0].File != "a.fk" || imp.Files[0].Diagnostics[0].Line != 2 {
		t.Fatalf("impact: %+v", imp)
	}
	// Closed again: the server holds only the checked file.
	if uris := openOnce(t, f, 1); len(uris) != 1 || !strings.HasSuffix(string(uris[0]), "/lib.fk") {
		t.Fatalf("open after the impact: %v", uris)
	}
	// Without impact, none.
	if res := f.check(t, api.CheckParams{FilePath: "lib.fk"}); res.Impact != nil {
		t.Fatalf("impact not asked for: %+v", res.Impact)
	}
	// A write report shows them as other files.
	rep, err := f.Report(context.Background(), api.ReportParams{FilePath: "lib.fk", Mode: "write"})
	if err != nil || !strings.Contains(rep.Text, `<diagnostics file="a.fk">`) || strings.Contains(rep.Text, "could not check") {
		t.Fatalf("write report: %v\n%s", err, rep.Text)
	}
}

// TestImpactBounds: past impactMaxFiles, out of time, or for a server
// without a way to find dependents, the impact says it is incomplete and
// why — never a silent "nothing else broke".
func TestImpactBounds(t *testing.T) {
	t.Parallel()
	t.Run("maxFiles", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, dependents(4, true), lsptest.Config(`,"impactMaxFiles":2`, `"fake": `+importing("ok")), map[string]lsptest.Behavior{"ok": {}})
		imp := f.check(t, api.CheckParams{FilePath: "lib.fk", Impact: true}).Impact
		if imp == nil || imp.Complete || imp.Checked != 2 || !strings.Contains(imp.Reason, "4 files depend on the change") || !strings.Contains(imp.Reason, "impactMaxFiles") {
			t.Fatalf("impact: %+v", imp)
		}
	})
	t.Run("time", func(t *testing.T) {
		t.Parallel()
		slow := lsptest.Behavior{SilentOn: func(text string) bool { return strings.Contains(text, "never") }}
		files := dependents(2, false)
		files["c.fk"] = "import lib\nnever settles\n"
		f := newFake(t, files, lsptest.Config(`,"diagnosticTimeout":300`, `"fake": `+importing("slow")), map[string]lsptest.Behavior{"slow": slow})
		res := f.check(t, api.CheckParams{FilePath: "lib.fk", Impact: true})
		imp := res.Impact
		if !res.Checked || imp == nil || imp.Complete || imp.Checked != 2 || !strings.Contains(imp.Reason, "1 of 3 files that depend on the change were not checked") || !strings.Contains(imp.Reason, "c.fk") {
			t.Fatalf("impact: %+v", imp)
		}
	})
	t.Run("no way", func(t *testing.T) {
		t.Parallel()
		unknown := strings.Replace(lsptest.ServerEntry("ok"), `, "impact": "self"`, "", 1)
		f := newFake(t, dependents(1, true), lsptest.Config("", `"fake": `+unknown), map[string]lsptest.Behavior{"ok": {}})
		res := f.check(t, api.CheckParams{FilePath: "lib.fk", Impact: true})
		if imp := res.Impact; imp == nil || imp.Complete || !strings.Contains(imp.Reason, "knows no way to find the files that depend") {
			t.Fatalf("impact: %+v", imp)
		}
		rep, _ := f.Report(context.Background(), api.ReportParams{FilePath: "lib.fk", Mode: "write"})
		if !strings.Contains(rep.Text, "LSP could not check every file that depends on lib.fk") {
			t.Fatalf("write report:\n%s", rep.Text)
		}
	})
	t.Run("server down", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, dependents(1, true), lsptest.Config(`,"restart":{"maxRestarts":0}`, `"fake": `+importing("hang")), map[string]lsptest.Behavior{"hang": {HangOn: "initialize"}})
		res := f.check(t, api.CheckParams{FilePath: "lib.fk", Impact: true, TimeoutMs: 200})
		if imp := res.Impact; res.Checked || imp == nil || imp.Complete || !strings.Contains(imp.Reason, "was not checked") {
			t.Fatalf("impact: %+v (%s)", imp, res.Reason)
		}
	})
}

// TestWhatIfFiles: several proposed texts checked together with their
// impact; nothing written; a new file is a file of the what-if; bad paths
// and texts are refused naming them; the server holds no what-if text
// afterwards.
func TestWhatIfFiles(t *testing.T) {
	t.Parallel()
	f := newFake(t, dependents(2, false), lsptest.Config(`,"maxFileBytes":1000`, `"fake": `+importing("ok")), map[string]lsptest.Behavior{"ok": {}})
	res := f.check(t, api.CheckParams{Files: map[string]string{
		"lib.fk":     "ERROR in lib\n",
		"new/mod.fk": "import lib\nERROR in the new file\n",
	}})
	if !res.Checked || len(res.Diagnostics) != 2 || res.Diagnostics[0].File != "lib.fk" || res.Diagnostics[1].File != "new/mod.fk" {
		t.Fatalf("what-if: %+v", res)
	}
	if res.Impact == nil || !res.Impact.Complete || res.Impact.Checked != 2 || len(res.Impact.Files) != 0 {
		t.Fatalf("what-if impact: %+v", res.Impact)
	}
	if data, _ := os.ReadFile(filepath.Join(f.root, "lib.fk")); string(data) != "fine\n" {
		t.Fatalf("the what-if wrote lib.fk: %q", data)
	}
	if _, err := os.Stat(filepath.Join(f.root, "new")); err == nil {
		t.Fatal("the what-if created new/")
	}
	// The disk again for what follows: lib.fk clean, the new file gone.
	all, err := f.CurrentDiagnostics(context.Background())
	if err != nil || len(all["lib.fk"]) != 0 || len(all["new/mod.fk"]) != 0 {
		t.Fatalf("after the what-if: %v %v", all, err)
	}
	for _, uri := range f.launcher.Open() {
		if strings.Contains(string(uri), "new/mod.fk") {
			t.Fatalf("the server still holds the what-if's new file: %v", f.launcher.Open())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = f.Check(ctx, api.CheckParams{Files: map[string]string{"../out.fk": "x"}})
	if !isCode(err, api.CodeOutsideRoot) || !strings.Contains(err.Error(), "../out.fk") {
		t.Fatalf("outside the root: %v", err)
	}
	_, err = f.Check(ctx, api.CheckParams{Files: map[string]string{"a.fk": strings.Repeat("x", 2000)}})
	if !isCode(err, transport.CodeInvalidParams) || !strings.Contains(err.Error(), "a.fk") || !strings.Contains(err.Error(), "maxFileBytes") {
		t.Fatalf("too big: %v", err)
	}
	_, err = f.Check(ctx, api.CheckParams{})
	if !isCode(err, transport.CodeInvalidParams) || !strings.Contains(err.Error(), "filePath") {
		t.Fatalf("neither filePath nor files: %v", err)
	}
}

// TestSweep: every source file of the root is checked (excluded ones
// not), with their findings and how many were checked; progress is told.
func TestSweep(t *testing.T) {
	t.Parallel()
	files := dependents(3, true)
	files["vendor/skip.fk"] = "ERROR excluded\n"
	files["node_modules/dep/x.fk"] = "ERROR installed\n"
	files["notes.txt"] = "ERROR no server\n"
	f := newFake(t, files, lsptest.Config(`,"exclude":["vendor/**"]`, `"fake": `+importing("ok")), map[string]lsptest.Behavior{"ok": {}})
	var last [2]int
	ctx := WithProgress(context.Background(), func(done, total int, _ string) { last = [2]int{done, total} })
	res, err := f.Sweep(ctx, api.DiagnosticsParams{Sweep: true})
	if err != nil || !res.Complete || res.Files != 5 || res.Checked != 5 || len(res.Diagnostics) != 4 || res.Diagnostics["alone.fk"] == nil || res.Diagnostics["vendor/skip.fk"] != nil {
		t.Fatalf("sweep: %+v %v", res, err)
	}
	if last != [2]int{5, 5} {
		t.Fatalf("progress: last %v, want 5 of 5", last)
	}
	if uris := openOnce(t, f, 0); len(uris) != 0 {
		t.Fatalf("open after the sweep: %v", uris)
	}
	if _, err := f.Sweep(ctx, api.DiagnosticsParams{Sweep: true, Severities: []string{"fatal"}}); !isCode(err, transport.CodeInvalidParams) {
		t.Fatalf("bad severity: %v", err)
	}
}
