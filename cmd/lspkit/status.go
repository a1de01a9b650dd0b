package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/shared"
)

// status is `lspkit status`: every server of the root and the configuration
// in force, and the root's shared daemon — when one runs, its servers as it
// runs them — or that none runs.
func status(args []string, stdout, stderr io.Writer) int {
	var opts statusOptions
	fs := newFlags("status", opts.define)
	c, asJSON := &opts.common, &opts.json
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	log, err := logger(c.logLevel, slog.LevelWarn, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit status: %v\n", err)
		return exitUsage
	}
	cfg, bootCfg, err := c.load()
	if err != nil {
		fmt.Fprintf(stderr, "lspkit status: %v\n", err)
		return exitUsage
	}
	o, err := c.orchestratorWith(cfg, log, nil, 0)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit status: %v\n", err)
		return exitUsage
	}
	sts := o.Status()
	// A shared daemon of the root, when one runs, is the truth of what
	// runs: its servers, and itself as the lspkit entry.
	sharedLine := "shared daemon: none runs for this root"
	if e, err := c.endpoint(bootCfg); err != nil {
		sharedLine = "shared daemon: " + err.Error()
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		info, running, err := shared.Query(ctx, e, version(), c.root)
		cancel()
		switch {
		case err != nil:
			sharedLine = "shared daemon: " + err.Error()
		case running && !slices.Contains(info.Roots, c.root):
			// The repository's daemon runs for other worktrees: this
			// root's servers are not running in it.
			sharedLine = fmt.Sprintf("shared daemon: pid %d serves %s (other worktrees of the repository), not this root (socket %s)", info.PID, strings.Join(info.Roots, ", "), e.Socket())
		case running:
			sharedLine = fmt.Sprintf("shared daemon: pid %d since %s, %s (socket %s)", info.PID, info.Since.Local().Format(time.DateTime), clientsLine(info.Clients), e.Socket())
			if others := slices.DeleteFunc(slices.Clone(info.Roots), func(r string) bool { return r == c.root }); len(others) > 0 {
				sharedLine += fmt.Sprintf("; it serves %s too (other worktrees of the repository)", strings.Join(others, ", "))
			}
			sts = slices.DeleteFunc(info.Servers, func(s api.ServerStatus) bool { return s.ID == api.DaemonStatusID })
			i, _ := slices.BinarySearchFunc(sts, api.DaemonStatusID, func(s api.ServerStatus, id string) int { return strings.Compare(s.ID, id) })
			sts = slices.Insert(sts, i, api.ServerStatus{ID: api.DaemonStatusID, Status: api.StatusActive, ServerPID: info.PID, Root: info.Root, Reason: "shared daemon: " + clientsLine(info.Clients)})
		}
	}
	if *asJSON {
		out, _ := json.Marshal(sts, jsontext.WithIndent("  "))
		fmt.Fprintf(stdout, "%s\n", out)
		return 0
	}
	fmt.Fprintf(stdout, "root: %s\nconfig: %s\n%s\n", o.Root(), o.Config().Source, sharedLine)
	if o.Config().Disabled {
		fmt.Fprintln(stdout, "LSP disabled by configuration")
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tLANGUAGE\tSTATUS\tDETAIL")
	for _, s := range sts {
		detail := s.Reason
		if s.SharedWith > 0 {
			detail = strings.TrimPrefix(detail+fmt.Sprintf("; pid %d serves %d other %s too", s.ServerPID, s.SharedWith, api.Plural(s.SharedWith, "worktree", "worktrees")), "; ")
		}
		if sc := s.Sidecar; sc != nil {
			detail += fmt.Sprintf("; sidecar %s: %s", sc.Status, sc.Reason)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.ID, s.Language, s.Status, detail)
	}
	tw.Flush()
	return 0
}

// statusOptions are lspkit status's flags.
type statusOptions struct {
	common
	json bool
}

func (o *statusOptions) define(fs *flag.FlagSet) {
	o.common.define(fs)
	fs.BoolVar(&o.json, "json", false, "print every server's status as JSON")
}
