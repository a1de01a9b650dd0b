// Package impact finds the files a change to other files may break: as
// the server knows them (gopls's references to a package clause,
// tsserver's importers of a file), or, where the server cannot say, by
// the named last resort of reading source — the Python modules that
// import a changed module, the C and C++ files that include a changed
// header (see docs/impact.md). The core checks what it finds.
//
// A Scanner reads the files it is given and keeps what it found by file,
// modification time and size, so a scan of an unchanged tree reads
// nothing again.
package impact

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// A Kind names a way of finding dependents by reading source.
type Kind string

// The kinds a Scanner knows.
const (
	PythonImports Kind = "pythonImports" // import and from … import statements
	Includes      Kind = "includes"      // #include directives
)

// Known reports whether k is a kind a Scanner knows.
func Known(k Kind) bool { return k == PythonImports || k == Includes }

// Scanner finds dependents by reading source files. Its zero value is
// ready; it is safe for concurrent use.
type Scanner struct {
	mu    sync.Mutex
	cache map[string]entry
}

// entry is what one file was found to depend on, at a modification time
// and size.
type entry struct {
	mod  time.Time
	size int64
	deps []dep
}

// dep is one dependency a file names: for Python a module (absolute, its
// relative dots resolved) and the names imported from it; for C an
// include path as written.
type dep struct {
	target string
	names  []string
}

// maxScanBytes bounds what is read of one file.
const maxScanBytes = 4 << 20

// Dependents returns, of files, those that depend on any of changed by
// k's rule, directly or through a file that only passes the dependency on
// (a Python package's __init__.py, a header that includes the changed
// header), in ascending order, changed ones left out. root is the
// workspace root (Python modules are also named from it). Paths are
// absolute.
func (s *Scanner) Dependents(k Kind, root string, files, changed []string) []string {
	known := map[string]bool{}
	for _, f := range files {
		known[f] = true
	}
	isChanged := map[string]bool{}
	for _, c := range changed {
		isChanged[c] = true
	}
	found := map[string]bool{}
	frontier := slices.Clone(changed)
	for len(frontier) > 0 {
		var next []string
		match := s.matcher(k, root, frontier)
		for _, f := range files {
			if found[f] || isChanged[f] {
				continue
			}
			if slices.ContainsFunc(s.deps(k, root, f), func(d dep) bool { return match(f, d) }) {
				found[f] = true
				if passesOn(k, f) {
					next = append(next, f)
				}
			}
		}
		frontier = next
	}
	out := make([]string, 0, len(found))
	for f := range found {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// passesOn reports whether a dependent file passes its dependency on to
// its own dependents: a package's __init__.py (what it imports is
// re-exported), a header (what includes it includes the changed one).
func passesOn(k Kind, f string) bool {
	if k == PythonImports {
		return strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)) == "__init__"
	}
	return !IsCSource(f)
}

// IsCSource reports whether f is a C-family translation unit rather than
// a header.
func IsCSource(f string) bool {
	switch strings.ToLower(filepath.Ext(f)) {
	case ".c", ".cc", ".cpp", ".cxx", ".c++", ".m", ".mm":
		return true
	}
	return false
}

// matcher returns whether a file's dependency names one of targets.
func (s *Scanner) matcher(k Kind, root string, targets []string) func(file string, d dep) bool {
	if k == PythonImports {
		names := map[string]bool{}
		for _, t := range targets {
			for _, n := range moduleNames(root, t) {
				names[n] = true
			}
		}
		return func(_ string, d dep) bool {
			if names[d.target] {
				return true
			}
			for _, n := range d.names {
				if n == "*" {
					continue
				}
				if names[d.target+"."+n] {
					return true
				}
			}
			return false
		}
	}
	return func(file string, d dep) bool {
		inc := filepath.FromSlash(d.target)
		for _, t := range targets {
			if filepath.Clean(filepath.Join(filepath.Dir(file), inc)) == t {
				return true
			}
			// Found through an include directory: the written path is
			// the end of the header's.
			if strings.HasSuffix(t, string(filepath.Separator)+filepath.Clean(inc)) {
				return true
			}
		}
		return false
	}
}

// deps returns what f depends on, from the cache while f is unchanged.
func (s *Scanner) deps(k Kind, root, f string) []dep {
	info, err := os.Stat(f)
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	s.mu.Lock()
	e, ok := s.cache[f]
	s.mu.Unlock()
	if ok && e.mod.Equal(info.ModTime()) && e.size == info.Size() {
		return e.deps
	}
	data, err := readPrefix(f)
	if err != nil {
		return nil
	}
	var deps []dep
	if k == PythonImports {
		deps = pythonDeps(root, f, string(data))
	} else {
		deps = includeDeps(string(data))
	}
	s.mu.Lock()
	if s.cache == nil {
		s.cache = map[string]entry{}
	}
	s.cache[f] = entry{info.ModTime(), info.Size(), deps}
	s.mu.Unlock()
	return deps
}

// readPrefix reads at most maxScanBytes of f.
func readPrefix(f string) ([]byte, error) {
	file, err := os.Open(f)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	buf := make([]byte, maxScanBytes)
	n, err := file.Read(buf)
	if err != nil && n == 0 {
		return nil, err
	}
	return buf[:n], nil
}

// SkippedDir reports whether a directory is never walked for source:
// hidden ones, dependencies installed into the tree and build caches.
func SkippedDir(name string) bool {
	switch name {
	case "node_modules", "__pycache__", "site-packages", "venv", "bower_components":
		return true
	}
	return strings.HasPrefix(name, ".") && name != "."
}

// Walk calls visit with each regular file under root, in lexical order,
// leaving out SkippedDir directories and those skip rejects, until visit
// returns false or max entries were looked at; it reports whether it
// reached the end.
func Walk(root string, max int, skip func(path string, dir bool) bool, visit func(path string) bool) bool {
	seen, complete := 0, true
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if seen++; seen > max {
			complete = false
			return filepath.SkipAll
		}
		switch {
		case err != nil:
			return nil
		case d.IsDir() && path != root && SkippedDir(d.Name()):
			return filepath.SkipDir
		case skip != nil && path != root && skip(path, d.IsDir()):
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && !visit(path) {
			complete = false
			return filepath.SkipAll
		}
		return nil
	})
	return complete
}
