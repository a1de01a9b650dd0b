package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/impact"
	"github.com/lspkit/lspkit/service/registry"
)

// This file finds and checks the files a change may break (a check's
// impact): the dependents of the changed files as each server knows them
// (registry.Spec.Impact), each brought to the server as it is on disk,
// waited on until settled and closed again if it was not open before.

// impactWant says whether a check finds its impact.
type impactWant int

const (
	impactNone      impactWant = iota
	impactAlways               // asked for (lsp/check impact, a what-if of files)
	impactIfChanged            // when the file changed since the server last had it (MCP's default)
)

// impactParallel bounds the dependents checked at once on one server.
const impactParallel = 8

// impactPart is one server's share of an impact.
type impactPart struct {
	diags      []api.Diagnostic
	checked    int
	incomplete []string // why not every dependent was checked
}

// checkFile is one file of a check: its path and the text to check.
type checkFile struct {
	abs string
	src source
}

// impact finds the files that depend on files on s's server c, and checks
// at most limit of them within ctx.
func (s *session) impact(ctx context.Context, c *client.Client, files []checkFile, limit int) impactPart {
	var part impactPart
	deps, how, err := s.dependents(ctx, c, files)
	if err != nil {
		part.incomplete = append(part.incomplete, fmt.Sprintf("%s: %v", s.spec.ID, err))
		return part
	}
	if headers := givenHeaders(s.spec, files); len(headers) > 0 && len(deps) > 0 {
		// clangd compiles a file's includes from disk (its option to read
		// open headers instead re-parses every open file on every
		// change): the includers get a compile command that reads the
		// what-if's headers through a virtual file system meanwhile.
		restore, without, err := s.overlayHeaders(ctx, c, headers, deps)
		if err != nil {
			part.incomplete = append(part.incomplete, fmt.Sprintf("%s: the files that include the what-if's headers could not be given their texts, so they were not checked: %v", s.spec.ID, err))
			return part
		}
		defer restore()
		if len(without) > 0 {
			var names []string
			for _, w := range without {
				names = append(names, s.o.rel(w))
			}
			part.incomplete = append(part.incomplete, fmt.Sprintf("%s: no compile command to give the what-if's headers to %s, so %s not checked", s.spec.ID, listSome(names, 5), plural(len(names), "it was", "they were")))
			deps = slices.DeleteFunc(deps, func(d string) bool { return slices.Contains(without, d) })
		}
	}
	if len(deps) > limit {
		part.incomplete = append(part.incomplete, fmt.Sprintf("%s: %d files depend on the change (%s); the first %d were checked (impactMaxFiles)", s.spec.ID, len(deps), how, limit))
		deps = deps[:limit]
	}
	start := time.Now()
	var mu sync.Mutex
	var missed lateOrFailed
	p := pool.New().WithMaxGoroutines(impactParallel)
	for _, path := range deps {
		p.Go(func() {
			diags, err := s.checkDependent(ctx, c, path)
			mu.Lock()
			defer mu.Unlock()
			part.diags = append(part.diags, diags...)
			if err == nil {
				part.checked++
			} else {
				missed.add(s.o.rel(path), err)
			}
		})
	}
	p.Wait()
	part.incomplete = append(part.incomplete, missed.reasons(s.spec.ID, len(deps), time.Since(start).Milliseconds(), "files that depend on the change")...)
	return part
}

// givenHeaders are the files of a what-if (given text) that other files
// include, for a server whose dependents are its includers and which
// compiles them through a compilation database (clangd).
func givenHeaders(spec *registry.Spec, files []checkFile) []checkFile {
	if spec.Impact != registry.ImpactIncludes || !spec.CompileCommands {
		return nil
	}
	var out []checkFile
	for _, f := range files {
		if !f.src.disk && !impact.IsCSource(f.abs) {
			out = append(out, f)
		}
	}
	return out
}

