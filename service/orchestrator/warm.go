package orchestrator

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/impact"
	"github.com/lspkit/lspkit/service/registry"
)

// Warming: a workspace-wide question (workspace symbols, a symbol looked
// up by name) first starts the servers whose project files are at the
// root, so that their answers cover the project.

// maxWarmScan bounds the entries looked at to find a file for each server
// to start for a workspace-wide question.
const maxWarmScan = 20000

// warmWorkspace starts, for a workspace-wide question, each enabled server
// with a root marker at the workspace root and no session there yet, by
// opening one of its files (the first found, breadth of the tree bounded),
// and waits until each has analysed it and is idle, within the first-touch
// timeout.
func (o *Orchestrator) warmWorkspace(ctx context.Context) string {
	running := map[string]bool{}
	for _, s := range o.liveSessions() {
		running[s.spec.ID] = true
	}
	found := o.rootServers(func(id string) bool { return !running[id] })
	want := o.specs
	ids := slices.Sorted(maps.Keys(found))
	notes := make([]string, len(ids))
	var wg conc.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			notes[i] = o.warm(ctx, target{spec: want[id], root: o.root}, found[id])
		})
	}
	if panicked := wg.WaitAndRecover(); panicked != nil {
		o.log.Error("warm the workspace: panic", "panic", panicked.String())
	}
	note := ""
	for _, n := range notes {
		note = api.JoinNotes(note, n)
	}
	return note
}

// rootServers returns, for each enabled server with a root marker at the
// workspace root that consider accepts, one of its files whose server root
// is the workspace root (the first found, breadth of the tree bounded):
// the servers the workspace is a project of.
func (o *Orchestrator) rootServers(consider func(id string) bool) map[string]string {
	want := map[string]*registry.Spec{}
	for id, spec := range o.specs {
		if !spec.Enabled || len(spec.RootMarkers) == 0 || !consider(id) {
			continue
		}
		for _, m := range spec.RootMarkers {
			if _, err := os.Stat(filepath.Join(o.root, m)); err == nil {
				want[id] = spec
				break
			}
		}
	}
	found := map[string]string{}
	if len(want) == 0 {
		return found
	}
	impact.Walk(o.root, maxWarmScan, o.Skipped, func(path string) bool {
		for id, spec := range want {
			if found[id] == "" && spec.Serves(path) {
				if root, _ := o.serverRoot(spec, path); root == o.root {
					found[id] = path
				}
			}
		}
		return len(found) < len(want)
	})
	return found
}

// warm starts t's server, opens path in it, waits for its findings on it
// and for the end of its project load, within the first-touch timeout.
// It returns "" or a note saying why the server's symbols are missing.
func (o *Orchestrator) warm(ctx context.Context, t target, path string) string {
	s, err := o.session(t)
	if err != nil {
		return fmt.Sprintf("%s was not started (%v); its symbols are missing", t.spec.ID, err)
	}
	lctx, cancel := context.WithTimeout(ctx, o.cfg.FirstTouchTimeout)
	defer cancel()
	c, verdict, why := s.await(lctx)
	switch {
	case c == nil && verdict == api.VerdictTimedOut:
		return fmt.Sprintf("%s is still starting; its symbols are missing: retry in a moment", t.spec.ID)
	case c == nil:
		return fmt.Sprintf("%s is %s (%s); its symbols are missing", t.spec.ID, verdict, why)
	}
	src, err := readSource(path, o.maxFileBytes())
	if err == nil {
		if _, err := s.diagnose(lctx, c, path, t.spec.LanguageID(path), src); err != nil {
			o.log.Debug("warm: open a file", "server", t.spec.ID, "file", o.rel(path), "err", err)
		}
	}
	c.WaitIdle(lctx)
	return ""
}
