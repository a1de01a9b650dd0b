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

// FileURI returns the file: URI of path, which is made absolute and cleaned,
// in the canonical spelling (see DocumentURI.Canonical): characters outside
// the URI path grammar are percent-encoded; a drive letter is upper case.
func FileURI(path string) (DocumentURI, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("protocol: file URI for %q: %w", path, err)
	}
	return fileURI(filepath.ToSlash(abs)), nil
}

// fileURI is the canonical file: URI of a '/'-separated absolute path.
func fileURI(path string) DocumentURI {
	if !strings.HasPrefix(path, "/") {
		path = "/" + path // C:/x
	}
	if len(path) >= 3 && path[2] == ':' && filepath.VolumeName(path[1:]) != "" {
		path = "/" + strings.ToUpper(path[1:2]) + path[2:] // where paths have drive letters
	}
	u := url.URL{Scheme: "file", Path: path}
	return DocumentURI(u.String())
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

func uriPath(s string) (string, error) {
	p, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("protocol: parse URI %q: %w", s, err)
	}
	if !strings.EqualFold(p.Scheme, "file") {
		return "", fmt.Errorf("protocol: URI %q is not a file: URI", s)
	}
	if p.Host != "" && p.Host != "localhost" {
		return "", fmt.Errorf("protocol: file URI %q names a remote host", s)
	}
	path := p.Path
	if len(path) >= 3 && path[0] == '/' && filepath.VolumeName(path[1:]) != "" {
		path = path[1:] // /C:/x is C:/x where paths have volume names
	}
	return filepath.FromSlash(path), nil
}

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
