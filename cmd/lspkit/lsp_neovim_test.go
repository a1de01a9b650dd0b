//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/internal/servertest"
)

// neovimSpec is what testdata/neovim/drive.lua is told to do.
type neovimSpec struct {
	File         string   `json:"file"`
	Root         string   `json:"root"`
	Filetype     string   `json:"filetype"`
	Cmd          []string `json:"cmd"`
	Out          string   `json:"out"`
	Fix          lineText `json:"fix"`
	Definition   [2]int   `json:"definition"`
	References   [2]int   `json:"references"`
	Rename       rename   `json:"rename"`
	Unformatted  lineText `json:"unformatted"`
	InsertSpaces bool     `json:"insertSpaces"`
}

type lineText struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

type rename struct {
	At [2]int `json:"at"`
	To string `json:"to"`
}

// neovimOut is what it answers.
type neovimOut struct {
	Error      string   `json:"error"`
	Broken     []string `json:"broken"`
	Fixed      []string `json:"fixed"`
	Definition *struct {
		URI  string `json:"uri"`
		Line int    `json:"line"`
	} `json:"definition"`
	References int    `json:"references"`
	Hover      string `json:"hover"`
	Renamed    string `json:"renamed"`
	Formatted  string `json:"formatted"`
	Stopped    bool   `json:"stopped"`
}

// TestLSPNeovim: Neovim as shipped by Debian (0.7.2), headless, uses
// lspkit lsp as its language server on a Go and a TypeScript project: the
// error in the file on disk is shown, the fix typed in the buffer (unsaved)
// clears it, definition, references, hover, rename (applied to the buffer)
// and formatting answer, and stopping the client ends lspkit.
// LSPKIT_NEOVIM=1 (CI's hosts step) runs it.
func TestLSPNeovim(t *testing.T) {
	if os.Getenv("LSPKIT_NEOVIM") == "" {
		t.Skip("LSPKIT_NEOVIM=1 runs it (scripts/test-hosts.sh, which installs Neovim)")
	}
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Fatal("nvim is not installed: apt install neovim")
	}
	drive, err := filepath.Abs(filepath.Join("testdata", "neovim", "drive.lua"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		servers []string
		files   map[string]string
		spec    neovimSpec
		want    func(t *testing.T, out neovimOut)
	}{{
		name:    "go",
		servers: []string{"gopls"},
		files: map[string]string{
			"go.mod":  "module example.com/demo\n\ngo 1.22\n",
			"main.go": "package main\n\nimport \"fmt\"\n\nfunc greet(name string) string {\n\treturn \"hi \" + name\n}\n\nfunc main() {\n\tfmt.Println(greet(1))\n}\n",
		},
		spec: neovimSpec{File: "main.go", Filetype: "go",
			Fix: lineText{9, "\tfmt.Println(greet(\"x\"))"}, Definition: [2]int{9, 14}, References: [2]int{4, 6},
			Rename: rename{[2]int{4, 6}, "welcome"}, Unformatted: lineText{5, "\treturn   \"hi \"+name"}},
		want: func(t *testing.T, out neovimOut) {
			if len(out.Broken) != 1 || !strings.Contains(out.Broken[0], "cannot use 1") {
				t.Errorf("diagnostics of the file on disk: %q, want gopls's one error", out.Broken)
			}
			if out.Definition == nil || out.Definition.Line != 4 || !strings.HasSuffix(out.Definition.URI, "/main.go") || out.References != 2 {
				t.Errorf("definition %+v, references %d: want main.go line 5 and 2", out.Definition, out.References)
			}
			if !strings.Contains(out.Hover, "func greet(name string) string") {
				t.Errorf("hover %q", out.Hover)
			}
			if !strings.Contains(out.Renamed, "func welcome(name string)") || !strings.Contains(out.Renamed, "welcome(\"x\")") {
				t.Errorf("after rename:\n%s", out.Renamed)
			}
			if out.Formatted != "\treturn \"hi \" + name" {
				t.Errorf("formatted line %q", out.Formatted)
			}
		},
	}, {
		name:    "typescript",
		servers: []string{"typescript", "eslint"},
		files: map[string]string{
			"package.json":  `{"name": "demo", "private": true}`,
			"tsconfig.json": `{"compilerOptions": {"strict": true}}`,
			"main.ts":       "export function greet(name: string): string {\n    return \"hi \" + name;\n}\n\nconsole.log(greet(1));\n",
		},
		spec: neovimSpec{File: "main.ts", Filetype: "typescript", InsertSpaces: true,
			Fix: lineText{4, "console.log(greet(\"x\"));"}, Definition: [2]int{4, 13}, References: [2]int{0, 17},
			Rename: rename{[2]int{0, 17}, "welcome"}, Unformatted: lineText{1, "    return   \"hi \"+name;"}},
		want: func(t *testing.T, out neovimOut) {
			if len(out.Broken) != 1 || !strings.Contains(out.Broken[0], "not assignable to parameter of type 'string'") {
				t.Errorf("diagnostics of the file on disk: %q, want TypeScript's one error", out.Broken)
			}
			if out.Definition == nil || out.Definition.Line != 0 || !strings.HasSuffix(out.Definition.URI, "/main.ts") || out.References != 2 {
				t.Errorf("definition %+v, references %d: want main.ts line 1 and 2", out.Definition, out.References)
			}
			if !strings.Contains(out.Hover, "function greet(name: string): string") {
				t.Errorf("hover %q", out.Hover)
			}
			if !strings.Contains(out.Renamed, "function welcome(name: string)") || !strings.Contains(out.Renamed, "welcome(\"x\")") {
				t.Errorf("after rename:\n%s", out.Renamed)
			}
			if out.Formatted != "    return \"hi \" + name;" {
				t.Errorf("formatted line %q", out.Formatted)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range tc.servers {
				servertest.Binary(t, map[string]string{"gopls": "gopls", "typescript": "typescript-language-server", "eslint": "vscode-eslint-language-server"}[s])
			}
			root := t.TempDir()
			writeFiles(t, root, tc.files)
			spec := tc.spec
			spec.File = filepath.Join(root, spec.File)
			spec.Root = root
			spec.Out = filepath.Join(t.TempDir(), "out.json")
			spec.Cmd = []string{lspkitBin, "lsp", "--root", root}
			for _, s := range tc.servers {
				spec.Cmd = append(spec.Cmd, "--server", s)
			}
			specFile := filepath.Join(t.TempDir(), "spec.json")
			data, _ := json.Marshal(spec)
			if err := os.WriteFile(specFile, data, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", "luafile "+drive)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "LSPKIT_NVIM_SPEC="+specFile, "XDG_STATE_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
			stdout, runErr := cmd.CombinedOutput()
			raw, err := os.ReadFile(spec.Out)
			if err != nil {
				t.Fatalf("nvim wrote no answers (%v): %v\n%s", runErr, err, stdout)
			}
			var out neovimOut
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatalf("answers: %v\n%s", err, raw)
			}
			if out.Error != "" || runErr != nil {
				t.Fatalf("nvim: %s (%v)\n%s", out.Error, runErr, stdout)
			}
			if len(out.Fixed) != 0 || !out.Stopped {
				t.Errorf("after the fix: %q; stopped: %v", out.Fixed, out.Stopped)
			}
			tc.want(t, out)
		})
	}
}
