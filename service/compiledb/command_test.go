package compiledb

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestCommandFor: a file's own entry, its command line split as a shell
// splits it; a header without one takes the nearest source file's, with
// itself in that file's place.
func TestCommandFor(t *testing.T) {
	root := t.TempDir()
	db := []Entry{
		{Directory: root, File: "src/a.c", Command: `cc -DNAME="a b" -I'inc dir' -c src/a.c`},
		{Directory: root, File: filepath.Join(root, "lib", "b.c"), Arguments: []string{"cc", "-Ilib", "-c", filepath.Join(root, "lib", "b.c")}},
	}
	cmd, ok := CommandFor(db, filepath.Join(root, "src", "a.c"))
	if want := []string{"cc", "-DNAME=a b", "-Iinc dir", "-c", "src/a.c"}; !ok || cmd.WorkingDirectory != root || !slices.Equal(cmd.CompilationCommand, want) {
		t.Fatalf("a.c: %+v, want %q", cmd, want)
	}
	header := filepath.Join(root, "lib", "b.h")
	cmd, ok = CommandFor(db, header)
	if want := []string{"cc", "-Ilib", "-c", header}; !ok || !slices.Equal(cmd.CompilationCommand, want) {
		t.Fatalf("b.h: %+v, want %q", cmd, want)
	}
	if _, ok := CommandFor(nil, header); ok {
		t.Fatal("a command from an empty database")
	}
}
