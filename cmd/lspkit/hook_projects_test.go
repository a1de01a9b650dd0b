//go:build linux

package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/service/registry"
)

// The real projects TestHookHosts plays its turns on, each fetched at a
// pinned version from its registry (not written for the test), with the
// edits of the turns and the compiler's own check of the project.

// lineEdit replaces the whole lines old of file (relative to the
// project) with new: an edit every host's edit tool makes (apply_patch
// needs whole lines).
type lineEdit struct {
	file, old, new string
}

// hookProject is a project and the turns' edits on it.
type hookProject struct {
	name string
	dir  string
	// original is each edited file's text before any turn.
	original map[string]string
	// edits are the turn's edits: 1 changes an exported function's
	// signature, 2 adds an import that 3 uses, the rest (edit 4) fix its
	// callers in other files.
	edits []lineEdit
	// other is a file a tool that edits nothing reads.
	other string
	// compile is the compiler's errors of the project as it is on disk —
	// every package's and file's, tests too — and how long the compiler's
	// own build of it took.
	compile func(t *testing.T) ([]compilerError, time.Duration)
}

// compilerError is one error of the compiler's check: file (relative to
// the project), line, message.
type compilerError struct {
	file string
	line int
	msg  string
}

// restore puts every edited file back as it was before the turns.
func (p *hookProject) restore(t *testing.T) {
	t.Helper()
	for file, text := range p.original {
		if err := os.WriteFile(filepath.Join(p.dir, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// apply makes edits on disk, as a host's tool would (for the compiler's
// view of a turn's end).
func (p *hookProject) apply(t *testing.T, edits []lineEdit) {
	t.Helper()
	for _, e := range edits {
		path := filepath.Join(p.dir, e.file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(data), e.old, e.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newErrors is what the compiler reports after edits that it did not
// before them (by file, line after the edit and message), and how long
// its check of the edited project took.
func (p *hookProject) newErrors(t *testing.T, edits []lineEdit) ([]compilerError, time.Duration) {
	t.Helper()
	defer p.restore(t)
	p.restore(t)
	before, _ := p.compile(t)
	p.apply(t, edits)
	after, took := p.compile(t)
	// The same error in the same file is old, wherever the edits moved
	// it; of several alike, as many as there were are old.
	left := map[string]int{}
	for _, b := range before {
		left[b.file+"\x00"+b.msg]++
	}
	var out []compilerError
	for _, e := range after {
		if k := e.file + "\x00" + e.msg; left[k] > 0 {
			left[k]--
			continue
		}
		out = append(out, e)
	}
	return out, took
}

// fileEdits checks that each edit's old lines are in its file once, and
// records the files' texts as they are.
func (p *hookProject) record(t *testing.T) {
	t.Helper()
	p.original = map[string]string{}
	for _, e := range p.edits {
		if _, ok := p.original[e.file]; !ok {
			data, err := os.ReadFile(filepath.Join(p.dir, e.file))
			if err != nil {
				t.Fatal(err)
			}
			p.original[e.file] = string(data)
		}
	}
	text := map[string]string{}
	for f, s := range p.original {
		text[f] = s
	}
	for i, e := range p.edits {
		if n := strings.Count(text[e.file], e.old); n != 1 {
			t.Fatalf("%s: edit %d's lines are in %s %d times, want once: %q", p.name, i+1, e.file, n, e.old)
		}
		text[e.file] = strings.Replace(text[e.file], e.old, e.new, 1)
	}
}

// cobraProject is github.com/spf13/cobra v1.8.1 from the Go module proxy,
// with its dependencies, and an error of the user's own left in cobra.go
// (work in progress: a function that does not compile). The turns change
// CheckErr's signature (a parameter added), which breaks its calls in
// cobra.go itself, command.go, a test file and the doc package's tests.
func cobraProject(t *testing.T) *hookProject {
	t.Helper()
	const module = "github.com/spf13/cobra@v1.8.1"
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", module, err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(out, &info, json.RejectUnknownMembers(false)); err != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: %v %s", module, err, out)
	}
	dir := projectDir(t, "cobra")
	copyTree(t, info.Dir, dir)
	wip := "\n// wip is the user's work in progress: it does not compile yet.\nfunc wip() int { return \"todo\" }\n"
	f, err := os.OpenFile(filepath.Join(dir, "cobra.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(wip)
	f.Close()
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod download in cobra: %v\n%s", err, out)
	}
	p := &hookProject{name: "cobra", dir: dir, other: "go.mod", edits: []lineEdit{
		{"cobra.go", "func CheckErr(msg interface{}) {", "func CheckErr(msg interface{}, code int) {"},
		{"cobra.go", "import (\n\t\"fmt\"", "import (\n\t\"errors\"\n\t\"fmt\""},
		{"cobra.go", "\t\tos.Exit(1)", "\t\tif err, ok := msg.(error); ok && errors.Is(err, os.ErrNotExist) {\n\t\t\tcode = 2\n\t\t}\n\t\tos.Exit(code)"},
		{"cobra.go", "\tCheckErr(err)\n}", "\tCheckErr(err, 1)\n}"},
		{"command.go", "\tCheckErr(c.Usage())", "\tCheckErr(c.Usage(), 1)"},
		{"command.go", "\t\t\t\t\tCheckErr(c.Root().Usage())", "\t\t\t\t\tCheckErr(c.Root().Usage(), 1)"},
		{"command.go", "\t\t\t\t\tCheckErr(cmd.Help())", "\t\t\t\t\tCheckErr(cmd.Help(), 1)"},
		{"bash_completions_test.go", "\t\tCheckErr(err)", "\t\tCheckErr(err, 1)"},
		{"doc/man_examples_test.go", "\tcobra.CheckErr(doc.GenManTree(cmd, header, \"/tmp\"))", "\tcobra.CheckErr(doc.GenManTree(cmd, header, \"/tmp\"), 1)"},
		{"doc/man_examples_test.go", "\tcobra.CheckErr(doc.GenMan(cmd, header, out))", "\tcobra.CheckErr(doc.GenMan(cmd, header, out), 1)"},
	}}
	oracle := goTypeChecker(t)
	p.compile = func(t *testing.T) ([]compilerError, time.Duration) {
		// The Go type checker over every package and its tests (go build
		// stops at a package that does not compile, before the packages
		// and tests that use it), and the time of go build itself.
		errs, _ := compilerErrors(t, dir, goError, oracle, "-go-errors", dir)
		_, took := compilerErrors(t, dir, goError, "go", "build", "./...")
		return errs, took
	}
	p.record(t)
	return p
}

// goError is a line of the Go type checker's errors (bench/accuracy
// -go-errors: file:line: message).
var goError = regexp.MustCompile(`^([^\s:]+\.go):(\d+): (.*)$`)

// goTypeChecker builds the Go type checker over every package of a
// directory — the accuracy bench's oracle (golang.org/x/tools/go/packages,
// in the bench's own module) — and returns the binary.
func goTypeChecker(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "go-errors")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join(repo, "bench", "accuracy")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building bench/accuracy: %v\n%s", err, out)
	}
	return bin
}

// queryCoreProject is @tanstack/query-core 5.59.0 from the npm registry:
// its TypeScript sources (src, with its tests) and the compiler options
// of its repository's tsconfig, which the package leaves out. As
// published it carries errors of its own: the Node global process is
// not declared (no @types/node) in utils.ts, query.ts and others, and its
// tests' imports (vitest, @testing-library) are not installed. The turns
// change timeUntilStale's signature in utils.ts (a parameter added), which
// breaks its calls in query.ts and queryObserver.ts.
func queryCoreProject(t *testing.T) *hookProject {
	t.Helper()
	const pkg = "@tanstack/query-core@5.59.0"
	scratch := t.TempDir()
	cmd := exec.Command("npm", "pack", pkg, "--pack-destination", scratch, "--silent")
	cmd.Dir = scratch
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("npm pack %s: %v", pkg, err)
	}
	dir := projectDir(t, "query-core")
	untar(t, filepath.Join(scratch, strings.TrimSpace(string(out))), dir)
	writeFiles(t, dir, map[string]string{"tsconfig.json": `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "lib": ["ES2022", "DOM"],
    "jsx": "react-jsx",
    "strict": true,
    "noEmit": true,
    "skipLibCheck": true
  },
  "include": ["src"]
}
`})
	p := &hookProject{name: "query-core", dir: dir, other: "package.json", edits: []lineEdit{
		{"src/utils.ts", "export function timeUntilStale(updatedAt: number, staleTime?: number): number {", "export function timeUntilStale(updatedAt: number, staleTime: number | undefined, now: number): number {"},
		{"src/utils.ts", "import type { Mutation } from './mutation'", "import type { Mutation } from './mutation'\nimport { focusManager } from './focusManager'"},
		{"src/utils.ts", "  return Math.max(updatedAt + (staleTime || 0) - Date.now(), 0)", "  if (!focusManager.isFocused()) return 0\n  return Math.max(updatedAt + (staleTime || 0) - now, 0)"},
		{"src/query.ts", "      !timeUntilStale(this.state.dataUpdatedAt, staleTime)", "      !timeUntilStale(this.state.dataUpdatedAt, staleTime, Date.now())"},
		{"src/queryObserver.ts", "    const time = timeUntilStale(this.#currentResult.dataUpdatedAt, staleTime)", "    const time = timeUntilStale(this.#currentResult.dataUpdatedAt, staleTime, Date.now())"},
	}}
	tsc := filepath.Join(registry.DefaultDir(), "npm", "typescript", "node_modules", ".bin", "tsc")
	p.compile = func(t *testing.T) ([]compilerError, time.Duration) {
		return compilerErrors(t, dir, tsError, tsc, "-p", ".")
	}
	p.record(t)
	return p
}

// tsError is a line of tsc's errors.
var tsError = regexp.MustCompile(`^(\S+)\((\d+),\d+\): error TS\d+: (.*)$`)

// compilerErrors runs a compiler in dir and reads its errors with re
// (file, line, message), and how long it took.
func compilerErrors(t *testing.T, dir string, re *regexp.Regexp, name string, args ...string) ([]compilerError, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	start := time.Now()
	out, _ := cmd.CombinedOutput() // errors are its exit status
	took := time.Since(start)
	var errs []compilerError
	for _, line := range strings.Split(string(out), "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		errs = append(errs, compilerError{file: filepath.ToSlash(m[1]), line: n, msg: m[3]})
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %v in %s: %v", name, args, dir, ctx.Err())
	}
	return errs, took
}

// projectDir is a new directory for a project, removed when the test
// ends (its shared daemon ended first, by hostScratch's cleanup).
func projectDir(t *testing.T, name string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hook-"+name)
	if err != nil {
		t.Fatal(err)
	}
	dir, _ = filepath.EvalSymlinks(dir)
	t.Cleanup(func() {
		for _, pid := range sharedDaemons(dir) {
			syscall.Kill(pid, syscall.SIGTERM)
			gone(t, pid, 20*time.Second)
		}
		noProcessesIn(t, dir)
		os.RemoveAll(dir)
	})
	return dir
}

// copyTree copies the files of src into dst, writable (the module cache's
// are not).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// untar extracts an npm package's tarball (its package/ directory) into
// dst.
func untar(t *testing.T, tarball, dst string) {
	t.Helper()
	f, err := os.Open(tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		rel, ok := strings.CutPrefix(h.Name, "package/")
		if !ok || h.Typeflag != tar.TypeReg || !filepath.IsLocal(rel) {
			continue
		}
		target := filepath.Join(dst, rel)
		os.MkdirAll(filepath.Dir(target), 0o755)
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
