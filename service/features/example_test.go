package features_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/features"
	"github.com/lspkit/lspkit/service/orchestrator"
)

// A Go program asks about code through the features over an orchestrator:
// navigation takes 1-based lines and columns in characters, or a symbol
// name on the line instead of the column.
func ExampleFeatures_Definition() {
	root, err := os.MkdirTemp("", "lspkit-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	for name, text := range map[string]string{
		"go.mod": "module example.com/demo\n\ngo 1.22\n",
		"lib.go": "package demo\n\n// Greeting says hello.\nfunc Greeting(name string) string { return \"hello, \" + name }\n",
		"use.go": "package demo\n\nfunc Use() string { return Greeting(\"x\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			panic(err)
		}
	}
	o, err := orchestrator.New(orchestrator.Options{Root: root})
	if err != nil {
		panic(err)
	}
	defer o.Shutdown(context.Background())

	res, err := features.New(o).Definition(context.Background(), api.PositionParams{File: "use.go", Line: 3, Symbol: "Greeting"})
	if err != nil {
		panic(err)
	}
	for _, l := range res.Locations {
		fmt.Printf("%s:%d:%d\n", l.File, l.Line, l.Character)
	}
	// Output:
	// lib.go:4:6
}
