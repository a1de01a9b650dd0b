package protocol

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// DocumentURI is the LSP DocumentUri: a URI naming a text document, almost
// always a file: URI.
type DocumentURI string

// URI is the LSP URI base type: any URI that is not a document.
type URI string

// PathStyle is how a system writes file paths: the mapping between paths
// and file: URIs depends on it, not on the system the code runs on, so it
// can be tested everywhere.
type PathStyle int

// The path styles.
const (
	UnixPaths    PathStyle = iota // /home/a/x.go
	WindowsPaths                  // C:\a\x.go, \\server\share\x.go
)

// NativePaths is the style of the system lspkit runs on.
var NativePaths = nativePaths()

func nativePaths() PathStyle {
	if filepath.Separator == '\\' {
		return WindowsPaths
	}
	return UnixPaths
}

// FileURI returns the file: URI of path, which is made absolute and cleaned,
// in the canonical spelling (see DocumentURI.Canonical): characters outside
// the URI path grammar are percent-encoded; a drive letter is upper case.
func FileURI(path string) (DocumentURI, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("protocol: file URI for %q: %w", path, err)
	}
	return FileURIOf(abs, NativePaths)
}

// FileURIOf returns the file: URI of an absolute path written in style, as
// VS Code maps them: `C:\a b\x.go` is file:///C:/a%20b/x.go (drive letter
// upper case), the UNC path `\\server\share\x.go` is
// file://server/share/x.go, "/a b/x.go" is file:///a%20b/x.go.
func FileURIOf(path string, style PathStyle) (DocumentURI, error) {
	if style == WindowsPaths {
		slashed := strings.ReplaceAll(path, "\\", "/")
		if rest, ok := strings.CutPrefix(slashed, "//"); ok { // UNC
			host, share, _ := strings.Cut(rest, "/")
			if host == "" {
				return "", fmt.Errorf("protocol: file URI for %q: a UNC path needs a server name", path)
			}
			u := url.URL{Scheme: "file", Host: host, Path: "/" + share}
			return DocumentURI(u.String()), nil
		}
		if !hasDrive(slashed) {
			return "", fmt.Errorf("protocol: file URI for %q: not an absolute Windows path", path)
		}
		return DocumentURI((&url.URL{Scheme: "file", Path: "/" + strings.ToUpper(slashed[:1]) + slashed[1:]}).String()), nil
	}
	if !strings.HasPrefix(path, "/") {
		return "", fmt.Errorf("protocol: file URI for %q: not an absolute path", path)
	}
	return fileURI(path), nil
}

// fileURI is the canonical file: URI of a '/'-separated absolute path;
// where paths have drive letters, "/c:/x" is "/C:/x".
func fileURI(path string) DocumentURI {
	if !strings.HasPrefix(path, "/") {
		path = "/" + path // C:/x
	}
	if NativePaths == WindowsPaths && hasDrive(path[1:]) {
		path = "/" + strings.ToUpper(path[1:2]) + path[2:]
	}
	u := url.URL{Scheme: "file", Path: path}
	return DocumentURI(u.String())
}

// hasDrive reports whether a '/'-separated path starts with a drive
// letter and a colon ("C:/x", "c:").
func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z') && (len(p) == 2 || p[2] == '/')
}

// PathOf returns the path, in style, that a file: URI names: on Windows
// "file:///c%3A/x" and "file:///C:/x" are both `C:\x`, and
// "file://server/share/x" is `\\server\share\x`.
func PathOf(uri string, style PathStyle) (string, error) {
	p, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("protocol: parse URI %q: %w", uri, err)
	}
	if !strings.EqualFold(p.Scheme, "file") {
		return "", fmt.Errorf("protocol: URI %q is not a file: URI", uri)
	}
	remote := p.Host != "" && p.Host != "localhost"
	if style == WindowsPaths {
		if remote {
			return `\\` + p.Host + strings.ReplaceAll(p.Path, "/", `\`), nil
		}
		path := strings.TrimPrefix(p.Path, "/")
		if !hasDrive(path) {
			return "", fmt.Errorf("protocol: file URI %q names no drive", uri)
		}
		return strings.ToUpper(path[:1]) + strings.ReplaceAll(path[1:], "/", `\`), nil
	}
	if remote {
		return "", fmt.Errorf("protocol: file URI %q names a remote host", uri)
	}
	return p.Path, nil
}

// Canonical returns a file: URI in the one spelling FileURI gives, so that
// URIs naming the same file compare equal however a server spelled them:
// percent-encodings decoded and re-encoded the same way ("%2B" and "+",
// "%40" and "@", encoded or raw non-ASCII), the drive letter upper case,
// "localhost" dropped. Other URIs, and ones that do not parse, are
// returned as they are.
func (u DocumentURI) Canonical() DocumentURI {
	p, err := url.Parse(string(u))
	if err != nil || !strings.EqualFold(p.Scheme, "file") || p.Host != "" && p.Host != "localhost" || p.Path == "" {
		return u
	}
	return fileURI(p.Path)
}

// Path returns the local file path of a file: URI.
func (u DocumentURI) Path() (string, error) {
	return uriPath(string(u))
}

// Path returns the local file path of a file: URI.
func (u URI) Path() (string, error) {
	return uriPath(string(u))
}

func uriPath(s string) (string, error) { return PathOf(s, NativePaths) }

func (u *DocumentURI) decodeFrom(d *decoder) error {
	s, err := d.readString("DocumentUri")
	*u = DocumentURI(s)
	return err
}

func (u *URI) decodeFrom(d *decoder) error {
	s, err := d.readString("URI")
	*u = URI(s)
	return err
}
