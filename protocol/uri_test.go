package protocol_test

import (
	"path/filepath"
	"strings"
	"testing"

	. "github.com/lspkit/lspkit/protocol"
)

// TestCanonicalURI: the spellings servers use for one file compare equal
// once canonical, and the canonical URI is FileURI's.
func TestCanonicalURI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a+b c#d%e@f é")
	path := filepath.Join(dir, "x.ts")
	want, err := FileURI(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := want.Path(); err != nil || got != path {
		t.Fatalf("Path(%s) = %q, %v; want %q", want, got, err, path)
	}
	slashed := filepath.ToSlash(dir)
	if !strings.HasPrefix(slashed, "/") {
		slashed = "/" + slashed // C:/… is /C:/… in a URI's path
	}
	spellings := []string{
		string(want),
		"file://" + encodeAll(slashed) + "/x.ts",          // VS Code: + → %2B, @ → %40, é as UTF-8 bytes
		"file://localhost" + encodeAll(slashed) + "/x.ts", // with a host that means this machine
		"FILE://" + encodeAll(slashed) + "/x.ts",
	}
	if len(slashed) > 2 && slashed[2] == ':' {
		// A drive letter as VS Code writes it: lower case, the colon %3A.
		spellings = append(spellings, "file:///"+strings.ToLower(slashed[1:2])+"%3A"+encodeAll(slashed[3:])+"/x.ts")
	}
	for _, spelling := range spellings {
		if got := DocumentURI(spelling).Canonical(); got != want {
			t.Errorf("Canonical(%s) = %s, want %s", spelling, got, want)
		}
	}
	for _, other := range []DocumentURI{"untitled:Untitled-1", "file://remote/x.ts", "%zz"} {
		if got := other.Canonical(); got != other {
			t.Errorf("Canonical(%s) = %s, want it unchanged", other, got)
		}
	}
}

// encodeAll percent-encodes every byte of a path but letters, digits, '/'
// and "-._~", as vscode-uri does.
func encodeAll(path string) string {
	const hex = "0123456789ABCDEF"
	var out []byte
	for i := 0; i < len(path); i++ {
		c := path[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '/' || c == '-' || c == '.' || c == '_' || c == '~' {
			out = append(out, c)
			continue
		}
		out = append(out, '%', hex[c>>4], hex[c&15])
	}
	return string(out)
}

// TestURIStyles: paths map to and from file: URIs as VS Code maps them,
// in either path style, whatever system the test runs on.
func TestURIStyles(t *testing.T) {
	for _, tc := range []struct {
		path  string
		style PathStyle
		uri   string
	}{
		{`/home/a/x.go`, UnixPaths, "file:///home/a/x.go"},
		{`/a b/c#d%e+f@g/é.go`, UnixPaths, "file:///a%20b/c%23d%25e+f@g/%C3%A9.go"},
		{`C:\Users\a\x.go`, WindowsPaths, "file:///C:/Users/a/x.go"},
		{`c:\a b\x.go`, WindowsPaths, "file:///C:/a%20b/x.go"},
		{`\\server\share\dir\x.go`, WindowsPaths, "file://server/share/dir/x.go"},
	} {
		uri, err := FileURIOf(tc.path, tc.style)
		if err != nil || string(uri) != tc.uri {
			t.Errorf("FileURIOf(%q) = %s, %v; want %s", tc.path, uri, err, tc.uri)
		}
		want := tc.path
		if tc.style == WindowsPaths {
			want = strings.ToUpper(want[:1]) + want[1:] // the drive letter upper case
		}
		if back, err := PathOf(tc.uri, tc.style); err != nil || back != want {
			t.Errorf("PathOf(%s) = %q, %v; want %q", tc.uri, back, err, want)
		}
	}
	// VS Code's own spelling: the drive letter lower case, its colon encoded.
	for uri, want := range map[string]string{"file:///c%3A/a/x.go": `C:\a\x.go`, "file:///d:/x": `D:\x`, "file://localhost/C:/x": `C:\x`} {
		if got, err := PathOf(uri, WindowsPaths); err != nil || got != want {
			t.Errorf("PathOf(%s) = %q, %v; want %q", uri, got, err, want)
		}
	}
	for _, bad := range []struct {
		path  string
		style PathStyle
	}{{"relative/x.go", UnixPaths}, {`x.go`, WindowsPaths}, {`\\\share`, WindowsPaths}, {`/no/drive`, WindowsPaths}} {
		if uri, err := FileURIOf(bad.path, bad.style); err == nil {
			t.Errorf("FileURIOf(%q) = %s, want an error", bad.path, uri)
		}
	}
	if _, err := PathOf("file://server/share/x", UnixPaths); err == nil {
		t.Error("a remote host maps to a Unix path")
	}
	if _, err := PathOf("file:///x", WindowsPaths); err == nil {
		t.Error("a URI without a drive maps to a Windows path")
	}
}
