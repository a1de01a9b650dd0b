package orchestrator

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// TestCodeActionsGoLive: gopls's fixes through lspkit — a missing import
// added by the quick fix for its finding, an unused import removed by
// organize imports, a file formatted to exactly gofmt's output — each
// previewed, applied and the file then checked clean; an action listed
// before its file changed is refused as stale.
func TestCodeActionsGoLive(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	o := live(t, map[string]string{
		"go.mod": goMod,
		"a.go":   "package demo\n\nfunc Up(s string) string { return strings.ToUpper(s) }\n",
		"b.go":   "package demo\n\nimport \"os\"\n\nfunc B() {}\n",
		"c.go":   "package demo\nfunc  C( ) int {return 1}\n",
	}, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(o.Root(), name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	// The missing import: the quick fix for the finding.
	res := mustCheck(t, o, api.CheckParams{FilePath: "a.go"})
	if len(res.Diagnostics) != 1 || !strings.Contains(res.Diagnostics[0].Message, "undefined: strings") {
		t.Fatalf("check a.go: %+v", res)
	}
	acts, err := o.CodeActions(ctx, api.CodeActionsParams{Diagnostic: &res.Diagnostics[0]})
	if err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, a := range acts.Actions {
		if strings.Contains(a.Title, `"strings"`) {
			id = a.ID
		}
	}
	if id == "" {
		t.Fatalf("no action adds the import: %+v", acts)
	}
	preview, err := o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: id})
	if err != nil || preview.Applied || !strings.Contains(preview.Diff, `+import "strings"`) || strings.Contains(read("a.go"), "import") {
		t.Fatalf("preview: %+v %v", preview, err)
	}
	applied, err := o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: id, Apply: true})
	if err != nil || !applied.Applied || !strings.Contains(read("a.go"), `import "strings"`) || len(applied.Diagnostics["a.go"]) != 0 {
		t.Fatalf("apply: %+v %v\n%s", applied, err, read("a.go"))
	}
	if res := mustCheck(t, o, api.CheckParams{FilePath: "a.go"}); !res.Checked || len(res.Diagnostics) != 0 {
		t.Fatalf("a.go after the fix: %+v", res)
	}

	// The unused import: organize imports.
	if res := mustCheck(t, o, api.CheckParams{FilePath: "b.go"}); len(res.Diagnostics) != 1 {
		t.Fatalf("check b.go: %+v", res)
	}
	acts, err = o.CodeActions(ctx, api.CodeActionsParams{PositionParams: api.PositionParams{File: "b.go", Line: 1}, Kinds: []string{"source.organizeImports"}})
	if err != nil || len(acts.Actions) != 1 || acts.Actions[0].Kind != "source.organizeImports" || acts.Actions[0].Server != "gopls" {
		t.Fatalf("organize imports: %+v %v", acts, err)
	}
	// Listed, then the file changes: the action is stale.
	stale := acts.Actions[0].ID
	if err := os.WriteFile(filepath.Join(o.Root(), "b.go"), []byte("package demo\n\nimport \"os\"\n\nfunc B() { _ = 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: stale, Apply: true}); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Fatalf("a stale action: %v", err)
	}
	acts, err = o.CodeActions(ctx, api.CodeActionsParams{PositionParams: api.PositionParams{File: "b.go", Line: 1}, Kinds: []string{"source.organizeImports"}})
	if err != nil || len(acts.Actions) != 1 {
		t.Fatalf("organize imports again: %+v %v", acts, err)
	}
	if r, err := o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: acts.Actions[0].ID, Apply: true}); err != nil || !r.Applied || strings.Contains(read("b.go"), "import") {
		t.Fatalf("organize imports applied: %+v %v\n%s", r, err, read("b.go"))
	}
	if res := mustCheck(t, o, api.CheckParams{FilePath: "b.go"}); !res.Checked || len(res.Diagnostics) != 0 {
		t.Fatalf("b.go after organizing: %+v", res)
	}

	// Formatting: exactly gofmt's output.
	gofmt := exec.Command(filepath.Join(runtimeGOROOT(t), "bin", "gofmt"))
	gofmt.Stdin = strings.NewReader(read("c.go"))
	want, err := gofmt.Output()
	if err != nil {
		t.Fatal(err)
	}
	f, err := o.Format(ctx, api.FormatParams{File: "c.go", Apply: true})
	if err != nil || !f.Applied || read("c.go") != string(want) {
		t.Fatalf("format: %+v %v\ngot:\n%s\nwant:\n%s", f, err, read("c.go"), want)
	}
	if f, err := o.Format(ctx, api.FormatParams{File: "c.go"}); err != nil || f.Diff != "" || !strings.Contains(f.Note, "formatted already") {
		t.Fatalf("format again: %+v %v", f, err)
	}
}

// runtimeGOROOT is the Go installation's root, as the go command says.
func runtimeGOROOT(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
