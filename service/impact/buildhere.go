package impact

import (
	"go/build"
	"path/filepath"
	"strings"
)

// BuiltHere reports whether the file at path is built on this system as
// the go command would build it (its name's _GOOS/_GOARCH suffix and its
// build constraints, for this GOOS and GOARCH). Files of other languages,
// and files that cannot be read, are built here. gopls checks a Go file
// built only elsewhere in a view of its own for a system that builds it,
// and while that file is open diagnoses the whole workspace there too.
func BuiltHere(path string) bool {
	if !strings.HasSuffix(path, ".go") {
		return true
	}
	ok, err := build.Default.MatchFile(filepath.Dir(path), filepath.Base(path))
	return ok || err != nil
}