// listSome lists the first n of names, and how many more there are.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// dependents returns the files under the root that depend on files, as
// s's server knows them (or, the named last resort, as lspkit reads them),
// in ascending order, each one s's server serves, none of files, and how
// they were found.
func (s *session) dependents(ctx context.Context, c *client.Client, files []checkFile) ([]string, string, error) {
	changed := map[string]bool{}
	var paths []string
	for _, f := range files {
		changed[f.abs] = true
		paths = append(paths, f.abs)
	}
	var found []string
	var how string
	switch s.spec.Impact {
	case registry.ImpactSelf:
		return nil, "", nil
	case registry.ImpactPackageReferences:
		how = "references to the package clause"
		for _, f := range files {
			uri, err := protocol.FileURI(f.abs)
			if err != nil {
				return nil, how, err
			}
			deps, err := c.PackageDependents(ctx, uri, f.src.text)
			if err != nil {
				return nil, how, fmt.Errorf("the files that depend on %s could not be found: %w", s.o.rel(f.abs), err)
			}
			found = append(found, deps...)
			// The other files of its package: a Go package is a
			// directory (gopls answers with the importers' files).
			dir := filepath.Dir(f.abs)
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".go") {
					found = append(found, filepath.Join(dir, e.Name()))
				}
			}
		}
	case registry.ImpactFileReferences:
		how = "tsserver's fileReferences"
		var err error
		if found, err = s.fileDependents(ctx, c, paths); err != nil {
			return nil, how, err
		}
	case registry.ImpactPythonImports, registry.ImpactIncludes:
		how = "lspkit's reading of " + map[string]string{registry.ImpactPythonImports: "import statements", registry.ImpactIncludes: "#include directives"}[s.spec.Impact]
		// Each root of the server's that holds a changed file (one
		// process may serve several as workspace folders).
		roots := map[string][]string{}
		for _, p := range paths {
			r := s.rootOf(p)
			roots[r] = append(roots[r], p)
		}
		for _, root := range slices.Sorted(maps.Keys(roots)) {
			var all []string
			complete := impact.Walk(root, maxWalkEntries, s.o.skipped, func(path string) bool {
				if s.spec.Serves(path) {
					all = append(all, path)
				}
				return true
			})
			if !complete {
				return nil, how, fmt.Errorf("the tree under %s has more than %d entries: its dependents were not looked for", s.o.rel(root), maxWalkEntries)
			}
			found = append(found, s.o.scanner.Dependents(impact.Kind(s.spec.Impact), root, all, roots[root])...)
		}
	default:
		return nil, "", errors.New("lspkit knows no way to find the files that depend on a file for this server, so files a change breaks elsewhere are not reported")
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range found {
		if seen[p] || changed[p] || !within(s.o.root, p) || !s.spec.Serves(p) {
			continue
		}
		seen[p] = true
		if _, excluded := s.o.excluded(p); excluded {
			continue
		}
		if info, err := os.Stat(p); err != nil || !info.Mode().IsRegular() {
			continue
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out, how, nil
}

// maxWalkEntries bounds the entries looked at to find a tree's files.
const maxWalkEntries = 200000

// skipped reports whether the configuration excludes path.
func (o *Orchestrator) skipped(path string, _ bool) bool {
	_, excluded := o.excluded(path)
	return excluded
}

// reExport finds an export … from '…' statement: a file that has one passes
// what it imports on to its own importers.
var reExport = regexp.MustCompile(`(?m)^\s*export\s+(?:\*|type\s+\{|\{)[^;]*?\bfrom\s+['"]`)

// fileDependents asks tsserver for the importers of paths, and of the
// importers that re-export (a barrel index.ts), until no new file turns
// up.
func (s *session) fileDependents(ctx context.Context, c *client.Client, paths []string) ([]string, error) {
	seen := map[string]bool{}
	for _, p := range paths {
		seen[p] = true
	}
	var out []string
	for frontier := paths; len(frontier) > 0; {
		var next []string
		for _, p := range frontier {
			deps, err := c.FileDependents(ctx, p)
			if err != nil {
				return nil, err
			}
			for _, d := range deps {
				if seen[d] {
					continue
				}
				seen[d] = true
				out = append(out, d)
				if data, err := os.ReadFile(d); err == nil && reExport.Match(data) {
					next = append(next, d)
				}
			}
		}
		frontier = next
	}
	return out, nil
}

// checkDependent brings path to c as it is on disk, waits for its
// findings within ctx and closes it again unless it was open before; it
// returns the findings, and why the server did not settle on them ("" when
// it did; errLate when it ran out of time).
func (s *session) checkDependent(ctx context.Context, c *client.Client, path string) ([]api.Diagnostic, error) {
	uri, err := protocol.FileURI(path)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	_, wasOpen := s.changes[uri]
	s.mu.Unlock()
	src, err := readSource(path, s.o.maxFileBytes())
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s %w", s.o.rel(path), err)
	case binary([]byte(src.text)):
		return nil, fmt.Errorf("%s is a binary file", s.o.rel(path))
	}
	a, err := s.diagnose(ctx, c, path, s.spec.LanguageID(path), src)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, client.ErrDocumentBusy) {
			return nil, errLate
		}
		return nil, fmt.Errorf("%s: %w", s.o.rel(path), err)
	}
	diags := s.o.convert(s.spec.ID, c, a.URI, a.Diagnostics, src.text)
	if !wasOpen {
		s.closeDocument(c, uri, path)
	}
	switch a.Settle {
	case client.Settled:
		return diags, nil
	case client.TimedOut:
		return diags, errLate
	case client.ServerGone:
		return diags, fmt.Errorf("%s: the server is gone: %s", s.o.rel(path), c.Status().Reason)
	}
	return diags, fmt.Errorf("%s: %s", s.o.rel(path), a.Reason)
}

