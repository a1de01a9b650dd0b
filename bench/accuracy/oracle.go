package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"golang.org/x/tools/go/packages"

	"github.com/lspkit/lspkit/service/registry"
)

// A finding is a place a tool reports a problem: a file (relative to the
// project, '/'-separated) and a 1-based line.
type finding struct {
	file string
	line int
}

func (f finding) String() string { return fmt.Sprintf("%s:%d", f.file, f.line) }

// run runs a command in dir and returns its combined output; a non-zero
// exit is expected (the oracle found something), other failures are not.
func run(dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return out, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// colonPositions finds "file:line:col:" positions in compiler output.
var colonPositions = regexp.MustCompile(`(?m)^(?:vet: )?\.?/?([^\s:]+\.(?:go|c|h)):(\d+):\d+: (.*)$`)

func parseColon(out []byte, keep func(rest string) bool) []finding {
	var fs []finding
	for _, m := range colonPositions.FindAllSubmatch(out, -1) {
		if keep != nil && !keep(string(m[3])) {
			continue
		}
		line, _ := strconv.Atoi(string(m[2]))
		fs = append(fs, finding{filepath.ToSlash(string(m[1])), line})
	}
	return fs
}

// typeError is one of the Go type checker's errors: where, and its
// message.
type typeError struct {
	finding
	msg string
}

// typeErrors are the Go type checker's errors over every package of dir
// (and their tests, with tests) — through golang.org/x/tools/go/packages,
// so that a package whose dependency does not compile is still checked,
// as go build cannot — in files under dir.
func typeErrors(dir string, tests bool) ([]typeError, error) {
	pkgs, err := packages.Load(&packages.Config{Dir: dir, Mode: packages.LoadAllSyntax, Tests: tests}, "./...")
	if err != nil {
		return nil, err
	}
	var out []typeError
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			file, line, ok := splitPos(e.Pos)
			if !ok {
				continue
			}
			if rel, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(rel, "..") {
				out = append(out, typeError{finding{filepath.ToSlash(rel), line}, e.Msg})
			}
		}
	})
	return out, nil
}

