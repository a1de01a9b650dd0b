package daemon_test

import (
	"context"
	"fmt"
	"log"

	"github.com/lspkit/lspkit/daemon"
	"github.com/lspkit/lspkit/service/api"
)

// A Go agent checks a file after writing it: start the daemon on the
// repository (lspkit on PATH), ask, print the findings or why the file
// could not be checked. README.md's Go recipe is this function's body.
func Example() {
	ctx := context.Background()
	d, err := daemon.Start(ctx, daemon.Options{Root: "."})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Stop(context.Background())

	res, err := d.Check(ctx, api.CheckParams{FilePath: "main.go"})
	if err != nil {
		log.Fatal(err)
	}
	if !res.Checked {
		fmt.Println("not checked:", res.Reason)
	}
	for _, f := range res.Diagnostics {
		fmt.Printf("%s:%d:%d: %s\n", f.File, f.Line, f.Character, f.Message)
	}
}