// errLate says a file was not checked in the time there was.
var errLate = errors.New("not checked in time")

// lateOrFailed sorts the files a batch did not check into those out of
// time (late, by name) and the others (failed, by reason).
type lateOrFailed struct {
	late, failed []string
}

func (l *lateOrFailed) add(rel string, err error) {
	if errors.Is(err, errLate) {
		l.late = append(l.late, rel)
	} else {
		l.failed = append(l.failed, err.Error())
	}
}

// reasons says, in clauses, which files were not checked and why, of
// total, after ms milliseconds.
func (l *lateOrFailed) reasons(id string, total int, ms int64, what string) []string {
	var out []string
	if len(l.late) > 0 {
		slices.Sort(l.late)
		out = append(out, fmt.Sprintf("%s: %d of %d %s were not checked within %d ms: %s", id, len(l.late), total, what, ms, listSome(l.late, 5)))
	}
	if len(l.failed) > 0 {
		slices.Sort(l.failed)
		out = append(out, fmt.Sprintf("%s: %d of %d %s could not be checked: %s", id, len(l.failed), total, what, listSome(l.failed, 3)))
	}
	return out
}

// closeDocument closes a document lspkit opened for a moment (an impact's
// dependent), unless another request took it up meanwhile.
func (s *session) closeDocument(c *client.Client, uri protocol.DocumentURI, path string) {
	s.mu.Lock()
	delete(s.changes, uri)
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.o.life, 5*time.Second)
	defer cancel()
	if err := c.CloseDocument(ctx, path); err != nil && ctx.Err() == nil {
		s.o.log.Warn("close a file an impact Held", "server", s.spec.ID, "file", s.o.rel(path), "err", err)
	}
}

// restore gives c back the disk's text of files a what-if gave a text
// of, and waits for its findings on it: the file's own, or none for a
// file that does not exist.
func (s *session) restore(c *client.Client, files []checkFile) {
	ctx, cancel := context.WithTimeout(s.o.life, s.o.cfg.DiagnosticTimeout)
	defer cancel()
	for _, f := range files {
		if f.src.disk {
			continue
		}
		uri, err := protocol.FileURI(f.abs)
		if err != nil {
			continue
		}
		src, err := readSource(f.abs, s.o.maxFileBytes())
		if err != nil {
			s.mu.Lock()
			delete(s.changes, uri)
			s.mu.Unlock()
			if err := c.ForgetDocument(ctx, f.abs); err != nil && ctx.Err() == nil {
				s.o.log.Warn("close a what-if's new file", "server", s.spec.ID, "file", s.o.rel(f.abs), "err", err)
			}
			continue
		}
		if _, err := s.diagnose(ctx, c, f.abs, s.spec.LanguageID(f.abs), src); err != nil && ctx.Err() == nil {
			s.o.log.Warn("give a what-if's file its disk text back", "server", s.spec.ID, "file", s.o.rel(f.abs), "err", err)
		}
	}
}

// joinImpact merges the servers' parts of an impact, at the severities
// asked for.
func (o *Orchestrator) joinImpact(parts []*impactPart, severities []string) *api.Impact {
	var diags []api.Diagnostic
	var why []string
	out := &api.Impact{Files: []api.ImpactFile{}, Complete: true}
	any := false
	for _, p := range parts {
		if p == nil {
			continue
		}
		any = true
		diags = append(diags, p.diags...)
		out.Checked += p.checked
		why = append(why, p.incomplete...)
	}
	if !any {
		return nil
	}
	for _, d := range o.merge(diags, severities) {
		if n := len(out.Files); n > 0 && out.Files[n-1].File == d.File {
			out.Files[n-1].Diagnostics = append(out.Files[n-1].Diagnostics, d)
			continue
		}
		out.Files = append(out.Files, api.ImpactFile{File: d.File, Diagnostics: []api.Diagnostic{d}})
	}
	if len(why) > 0 {
		out.Complete, out.Reason = false, strings.Join(why, "; ")
	}
	return out
}
