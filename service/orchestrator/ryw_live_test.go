package orchestrator

import (
	"slices"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// TestImporterAfterAPIChangeLive: the first case, for each
// language: the imported file, never opened by lspkit, changes its API
// on disk, and the check of the importer that follows at once reports the
// break; then the mend.
func TestImporterAfterAPIChangeLive(t *testing.T) {
	t.Parallel()
	for _, tc := range dependentCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			servertest.Binary(t, tc.binary)
			o := live(t, tc.project(), `,"diagnosticTimeout":30000`)
			for i := range 3 {
				res := mustCheck(t, o, api.CheckParams{FilePath: tc.b})
				if !res.Checked || len(res.Diagnostics) != 0 {
					t.Fatalf("round %d: %s with %s as it was: %+v", i, tc.b, tc.a, res)
				}
				lsptest.WriteFiles(t, o.Root(), map[string]string{tc.a: tc.broken})
				res = mustCheck(t, o, api.CheckParams{FilePath: tc.b})
				if !res.Checked || len(res.Diagnostics) != 1 || res.Diagnostics[0].Line != tc.bLine {
					t.Fatalf("round %d: %s right after %s's API changed on disk: %+v; want its error at line %d", i, tc.b, tc.a, res, tc.bLine)
				}
				lsptest.WriteFiles(t, o.Root(), map[string]string{tc.a: tc.fixed})
			}
		})
	}
}

// TestBrokenProjectLive: a server that cannot load the project has not
// checked the file. A go.mod broken by an edit: the check of main.go
// reports go.mod's error (gopls publishes it there, and nothing for
// main.go), never a clean answer; mended, main.go's own error is back.
// Broken tsconfig.json, pyproject.toml and compile_commands.json: the
// servers fall back to their defaults and still check the file (its error
// is reported).
func TestBrokenProjectLive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, binary   string
		files          map[string]string
		file, project  string
		broken, mended string
		want           string // a finding's file, in the answer while the project file is broken
	}{
		{
			name: "go", binary: "gopls",
			files: map[string]string{"main.go": "package main\n\nfunc main() {\n\tvar x int = \"s\"\n\t_ = x\n}\n"},
			file:  "main.go", project: "go.mod",
			broken: "module example.com/demo\n\ngo 1.22\n\nrequire (\n", mended: servertest.GoMod,
			want: "go.mod",
		},
		{
			name: "typescript", binary: "typescript-language-server",
			files: map[string]string{"a.ts": "const x: number = \"s\";\nexport {};\n"},
			file:  "a.ts", project: "tsconfig.json",
			broken: "{\"compilerOptions\": {\"strict\": true,,}", mended: `{"compilerOptions":{"strict":true}}`,
			want: "a.ts",
		},
		{
			name: "python", binary: "pyright-langserver",
			files: map[string]string{"a.py": "x: int = \"s\"\n"},
			file:  "a.py", project: "pyproject.toml",
			broken: "[project\nname = \"demo\"\n", mended: "[project]\nname = \"demo\"\n",
			want: "a.py",
		},
		{
			name: "c", binary: "clangd",
			files: map[string]string{"a.c": "int main(void) { int x = \"s\"; return x; }\n"},
			file:  "a.c", project: "compile_commands.json",
			broken: "[{\"directory\": ", mended: "[]",
			want: "a.c",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			servertest.Binary(t, tc.binary)
			files := map[string]string{tc.project: tc.broken}
			for k, v := range tc.files {
				files[k] = v
			}
			o := live(t, files, `,"diagnosticTimeout":30000`)
			res := mustCheck(t, o, api.CheckParams{FilePath: tc.file})
			if res.Checked && len(res.Diagnostics) == 0 {
				t.Fatalf("%s with %s broken reads as clean: %+v", tc.file, tc.project, res)
			}
			if !slices.ContainsFunc(res.Diagnostics, func(d api.Diagnostic) bool { return d.File == tc.want }) {
				t.Fatalf("%s with %s broken: %+v; want a finding in %s", tc.file, tc.project, res, tc.want)
			}
			lsptest.WriteFiles(t, o.Root(), map[string]string{tc.project: tc.mended})
			res = mustCheck(t, o, api.CheckParams{FilePath: tc.file})
			if !res.Checked || len(res.Diagnostics) != 1 || res.Diagnostics[0].File != tc.file {
				t.Fatalf("%s with %s mended: %+v; want its own error alone", tc.file, tc.project, res)
			}
		})
	}
}

// TestGoCommandMissingLive: gopls without a go command on its PATH shows
// an error and cannot run its diagnose command: the check says the file
// was not checked, in gopls's words.
func TestGoCommandMissingLive(t *testing.T) {
	servertest.Binary(t, "gopls")
	bin := t.TempDir() // no go command in it
	t.Setenv("PATH", bin)
	o := live(t, map[string]string{"go.mod": servertest.GoMod, "main.go": "package main\n\nfunc main() {}\n"}, `,"diagnosticTimeout":30000`)
	res := mustCheck(t, o, api.CheckParams{FilePath: "main.go"})
	if res.Checked || len(res.Servers) != 1 || res.Servers[0].Verdict == api.VerdictSettled || !strings.Contains(res.Reason, "go command required") {
		t.Fatalf("check without a go command: %+v; want not checked, with gopls's reason", res)
	}
	t.Logf("reason: %s; gopls: %s", res.Reason, res.Servers[0].Reason)
}
