package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/internal/servertest"
)

// copyHandWritten copies the protocol package's hand-written files (those
// without the generated-code header, and no tests) into dir.
func copyHandWritten(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob("../protocol/*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_gen.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("DO NOT EDIT")) {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no hand-written protocol files found")
	}
}

// TestGenerate317 generates the package from the LSP 3.17.0 meta model (54
// anonymous literals, 3.17 naming) into a temporary module beside the
// hand-written helpers, then vets it (go vet type-checks the whole package,
// as a build would, and runs the analyzers, without compiling it to code).
func TestGenerate317(t *testing.T) {
	servertest.CIOnly(t) // compiles a generated package: CI's pass, beside its go generate check
	dir := tempModule(t, "testdata/metaModel-3.17.0.json")
	goIn(t, dir, "vet", "./...")
	if _, err := os.Stat(filepath.Join(dir, "protocol", "structures_gen.go")); err != nil {
		t.Fatal(err)
	}
}

// tempModule generates a package from model into a temporary module that
// reuses this module's requirements (so only the module cache is needed) and
// returns the module directory.
func tempModule(t *testing.T, model string) string {
	t.Helper()
	m, err := loadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pkg := filepath.Join(dir, "protocol")
	if err := os.Mkdir(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := generate(m, pkg, "protocol"); err != nil {
		t.Fatalf("generate %s: %v", model, err)
	}
	copyHandWritten(t, pkg)
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "go.mod" {
			// The generated package uses lspkit's transport (its error type):
			// require this module from its directory.
			root, err := filepath.Abs("..")
			if err != nil {
				t.Fatal(err)
			}
			b = bytes.Replace(b, []byte("module github.com/lspkit/lspkit"), []byte("module example.com/generated"), 1)
			b = append(b, fmt.Sprintf("\nrequire github.com/lspkit/lspkit v0.0.0\n\nreplace github.com/lspkit/lspkit => %s\n", root)...)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goIn runs the go command (vet, test) in dir without touching the
// network, with -race when this test is built with it.
func goIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if raceEnabled {
		args = append([]string{args[0], "-race"}, args[1:]...)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestGenerateSynthetic generates a small model that uses what LSP 3.18
// does not: number unions (uinteger | integer | decimal), a closed enum
// beside a plain string, a string-literal union (becomes an enum), boolean
// literals, a literal structure, a tuple and an array alternative. A test
// run inside the generated package checks each rule.
func TestGenerateSynthetic(t *testing.T) {
	servertest.CIOnly(t) // compiles a generated package: CI's pass, beside its go generate check
	dir := tempModule(t, "testdata/synthetic/model.json")
	src, err := os.ReadFile("testdata/synthetic/synthetic_test.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "protocol", "synthetic_test.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	goIn(t, dir, "vet", "./...")
	goIn(t, dir, "test", "./...")
}

// TestGenerateReproducible generates the 3.18 package twice and requires both
// runs, and the checked-in protocol package, to be byte-identical.
func TestGenerateReproducible(t *testing.T) {
	servertest.CIOnly(t) // compiles a generated package: CI's pass, beside its go generate check
	var outs []string
	for range 2 {
		m, err := loadModel("../metaModel.json")
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := generate(m, dir, "protocol"); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, dir)
	}
	files, _ := filepath.Glob(filepath.Join(outs[0], "*_gen.go"))
	if len(files) < 5 {
		t.Fatalf("only %d generated files", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		a, _ := os.ReadFile(f)
		b, _ := os.ReadFile(filepath.Join(outs[1], name))
		c, _ := os.ReadFile(filepath.Join("../protocol", name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", name)
		}
		if !bytes.Equal(a, c) {
			t.Errorf("%s differs from the checked-in protocol/%s: run go generate ./...", name, name)
		}
	}
}

// TestValidate feeds broken models to the validator: each error must name
// the JSON path of the problem.
func TestValidate(t *testing.T) {
	cases := []struct {
		name, model, want string
	}{
		{"unknown kind", `{"metaData":{"version":"x"},"structures":[{"name":"A","properties":[{"name":"p","type":{"kind":"frobnicate"}}]}]}`,
			`structures[0] (A).properties[0] (p).type: unknown type kind "frobnicate"`},
		{"dangling reference", `{"metaData":{"version":"x"},"structures":[{"name":"A","properties":[{"name":"p","type":{"kind":"array","element":{"kind":"reference","name":"Missing"}}}]}]}`,
			`structures[0] (A).properties[0] (p).type.element: reference to undefined type "Missing"`},
		{"unknown base", `{"metaData":{"version":"x"},"typeAliases":[{"name":"T","type":{"kind":"base","name":"int64"}}]}`,
			`typeAliases[0] (T).type: unknown base type "int64"`},
		{"duplicate name", `{"metaData":{"version":"x"},"structures":[{"name":"A","properties":[]}],"enumerations":[{"name":"A","type":{"kind":"base","name":"string"},"values":[]}]}`,
			`enumerations[0]: name "A" is already a structure`},
		{"bad direction", `{"metaData":{"version":"x"},"notifications":[{"method":"x/y","messageDirection":"sideways"}]}`,
			`notifications[0] (x/y).messageDirection: unknown direction "sideways"`},
		{"request without result", `{"metaData":{"version":"x"},"requests":[{"method":"x/y","messageDirection":"both"}]}`,
			`requests[0] (x/y).result: missing`},
		{"extends a non-structure", `{"metaData":{"version":"x"},"enumerations":[{"name":"E","type":{"kind":"base","name":"string"},"values":[]}],"structures":[{"name":"A","extends":[{"kind":"reference","name":"E"}],"properties":[]}]}`,
			`structures[0] (A).extends/mixins[0]: reference "E" is not a structure reference`},
		{"enum value of the wrong type", `{"metaData":{"version":"x"},"enumerations":[{"name":"E","type":{"kind":"base","name":"uinteger"},"values":[{"name":"A","value":"a"}]}]}`,
			`enumerations[0] (E).values[0] (A).value: "a" does not fit the enumeration type uinteger`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "model.json")
			if err := os.WriteFile(path, []byte(c.model), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := loadModel(path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"processId":                        "ProcessID",
		"rootUri":                          "RootURI",
		"DocumentUri":                      "DocumentURI",
		"TextDocumentIdentifier":           "TextDocumentIdentifier",
		"LocationUriOnly":                  "LocationURIOnly",
		"textDocument/didOpen":             "TextDocumentDidOpen",
		"$/cancelRequest":                  "CancelRequest",
		"_InitializeParams":                "InitializeParamsBase",
		"typeParameter":                    "TypeParameter",
		"URI":                              "URI",
		"workspace/semanticTokens/refresh": "WorkspaceSemanticTokensRefresh",
	} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestComment(t *testing.T) {
	got := comment(docs{
		Documentation: "Uses {@link TextEdit} and {@link Range the range}.\n@since 3.16.0\n@proposed\n@deprecated use Bar",
	}, "Extra.")
	want := "Uses TextEdit and the range.\n\nExtra.\n\nSince: 3.16.0\n\nProposed: this is a proposed feature of the protocol and may change.\n\nDeprecated: use Bar"
	if got != want {
		t.Errorf("comment from tags:\n%q\nwant\n%q", got, want)
	}
	got = comment(docs{Documentation: "Text.", Since: "3.18.0", Proposed: true, Deprecated: "gone"})
	want = "Text.\n\nSince: 3.18.0\n\nProposed: this is a proposed feature of the protocol and may change.\n\nDeprecated: gone"
	if got != want {
		t.Errorf("comment from attributes:\n%q\nwant\n%q", got, want)
	}
}
