package orchestrator

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
)

func diag(file string, line int, msg string, code any) api.Diagnostic {
	return api.Diagnostic{File: file, Line: line, Character: 5, Severity: "error", Message: msg, Code: code}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	o, err := New(Options{Root: filepath.Join(parent, "."), Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Shutdown(context.Background()) }) // before the directory goes (Windows)
	cases := map[string]bool{
		"a.go": true, "./x/../a.go": true, filepath.Join(o.Root(), "b/c.go"): true,
		"../a.go": false, o.Root() + "2/a.go": false, "/etc/passwd": false, "": false,
	}
	if runtime.GOOS == "windows" {
		// Rooted on the current drive, a drive without a root, another
		// spelling of the root (case), backslashes.
		cases[`\windows\win.ini`] = false
		cases[filepath.VolumeName(o.Root())+"a.go"] = false
		cases[strings.ToUpper(o.Root())+`\A.GO`] = true
		cases[`x\..\a.go`] = true
	}
	for path, in := range cases {
		if _, ok := o.resolve(path); ok != in {
			t.Errorf("resolve(%q) inside = %v", path, ok)
		}
	}
	p := filepath.FromSlash
	if !within(p("/ws"), p("/ws")) || within(p("/ws"), p("/ws2")) || within(p("/ws"), p("/")) || !within(p("/ws"), p("/ws/a/b")) {
		t.Error("within is not segment-safe")
	}
}

// TestFileDiagnosticsOrder: lsp/diagnostics keys come in ascending order.
func TestFileDiagnosticsOrder(t *testing.T) {
	t.Parallel()
	f := api.FileDiagnostics{}
	for _, name := range []string{"z.go", "a.go", "m/b.go", "m/a.go", "b.go", "c.go"} {
		f[name] = []api.Diagnostic{diag(name, 1, "x", nil)}
	}
	want := `{"a.go":`
	for range 20 {
		out, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		dec := jsontext.NewDecoder(bytes.NewReader(out))
		dec.ReadToken()
		for dec.PeekKind() == '"' {
			tok, _ := dec.ReadToken()
			keys = append(keys, tok.String())
			dec.SkipValue()
		}
		if !slices.IsSorted(keys) || len(keys) != 6 || !strings.HasPrefix(string(out), want) {
			t.Fatalf("keys %v in %s", keys, out)
		}
	}
}
