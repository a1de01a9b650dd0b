package compiledb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/client"
)

// CommandFor is path's command from db: its own entry, else (a header)
// that of the nearest source file, with path in place of that file, as
// clangd itself infers a header's.
func CommandFor(db []Entry, path string) (client.CompileCommand, bool) {
	best, bestLen := -1, -1
	for i, e := range db {
		file := e.File
		if !filepath.IsAbs(file) {
			file = filepath.Join(e.Directory, file)
		}
		file = filepath.Clean(file)
		if file == path {
			return client.CompileCommand{WorkingDirectory: e.Directory, CompilationCommand: e.Args()}, true
		}
		if n := commonPrefix(filepath.Dir(file), filepath.Dir(path)); n > bestLen {
			best, bestLen = i, n
		}
	}
	if best < 0 {
		return client.CompileCommand{}, false
	}
	e := db[best]
	args := e.Args()
	for i, a := range args {
		if a == e.File || filepath.Join(e.Directory, a) == filepath.Join(e.Directory, e.File) {
			args[i] = path
		}
	}
	return client.CompileCommand{WorkingDirectory: e.Directory, CompilationCommand: args}, true
}

// commonPrefix is how many bytes a and b share from the start.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Args are an entry's arguments, its command line split as a POSIX shell
// splits words (quotes and backslashes) when it gives no arguments.
func (e Entry) Args() []string {
	if len(e.Arguments) > 0 {
		return slices.Clone(e.Arguments)
	}
	var out []string
	var word strings.Builder
	inWord, quote := false, rune(0)
	escaped := false
	for _, r := range e.Command {
		switch {
		case escaped:
			word.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, word.String())
	}
	return out
}

// Overlay writes into dir the texts of headers (by absolute path) and a
// virtual file system that puts them where the headers are, and returns
// the path of its description, for a compile command's -ivfsoverlay.
func Overlay(dir string, headers map[string]string) (string, error) {
	type entry struct {
		Type     string  `json:"type"`
		Name     string  `json:"name"`
		External string  `json:"external-contents,omitempty"`
		Contents []entry `json:"contents,omitempty"`
	}
	byDir := map[string][]entry{}
	for i, abs := range slices.Sorted(maps.Keys(headers)) {
		copyPath := filepath.Join(dir, fmt.Sprintf("%d%s", i, filepath.Ext(abs)))
		if err := os.WriteFile(copyPath, []byte(headers[abs]), 0o600); err != nil {
			return "", err
		}
		d := filepath.Dir(abs)
		byDir[d] = append(byDir[d], entry{Type: "file", Name: filepath.Base(abs), External: copyPath})
	}
	var roots []entry
	for _, d := range slices.Sorted(maps.Keys(byDir)) {
		roots = append(roots, entry{Type: "directory", Name: d, Contents: byDir[d]})
	}
	yaml, err := json.Marshal(map[string]any{"version": 0, "case-sensitive": "false", "roots": roots})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.yaml")
	return path, os.WriteFile(path, yaml, 0o600)
}

// A Server takes compile commands for files (client.Client, of clangd).
type Server interface {
	SetCompileCommands(ctx context.Context, commands map[string]client.CompileCommand) error
}

// OverlayHeaders gives each of files, on server, its command from db with
// -ivfsoverlay: a virtual file system, written into a new temporary
// directory, that puts headers' texts (by absolute path) where the
// headers are. It returns restore, which gives the files their commands
// back and removes the directory, and the files db has no command for
// (left as they were).
func OverlayHeaders(ctx context.Context, server Server, db []Entry, headers map[string]string, files []string) (restore func(ctx context.Context) error, without []string, err error) {
	dir, err := os.MkdirTemp("", "lspkit-whatif-")
	if err != nil {
		return nil, nil, err
	}
	vfs, err := Overlay(dir, headers)
	if err != nil {
		return nil, nil, errors.Join(err, os.RemoveAll(dir))
	}
	original, overlaid := map[string]client.CompileCommand{}, map[string]client.CompileCommand{}
	for _, f := range files {
		cmd, ok := CommandFor(db, f)
		if !ok {
			without = append(without, f)
			continue
		}
		original[f] = cmd
		over := cmd
		over.CompilationCommand = slices.Insert(slices.Clone(cmd.CompilationCommand), 1, "-ivfsoverlay", vfs)
		overlaid[f] = over
	}
	if err := server.SetCompileCommands(ctx, overlaid); err != nil {
		return nil, nil, errors.Join(err, os.RemoveAll(dir))
	}
	return func(ctx context.Context) error {
		return errors.Join(server.SetCompileCommands(ctx, original), os.RemoveAll(dir))
	}, without, nil
}
