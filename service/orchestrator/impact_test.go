package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/registry"
	"github.com/lspkit/lspkit/transport"
)

// TestImpactFake: a check with impact reports the findings of the files
// that import the changed one (not of the others), how many it checked,
// and that this is all of them.
func TestImpactFake(t *testing.T) {
	t.Parallel()
	f := newFake(t, lsptest.Dependents(3, true), lsptest.Config("", `"fake": `+lsptest.ImportingEntry("ok")), map[string]lsptest.Behavior{"ok": {}})
	res := f.check(t, api.CheckParams{FilePath: "lib.fk", Impact: true})
	imp := res.Impact
	if imp == nil || !imp.Complete || imp.Checked != 3 || len(imp.Files) != 3 || imp.Files[0].File != "a.fk" || imp.Files[0].Diagnostics[0].Line != 2 {
		t.Fatalf("impact: %+v", imp)
	}
	// Closed again: the server holds only the checked file.
	if uris := f.launcher.OpenOnce(1); len(uris) != 1 || !strings.HasSuffix(string(uris[0]), "/lib.fk") {
		t.Fatalf("open after the impact: %v", uris)
	}
	// Without impact, none.
	if res := f.check(t, api.CheckParams{FilePath: "lib.fk"}); res.Impact != nil {
		t.Fatalf("impact not asked for: %+v", res.Impact)
	}
}

// TestImpactSettlesMany: on a server whose settle command answers for
// many documents (gopls's diagnose_files with "${uris}"), an impact of
// impactBatchFrom dependents or more opens them together and settles them
// by one run of the command, with the same findings as one at a time, and
// closes them again; fewer are checked one at a time.
func TestImpactSettlesMany(t *testing.T) {
	t.Parallel()
	for _, n := range []int{impactBatchFrom, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			f := newFake(t, manyDependents(n), lsptest.Config("", `"fake": `+lsptest.ImportingEntry("ok")), map[string]lsptest.Behavior{"ok": {}})
			f.specs["fake"].Settle = &registry.Settle{Command: "fake.settle", Arguments: jsontext.Value(`[{"Files": "${uris}"}]`)} // as built in, not configurable
			res := f.check(t, api.CheckParams{FilePath: "lib.fk", Impact: true})
			imp := res.Impact
			if imp == nil || !imp.Complete || imp.Checked != n || len(imp.Files) != n || imp.Files[0].Diagnostics[0].Line != 2 {
				t.Fatalf("impact: %+v", imp)
			}
			want := 1 + n // lib.fk's own check, and one for each dependent
			if n >= impactBatchFrom {
				want = 2 // lib.fk's own check, and one for them all
			}
			if got := f.launcher.Commands(); got != want {
				t.Fatalf("settle commands run: %d, want %d", got, want)
			}
			if uris := f.launcher.OpenOnce(1); len(uris) != 1 || !strings.HasSuffix(string(uris[0]), "/lib.fk") {
				t.Fatalf("open after the impact: %d files", len(uris))
			}
		})
	}
}

// manyDependents is lsptest.Dependents for any n: lib.fk and n files
// d000.fk, d001.fk, … that import it, each with an error on line 2.
func manyDependents(n int) map[string]string {
	files := map[string]string{"lib.fk": "fine\n"}
	for i := range n {
		files[fmt.Sprintf("d%03d.fk", i)] = "import lib\nERROR broken by lib\n"
	}
	return files
}

