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
	"strings"

	"github.com/lspkit/lspkit/client"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// The release's version, commit and date, set by the release build
// (.goreleaser.yaml's ldflags); empty in a go install or go build.
var releaseVersion, releaseCommit, releaseDate string

// built says what the binary was built from: the release's version,
// commit and date; else (go install, go build) the module's version and
// the commit and time the go command stamped from version control.
func built() (version, commit, date string) {
	if releaseVersion != "" {
		return strings.TrimPrefix(releaseVersion, "v"), releaseCommit, releaseDate
	}
	version = "devel"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return version, "", ""
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		version = strings.TrimPrefix(v, "v")
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.time":
			date = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				defer func() { commit += "+modified" }()
			}
		}
	}
	return version, commit, date
}

// version is the version the binary was built from (see built).
func version() string {
	v, _, _ := built()
	return v
}

// versionLine is what lspkit --version says: the version, and the commit
// and date it was built from where known.
func versionLine() string {
	v, commit, date := built()
	line := "lspkit " + v
	var from []string
	if commit != "" {
		from = append(from, "commit "+commit)
	}
	if date != "" {
		from = append(from, "built "+date)
	}
	if len(from) > 0 {
		line += " (" + strings.Join(from, ", ") + ")"
	}
	return line
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeUsage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "--version", "-version", "version":
		fmt.Fprintln(stdout, versionLine())
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
