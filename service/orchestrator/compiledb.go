package orchestrator

import (
	"path/filepath"
	"slices"

	"github.com/lspkit/lspkit/service/compiledb"
	"github.com/lspkit/lspkit/service/registry"
)

// compileCommandsArgs returns the extra arguments that point a server with
// CompileCommands at a compilation database synthesized for root, or none
// when root has a database of its own, the server's background index is
// off, or the database cannot be written (then clangd works as before,
// with open files only in its index).
func (o *Orchestrator) compileCommandsArgs(spec *registry.Spec, root string) []string {
	if !spec.CompileCommands || slices.Contains(spec.Args, "--background-index=false") || compiledb.Own(root) {
		return nil
	}
	dir := o.compileCommandsDir(root)
	if err := compiledb.Synthesize(root, dir, o.Skipped); err != nil {
		o.log.Warn("synthesize a compilation database", "root", root, "err", err)
		return nil
	}
	o.bg.Go(func() {
		// The databases (and clangd's indexes) of roots gone since.
		n, err := compiledb.Sweep(filepath.Dir(o.store.Dir()))
		if err != nil {
			o.log.Warn("remove the compilation databases of roots that are gone", "err", err)
		}
		if n > 0 {
			o.log.Info("removed the compilation databases of roots that are gone", "count", n)
		}
	})
	return []string{"--compile-commands-dir=" + dir}
}

// compileCommandsDir is where the compilation database synthesized for
// root is kept (and clangd's index of it): lspkit's cache, beside the
// server store (compiledb.Dir). clangd keeps its index beside it, out of
// the project.
func (o *Orchestrator) compileCommandsDir(root string) string {
	return compiledb.Dir(filepath.Dir(o.store.Dir()), root)
}
