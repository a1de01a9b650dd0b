package compiledb

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSweep: the directories of roots that are gone are removed, written
// with a root file or before there was one; those of roots that exist, and
// those whose root cannot be told, are kept.
func TestSweep(t *testing.T) {
	cache := t.TempDir()
	trees := t.TempDir()
	root := func(name string) string {
		dir := filepath.Join(trees, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "a.c"), []byte("int a;\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	kept, gone := root("kept"), root("gone")
	for _, r := range []string{kept, gone} {
		if err := Synthesize(r, Dir(cache, r), nil); err != nil {
			t.Fatal(err)
		}
	}
	// Written before there was a root file: its first command names it.
	legacy := filepath.Join(trees, "legacy")
	legacyDir := Dir(cache, legacy)
	data, err := json.Marshal([]Entry{{Directory: legacy, File: filepath.Join(legacy, "a.c"), Arguments: []string{"clang", "-c", "a.c"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(legacyDir, ".cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(legacyDir, "compile_commands.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	// Not told: no database, and a database naming another directory than
	// the one it is kept for.
	unknown := filepath.Join(cache, "clangd", "0123456789abcdef")
	if err := os.MkdirAll(unknown, 0o755); err != nil {
		t.Fatal(err)
	}
	misnamed := filepath.Join(cache, "clangd", "fedcba9876543210")
	if err := os.MkdirAll(misnamed, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(misnamed, rootFile), []byte(filepath.Join(trees, "elsewhere")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	n, err := Sweep(cache)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("removed %d directories, want 2 (the gone root's and the legacy one's)", n)
	}
	for dir, want := range map[string]bool{Dir(cache, kept): true, Dir(cache, gone): false, legacyDir: false, unknown: true, misnamed: true} {
		_, err := os.Stat(dir)
		if got := err == nil; got != want {
			t.Errorf("%s exists: %v, want %v", dir, got, want)
		}
	}
	if _, err := Read(kept, Dir(cache, kept)); err != nil {
		t.Errorf("the kept root's database: %v", err)
	}
	if n, err := Sweep(filepath.Join(cache, "none")); n != 0 || err != nil {
		t.Errorf("Sweep of a cache without databases = %d, %v; want 0, nil", n, err)
	}
}
