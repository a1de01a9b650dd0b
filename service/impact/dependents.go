package impact

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

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/registry"
)

// MaxWalkEntries bounds the entries looked at to find a tree's files.
const MaxWalkEntries = 200000

// Server is what finding dependents asks of a running server's client
// (client.Client has both): gopls's references to a package clause, and
// tsserver's importers of a file.
type Server interface {
	PackageDependents(ctx context.Context, uri protocol.DocumentURI, text string) ([]string, error)
	FileDependents(ctx context.Context, path string) ([]string, error)
}

// A Change is one changed file: its absolute path and its text as the
// server has it.
type Change struct {
	Path, Text string
}

// A Query asks for the files that depend on Changes, as Spec's server
// (Server) knows them.
type Query struct {
	Spec    *registry.Spec
	Server  Server
	Changes []Change
	// RootOf is the root (workspace folder) the server serves path in.
	RootOf func(path string) string
	// Skip says what the configuration excludes, for walks (see Walk).
	Skip func(path string, dir bool) bool
	// Keep says whether a dependent found is one to check: inside the
	// workspace root, not excluded.
	Keep func(path string) bool
	// Rel names a path in errors.
	Rel func(path string) string
}

// DependentsOf returns the files that depend on q's changes as its
// server knows them (Spec.Impact: the server's own answer, or, the named
// last resort, the scanner's reading of imports and includes), in
// ascending order, each one the server serves, that q.Keep keeps and that
// is a regular file, none of the changes; and how they were found.
func (s *Scanner) DependentsOf(ctx context.Context, q Query) (deps []string, how string, err error) {
	changed := map[string]bool{}
	var paths []string
	for _, c := range q.Changes {
		changed[c.Path] = true
		paths = append(paths, c.Path)
	}
	var found []string
	switch q.Spec.Impact {
	case registry.ImpactSelf:
		return nil, "", nil
	case registry.ImpactPackageReferences:
		how = "references to the package clause"
		for _, c := range q.Changes {
			uri, err := protocol.FileURI(c.Path)
			if err != nil {
				return nil, how, err
			}
			deps, err := q.Server.PackageDependents(ctx, uri, c.Text)
			if err != nil {
				return nil, how, fmt.Errorf("the files that depend on %s could not be found: %w", q.Rel(c.Path), err)
			}
			found = append(found, deps...)
			// The other files of its package: a Go package is a
			// directory (gopls answers with the importers' files).
			dir := filepath.Dir(c.Path)
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".go") {
					found = append(found, filepath.Join(dir, e.Name()))
				}
			}
		}
	case registry.ImpactFileReferences:
		how = "tsserver's fileReferences"
		if found, err = importers(ctx, q.Server, paths); err != nil {
			return nil, how, err
		}
	case registry.ImpactPythonImports, registry.ImpactIncludes:
		how = "lspkit's reading of " + map[string]string{registry.ImpactPythonImports: "import statements", registry.ImpactIncludes: "#include directives"}[q.Spec.Impact]
		// Each root of the server's that holds a changed file (one
		// process may serve several as workspace folders).
		roots := map[string][]string{}
		for _, p := range paths {
			r := q.RootOf(p)
			roots[r] = append(roots[r], p)
		}
		for _, root := range slices.Sorted(maps.Keys(roots)) {
			var all []string
			complete := Walk(root, MaxWalkEntries, q.Skip, func(path string) bool {
				if q.Spec.Serves(path) {
					all = append(all, path)
				}
				return true
			})
			if !complete {
				return nil, how, fmt.Errorf("the tree under %s has more than %d entries: its dependents were not looked for", q.Rel(root), MaxWalkEntries)
			}
			found = append(found, s.Dependents(Kind(q.Spec.Impact), root, all, roots[root])...)
		}
	default:
		return nil, "", errors.New("lspkit knows no way to find the files that depend on a file for this server, so files a change breaks elsewhere are not reported")
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range found {
		if seen[p] || changed[p] || !q.Spec.Serves(p) || !q.Keep(p) {
			continue
		}
		seen[p] = true
		if info, err := os.Stat(p); err != nil || !info.Mode().IsRegular() {
			continue
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out, how, nil
}

// reExport finds an export … from '…' statement: a file that has one passes
// what it imports on to its own importers.
var reExport = regexp.MustCompile(`(?m)^\s*export\s+(?:\*|type\s+\{|\{)[^;]*?\bfrom\s+['"]`)

// importers asks the server (tsserver) for the importers of paths, and of
// the importers that re-export (a barrel index.ts), until no new file
// turns up.
func importers(ctx context.Context, server Server, paths []string) ([]string, error) {
	seen := map[string]bool{}
	for _, p := range paths {
		seen[p] = true
	}
	var out []string
	for frontier := paths; len(frontier) > 0; {
		var next []string
		for _, p := range frontier {
			deps, err := server.FileDependents(ctx, p)
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
