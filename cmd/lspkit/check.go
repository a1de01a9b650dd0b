package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/service/api"
)

// checkOptions are lspkit check's flags.
type checkOptions struct {
	common
	json      bool
	severity  string
	timeoutMS int
}

func (o *checkOptions) define(fs *flag.FlagSet) {
	o.common.define(fs)
	fs.BoolVar(&o.json, "json", false, "print the findings and each file's verdict as JSON")
	fs.StringVar(&o.severity, "severity", "", "the severities to report, a comma-separated `LIST` of error, warning, info, hint (default: the configuration's includeSeverities, error)")
	fs.IntVar(&o.timeoutMS, "timeout", 0, "how long to wait for each server, in milliseconds `MS` (default: the configuration's diagnosticTimeout, firstTouchTimeout for a server's first file)")
}

// The exit statuses of lspkit check.
const (
	exitClean     = 0 // every file checked by every server for it; nothing at the requested severities
	exitFindings  = 1 // findings at the requested severities
	exitBadInput  = 2 // a missing path, a directory, a file outside the root, bad flags or configuration
	exitUnchecked = 3 // some file not (fully) checked, and no findings
)

// checkReport is lspkit check --json's output.
type checkReport struct {
	Diagnostics []api.Diagnostic `json:"diagnostics"`
	Files       []fileVerdict    `json:"files"`
}

// fileVerdict is one file's verdict in a check report.
type fileVerdict struct {
	File    string             `json:"file"`
	Checked bool               `json:"checked"`
	Reason  string             `json:"reason,omitempty"`
	Servers []api.ServerResult `json:"servers"`
}

func check(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var opts checkOptions
	fs := newFlags("check", opts.define)
	c, asJSON, severity, timeoutMS := &opts.common, &opts.json, &opts.severity, &opts.timeoutMS
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "lspkit check: no FILE given (see lspkit --help)")
		return exitUsage
	}
	if *timeoutMS < 0 {
		fmt.Fprintln(stderr, "lspkit check: --timeout: must be ≥ 0")
		return exitUsage
	}
	var severities []string
	if *severity != "" {
		severities = strings.Split(*severity, ",")
		for _, s := range severities {
			if !api.ValidSeverity(s) {
				fmt.Fprintf(stderr, "lspkit check: --severity: unknown severity %q (expected error, warning, info or hint)\n", s)
				return exitUsage
			}
		}
	}
	// A person reads check's stderr: one line per problem, below. What
	// the servers and lspkit log (a server's stderr, its backtraces) is
	// there with --log-level.
	log, err := logger(c.logLevel, logQuiet, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit check: %v\n", err)
		return exitUsage
	}
	o, err := c.orchestrator(log, progressBar(stderr), 0)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit check: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	// A one-shot check has nothing for its servers to save: it kills them
	// (SIGKILL to each process group) as it exits instead of waiting for a
	// polite shutdown.
	defer o.Kill()

	// Bad input is said first, one line per file; the other files are
	// still checked, so nothing is lost.
	code := exitClean
	var files []string
	for _, file := range fs.Args() {
		if why := badPath(o.Root(), file); why != "" {
			fmt.Fprintf(stderr, "lspkit check: %s: %s\n", file, why)
			code = exitBadInput
			continue
		}
		files = append(files, file)
	}
	// Files are checked at once: their servers work in parallel, and a
	// check costs the slowest file, not the sum.
	results := make([]api.CheckResult, len(files))
	errs := make([]error, len(files))
	var wg conc.WaitGroup
	for i, file := range files {
		abs, _ := filepath.Abs(file)
		wg.Go(func() {
			results[i], errs[i] = o.Check(ctx, api.CheckParams{FilePath: abs, TimeoutMs: *timeoutMS, Severities: severities})
		})
	}
	if p := wg.WaitAndRecover(); p != nil {
		fmt.Fprintf(stderr, "lspkit check: internal error: %v\n", p.Value)
		return 1
	}
	report := checkReport{Diagnostics: []api.Diagnostic{}, Files: []fileVerdict{}}
	unchecked := false
	for i, file := range files {
		res := results[i]
		v := fileVerdict{File: file, Checked: res.Checked, Reason: res.Reason, Servers: res.Servers}
		if rel, err := filepath.Rel(o.Root(), mustAbs(file)); err == nil {
			v.File = filepath.ToSlash(rel)
		}
		if errs[i] != nil {
			v.Reason = errs[i].Error()
		}
		if !v.Checked {
			unchecked = true
			fmt.Fprintf(stderr, "lspkit check: %s: not checked: %s\n", printable(file), printable(v.Reason))
		}
		report.Files = append(report.Files, v)
		report.Diagnostics = append(report.Diagnostics, res.Diagnostics...)
	}
	if *asJSON {
		out, _ := json.Marshal(report, jsontext.WithIndent("  "))
		fmt.Fprintf(stdout, "%s\n", out)
	} else {
		wd, _ := os.Getwd()
		for _, d := range report.Diagnostics {
			path := filepath.Join(o.Root(), filepath.FromSlash(d.File))
			if r, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(r, "..") {
				path = r
			}
			source := d.Source
			if source == "" {
				source = d.Server
			}
			fmt.Fprintf(stdout, "%s:%d:%d: %s: %s [%s]\n", printable(path), d.Line, d.Character, d.Severity, printable(d.Message), source)
		}
	}
	switch {
	case code == exitBadInput:
		return exitBadInput
	case len(report.Diagnostics) > 0:
		return exitFindings
	case unchecked:
		return exitUnchecked
	}
	return exitClean
}
