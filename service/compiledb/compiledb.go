// Package compiledb reads and writes clangd's compilation databases
// (compile_commands.json): one synthesized for a tree that has none (its
// C-family sources with compile_flags.txt's flags, kept in lspkit's cache
// so that clangd's background index covers the whole project), a file's
// command read from the database clangd uses, and a virtual file system
// overlay that lets a what-if's header texts reach the files that include
// them (clangd compiles includes from disk).
package compiledb

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lspkit/lspkit/service/impact"
)

// maxCommands bounds the source files a synthesized database lists, and
// maxScan the entries looked at to find them: past them the rest of a
// huge tree is left to clangd's interpolation from the listed files'
// flags.
const (
	maxCommands = 20000
	maxScan     = 200000
)

// sources are the C-family source (not header) extensions, with the
// driver that compiles them.
var sources = map[string]string{
	".c": "clang", ".m": "clang",
	".cc": "clang++", ".cpp": "clang++", ".cxx": "clang++", ".c++": "clang++", ".mm": "clang++",
}

// Dir is where the database synthesized for root is kept (and clangd's
// index of it): under cache (lspkit's cache directory), in a directory
// named after root.
func Dir(cache, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(cache, "clangd", hex.EncodeToString(sum[:8]))
}

// rootFile names, in the directory of a synthesized database, the root it
// was written for (see Sweep).
const rootFile = "root"

// Sweep removes, from the directories Dir makes under cache, those of
// roots that no longer exist (a project deleted, a test's temporary
// tree): the database and clangd's index beside it. A directory whose root
// cannot be told is kept. It returns how many it removed.
func Sweep(cache string) (int, error) {
	parent := filepath.Join(cache, "clangd")
	entries, err := os.ReadDir(parent)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, fmt.Errorf("sweep %s: %w", parent, err)
	}
	removed := 0
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		root, ok := rootOf(dir)
		if !ok || Dir(cache, root) != dir {
			continue
		}
		if _, err := os.Stat(root); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// rootOf returns the root a synthesized database's directory was written
// for: its rootFile, else (written before there was one) the directory
// of its first command.
func rootOf(dir string) (string, bool) {
	if data, err := os.ReadFile(filepath.Join(dir, rootFile)); err == nil {
		return string(data), len(data) > 0
	}
	data, err := os.ReadFile(filepath.Join(dir, "compile_commands.json"))
	if err != nil {
		return "", false
	}
	var db []Entry
	if json.Unmarshal(data, &db) != nil || len(db) == 0 || db[0].Directory == "" {
		return "", false
	}
	return db[0].Directory, true
}

// Own reports whether root has a database of its own (at the root or in
// build/).
func Own(root string) bool {
	for _, dir := range []string{root, filepath.Join(root, "build")} {
		if _, err := os.Stat(filepath.Join(dir, "compile_commands.json")); err == nil {
			return true
		}
	}
	return false
}

// Entry is one entry of a compilation database: arguments, or a command
// line.
type Entry struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Arguments []string `json:"arguments,omitempty"`
	Command   string   `json:"command,omitempty"`
}

// Synthesize writes into dir the compilation database of root's C-family
// sources (the directories skip names, and hidden ones, left out; see
// impact.Walk) with the flags of its compile_flags.txt.
func Synthesize(root, dir string, skip func(path string, isDir bool) bool) error {
	var flags []string
	if data, err := os.ReadFile(filepath.Join(root, "compile_flags.txt")); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				flags = append(flags, l)
			}
		}
	}
	var cmds []Entry
	impact.Walk(root, maxScan, skip, func(path string) bool {
		if driver, ok := sources[strings.ToLower(filepath.Ext(path))]; ok {
			args := append(append([]string{driver}, flags...), "-c", path)
			cmds = append(cmds, Entry{Directory: root, File: path, Arguments: args})
		}
		return len(cmds) < maxCommands
	})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, rootFile), []byte(root), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(dir, rootFile), err)
	}
	data, err := json.MarshalIndent(cmds, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".compile_commands-*")
	if err != nil {
		return err
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
		return fmt.Errorf("write %s: %w", filepath.Join(dir, "compile_commands.json"), err)
	}
	return nil
}

// Read reads the database clangd uses for root: the root's own (at the
// root or in build/), else the one synthesized into dir.
func Read(root, dir string) ([]Entry, error) {
	paths := []string{
		filepath.Join(root, "compile_commands.json"),
		filepath.Join(root, "build", "compile_commands.json"),
		filepath.Join(dir, "compile_commands.json"),
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var db []Entry
		if err := json.Unmarshal(data, &db); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return db, nil
	}
	return nil, fmt.Errorf("no compilation database for %s", root)
}
