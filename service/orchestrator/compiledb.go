package orchestrator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/service/impact"
	"github.com/lspkit/lspkit/service/registry"
)

// maxCompileCommands bounds the source files a synthesized compilation
// database lists, and maxCompileScan the entries looked at to find them:
// past them the rest of a huge tree is left to clangd's interpolation from
// the listed files' flags.
const (
	maxCompileCommands = 20000
	maxCompileScan     = 200000
)

// cSources are the C-family source (not header) extensions, with the
// driver that compiles them.
var cSources = map[string]string{
	".c": "clang", ".m": "clang",
	".cc": "clang++", ".cpp": "clang++", ".cxx": "clang++", ".c++": "clang++", ".mm": "clang++",
}

// compileCommandsArgs returns the extra arguments that point a server with
// CompileCommands at a compilation database synthesized for root, or none
// when root has a database of its own, the server's background index is
// off, or the database cannot be written (then clangd works as before,
// with open files only in its index).
func (o *Orchestrator) compileCommandsArgs(spec *registry.Spec, root string) []string {
	if !spec.CompileCommands || slices.Contains(spec.Args, "--background-index=false") {
		return nil
	}
	for _, dir := range []string{root, filepath.Join(root, "build")} {
		if _, err := os.Stat(filepath.Join(dir, "compile_commands.json")); err == nil {
			return nil
		}
	}
	dir, err := o.writeCompileCommands(root)
	if err != nil {
		o.log.Warn("synthesize a compilation database", "root", root, "err", err)
		return nil
	}
	return []string{"--compile-commands-dir=" + dir}
}

// compileCommand is one entry of compile_commands.json.
type compileCommand struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Arguments []string `json:"arguments"`
}

// writeCompileCommands writes the compilation database of root's C-family
// sources (excluded and hidden directories left out) with the flags of its
// compile_flags.txt, in a directory of lspkit's cache named after root,
// and returns that directory. clangd keeps its index beside it, out of the
// project.
func (o *Orchestrator) writeCompileCommands(root string) (string, error) {
	var flags []string
	if data, err := os.ReadFile(filepath.Join(root, "compile_flags.txt")); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				flags = append(flags, l)
			}
		}
	}
	var cmds []compileCommand
	impact.Walk(root, maxCompileScan, o.skipped, func(path string) bool {
		if driver, ok := cSources[strings.ToLower(filepath.Ext(path))]; ok {
			args := append(append([]string{driver}, flags...), "-c", path)
			cmds = append(cmds, compileCommand{Directory: root, File: path, Arguments: args})
		}
		return len(cmds) < maxCompileCommands
	})
	dir := o.compileCommandsDir(root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(cmds, "", "  ")
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".compile_commands-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, "compile_commands.json"))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("write %s: %w", filepath.Join(dir, "compile_commands.json"), err)
	}
	return dir, nil
}

// compileCommandsDir is where the compilation database synthesized for
// root is kept (and clangd's index of it): lspkit's cache, beside the
// server store, in a directory named after root.
func (o *Orchestrator) compileCommandsDir(root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(filepath.Dir(o.store.Dir()), "clangd", hex.EncodeToString(sum[:8]))
}
