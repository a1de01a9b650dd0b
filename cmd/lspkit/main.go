// Command lspkit is the lspkit daemon and its one-shot tools: serve (the
// daemon), mcp (an MCP server), check, status, doctor, install, conform and
// record. `lspkit --help` lists them, `lspkit COMMAND --help` gives one's
// flags (both made from the command table in commands.go), and
// docs/contract.md is the reference.
//
// main.go dispatches; each command is its own file (check.go, serve.go,
// lsp.go, mcp.go, shared.go, status.go, doctor.go, install.go, initcmd.go,
// hook.go, conform.go, record.go) with its flags, and common.go holds
// what they share: the common flags, logging, configuration loading and
// the orchestrator they start.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/lspkit/lspkit/client"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// version is the module version the binary was built from.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeUsage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "--version", "-version", "version":
		fmt.Fprintln(stdout, "lspkit", version())
		return 0
	case "--help", "-help", "-h", "help":
		if len(args) > 1 {
			if c, ok := lookup(args[1]); ok {
				c.writeHelp(stdout)
				return 0
			}
		}
		writeUsage(stdout)
		return 0
	case "guard":
		return client.GuardMain(args[1:]) // started by the daemon, not by people: not in the usage
	}
	if c, ok := lookup(args[0]); ok {
		return c.run(ctx, args[1:], stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "lspkit: unknown command %q (expected %s; see lspkit --help)\n", args[0], commandList())
	return exitUsage
}

// commandList names the commands people run: "check, mcp, … or record".
func commandList() string {
	var names []string
	for _, c := range commands() {
		if !c.hidden {
			names = append(names, c.name)
		}
	}
	return joinOr(names)
}