// TestImpactBounds: past impactMaxFiles, out of time, or for a server
// without a way to find dependents, the impact says it is incomplete and
// why — never a silent "nothing else broke".
func TestImpactBounds(t *testing.T) {
	t.Parallel()
	t.Run("maxFiles", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, lsptest.Dependents(4, true), lsptest.Config(`,"impactMaxFiles":2`, `"fake": `+lsptest.ImportingEntry("ok")), map[string]lsptest.Behavior{"ok": {}})
		imp := f.check(t, api.CheckParams{FilePath: "lib.fk", Impact: true}).Impact
		if imp == nil || imp.Complete || imp.Checked != 2 || !strings.Contains(imp.Reason, "4 files depend on the change") || !strings.Contains(imp.Reason, "impactMaxFiles") {
			t.Fatalf("impact: %+v", imp)
		}
	})
	t.Run("time", func(t *testing.T) {
		t.Parallel()
		slow := lsptest.Behavior{SilentOn: func(text string) bool { return strings.Contains(text, "never") }}
		files := lsptest.Dependents(2, false)
		files["c.fk"] = "import lib\nnever settles\n"
		f := newFake(t, files, lsptest.Config(`,"diagnosticTimeout":300`, `"fake": `+lsptest.ImportingEntry("slow")), map[string]lsptest.Behavior{"slow": slow})
		res := f.check(t, api.CheckParams{FilePath: "lib.fk", Impact: true})
		imp := res.Impact
		if !res.Checked || imp == nil || imp.Complete || imp.Checked != 2 || !strings.Contains(imp.Reason, "1 of 3 files that depend on the change were not checked") || !strings.Contains(imp.Reason, "c.fk") {
			t.Fatalf("impact: %+v", imp)
		}
	})
	t.Run("no way", func(t *testing.T) {
		t.Parallel()
		unknown := strings.Replace(lsptest.ServerEntry("ok"), `, "impact": "self"`, "", 1)
		f := newFake(t, lsptest.Dependents(1, true), lsptest.Config("", `"fake": `+unknown), map[string]lsptest.Behavior{"ok": {}})
		res := f.check(t, api.CheckParams{FilePath: "lib.fk", Impact: true})
		if imp := res.Impact; imp == nil || imp.Complete || !strings.Contains(imp.Reason, "knows no way to find the files that depend") {
			t.Fatalf("impact: %+v", imp)
		}
	})
	t.Run("server down", func(t *testing.T) {
		t.Parallel()
		f := newFake(t, lsptest.Dependents(1, true), lsptest.Config(`,"restart":{"maxRestarts":0}`, `"fake": `+lsptest.ImportingEntry("hang")), map[string]lsptest.Behavior{"hang": {HangOn: "initialize"}})
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
	f := newFake(t, lsptest.Dependents(2, false), lsptest.Config(`,"maxFileBytes":1000`, `"fake": `+lsptest.ImportingEntry("ok")), map[string]lsptest.Behavior{"ok": {}})
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

// TestImpactSinceBefore: the impact of a change to a file whose earlier
// text lspkit knows holds only what the change brought — a dependent's
// error of its own is counted as old, not listed — whether the change is
// on disk (the servers' earlier text) or given (the disk's); without an
// earlier text, every finding is listed and the answer says why.
func TestImpactSinceBefore(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{
		"lib.fk": "def F 1\n",
		"a.fk":   "import lib\ncall F 1\n",
		"b.fk":   "import lib\ncall F 1\nERROR of b's own\n",
	}, lsptest.Config("", `"fake": `+lsptest.ImportingEntry("linked")), map[string]lsptest.Behavior{"linked": {Linked: true}})
	files := func(imp *api.Impact) string {
		var out []string
		for _, f := range imp.Files {
			for _, d := range f.Diagnostics {
				out = append(out, f.File+": "+d.Message)
			}
		}
		return strings.Join(out, "; ")
	}
	// Never seen: all of b.fk's findings, said to be of unknown age.
	res := f.check(t, api.CheckParams{FilePath: "lib.fk", ImpactAfterChange: true})
	if imp := res.Impact; imp == nil || files(imp) != "b.fk: ERROR of b's own" || !strings.Contains(imp.BeforeUnknown, "no earlier text of lib.fk") {
		t.Fatalf("a file lspkit had not seen: %+v", imp)
	}
	// Broken on disk: the two calls, b.fk's own error counted.
	if err := os.WriteFile(filepath.Join(f.root, "lib.fk"), []byte("def F 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = f.check(t, api.CheckParams{FilePath: "lib.fk", ImpactAfterChange: true})
	if imp := res.Impact; imp == nil || files(imp) != "a.fk: F takes 2 arguments, not 1; b.fk: F takes 2 arguments, not 1" || imp.Old != 1 || imp.BeforeUnknown != "" || !imp.Complete {
		t.Fatalf("a breaking change on disk: %+v", imp)
	}
	// Given text, against the disk's: mending it breaks nothing.
	text := "def F 1\n"
	res = f.check(t, api.CheckParams{FilePath: "lib.fk", Text: &text, Impact: true})
	if imp := res.Impact; imp == nil || len(imp.Files) != 0 || imp.Old != 1 || imp.BeforeUnknown != "" {
		t.Fatalf("a mending text given: %+v", imp)
	}
}
