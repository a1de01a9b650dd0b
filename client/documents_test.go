package client

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
)

// applyEdit applies an edit whose columns are counted in enc, as a server would.
func applyEdit(t *testing.T, text string, start, end protocol.Position, repl string, enc protocol.PositionEncodingKind) string {
	t.Helper()
	offset := func(p protocol.Position) int {
		lines := strings.SplitAfter(text, "\n")
		off := 0
		for i := 0; i < int(p.Line); i++ {
			off += len(lines[i])
		}
		units := 0
		for i, r := range lines[p.Line] {
			if units >= int(p.Character) {
				return off + i
			}
			switch enc {
			case protocol.PositionEncodingKindUTF8:
				units += len(string(r))
			case protocol.PositionEncodingKindUTF32:
				units++
			default:
				units += len(utf16.Encode([]rune{r}))
			}
		}
		return off + len(lines[p.Line])
	}
	return text[:offset(start)] + repl + text[offset(end):]
}

func TestMinimalEdit(t *testing.T) {
	cases := [][2]string{
		{"hello world\n", "hello there\n"},
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"é🙂 x = 1\n", "é🙂 x = 22\n"},
		{"first\nsecond 🙂 third\n", "first\nsecond 🙂 3rd\nfourth\n"},
		{"same", "same"},
		{"", "new"},
		{"gone", ""},
		{"aaa", "aaaa"},
		{"🙂🙂", "🙂😀🙂"},
	}
	for _, enc := range []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF16, protocol.PositionEncodingKindUTF32} {
		for _, c := range cases {
			start, end, repl := minimalEdit(c[0], c[1], Mapper{Encoding: enc})
			if got := applyEdit(t, c[0], start, end, repl, enc); got != c[1] {
				t.Errorf("%s: %q → %q: edit %v-%v %q gives %q", enc, c[0], c[1], start, end, repl, got)
			}
			if len(repl) > len(c[1]) {
				t.Errorf("%q → %q: replacement %q is not minimal", c[0], c[1], repl)
			}
		}
	}
	for enc, want := range map[protocol.PositionEncodingKind]uint32{protocol.PositionEncodingKindUTF8: 7, protocol.PositionEncodingKindUTF16: 4, protocol.PositionEncodingKindUTF32: 3} {
		if p := (Mapper{Encoding: enc}).Position("éa🙂b", len("éa🙂")); p.Line != 0 || p.Character != want {
			t.Errorf("%s: position %+v, want column %d", enc, p, want)
		}
	}
	if p := (Mapper{Encoding: protocol.PositionEncodingKindUTF16}).Position("a🙂b\ncé", len("a🙂b\nc")); p.Line != 1 || p.Character != 1 {
		t.Errorf("second line: %+v", p)
	}
}

func TestColumns(t *testing.T) {
	line := "é🙂x = 1" // code points: é 🙂 x ...
	for _, c := range []struct {
		enc     protocol.PositionEncodingKind
		encoded uint32
		codePts int
	}{
		{protocol.PositionEncodingKindUTF8, 6, 2}, {protocol.PositionEncodingKindUTF16, 3, 2}, {protocol.PositionEncodingKindUTF32, 2, 2},
		{protocol.PositionEncodingKindUTF8, 7, 3}, {protocol.PositionEncodingKindUTF16, 4, 3}, {protocol.PositionEncodingKindUTF32, 3, 3},
		{protocol.PositionEncodingKindUTF16, 0, 0},
	} {
		if got := (Mapper{Encoding: c.enc}).CodePoints(line, c.encoded); got != c.codePts {
			t.Errorf("%s: CodePoints(%d) = %d, want %d", c.enc, c.encoded, got, c.codePts)
		}
		if got := (Mapper{Encoding: c.enc}).Column(line, c.codePts); got != c.encoded {
			t.Errorf("%s: Column(%d) = %d, want %d", c.enc, c.codePts, got, c.encoded)
		}
	}
	if got := (Mapper{Encoding: protocol.PositionEncodingKindUTF16}).CodePoints(line, 99); got != 7 {
		t.Errorf("past the end: %d", got)
	}
}

