package orchestrator

import (
	"context"
	"fmt"
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

// impactBatchFrom is how many dependents built here it takes for an
// impact on a server that settles many files by one signal (gopls) to
// open them together and run it once, rather than once for each,
// impactParallel at a time. Each run diagnoses gopls's whole workspace:
// for gopacket's 154–171 dependents one run took a checked edit asked a
// second time from 2.3–3.1 s to 1.2–1.4 s; for cobra's 31–34, whose runs
// are cheap and overlap the one Go file only Windows builds
// (command_win.go, for which gopls loads the workspace for Windows), which
// is checked alone after a batch, an end-of-burst impact took 1.2–2.3 s
// batched against 0.4–0.8 s.
const impactBatchFrom = 64

// impactPart is one server's share of an impact.
type impactPart struct {
	diags      []api.Diagnostic
	checked    int
	files      []string // the dependents checked, relative to the root
	incomplete []string // why not every dependent was checked
}

// checkFile is one file of a check: its path and the text to check.
type checkFile struct {
	abs string
	src source
}

// impact finds the files that depend on files on s's server c, and checks
// at most limit of them within ctx — of them only those only names, when
// it is not nil (relative to the root).
func (s *session) impact(ctx context.Context, c *client.Client, files []checkFile, limit int, only []string) impactPart {
	var part impactPart
	deps, how, err := s.dependents(ctx, c, files)
	if err != nil {
		part.incomplete = append(part.incomplete, fmt.Sprintf("%s: %v", s.spec.ID, err))
		return part
	}
	if only != nil {
		deps = slices.DeleteFunc(deps, func(d string) bool { return !slices.Contains(only, s.o.rel(d)) })
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
			part.incomplete = append(part.incomplete, fmt.Sprintf("%s: no compile command to give the what-if's headers to %s, so %s not checked", s.spec.ID, listSome(names, 5), api.Plural(len(names), "it was", "they were")))
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
	total := len(deps)
	var here, elsewhere []string
	if len(deps) >= impactBatchFrom && c.CanDiagnoseMany() {
		here, elsewhere = splitFunc(deps, impact.BuiltHere)
	}
	if len(here) >= impactBatchFrom {
		// The dependents are opened together and settled by one run of
		// the signal, in batches of as many as the server may have open
		// beside the documents it holds. A Go file only another system
		// builds is checked alone afterwards, as on other servers: while
		// it is open gopls builds the whole workspace in a view for that
		// system too (gopacket's pcap/defs_windows_386.go), whose
		// findings for the batch's files a check of some of them (the
		// before of "new") would not have.
		deps = elsewhere
		s.mu.Lock()
		room := s.o.maxOpenDocuments() - len(s.changes)
		s.mu.Unlock()
		for batch := range slices.Chunk(here, max(room, s.o.maxOpenDocuments()/4, 1)) {
			for _, r := range s.checkDependents(ctx, c, batch) {
				part.diags = append(part.diags, r.diags...)
				if r.err == nil {
					part.checked++
					part.files = append(part.files, s.o.rel(r.path))
				} else {
					missed.add(s.o.rel(r.path), r.err)
				}
			}
		}
	}
	p := pool.New().WithMaxGoroutines(impactParallel)
	for _, path := range deps {
		p.Go(func() {
			diags, err := s.checkDependent(ctx, c, path)
			mu.Lock()
			defer mu.Unlock()
			part.diags = append(part.diags, diags...)
			if err == nil {
				part.checked++
				part.files = append(part.files, s.o.rel(path))
			} else {
				missed.add(s.o.rel(path), err)
			}
		})
	}
	p.Wait()
	part.incomplete = append(part.incomplete, missed.reasons(s.spec.ID, total, time.Since(start).Milliseconds(), "files that depend on the change")...)
	return part
}

// splitFunc splits paths into those f holds for and the others, each in
// the order given.
func splitFunc(paths []string, f func(string) bool) (yes, no []string) {
	for _, p := range paths {
		if f(p) {
			yes = append(yes, p)
		} else {
			no = append(no, p)
		}
	}
	return yes, no
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
// s's server knows them (see impact.Scanner.DependentsOf), and how they
// were found.
func (s *session) dependents(ctx context.Context, c *client.Client, files []checkFile) ([]string, string, error) {
	q := impact.Query{Spec: s.spec, Server: c, RootOf: s.rootOf, Skip: s.o.Skipped, Rel: s.o.rel,
		Keep: func(p string) bool {
			_, excluded := s.o.excluded(p)
			return within(s.o.root, p) && !excluded
		}}
	for _, f := range files {
		q.Changes = append(q.Changes, impact.Change{Path: f.abs, Text: f.src.text})
	}
	return s.o.scanner.DependentsOf(ctx, q)
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
		if s.o.restoreRead != nil {
			s.o.restoreRead(f.abs)
		}
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
		out.CheckedFiles = append(out.CheckedFiles, p.files...)
		why = append(why, p.incomplete...)
	}
	if !any {
		return nil
	}
	for _, d := range o.Merge(diags, severities) {
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
