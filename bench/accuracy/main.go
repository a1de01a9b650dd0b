// Command accuracy measures whether lspkit's checks find what the
// compilers find: real projects (testdata, or fetched from a registry at a
// pinned version when large; see testdata/SOURCES.md) with injected
// breaks — type errors, undefined names, wrong argument counts, unused
// imports, printf misuse, cross-file signature changes — checked by lspkit
// and by each language's compiler as the oracle, cold (a fresh daemon per
// break) and warm (one daemon that saw the project before the break, so
// dependents are checked unchanged), comparing the lines reported.
//
//	go run . [-project NAME] [-mode cold|warm|both] [-impact]
//	go run . -edits [-project NAME] [-runs N]
//	go run . -go-errors DIR
//
// It prints a Markdown table: per project and mode, the oracle's findings,
// lspkit's recall of them at the same lines, lspkit's errors on files the
// break left untouched and the oracle calls clean (false errors), findings
// left over after the break was undone (stale), and the median time of one
// file's check.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/orchestrator"
)

func main() {
	only := flag.String("project", "", "measure only this project")
	mode := flag.String("mode", "both", "cold, warm or both")
	verbose := flag.Bool("v", false, "print each break's findings")
	logs := flag.String("log", "", "print the daemon's logs at this level (debug, info, warn)")
	oracleDir := flag.String("go-errors", "", "print the Go type checker's errors over every package of this directory, tests included (file:line: message), and exit")
	flag.BoolVar(&impactOnly, "impact", false, "cold, check only the broken file, with its impact (the files it breaks found by lspkit), instead of every file")
	edits := flag.Bool("edits", false, "propose checked edits (lsp/applyEdits) on real projects with errors of their own, beside the compiler")
	runs := flag.Int("runs", 1, "with -edits, how many times each edit is proposed (each time timed)")
	flag.Parse()
	if *oracleDir != "" {
		errs, err := goErrors(*oracleDir)
		if err != nil {
			log.Fatal(err)
		}
		for _, e := range errs {
			fmt.Println(e)
		}
		return
	}
	if *logs != "" {
		var level slog.Level
		if err := level.UnmarshalText([]byte(*logs)); err != nil {
			log.Fatal(err)
		}
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	}
	if *edits {
		if !editsTable(*only, *runs, *verbose) {
			os.Exit(1)
		}
		return
	}
	fmt.Println("| language | project | mode | breaks | oracle findings | found | recall | false errors on untouched clean files | stale after undo | median check (ms) | median compiler check (ms) |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	failed := false
	for _, p := range projects {
		if *only != "" && p.name != *only {
			continue
		}
		for _, m := range []string{"cold", "warm"} {
			if *mode != "both" && *mode != m {
				continue
			}
			r, err := measure(p, m == "warm", *verbose)
			if err != nil {
				log.Fatalf("%s %s: %v", p.name, m, err)
			}
			if impactOnly {
				m += " (the broken file with its impact)"
			}
			compiler := "—"
			if len(r.compileTimes) > 0 {
				compiler = fmt.Sprint(median(r.compileTimes))
			}
			fmt.Printf("| %s | %s | %s | %d | %d | %d | %.0f%% | %d | %d | %d | %s |\n", p.language, p.name, m, len(p.breaks), r.oracle, r.found, r.recall(), r.falseErrors, r.stale, median(r.times), compiler)
			failed = failed || r.recall() < 95 || r.falseErrors > 0 || r.stale > 0
		}
	}
	if failed {
		os.Exit(1)
	}
}

// impactOnly checks the broken file alone, with its impact (-impact), and
// times the compiler's own check of each break beside it.
var impactOnly bool

// logger receives the daemon's logs (-log); nil discards them.
var logger *slog.Logger

// result accumulates one project's numbers in one mode.
type result struct {
	oracle, found, falseErrors, stale int
	times                             []time.Duration
	// compileTimes are the compiler's checks of each break (-impact):
	// go build ./..., tsc --noEmit, pyright, clang of the includers.
	compileTimes []time.Duration
}

func (r *result) recall() float64 {
	if r.oracle == 0 {
		return 100
	}
	return 100 * float64(r.found) / float64(r.oracle)
}

// median is the median of ts in milliseconds (0 for none).
func median(ts []time.Duration) int64 {
	if len(ts) == 0 {
		return 0
	}
	ts = slices.Clone(ts)
	slices.Sort(ts)
	return ts[len(ts)/2].Milliseconds()
}

// checker checks a project's files with one orchestrator.
type checker struct {
	o     *orchestrator.Orchestrator
	p     project
	files []string
	mu    sync.Mutex
	times []time.Duration
}

// newChecker starts an orchestrator on root. Its first touch may take
// minutes: every file of a large project checked at once on two CPUs
// (x/tools' 575 with gopls, about 100 s) is what the baseline asks. The
// impact may bring up to 1,000 files: a change to sqlalchemy's util
// reaches 201, past the default 200, where the impact says it is
// incomplete (and the run would fail) rather than measure anything.
func newChecker(root string, p project) (*checker, error) {
	cfg, err := config.Parse([]byte(`{"lsp":{"autoInstall":false,"diagnosticTimeout":60000,"firstTouchTimeout":600000,"impactMaxFiles":1000}}`), "accuracy")
	if err != nil {
		return nil, err
	}
	o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg, Logger: logger})
	if err != nil {
		return nil, err
	}
	c := &checker{o: o, p: p}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && slices.Contains(p.exts, filepath.Ext(path)) {
			rel, _ := filepath.Rel(root, path)
			c.files = append(c.files, filepath.ToSlash(rel))
		}
		return err
	})
	sort.Strings(c.files)
	return c, err
}