func TestDiagnosticsGopls(t *testing.T) {
	t.Parallel()
	gopls := servertest.Binary(t, "gopls")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := goModule(t)
	c := startClient(ctx, t, Config{Name: "gopls", Command: Command{Path: gopls, Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}}, Root: dir})
	path := filepath.Join(dir, "use.go")
	// The error and the fix both sit after é🙂 on their line, so columns
	// must be counted in the encoding gopls chose.
	line := `func Use() string { _ = "é🙂"; return Answer() }`
	broken := "package demo\n\n" + line + "\n"
	uri, v, err := c.Sync(ctx, path, "go", broken)
	if err != nil || v != 1 {
		t.Fatalf("open: %v %v", v, err)
	}
	if s := c.WaitSettled(ctx, uri, v); s != Settled {
		t.Fatalf("version 1: %v", s)
	}
	enc := c.PositionEncoding()
	if enc != protocol.PositionEncodingKindUTF8 {
		t.Logf("gopls chose %s", enc)
	}
	diags := c.Diagnostics(uri)
	if len(diags) == 0 || diags[0].Range.Start.Line != 2 || (Mapper{Encoding: enc}).CodePoints(line, diags[0].Range.Start.Character) != 37 {
		t.Fatalf("diagnostics for version 1 (%s): %+v", enc, diags)
	}
	// An incremental change after é🙂: gopls applies our minimal edit.
	fixed := strings.Replace(broken, "Answer()", `"ok"`, 1)
	if _, v, err = c.Sync(ctx, path, "go", fixed); err != nil || v != 2 {
		t.Fatalf("change: %v %v", v, err)
	}
	if s := c.WaitSettled(ctx, uri, v); s != Settled {
		t.Fatalf("version 2: %v", s)
	}
	if diags := c.Diagnostics(uri); len(diags) != 0 {
		t.Fatalf("diagnostics after the fix: %+v", diags)
	}
	if _, v2, _ := c.Sync(ctx, path, "go", fixed); v2 != 2 {
		t.Fatalf("unchanged text moved the version to %d", v2)
	}
}

// TestDiagnosticsTypeScript7: TypeScript 7 publishes nothing; diagnostics
// come only by pull. It counts columns in UTF-8 bytes, and the error and the
// fix sit after é🙂 on their line.
func TestDiagnosticsTypeScript7(t *testing.T) {
	t.Parallel()
	tsc := servertest.Binary(t, "tsc7")
	dir := tsProject(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := startClient(ctx, t, Config{Name: "typescript7", Command: Command{Path: tsc, Args: []string{"--lsp", "--stdio"}}, Root: dir})
	line := `const s = "é🙂"; const n: number = s;`
	e := errorThenFixed(ctx, t, c, filepath.Join(dir, "a.ts"), "typescript",
		line+"\nexport {};\n", strings.Replace(line, "= s;", "= 1;", 1)+"\nexport {};\n", 0, 22)
	if code, ok := e.Code.AsInteger(); !ok || code != 2322 {
		t.Fatalf("code: %v", e.Code.Kind())
	}
}

// errorsOf keeps the error-severity diagnostics (servers add hints such as
// "declared but never read").
func errorsOf(diags []protocol.Diagnostic) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, d := range diags {
		if d.Severity != nil && *d.Severity == protocol.DiagnosticSeverityError {
			out = append(out, d)
		}
	}
	return out
}

