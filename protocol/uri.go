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

// FileURI returns the file: URI of path, which is made absolute and cleaned.
// Characters outside the URI path grammar are percent-encoded.
func FileURI(path string) (DocumentURI, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("protocol: file URI for %q: %w", path, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return DocumentURI(u.String()), nil
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
	return filepath.FromSlash(p.Path), nil
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
