package impact

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// moduleNames are the dotted names a Python file is imported by: through
// its chain of packages (directories with an __init__.py), and as its path
// from the root and from the root's src directory (namespace packages).
// A package's __init__.py is the package itself.
func moduleNames(root, file string) []string {
	stem := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	var parts []string
	if stem != "__init__" {
		parts = []string{stem}
	}
	dir := filepath.Dir(file)
	for within(root, dir) && dir != root {
		if _, err := os.Stat(filepath.Join(dir, "__init__.py")); err != nil {
			break
		}
		parts = append([]string{filepath.Base(dir)}, parts...)
		dir = filepath.Dir(dir)
	}
	names := []string{}
	if len(parts) > 0 {
		names = append(names, strings.Join(parts, "."))
	}
	for _, base := range []string{root, filepath.Join(root, "src")} {
		rel, err := filepath.Rel(base, file)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = strings.TrimSuffix(filepath.ToSlash(rel), filepath.Ext(rel))
		rel = strings.TrimSuffix(strings.TrimSuffix(rel, "__init__"), "/")
		if rel != "" {
			names = append(names, strings.ReplaceAll(rel, "/", "."))
		}
	}
	return names
}

// within reports whether path is root or under it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

var (
	pyImport = regexp.MustCompile(`^import\s+(.+)$`)
	pyFrom   = regexp.MustCompile(`^from\s+(\.*)([\w.]*)\s+import\s+(.+)$`)
)

// pythonDeps reads the import statements of a Python file at file: every
// module it imports (relative imports resolved against the file's own
// package) and the names it imports from each.
func pythonDeps(root, file, text string) []dep {
	var deps []dep
	for _, stmt := range logicalLines(text) {
		if m := pyImport.FindStringSubmatch(stmt); m != nil {
			for _, part := range strings.Split(m[1], ",") {
				mod, _, _ := strings.Cut(strings.TrimSpace(part), " ")
				if mod != "" {
					deps = append(deps, dep{target: mod})
				}
			}
			continue
		}
		m := pyFrom.FindStringSubmatch(stmt)
		if m == nil {
			continue
		}
		mod := m[2]
		if dots := len(m[1]); dots > 0 {
			mod = relativeModule(root, file, dots, m[2])
			if mod == "" {
				continue
			}
		}
		var names []string
		for _, part := range strings.Split(strings.Trim(strings.TrimSpace(m[3]), "()"), ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(part), " ")
			if name != "" {
				names = append(names, name)
			}
		}
		deps = append(deps, dep{target: mod, names: names})
	}
	return deps
}

// relativeModule resolves a relative import of dots dots and module rest
// in file to an absolute dotted name, as the file's package chain names
// it; "" when it reaches above the chain.
func relativeModule(root, file string, dots int, rest string) string {
	names := moduleNames(root, filepath.Join(filepath.Dir(file), "__init__.py"))
	if len(names) == 0 {
		return ""
	}
	pkg := strings.Split(names[0], ".")
	if dots-1 > len(pkg) {
		return ""
	}
	pkg = pkg[:len(pkg)-(dots-1)]
	if rest != "" {
		pkg = append(pkg, rest)
	}
	return strings.Join(pkg, ".")
}

// logicalLines splits Python source into its statements that begin a
// line, comments dropped, a parenthesised import and backslash
// continuations joined. Strings are not parsed: an import inside a
// docstring counts, which only adds a file to check.
func logicalLines(text string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	for line := range strings.Lines(text) {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		cont := strings.HasSuffix(line, "\\")
		line = strings.TrimSuffix(line, "\\")
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(line)
		depth += strings.Count(line, "(") - strings.Count(line, ")")
		if depth > 0 && cur.Len() < 1<<16 || cont {
			continue
		}
		depth = 0
		if s := cur.String(); strings.HasPrefix(s, "import") || strings.HasPrefix(s, "from") {
			out = append(out, strings.Join(strings.Fields(s), " "))
		}
		cur.Reset()
	}
	return out
}
