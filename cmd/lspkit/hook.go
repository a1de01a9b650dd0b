package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	lspdaemon "github.com/lspkit/lspkit/daemon"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/registry"
)

// The exit statuses of lspkit hook (Claude Code's hook protocol).
const (
	hookSilent = 0 // nothing to say: clean, or a file lspkit does not check
	hookBlock  = 2 // findings or "could not fully check", on stderr, for the model
)

// hookPayload is what Claude Code sends a hook on stdin: the event, the
// tool call, and the session's working directory.
type hookPayload struct {
	CWD       string `json:"cwd"`
	Event     string `json:"hook_event_name"`
	ToolName  string `json:"tool_name"`
	ToolInput struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Pattern      string `json:"pattern"` // Grep's
	} `json:"tool_input"`
}

// hookCommand is `lspkit hook claude-code`: Claude Code's PostToolUse hook
// after a tool that writes a file. It checks the file and exits 2 with the
// findings, or with "could not fully check" and the reason, on stderr (a
// blocking error Claude shows the model); it exits 0, silent, when the file
// is clean and when it is none of lspkit's to check: no server handles its
// type, excluded by the configuration, outside the root, gone, or no file
// in the tool call at all. With --shared the check goes through the root's
// shared daemon (started if none runs), so that the servers stay warm from
// one edit to the next.
func hookCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opts hookOptions
	fs := newFlags("hook", opts.define)
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	host, rest := fs.Arg(0), fs.Args()
	if len(rest) > 1 { // flags after the host's name
		if code, ok := parse(fs, rest[1:], stdout, stderr); !ok {
			return code
		}
		rest = append([]string{host}, fs.Args()...)
	}
	switch {
	case host == "":
		fmt.Fprintln(stderr, "lspkit hook: name the host: lspkit hook claude-code")
		return exitUsage
	case host != "claude-code" || len(rest) > 1:
		fmt.Fprintf(stderr, "lspkit hook: unknown host %q (expected claude-code)\n", strings.Join(rest, " "))
		return exitUsage
	}
	data, err := io.ReadAll(io.LimitReader(stdin, 16<<20))
	if err != nil {
		fmt.Fprintf(stderr, "lspkit hook: reading the hook's input: %v\n", err)
		return exitUsage
	}
	var in hookPayload
	if err := json.Unmarshal(data, &in, json.RejectUnknownMembers(false)); err != nil {
		fmt.Fprintf(stderr, "lspkit hook: the hook's input is not Claude Code's JSON: %v\n", err)
		return exitUsage
	}
	grep := in.Event == "PreToolUse" && in.ToolName == "Grep"
	file := in.ToolInput.FilePath
	if file == "" {
		file = in.ToolInput.NotebookPath
	}
	if file == "" && !grep || in.Event == "PreToolUse" && !grep {
		return hookSilent // a tool that names no file; before a tool other than Grep
	}
	c := &opts.common
	if c.root == "" {
		c.root = os.Getenv("CLAUDE_PROJECT_DIR")
	}
	if c.root == "" {
		c.root = in.CWD
	}
	if !filepath.IsAbs(file) && in.CWD != "" {
		file = filepath.Join(in.CWD, file)
	}
	if _, _, err := c.load(); err != nil {
		fmt.Fprintf(stderr, "lspkit hook: %v\n", err)
		return exitUsage
	}
	root, err := filepath.EvalSymlinks(mustAbs(c.root))
	if err != nil {
		root = mustAbs(c.root)
	}
	if grep {
		return grepHint(ctx, &opts, root, in.ToolInput.Pattern, stdout)
	}
	// Nothing of lspkit's, said before any server starts: a file outside
	// the root, or gone. Anything else the check answers, with its reason.
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) || outsideRoot(root, file) {
		return hookSilent
	}
	res, err := hookCheck(ctx, &opts, root, mustAbs(file), stderr)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "lspkit could not check %s: %v\n", printable(file), err)
		return hookBlock
	case res.Skipped != "":
		return hookSilent
	case len(res.Diagnostics) > 0:
		fmt.Fprintf(stderr, "LSP errors in %s, please fix:\n", printable(relTo(root, file)))
		for _, d := range res.Diagnostics {
			fmt.Fprintf(stderr, "%s:%d:%d: %s: %s [%s]\n", printable(d.File), d.Line, d.Character, d.Severity, printable(api.FeedbackMessage(d.Message)), d.Source)
		}
		if !res.Checked {
			fmt.Fprintf(stderr, "(not fully checked: %s)\n", printable(res.Reason))
		}
		return hookBlock
	case !res.Checked:
		fmt.Fprintf(stderr, "lspkit could not fully check %s: %s\n", printable(relTo(root, file)), printable(res.Reason))
		return hookBlock
	}
	return hookSilent
}

// hookCheck checks file: in a one-shot orchestrator, or through the root's
// shared daemon.
func hookCheck(ctx context.Context, opts *hookOptions, root, file string, stderr io.Writer) (api.CheckResult, error) {
	c := &opts.common
	if opts.shared {
		exe, err := os.Executable()
		if err != nil {
			return api.CheckResult{}, err
		}
		d, err := lspdaemon.Start(ctx, lspdaemon.Options{Binary: exe, Root: root, Config: c.config, Shared: true})
		if err != nil {
			return api.CheckResult{}, err
		}
		defer d.Stop(context.Background())
		return d.Check(ctx, api.CheckParams{FilePath: file})
	}
	log, err := logger(c.logLevel, slog.LevelError, stderr)
	if err != nil {
		return api.CheckResult{}, err
	}
	c.root = root
	o, err := c.orchestrator(log, func(registry.Progress) {}, 0)
	if err != nil {
		return api.CheckResult{}, err
	}
	defer o.Kill()
	res, err := o.Check(ctx, api.CheckParams{FilePath: file})
	if err != nil && errors.Is(err, context.Canceled) {
		return res, fmt.Errorf("cancelled")
	}
	return res, err
}

// relTo is file relative to root when it is inside it.
func relTo(root, file string) string {
	if r, err := filepath.Rel(root, mustAbs(file)); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return file
}

// hookOptions are lspkit hook's flags.
type hookOptions struct {
	common
	shared     bool
	hintWithin time.Duration
}

func (o *hookOptions) define(fs *flag.FlagSet) {
	o.common.define(fs)
	fs.BoolVar(&o.shared, "shared", false, "check through the workspace's shared daemon, starting it if none runs")
	fs.DurationVar(&o.hintWithin, "hint-within", defaultHintWithin, "how long a Grep's hint may look for its symbol before the Grep runs without one")
}
