package filewatch

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/lspkit/lspkit/protocol"
)

// Pattern is one registered file-system watcher: a glob, the directory
// it is relative to, and the kinds of change it wants.
type Pattern struct {
	base string // absolute directory the glob is relative to; "" for absolute globs
	glob string // doublestar syntax, slash separated
	kind protocol.WatchKind
}

// Matches reports whether a change of kind to the file at path (absolute)
// is one the pattern wants.
func (p Pattern) Matches(path string, kind protocol.WatchKind) bool {
	if p.kind&kind == 0 {
		return false
	}
	name := filepath.ToSlash(path)
	if p.base != "" {
		rel, err := filepath.Rel(p.base, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return false
		}
		name = filepath.ToSlash(rel)
	}
	if foldNames {
		name = strings.ToLower(name) // the glob is lower case too (Patterns)
	}
	return doublestar.MatchUnvalidated(p.glob, name)
}

// foldNames says that file names compare without regard to case, as they
// do by default on Windows and macOS: a server's glob "c:/src/**" names
// C:\src's files.
var foldNames = runtime.GOOS == "windows" || runtime.GOOS == "darwin"

// Patterns reads the watchers of the server's
// workspace/didChangeWatchedFiles registrations. String globs are relative
// to root unless absolute; RelativePatterns are relative to their base.
// Watchers that cannot be understood are returned as errors and skipped.
func Patterns(root string, regs []protocol.Registration) ([]Pattern, []error) {
	var out []Pattern
	var errs []error
	for _, r := range regs {
		var opts protocol.DidChangeWatchedFilesRegistrationOptions
		if err := json.Unmarshal(r.RegisterOptions, &opts); err != nil {
			errs = append(errs, fmt.Errorf("registration %s: %w", r.ID, err))
			continue
		}
		for _, w := range opts.Watchers {
			p := Pattern{base: root, kind: protocol.WatchKindCreate | protocol.WatchKindChange | protocol.WatchKindDelete}
			if w.Kind != nil {
				p.kind = *w.Kind
			}
			if glob, ok := w.GlobPattern.AsPattern(); ok {
				p.glob = string(glob)
				if filepath.IsAbs(p.glob) {
					p.base = ""
				}
			} else if rel, ok := w.GlobPattern.AsRelativePattern(); ok {
				p.glob = string(rel.Pattern)
				uri := BaseURI(rel)
				base, err := uri.Path()
				if err != nil {
					errs = append(errs, fmt.Errorf("registration %s: base %q: %w", r.ID, uri, err))
					continue
				}
				p.base = base
			}
			if foldNames {
				p.glob = strings.ToLower(p.glob)
			}
			if p.glob == "" || !doublestar.ValidatePattern(p.glob) {
				errs = append(errs, fmt.Errorf("registration %s: bad glob pattern %q", r.ID, p.glob))
				continue
			}
			out = append(out, p)
		}
	}
	return out, errs
}

// KindOf is the watch kind a change is.
func KindOf(t protocol.FileChangeType) protocol.WatchKind {
	switch t {
	case protocol.FileChangeTypeChanged:
		return protocol.WatchKindChange
	case protocol.FileChangeTypeDeleted:
		return protocol.WatchKindDelete
	}
	return protocol.WatchKindCreate
}

// MatchesAny reports whether one of patterns wants a change of kind to
// the file at path.
func MatchesAny(patterns []Pattern, path string, kind protocol.WatchKind) bool {
	for _, p := range patterns {
		if p.Matches(path, kind) {
			return true
		}
	}
	return false
}

// watchScope is the part of the tree a pattern can match: directories
// under base, at most depth levels down (-1: any depth).
type watchScope struct {
	base  string
	depth int
}

// scopeOf is the part of the tree p can match: the glob's literal leading
// directories, and as deep below them as its remaining separators reach.
func scopeOf(p Pattern) watchScope {
	static, rest := doublestar.SplitPattern(p.glob)
	base := filepath.Join(p.base, filepath.FromSlash(static))
	if p.base == "" {
		base = filepath.FromSlash(static)
	}
	depth := strings.Count(rest, "/")
	if strings.Contains(rest, "**") || strings.Contains(rest, "{") && depth > 0 {
		depth = -1
	}
	return watchScope{base: base, depth: depth}
}

// BaseURI is the directory a relative pattern is relative to: its
// workspace folder's, or its URI.
func BaseURI(rel protocol.RelativePattern) protocol.URI {
	if f, ok := rel.BaseURI.AsWorkspaceFolder(); ok {
		return f.URI
	}
	uri, _ := rel.BaseURI.AsURI()
	return uri
}