// TestDiagnosticsTypeScriptLanguageServer: typescript-language-server (with
// TypeScript 6) pushes diagnostics.
func TestDiagnosticsTypeScriptLanguageServer(t *testing.T) {
	t.Parallel()
	tsls := servertest.Binary(t, "typescript-language-server")
	dir := tsProject(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Settled as the daemon settles it (tsserver's own answer): by publishes
	// and a quiet window alone, a loaded machine can see the empty syntactic
	// publish as the whole answer.
	c := startClient(ctx, t, Config{Name: "typescript", Command: Command{Path: tsls, Args: []string{"--stdio"}}, Root: dir, Settle: SettlePolicy{TSServer: true}})
	errorThenFixed(ctx, t, c, filepath.Join(dir, "a.ts"), "typescript",
		"const n: number = \"one\";\nexport {};\n", "const n: number = 1;\nexport {};\n", 0, 6)
}

// TestDiagnosticsPyright: pyright offers pull diagnostics by dynamic
// registration (twice, then withdraws one), possibly after the file is open.
func TestDiagnosticsPyright(t *testing.T) {
	t.Parallel()
	pyright := servertest.Binary(t, "pyright-langserver")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := startClient(ctx, t, Config{Name: "pyright", Command: Command{Path: pyright, Args: []string{"--stdio"}}, Root: dir})
	errorThenFixed(ctx, t, c, filepath.Join(dir, "a.py"), "python",
		"def f() -> int:\n    return \"one\"\n", "def f() -> int:\n    return 1\n", 1, 11)
}

// TestDiagnosticsClangd: clangd pushes diagnostics with versions.
func TestDiagnosticsClangd(t *testing.T) {
	t.Parallel()
	clangd := servertest.Binary(t, "clangd")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := startClient(ctx, t, Config{Name: "clangd", Command: Command{Path: clangd}, Root: dir})
	errorThenFixed(ctx, t, c, filepath.Join(dir, "a.c"), "c",
		"int f(void) {\n  return \"one\";\n}\n", "int f(void) {\n  return 1;\n}\n", 1, 9)
}

// tsProject returns a directory with a strict tsconfig.json.
func tsProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(`{"compilerOptions":{"strict":true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// errorThenFixed opens path with broken text and requires exactly one error,
// at line and code-point column col (counted from the server's encoding),
// then changes it to fixed and requires no error. It returns the error.
func errorThenFixed(ctx context.Context, t *testing.T, c *Client, path, languageID, broken, fixed string, line uint32, col int) protocol.Diagnostic {
	t.Helper()
	uri, v, err := c.Sync(ctx, path, languageID, broken)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.WaitSettled(ctx, uri, v); s != Settled {
		t.Fatalf("version %d: %v", v, s)
	}
	enc := c.PositionEncoding()
	text := strings.Split(broken, "\n")[line]
	errs := errorsOf(c.Diagnostics(uri))
	if len(errs) != 1 || errs[0].Range.Start.Line != line || (Mapper{Encoding: enc}).CodePoints(text, errs[0].Range.Start.Character) != col {
		t.Fatalf("errors (%s), want one at %d:%d: %+v", enc, line, col, errs)
	}
	if _, v, err = c.Sync(ctx, path, languageID, fixed); err != nil {
		t.Fatal(err)
	}
	if s := c.WaitSettled(ctx, uri, v); s != Settled {
		t.Fatalf("version %d: %v", v, s)
	}
	if left := errorsOf(c.Diagnostics(uri)); len(left) != 0 {
		t.Fatalf("errors after the fix: %+v", left)
	}
	return errs[0]
}

// TestWorkspaceDiagnosticsPyright: in workspace mode pyright registers pull
// diagnostics with workspaceDiagnostics, holds the workspace/diagnostic
// request open and streams reports as partial results — for files never
// opened. A fix on disk reaches pyright through the file watcher and its
// next report clears the error.
func TestWorkspaceDiagnosticsPyright(t *testing.T) {
	t.Parallel()
	pyright := servertest.Binary(t, "pyright-langserver")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.py")
	write(t, bad, "def f() -> int:\n    return \"one\"\n")
	write(t, filepath.Join(dir, "good.py"), "def g() -> int:\n    return 1\n")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := startClient(ctx, t, Config{Name: "pyright", Command: Command{Path: pyright, Args: []string{"--stdio"}}, Root: dir,
		Settings: jsontext.Value(`{"python":{"analysis":{"diagnosticMode":"workspace"}}}`)})
	uri, _ := protocol.FileURI(bad)
	waitFor(ctx, t, c, "workspace diagnostics for the unopened bad.py", func() bool {
		return len(errorsOf(c.AllDiagnostics()[uri])) > 0
	})
	all := c.AllDiagnostics()
	if errs := errorsOf(all[uri]); len(errs) != 1 || errs[0].Range.Start.Line != 1 {
		t.Fatalf("workspace diagnostics for bad.py: %+v", all)
	}
	if len(all) != 1 {
		t.Fatalf("diagnostics for files without errors: %+v", all)
	}
	epoch := c.Epoch()
	write(t, bad, "def f() -> int:\n    return 1\n")
	waitFor(ctx, t, c, "the fix on disk to clear the error", func() bool {
		return len(errorsOf(c.AllDiagnostics()[uri])) == 0
	})
	if c.Epoch() <= epoch {
		t.Fatal("epoch did not advance")
	}
}

// TestSaveGopls: with diagnosticsTrigger "Save", gopls diagnoses a change
// only when it is saved, so the new error appears only through didSave.
func TestSaveGopls(t *testing.T) {
	t.Parallel()
	gopls := servertest.Binary(t, "gopls")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := goModule(t)
	c := startClient(ctx, t, Config{Name: "gopls", Command: Command{Path: gopls, Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}}, Root: dir,
		Settings: jsontext.Value(`{"gopls":{"diagnosticsTrigger":"Save"}}`)})
	path := filepath.Join(dir, "demo.go") // on disk, in gopls's package graph
	if err := c.Save(ctx, path); err == nil {
		t.Fatal("saving a document that is not open succeeded")
	}
	uri, v, err := c.Sync(ctx, path, "go", "package demo\n\nfunc Answer() int { return 42 }\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Save(ctx, path); err != nil {
		t.Fatal(err)
	}
	if s := c.WaitSettled(ctx, uri, v); s != Settled || len(c.Diagnostics(uri)) != 0 {
		t.Fatalf("version %d: %v %+v", v, s, c.Diagnostics(uri))
	}
	if _, _, err = c.Sync(ctx, path, "go", "package demo\n\nfunc Answer() int { return Missing() }\n"); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(ctx, path); err != nil {
		t.Fatal(err)
	}
	// gopls publishes for the new version before diagnosing it; the save
	// brings the error.
	waitFor(ctx, t, c, "the error after the save", func() bool {
		d := errorsOf(c.Diagnostics(uri))
		return len(d) == 1 && strings.Contains(MessageText(d[0]), "Missing")
	})
}

// TestLatePublishDropped: findings published for an older version after
// the newer version's (an analysis that finished late) do not replace
// them; unversioned ones always do.
func TestLatePublishDropped(t *testing.T) {
	s := newDiagStore()
	uri := protocol.DocumentURI("file:///a.fk")
	one := []protocol.Diagnostic{{Message: protocol.NewStringOrMarkupContentString("v8")}}
	old := []protocol.Diagnostic{{Message: protocol.NewStringOrMarkupContentString("v7")}}
	s.publish(&protocol.PublishDiagnosticsParams{URI: uri, Version: protocol.Ptr[int32](8), Diagnostics: one}, 1)
	s.publish(&protocol.PublishDiagnosticsParams{URI: uri, Version: protocol.Ptr[int32](7), Diagnostics: old}, 2)
	if f, _ := s.get(uri); *f.pushVersion != 8 || MessageText(f.push[0]) != "v8" {
		t.Fatalf("after a late publish for version 7: version %d, %v", *f.pushVersion, f.push)
	}
	s.publish(&protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: old}, 3)
	if f, _ := s.get(uri); f.pushVersion != nil || MessageText(f.push[0]) != "v7" {
		t.Fatalf("an unversioned publish was dropped: %+v", f)
	}
}
