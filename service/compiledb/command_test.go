package compiledb

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/client"
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

// commandsSet records the compile commands a server was given.
type commandsSet struct {
	sets []map[string]client.CompileCommand
}

func (s *commandsSet) SetCompileCommands(_ context.Context, cmds map[string]client.CompileCommand) error {
	s.sets = append(s.sets, cmds)
	return nil
}

// TestOverlayHeaders: the files with a command get it with -ivfsoverlay
// (a description that puts the header's text where the header is); a
// file of another tree has none and is named; restore gives the commands
// back and removes the overlay. Without a database, every file is named.
func TestOverlayHeaders(t *testing.T) {
	root := t.TempDir()
	src, header, other := filepath.Join(root, "a.c"), filepath.Join(root, "a.h"), filepath.Join(root, "sub", "b.c")
	db := []Entry{{Directory: root, File: "a.c", Arguments: []string{"cc", "-c", "a.c"}}}
	var server commandsSet
	restore, without, err := OverlayHeaders(t.Context(), &server, db, map[string]string{header: "int f(void);\n"}, []string{src, other})
	if err != nil {
		t.Fatal(err)
	}
	if len(without) != 0 || len(server.sets[0]) != 2 {
		// CommandFor infers the nearest entry's for any file: other has
		// a.c's command, as clangd would infer it.
		t.Fatalf("without %v; commands %v", without, server.sets[0])
	}
	got := server.sets[0][src].CompilationCommand
	if len(got) < 3 || got[0] != "cc" || got[1] != "-ivfsoverlay" {
		t.Fatalf("overlaid command: %q", got)
	}
	vfs, err := os.ReadFile(got[2])
	if err != nil || !strings.Contains(string(vfs), `"name":"a.h"`) || !strings.Contains(string(vfs), filepath.ToSlash(root)) && !strings.Contains(string(vfs), strings.ReplaceAll(root, `\`, `\\`)) {
		t.Fatalf("overlay: %s %v", vfs, err)
	}
	if err := restore(t.Context()); err != nil {
		t.Fatal(err)
	}
	if back := server.sets[1][src].CompilationCommand; slices.Contains(back, "-ivfsoverlay") {
		t.Fatalf("restored command: %q", back)
	}
	if _, err := os.Stat(got[2]); !os.IsNotExist(err) {
		t.Fatalf("overlay left behind: %v", err)
	}
	restore, without, err = OverlayHeaders(t.Context(), &server, nil, map[string]string{header: "x"}, []string{src})
	if err != nil || len(without) != 1 || without[0] != src {
		t.Fatalf("no database: without %v, %v", without, err)
	}
	if err := restore(t.Context()); err != nil {
		t.Fatal(err)
	}
}
