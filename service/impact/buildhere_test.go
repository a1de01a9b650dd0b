package impact

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestBuiltHere: a Go file excluded here by its name or its build
// constraint is not built here; other Go files and other languages are.
func TestBuiltHere(t *testing.T) {
	other := "windows"
	if runtime.GOOS == other {
		other = "linux"
	}
	dir := t.TempDir()
	files := map[string]string{
		"p.go":               "package p\n",
		"p_" + other + ".go": "package p\n",
		"never.go":           "//go:build lspkit_never\n\npackage p\n",
		"here.go":            "//go:build " + runtime.GOOS + "\n\npackage p\n",
		"q_" + other + ".py": "x = 1\n",
	}
	want := map[string]bool{"p.go": true, "p_" + other + ".go": false, "never.go": false, "here.go": true, "q_" + other + ".py": true}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, w := range want {
		if got := BuiltHere(filepath.Join(dir, name)); got != w {
			t.Errorf("BuiltHere(%s) = %v, want %v", name, got, w)
		}
	}
}
