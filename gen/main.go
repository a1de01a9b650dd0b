// Command gen generates the protocol package from the LSP meta model.
//
// Usage:
//
//	go run ./gen -model metaModel.json -out protocol
//
// It reads and validates the model (an unknown type kind, a dangling
// reference or a duplicate name is an error naming its JSON path), resolves
// every type to Go, and writes the *_gen.go files of the package. The output
// depends only on the model, so running it twice gives identical files.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	modelPath := flag.String("model", "metaModel.json", "the LSP meta model to read")
	out := flag.String("out", ".", "the directory of the package to write")
	pkg := flag.String("pkg", "protocol", "the package name to write")
	flag.Parse()
	if err := run(*modelPath, *out, *pkg); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(modelPath, out, pkg string) error {
	m, err := loadModel(modelPath)
	if err != nil {
		return err
	}
	return generate(m, out, pkg)
}
