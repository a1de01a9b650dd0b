package protocol

import (
	"path/filepath"
	"testing"
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
	for _, spelling := range []string{
		string(want),
		"file://" + encodeAll(slashed) + "/x.ts",          // VS Code: + → %2B, @ → %40, é as UTF-8 bytes
		"file://localhost" + encodeAll(slashed) + "/x.ts", // with a host that means this machine
		"FILE://" + encodeAll(slashed) + "/x.ts",
	} {
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