// goErrors are the Go type checker's errors over every package of dir
// and its tests: "file:line: message" each, the file relative to dir.
func goErrors(dir string) ([]string, error) {
	errs, err := typeErrors(dir, true)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s: %s", e.finding, e.msg))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// goOracle is the Go type checker over every package (typeErrors) and go
// vet.
func goOracle(dir string) ([]finding, error) {
	errs, err := typeErrors(dir, false)
	if err != nil {
		return nil, err
	}
	var fs []finding
	for _, e := range errs {
		fs = append(fs, e.finding)
	}
	vet, err := run(dir, "go", "vet", "./...")
	if err != nil {
		return nil, err
	}
	return append(fs, parseColon(vet, nil)...), nil
}

// splitPos splits "file:line:col".
func splitPos(pos string) (string, int, bool) {
	parts := strings.Split(pos, ":")
	if len(parts) < 3 {
		return "", 0, false
	}
	line, err := strconv.Atoi(parts[len(parts)-2])
	return strings.Join(parts[:len(parts)-2], ":"), line, err == nil
}

// clangOracle is clang -fsyntax-only over the translation units, with the
// project's compile flags (compile_flags.txt, as clangd reads them);
// errors only.
func clangOracle(dir string) ([]finding, error) {
	units, _ := filepath.Glob(filepath.Join(dir, "*.c"))
	for i, u := range units {
		units[i] = filepath.Base(u)
	}
	out, err := clangSyntax(dir, units)
	if err != nil {
		return nil, err
	}
	return parseColon(out, func(rest string) bool { return strings.HasPrefix(rest, "error:") }), nil
}

// clangSyntax runs clang -fsyntax-only with the project's compile flags
// over units (relative to dir).
func clangSyntax(dir string, units []string) ([]byte, error) {
	clang, err := firstOnPath("clang-19", "clang")
	if err != nil {
		return nil, err
	}
	flags, err := os.ReadFile(filepath.Join(dir, "compile_flags.txt"))
	if err != nil {
		return nil, err
	}
	args := append([]string{"-fsyntax-only"}, strings.Fields(string(flags))...)
	return run(dir, clang, append(args, units...)...)
}

// tscPositions finds "file(line,col): error" in tsc's output.
var tscPositions = regexp.MustCompile(`(?m)^([^\s(]+\.tsx?)\((\d+),\d+\): error `)

// tscOracle is tsc --noEmit over the project's tsconfig.json, with the
// TypeScript typescript-language-server runs.
func tscOracle(dir string) ([]finding, error) {
	out, err := run(dir, filepath.Join(registry.DefaultDir(), "npm", "typescript", "node_modules", ".bin", "tsc"), "--noEmit", "-p", ".")
	if err != nil {
		return nil, err
	}
	var fs []finding
	for _, m := range tscPositions.FindAllSubmatch(out, -1) {
		line, _ := strconv.Atoi(string(m[2]))
		fs = append(fs, finding{filepath.ToSlash(string(m[1])), line})
	}
	return fs, nil
}

// pyrightOracle is the pyright CLI of the pinned pyright; errors only.
func pyrightOracle(dir string) ([]finding, error) {
	out, err := run(dir, filepath.Join(registry.DefaultDir(), "npm", "pyright", "node_modules", ".bin", "pyright"), "--outputjson")
	if err != nil {
		return nil, err
	}
	var report struct {
		GeneralDiagnostics []struct {
			File     string `json:"file"`
			Severity string `json:"severity"`
			Range    struct {
				Start struct {
					Line int `json:"line"`
				} `json:"start"`
			} `json:"range"`
		} `json:"generalDiagnostics"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &report); err != nil {
		return nil, fmt.Errorf("pyright --outputjson: %w: %.200s", err, out)
	}
	var fs []finding
	for _, d := range report.GeneralDiagnostics {
		if d.Severity != "error" {
			continue
		}
		rel, err := filepath.Rel(dir, d.File)
		if err != nil {
			continue
		}
		fs = append(fs, finding{filepath.ToSlash(rel), d.Range.Start.Line + 1})
	}
	return fs, nil
}

func firstOnPath(names ...string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("none of %v on PATH (apt-get install clang-19)", names)
}

// compile runs the check an agent would otherwise run to learn what a
// change to changed broke: go build ./..., tsc --noEmit, the pyright CLI,
// or clang -fsyntax-only of the translation units that include changed.
// What it finds does not matter here, only how long it takes.
func compile(language, dir, changed string) error {
	var err error
	switch language {
	case "Go":
		_, err = run(dir, "go", "build", "./...")
	case "TypeScript":
		_, err = tscOracle(dir)
	case "Python":
		_, err = pyrightOracle(dir)
	case "C":
		var units []string
		if units, err = includers(dir, changed); err == nil {
			_, err = clangSyntax(dir, units)
		}
	default:
		err = fmt.Errorf("no compiler for %s", language)
	}
	return err
}

// includeLine finds a quoted #include.
var includeLine = regexp.MustCompile(`(?m)^\s*#\s*include\s+"([^"]+)"`)

// includers returns the translation units (.c files under dir, relative
// and '/'-separated) that are changed or include it, directly or through
// other headers; an include is matched by its file's name.
func includers(dir, changed string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".c") || strings.HasSuffix(p, ".h")) {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	includes := map[string][]string{}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		for _, m := range includeLine.FindAllSubmatch(data, -1) {
			includes[f] = append(includes[f], path.Base(string(m[1])))
		}
	}
	reached := map[string]bool{changed: true}
	names := map[string]bool{path.Base(changed): true}
	for grew := true; grew; {
		grew = false
		for _, f := range files {
			if reached[f] {
				continue
			}
			for _, inc := range includes[f] {
				if names[inc] {
					reached[f], names[path.Base(f)], grew = true, true, true
					break
				}
			}
		}
	}
	var units []string
	for f := range reached {
		if strings.HasSuffix(f, ".c") {
			units = append(units, f)
		}
	}
	slices.Sort(units)
	return units, nil
}
