package impact

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, root string, files map[string]string) []string {
	t.Helper()
	var all []string
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	}
	slices.Sort(all)
	return all
}

func rel(t *testing.T, root string, paths []string) []string {
	out := []string{}
	for _, p := range paths {
		r, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(r))
	}
	return out
}

// TestPythonImports: absolute, relative, parenthesised and from-package
// imports of a module name it; a package's __init__.py passes it on;
// files that import something else do not.
func TestPythonImports(t *testing.T) {
	root := t.TempDir()
	all := write(t, root, map[string]string{
		"src/shop/__init__.py":     "from .geo import area\n",
		"src/shop/geo.py":          "def area(): ...\n",
		"src/shop/a.py":            "from shop.geo import area\n",
		"src/shop/b.py":            "from . import geo\n",
		"src/shop/c.py":            "from .geo import (\n    area,  # the area\n)\n",
		"src/shop/d.py":            "import shop.geo as g\n",
		"src/shop/e.py":            "from shop import area\n", // through __init__
		"src/shop/sub/f.py":        "from ..geo import area\n",
		"src/shop/sub/__init__.py": "",
		"src/shop/g.py":            "from shop.util import twice\nimport os, sys\n",
		"src/shop/h.py":            "x = 1 \\\n  + 2\nfrom shop.geo \\\n  import area\n",
		"tests/t.py":               "from shop.geo import area\n",
	})
	var s Scanner
	got := rel(t, root, s.Dependents(PythonImports, root, all, []string{filepath.Join(root, "src/shop/geo.py")}))
	want := []string{"src/shop/__init__.py", "src/shop/a.py", "src/shop/b.py", "src/shop/c.py", "src/shop/d.py", "src/shop/e.py", "src/shop/h.py", "src/shop/sub/f.py", "tests/t.py"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("dependents (-want +got):\n%s", diff)
	}
	// A second scan reads nothing again and finds the same.
	if again := rel(t, root, s.Dependents(PythonImports, root, all, []string{filepath.Join(root, "src/shop/geo.py")})); !slices.Equal(again, got) {
		t.Fatalf("again: %v", again)
	}
}

// TestIncludes: "quoted" and <angled> includes name a header, relative to
// the includer or through an include directory; a header that includes it
// passes it on; a source file that includes another header does not.
func TestIncludes(t *testing.T) {
	root := t.TempDir()
	all := write(t, root, map[string]string{
		"include/geo.h": "int area(void);\n",
		"include/all.h": "#include \"geo.h\"\n",
		"src/a.c":       "#include \"../include/geo.h\"\n",
		"src/b.c":       "#include <geo.h>\n",
		"src/c.c":       "  #  include \"all.h\"\n",
		"src/d.c":       "#include \"util.h\"\n",
		"src/util.h":    "int twice(int);\n",
	})
	var s Scanner
	got := rel(t, root, s.Dependents(Includes, root, all, []string{filepath.Join(root, "include/geo.h")}))
	want := []string{"include/all.h", "src/a.c", "src/b.c", "src/c.c"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("dependents (-want +got):\n%s", diff)
	}
}

// TestWalk: hidden directories and installed dependencies are not walked;
// skip leaves out what it rejects; the bound ends the walk, reported.
func TestWalk(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"a.py": "", ".git/x.py": "", "node_modules/y.py": "", "vendor/z.py": "", "b/c.py": ""})
	var seen []string
	complete := Walk(root, 100, func(p string, dir bool) bool { return filepath.Base(p) == "vendor" }, func(p string) bool {
		seen = append(seen, p)
		return true
	})
	if got := rel(t, root, seen); !complete || !slices.Equal(got, []string{"a.py", "b/c.py"}) {
		t.Fatalf("walk: %v complete %v", got, complete)
	}
	if Walk(root, 2, nil, func(string) bool { return true }) {
		t.Fatal("a walk past its bound said it was complete")
	}
}
