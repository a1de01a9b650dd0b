package orchestrator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/compiledb"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/registry"
)

// TestCompileCommands: a root without a compilation database gets one in
// the cache, listing its C-family sources (not headers, not excluded or
// hidden directories) with compile_flags.txt's flags; a root with its own,
// or a clangd whose index is off, gets none.
func TestCompileCommands(t *testing.T) {
	t.Parallel()
	newO := func(t *testing.T, root, doc string) *Orchestrator {
		cfg, err := config.Parse([]byte(doc), "test")
		if err != nil {
			t.Fatal(err)
		}
		o, err := New(Options{Root: root, Config: cfg, Store: registry.NewStore(filepath.Join(t.TempDir(), "servers"), nil)})
		if err != nil {
			t.Fatal(err)
		}
		// Shut down before the temporary directories go: on Windows a
		// watched directory cannot be removed while it is watched.
		t.Cleanup(func() { o.Shutdown(context.Background()) })
		return o
	}
	root := t.TempDir()
	lsptest.WriteFiles(t, root, map[string]string{
		"compile_flags.txt":  "-std=c89\n-Wall\n\n",
		"a.c":                "int a;\n",
		"lib/b.cpp":          "int b;\n",
		"lib/b.h":            "int b;\n",
		"node_modules/x/c.c": "int c;\n",
		".hidden/d.c":        "int d;\n",
		"notes.txt":          "not code\n",
	})
	o := newO(t, root, `{"lsp":{}}`)
	args := o.compileCommandsArgs(o.specs["clangd"], root)
	dir := o.compileCommandsDir(root)
	if !slices.Equal(args, []string{"--compile-commands-dir=" + dir}) || strings.HasPrefix(dir, root) {
		t.Fatalf("args %q (dir %s)", args, dir)
	}
	data, err := os.ReadFile(filepath.Join(dir, "compile_commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []compiledb.Entry
	if err := json.Unmarshal(data, &cmds); err != nil {
		t.Fatal(err)
	}
	want := []compiledb.Entry{
		{Directory: root, File: filepath.Join(root, "a.c"), Arguments: []string{"clang", "-std=c89", "-Wall", "-c", filepath.Join(root, "a.c")}},
		{Directory: root, File: filepath.Join(root, "lib", "b.cpp"), Arguments: []string{"clang++", "-std=c89", "-Wall", "-c", filepath.Join(root, "lib", "b.cpp")}},
	}
	if !slices.EqualFunc(cmds, want, func(a, b compiledb.Entry) bool {
		return a.Directory == b.Directory && a.File == b.File && slices.Equal(a.Arguments, b.Arguments)
	}) {
		t.Fatalf("compile_commands.json:\n%s", data)
	}
	if got := o.compileCommandsArgs(o.specs["gopls"], root); got != nil {
		t.Errorf("gopls: %q", got)
	}
	off := newO(t, root, `{"lsp":{"servers":{"clangd":{"args":["--background-index=false"]}}}}`)
	if got := off.compileCommandsArgs(off.specs["clangd"], root); got != nil {
		t.Errorf("index off: %q", got)
	}
	lsptest.WriteFiles(t, root, map[string]string{"build/compile_commands.json": "[]"})
	if got := o.compileCommandsArgs(o.specs["clangd"], root); got != nil {
		t.Errorf("with build/compile_commands.json: %q", got)
	}
}
