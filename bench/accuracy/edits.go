package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/features"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/service/textedit"
)

// -edits measures lspkit's checked edits (lsp/applyEdits, "noNewErrors")
// on real projects that carry errors of their own before any edit: each
// harmless edit must be written, each breaking edit refused with exactly
// the errors it brings — the compiler's errors after it less those before
// it, by file and line (lines the edit moved allowed for) — and never for
// an error that was there already. Each edit is timed beside the
// compiler's own check of the same change.

// An edit is one checked edit of a project: in file, old (which must
// occur exactly once) becomes new. A breaking edit brings errors the
// compiler reports; a harmless one brings none.
type edit struct {
	breaking             bool
	what, file, old, new string
}

// imperfect is a real project with errors of its own, and its edits.
type imperfect struct {
	name, language string
	dir            string   // under testdata
	fetch          *fetched // or from a registry
	// errors is the compiler's errors over the project (file and line;
	// every package and its tests, every translation unit).
	errors func(dir string) ([]finding, error)
	edits  []edit
	// note says what the project's own errors are.
	note string
}

// editResult is one project's numbers.
type editResult struct {
	oldErrors                  int // the compiler's, before any edit
	harmless, applied          int
	breaking, refused          int
	oracle, found, extra       int // breaking edits' new errors: the compiler's, lspkit's of them, lspkit's others
	refusedForOld              int // refusals naming an error the compiler had before the edit
	lspkitTimes, compilerTimes []time.Duration
	dependentFiles             int // the most files one edit's impact checked
}

// measureEdits runs p's edits runs times on one warm daemon.
func measureEdits(p imperfect, runs int, verbose bool) (*editResult, error) {
	src, err := project{dir: p.dir, fetch: p.fetch}.source()
	if err != nil {
		return nil, err
	}
	root, err := copyProject(src)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	base, err := p.errors(root)
	if err != nil {
		return nil, err
	}
	r := &editResult{oldErrors: len(dedupe(base))}
	// The compiler once on the project as it is, so that its caches hold
	// it (Go's build cache), as an agent's would.
	if err := compile(p.language, root, p.edits[0].file); err != nil {
		return nil, err
	}
	doc := `{"lsp":{"autoInstall":false,"firstTouchTimeout":600000,"diagnosticTimeout":120000,"impactMaxFiles":1000}}`
	if extra := os.Getenv("ACCURACY_CONFIG"); extra != "" {
		doc = extra // an experiment's configuration
	}
	cfg, err := config.Parse([]byte(doc), "accuracy")
	if err != nil {
		return nil, err
	}
	o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg, Logger: logger})
	if err != nil {
		return nil, err
	}
	defer o.Shutdown(context.Background())
	svc := features.NewService(o)
	ctx := context.Background()
	// Warm: each edited file checked with its impact once, so that the
	// servers have loaded the project.
	for _, file := range uniqueFiles(p.edits) {
		res, err := o.Check(ctx, api.CheckParams{FilePath: file, Impact: true, Severities: []string{"error"}})
		if err != nil {
			return nil, err
		}
		if !res.Checked {
			return nil, fmt.Errorf("warming %s: %s", file, res.Reason)
		}
	}
	for run := range runs {
		for _, e := range p.edits {
			if err := oneEdit(ctx, svc, p, root, base, e, r, run == 0, verbose); err != nil {
				return nil, fmt.Errorf("%s (%s): %w", e.what, e.file, err)
			}
		}
	}
	return r, nil
}