// check checks first (when not empty), then every file at once, and
// returns lspkit's findings: the severities the oracle counts, and the
// errors apart.
func (c *checker) check(first string) (all, errors map[finding]bool, err error) {
	all, errors = map[finding]bool{}, map[finding]bool{}
	var mu sync.Mutex
	one := func(file string) error {
		start := time.Now()
		res, err := c.o.Check(context.Background(), api.CheckParams{FilePath: file, Severities: c.p.severities})
		if err != nil {
			return err
		}
		if !res.Checked {
			return fmt.Errorf("%s not checked: %s", file, res.Reason)
		}
		c.mu.Lock()
		c.times = append(c.times, time.Since(start))
		c.mu.Unlock()
		mu.Lock()
		defer mu.Unlock()
		for _, d := range res.Diagnostics {
			f := finding{d.File, d.Line}
			all[f] = true
			if d.Severity == "error" {
				errors[f] = true
			}
		}
		return nil
	}
	if first != "" && impactOnly {
		// The broken file alone: the other files' findings are those
		// its impact names.
		start := time.Now()
		res, err := c.o.Check(context.Background(), api.CheckParams{FilePath: first, Severities: c.p.severities, Impact: true})
		if err != nil {
			return nil, nil, err
		}
		if !res.Checked || !res.Impact.Complete {
			return nil, nil, fmt.Errorf("%s: checked %v (%s), impact complete %v (%s)", first, res.Checked, res.Reason, res.Impact.Complete, res.Impact.Reason)
		}
		c.times = append(c.times, time.Since(start))
		ds := res.Diagnostics
		for _, f := range res.Impact.Files {
			ds = append(ds, f.Diagnostics...)
		}
		for _, d := range ds {
			all[finding{d.File, d.Line}] = true
			if d.Severity == "error" {
				errors[finding{d.File, d.Line}] = true
			}
		}
		return all, errors, nil
	}
	if first != "" {
		if err := one(first); err != nil {
			return nil, nil, err
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(c.files))
	for i, f := range c.files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = one(f)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return all, errors, nil
}

// measure runs every break of p in one mode.
func measure(p project, warm, verbose bool) (*result, error) {
	src, err := p.source()
	if err != nil {
		return nil, err
	}
	r := &result{}
	root, err := copyProject(src)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	baseOracle, err := p.oracle(root)
	if err != nil {
		return nil, err
	}
	if impactOnly {
		// Once unbroken first, so that the compiler's caches (Go's build
		// cache) hold the project as it was: warm, as an agent's would.
		if err := compile(p.language, root, p.breaks[0].file); err != nil {
			return nil, err
		}
	}
	var warmChecker *checker
	var baseAll, baseErrors map[finding]bool
	if warm {
		if warmChecker, err = newChecker(root, p); err != nil {
			return nil, err
		}
		defer warmChecker.o.Shutdown(context.Background())
		if baseAll, baseErrors, err = warmChecker.check(""); err != nil {
			return nil, err
		}
		warmChecker.times = nil // the first touch is not what warm measures
	} else {
		c, err := newChecker(root, p)
		if err != nil {
			return nil, err
		}
		baseAll, baseErrors, err = c.check("")
		c.o.Kill()
		if err != nil {
			return nil, err
		}
	}
	for _, b := range p.breaks {
		path := filepath.Join(root, filepath.FromSlash(b.file))
		orig, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if strings.Count(string(orig), b.old) != 1 {
			return nil, fmt.Errorf("%s: %q occurs %d times in %s", b.kind, b.old, strings.Count(string(orig), b.old), b.file)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(orig), b.old, b.new, 1)), 0o644); err != nil {
			return nil, err
		}
		// Timed first, so that nothing the oracle caches helps it.
		if impactOnly {
			start := time.Now()
			if err := compile(p.language, root, b.file); err != nil {
				return nil, err
			}
			r.compileTimes = append(r.compileTimes, time.Since(start))
		}
		found, err := p.oracle(root)
		if err != nil {
			return nil, err
		}
		want := newFindings(found, baseOracle)
		if len(want) == 0 {
			return nil, fmt.Errorf("%s in %s: the oracle finds nothing", b.kind, b.file)
		}
		c := warmChecker
		if !warm {
			if c, err = newChecker(root, p); err != nil {
				return nil, err
			}
		}
		all, errs, err := c.check(b.file)
		if err != nil {
			return nil, err
		}
		got := newSet(all, baseAll)
		var missed []finding
		for _, f := range want {
			if got[f] {
				r.found++
			} else {
				missed = append(missed, f)
			}
		}
		r.oracle += len(want)
		oracleFiles := map[string]bool{b.file: true}
		for _, f := range found {
			oracleFiles[f.file] = true
		}
		var falseErrs []finding
		for f := range newSet(errs, baseErrors) {
			if !oracleFiles[f.file] {
				falseErrs = append(falseErrs, f)
			}
		}
		r.falseErrors += len(falseErrs)
		if verbose || len(missed) > 0 || len(falseErrs) > 0 {
			fmt.Fprintf(os.Stderr, "%s %s %s (%s): oracle %v; missed %v; false errors %v\n", p.name, mode(warm), b.kind, b.file, want, missed, falseErrs)
		}
		// Undo the break: every finding it caused must go.
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			return nil, err
		}
		if warm {
			after, _, err := c.check(b.file)
			if err != nil {
				return nil, err
			}
			if stale := newSet(after, baseAll); len(stale) > 0 {
				r.stale += len(stale)
				fmt.Fprintf(os.Stderr, "%s %s %s: stale after undo: %v\n", p.name, mode(warm), b.kind, slices.Collect(maps.Keys(stale)))
			}
		} else {
			r.times = append(r.times, c.times...)
			c.o.Kill()
		}
	}
	if warm {
		r.times = warmChecker.times
	}
	return r, nil
}

func mode(warm bool) string {
	if warm {
		return "warm"
	}
	return "cold"
}

// newFindings is found less base, deduplicated.
func newFindings(found, base []finding) []finding {
	seen := map[finding]bool{}
	for _, f := range base {
		seen[f] = true
	}
	var out []finding
	for _, f := range found {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// newSet is got less base.
func newSet(got, base map[finding]bool) map[finding]bool {
	out := map[finding]bool{}
	for f := range got {
		if !base[f] {
			out[f] = true
		}
	}
	return out
}

// source is the directory p's files are copied from.
func (p project) source() (string, error) {
	if p.fetch != nil {
		return p.fetch.dir()
	}
	return filepath.Abs(filepath.Join("testdata", p.dir))
}

// copyProject copies a project into a new temporary directory.
func copyProject(src string) (string, error) {
	dst, err := os.MkdirTemp("", "lspkit-accuracy-")
	if err != nil {
		return "", err
	}
	if dst, err = filepath.EvalSymlinks(dst); err != nil {
		return "", err
	}
	return dst, os.CopyFS(dst, os.DirFS(src))
}
