package orchestrator_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/orchestrator"
)

// project writes a small Go module into a new directory and returns it.
func project(files map[string]string) string {
	dir, err := os.MkdirTemp("", "lspkit-example")
	if err != nil {
		panic(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			panic(err)
		}
	}
	return dir
}

// A Go program embeds lspkit without the daemon: an orchestrator over a
// workspace checks a file with every language server for its type (gopls
// here, started on first need) and says how each one finished.
func Example() {
	root := project(map[string]string{
		"go.mod":  "module example.com/demo\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {\n\tvar s string = 42\n\t_ = s\n}\n",
	})
	defer os.RemoveAll(root)
	o, err := orchestrator.New(orchestrator.Options{Root: root})
	if err != nil {
		panic(err)
	}
	defer o.Shutdown(context.Background())

	res, err := o.Check(context.Background(), api.CheckParams{FilePath: "main.go"})
	if err != nil {
		panic(err)
	}
	for _, d := range res.Diagnostics {
		fmt.Printf("%s:%d:%d: %s: %s\n", d.File, d.Line, d.Character, d.Severity, d.Message)
	}
	for _, s := range res.Servers {
		fmt.Printf("%s: %s\n", s.ID, s.Verdict)
	}
	fmt.Println("checked:", res.Checked)
	// Output:
	// main.go:4:17: error: cannot use 42 (untyped int constant) as string value in variable declaration
	// gopls: settled
	// checked: true
}

// A file no server checks is never "clean": Checked is false and Reason
// says why.
func ExampleOrchestrator_Check_notChecked() {
	root := project(map[string]string{"notes.txt": "just text\n"})
	defer os.RemoveAll(root)
	cfg := config.Default()
	cfg.Disabled = true
	o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg})
	if err != nil {
		panic(err)
	}
	res, err := o.Check(context.Background(), api.CheckParams{FilePath: "notes.txt"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Checked, res.Reason)
	// Output:
	// false LSP is disabled by configuration
}

// Status lists every server: those not started anywhere are idle.
func ExampleOrchestrator_Status() {
	root := project(nil)
	defer os.RemoveAll(root)
	o, err := orchestrator.New(orchestrator.Options{Root: root})
	if err != nil {
		panic(err)
	}
	for _, s := range o.Status() {
		if s.ID == "gopls" {
			fmt.Println(s.ID, s.Status)
		}
	}
	// Output:
	// gopls idle
}