// oneEdit proposes e through lsp/applyEdits, then has the compiler check
// the edited project, and restores the file.
func oneEdit(ctx context.Context, svc *features.Service, p imperfect, root string, base []finding, e edit, r *editResult, count, verbose bool) error {
	path := filepath.Join(root, filepath.FromSlash(e.file))
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	orig := string(data)
	if n := strings.Count(orig, e.old); n != 1 {
		return fmt.Errorf("%q occurs %d times", e.old, n)
	}
	text := strings.Replace(orig, e.old, e.new, 1)
	start := time.Now()
	res, err := svc.ApplyEdits(ctx, api.ApplyEditsParams{Edits: []api.FileEdit{{File: e.file, Text: &text}}})
	took := time.Since(start)
	if err != nil {
		return err
	}
	if !res.Applied {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	start = time.Now()
	if err := compile(p.language, root, e.file); err != nil {
		return err
	}
	compiled := time.Since(start)
	after, err := p.errors(root)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	// The compiler's new errors: the edited file's old ones at the lines
	// the edit moved them to.
	moved := textedit.LineMap(orig, text)
	old := map[finding]bool{}
	for _, f := range base {
		if f.file == e.file && f.line >= 1 && f.line <= len(moved) {
			f.line = moved[f.line-1]
		}
		old[f] = true
	}
	want := map[finding]bool{}
	for _, f := range after {
		if !old[f] {
			want[f] = true
		}
	}
	got := map[finding]bool{}
	for _, d := range res.Introduced {
		got[finding{d.File, d.Line}] = true
	}
	var missed, extra, oldOnes []finding
	for f := range want {
		if !got[f] {
			missed = append(missed, f)
		}
	}
	for f := range got {
		switch {
		case old[f]:
			oldOnes = append(oldOnes, f)
		case !want[f]:
			extra = append(extra, f)
		}
	}
	r.lspkitTimes = append(r.lspkitTimes, took)
	r.compilerTimes = append(r.compilerTimes, compiled)
	if res.Impact != nil {
		r.dependentFiles = max(r.dependentFiles, res.Impact.Checked)
	}
	wrong := ""
	switch {
	case !e.breaking && len(want) > 0:
		return fmt.Errorf("meant to be harmless, the compiler finds %v", sortedFindings(want))
	case e.breaking && len(want) == 0:
		return fmt.Errorf("meant to break, the compiler finds nothing new")
	case !e.breaking && !res.Applied:
		wrong = "refused: " + res.Reason
	case e.breaking && res.Applied:
		wrong = "written"
	}
	if count {
		if e.breaking {
			r.breaking++
			if !res.Applied {
				r.refused++
			}
			r.oracle += len(want)
			r.found += len(want) - len(missed)
		} else {
			r.harmless++
			if res.Applied {
				r.applied++
			}
		}
		r.extra += len(extra)
		if len(oldOnes) > 0 {
			r.refusedForOld++
		}
	}
	if verbose || wrong != "" || len(missed) > 0 || len(extra) > 0 || len(oldOnes) > 0 {
		fmt.Fprintf(os.Stderr, "%s %s (%s): applied %v in %d ms (compiler %d ms); new %v; missed %v; extra %v; old %v %s\n",
			p.name, e.what, e.file, res.Applied, took.Milliseconds(), compiled.Milliseconds(), sortedFindings(want), missed, extra, oldOnes, wrong)
		for _, d := range res.Introduced {
			if f := (finding{d.File, d.Line}); slices.Contains(extra, f) || slices.Contains(oldOnes, f) {
				fmt.Fprintf(os.Stderr, "  %s: %s [%s]\n", f, d.Message, d.Server)
			}
		}
		if res.Reason != "" && (verbose || wrong != "") {
			fmt.Fprintf(os.Stderr, "  reason: %s\n", res.Reason)
		}
	}
	return nil
}

func uniqueFiles(edits []edit) []string {
	var out []string
	for _, e := range edits {
		if !slices.Contains(out, e.file) {
			out = append(out, e.file)
		}
	}
	return out
}

func dedupe(fs []finding) map[finding]bool {
	out := map[finding]bool{}
	for _, f := range fs {
		out[f] = true
	}
	return out
}

func sortedFindings(set map[finding]bool) []finding {
	return slices.SortedFunc(maps.Keys(set), func(a, b finding) int {
		if a.file != b.file {
			return strings.Compare(a.file, b.file)
		}
		return a.line - b.line
	})
}

// editsTable runs every imperfect project's edits and prints their table;
// it reports whether every number held.
func editsTable(only string, runs int, verbose bool) bool {
	fmt.Println("| language | project | errors before any edit | harmless edits written | breaking edits refused | their new errors (compiler) | named | recall | other errors named | refusals for old errors | median checked edit (ms) | median compiler check (ms) | ratio |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	ok := true
	for _, p := range imperfects {
		if only != "" && p.name != only {
			continue
		}
		r, err := measureEdits(p, runs, verbose)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", p.name, err)
			ok = false
			continue
		}
		recall := 100.0
		if r.oracle > 0 {
			recall = 100 * float64(r.found) / float64(r.oracle)
		}
		l, c := median(r.lspkitTimes), median(r.compilerTimes)
		fmt.Printf("| %s | %s | %d | %d/%d | %d/%d | %d | %d | %.0f%% | %d | %d | %d | %d | %.2f× |\n", p.language, p.name, r.oldErrors,
			r.applied, r.harmless, r.refused, r.breaking, r.oracle, r.found, recall, r.extra, r.refusedForOld, l, c, float64(l)/float64(max(c, 1)))
		ok = ok && r.applied == r.harmless && r.refused == r.breaking && recall >= 95 && r.extra == 0 && r.refusedForOld == 0
	}
	return ok
}
