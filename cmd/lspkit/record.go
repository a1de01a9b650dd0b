package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/lspkit/lspkit/conformance"
)

// recordOptions are lspkit record's flags.
type recordOptions struct {
	out string
}

func (o *recordOptions) define(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "out", "transcript.jsonl", "the transcript `FILE` to write")
}

// record runs a server behind a recording proxy.
func record(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opts recordOptions
	fs := newFlags("record", opts.define)
	out := &opts.out
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "lspkit record: no server command after -- (see lspkit --help)")
		return exitUsage
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit record: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	err = conformance.Record(ctx, conformance.NewWriter(f), stdin, stdout, stderr, fs.Args())
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		fmt.Fprintf(stderr, "lspkit record: %v\n", err)
		return 1
	}
	return 0
}
