package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/client"
)

// This file makes a what-if's headers reach the files that include them
// on clangd, which compiles includes from disk: each includer's compile
// command gets -ivfsoverlay, a virtual file system that puts the what-if's
// texts where the headers are, for as long as the impact checks them.

// dbEntry is one entry of a compilation database, as written: arguments,
// or a command line.
type dbEntry struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Arguments []string `json:"arguments"`
	Command   string   `json:"command"`
}

// compilationDatabase reads the database clangd uses for root: the root's
// own (at the root or in build/), else the one lspkit synthesized.
func (o *Orchestrator) compilationDatabase(root string) ([]dbEntry, error) {
	paths := []string{
		filepath.Join(root, "compile_commands.json"),
		filepath.Join(root, "build", "compile_commands.json"),
		filepath.Join(o.compileCommandsDir(root), "compile_commands.json"),
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var db []dbEntry
		if err := json.Unmarshal(data, &db); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return db, nil
	}
	return nil, fmt.Errorf("no compilation database for %s", root)
}

// commandFor is path's command from db: its own entry, else (a header)
// that of the nearest source file, with path in place of that file, as
// clangd itself infers a header's.
func commandFor(db []dbEntry, path string) (client.CompileCommand, bool) {
	best, bestLen := -1, -1
	for i, e := range db {
		file := e.File
		if !filepath.IsAbs(file) {
			file = filepath.Join(e.Directory, file)
		}
		file = filepath.Clean(file)
		if file == path {
			return client.CompileCommand{WorkingDirectory: e.Directory, CompilationCommand: e.args()}, true
		}
		if n := commonPrefix(filepath.Dir(file), filepath.Dir(path)); n > bestLen {
			best, bestLen = i, n
		}
	}
	if best < 0 {
		return client.CompileCommand{}, false
	}
	e := db[best]
	args := e.args()
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

// args are an entry's arguments, its command line split as a POSIX shell
// splits words (quotes and backslashes) when it gives no arguments.
func (e dbEntry) args() []string {
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

// overlayHeaders gives each of deps a compile command that reads headers
// (their what-if texts) through a virtual file system, and returns a
// function that gives them their commands back; the files it could not
// give one are returned.
func (s *session) overlayHeaders(ctx context.Context, c *client.Client, headers []checkFile, deps []string) (restore func(), without []string, err error) {
	db, err := s.o.compilationDatabase(s.rootOf(deps[0]))
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "lspkit-whatif-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() {
		if err := os.RemoveAll(dir); err != nil {
			s.o.log.Warn("remove a what-if's headers", "dir", dir, "err", err)
		}
	}
	type entry struct {
		Type     string  `json:"type"`
		Name     string  `json:"name"`
		External string  `json:"external-contents,omitempty"`
		Contents []entry `json:"contents,omitempty"`
	}
	byDir := map[string][]entry{}
	for i, h := range headers {
		copyPath := filepath.Join(dir, fmt.Sprintf("%d%s", i, filepath.Ext(h.abs)))
		if err := os.WriteFile(copyPath, []byte(h.src.text), 0o600); err != nil {
			cleanup()
			return nil, nil, err
		}
		d := filepath.Dir(h.abs)
		byDir[d] = append(byDir[d], entry{Type: "file", Name: filepath.Base(h.abs), External: copyPath})
	}
	var roots []entry
	for _, d := range slices.Sorted(maps.Keys(byDir)) {
		roots = append(roots, entry{Type: "directory", Name: d, Contents: byDir[d]})
	}
	yaml, err := json.Marshal(map[string]any{"version": 0, "case-sensitive": "false", "roots": roots})
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "overlay.yaml"), yaml, 0o600)
	}
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	original, overlaid := map[string]client.CompileCommand{}, map[string]client.CompileCommand{}
	for _, d := range deps {
		cmd, ok := commandFor(db, d)
		if !ok {
			without = append(without, d)
			continue
		}
		original[d] = cmd
		over := cmd
		over.CompilationCommand = slices.Insert(slices.Clone(cmd.CompilationCommand), 1, "-ivfsoverlay", filepath.Join(dir, "overlay.yaml"))
		overlaid[d] = over
	}
	if err := c.SetCompileCommands(ctx, overlaid); err != nil {
		cleanup()
		return nil, nil, err
	}
	return func() {
		ctx, cancel := context.WithTimeout(s.o.life, s.o.cfg.DiagnosticTimeout)
		defer cancel()
		if err := c.SetCompileCommands(ctx, original); err != nil && ctx.Err() == nil {
			s.o.log.Warn("give includers their compile commands back after a what-if", "server", s.spec.ID, "err", err)
		}
		cleanup()
	}, without, nil
}
