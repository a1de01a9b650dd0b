package features

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyTheCore: a feature reaches the orchestrator through Core, the
// core's written contract, and nothing else. The features' files name of
// package orchestrator only the contract's types (Held, ErrRestarted,
// Serving); features.go alone names the Orchestrator, to build a Service
// (with the bursts of service/burst beside the features) and to check
// that it satisfies Core; no feature reaches a Service's embedded
// Orchestrator. (Within the contract the compiler holds the rest: Features
// keeps a Core, an interface.)
func TestOnlyTheCore(t *testing.T) {
	allowed := map[string]bool{"Held": true, "ErrRestarted": true, "Serving": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		orch := ""
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case path == "github.com/lspkit/lspkit/service/orchestrator":
				orch = "orchestrator"
				if imp.Name != nil {
					orch = imp.Name.Name
				}
			case name == "features.go" && path == "github.com/lspkit/lspkit/service/burst":
				// A Service is the core, the features and the bursts
				// the hooks tell of, side by side.
			case strings.HasPrefix(path, "github.com/lspkit/lspkit/service/") && !slices.Contains([]string{"api", "config", "address", "findings", "impact", "textedit"}, strings.TrimPrefix(path, "github.com/lspkit/lspkit/service/")):
				t.Errorf("%s imports %s: features stand on the core, api, config and the helpers address, findings, impact and textedit alone", name, path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && orch != "" && id.Name == orch {
				if !allowed[sel.Sel.Name] && !(name == "features.go" && sel.Sel.Name == "Orchestrator") {
					t.Errorf("%s: %s names orchestrator.%s, outside the core's contract (Core)", fset.Position(sel.Pos()), name, sel.Sel.Name)
				}
			}
			if sel.Sel.Name == "Orchestrator" && name != "features.go" {
				t.Errorf("%s: %s reaches a Service's Orchestrator: features ask the core through Core", fset.Position(sel.Pos()), name)
			}
			return true
		})
	}
}
