package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/hooks"
)

// hookCommand is `lspkit hook HOST [EVENT]`: an agent host's hook. It
// reads the host's payload on stdin (service/hooks), tells the root's
// shared daemon what the model's tool call does (lsp/burst: started if
// none runs, attached in-process, so that an edit's own hook answers in
// milliseconds), and prints what the model should hear in the host's own
// shape: nothing after an edit; the errors the burst of edits introduced
// when the model turns to a tool that edits nothing (computed before that
// tool runs, read with its result); the turn held once with the list when
// it would end with errors new since it began. --each says after each edit
// what is new since the burst began instead.
//
// The burst's state lives in the shared daemon, whatever the MCP entry
// says: each hook is a process of its own.
func hookCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opts hookOptions
	fs := newFlags("hook", opts.define)
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	rest := fs.Args()
	if len(rest) > 1 { // flags after the host's name
		if code, ok := parse(fs, rest[1:], stdout, stderr); !ok {
			return code
		}
		rest = append([]string{rest[0]}, fs.Args()...)
	}
	if len(rest) == 0 {
		fmt.Fprintf(stderr, "lspkit hook: name the host: %s\n", strings.Join(hooks.Hosts, ", "))
		return exitUsage
	}
	host, event := rest[0], ""
	if len(rest) > 1 {
		event = rest[1]
	}
	if !slices.Contains(hooks.Hosts, host) || len(rest) > 2 {
		fmt.Fprintf(stderr, "lspkit hook: unknown host %q (expected %s)\n", strings.Join(rest, " "), strings.Join(hooks.Hosts, ", "))
		return exitUsage
	}
	data, err := io.ReadAll(io.LimitReader(stdin, 16<<20))
	if err != nil {
		fmt.Fprintf(stderr, "lspkit hook: reading the hook's input: %v\n", err)
		return exitUsage
	}
	ev, err := hooks.Read(host, event, data, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit hook: %v\n", err)
		return exitUsage
	}
	if ev.Kind == hooks.Ignored {
		return 0
	}
	c := &opts.common
	if c.root == "" {
		c.root = ev.Project
	}
	if c.root == "" {
		c.root = ev.CWD
	}
	if host == hooks.ClaudeCode && ev.Answer == hooks.Copilot && copilotHooked(c.root) {
		return 0 // Copilot CLI runs lspkit's own hooks for it too: one is enough
	}
	_, bootCfg, err := c.load()
	if err != nil {
		fmt.Fprintf(stderr, "lspkit hook: %v\n", err)
		return exitUsage
	}
	root, err := filepath.EvalSymlinks(mustAbs(c.root))
	if err != nil {
		root = mustAbs(c.root)
	}
	c.root = root
	var files []string
	for _, f := range ev.Files {
		if !filepath.IsAbs(f) && ev.CWD != "" {
			f = filepath.Join(ev.CWD, f)
		}
		files = append(files, f)
	}
	before := map[string]string{}
	for f, text := range ev.Before {
		if !filepath.IsAbs(f) && ev.CWD != "" {
			f = filepath.Join(ev.CWD, f)
		}
		before[f] = text
	}
	p := api.BurstParams{Session: ev.Session, Files: files, Before: before, Each: opts.each}
	switch {
	case ev.Kind == hooks.BeforeTool && ev.Edit:
		p.Event = api.BurstBeforeEdit
	case ev.Kind == hooks.BeforeTool:
		p.Event = api.BurstEnd
	case ev.Kind == hooks.AfterTool && ev.Edit:
		p.Event = api.BurstAfterEdit
	case ev.Kind == hooks.AfterTool:
		p.Event = api.BurstAfter
	default:
		p.Event = api.BurstStop
	}
	d, err := c.attach(ctx, bootCfg)
	if err != nil {
		return hookFailed(ev, root, err, stdout, stderr)
	}
	defer d.Stop(context.Background())
	var answer hooks.Answer
	hint := make(chan string, 1)
	if grep := ev.Kind == hooks.BeforeTool && ev.Tool == "Grep" && host == hooks.ClaudeCode && !opts.noGrepHint; grep {
		// The Grep hint while the burst ends: both ask the warm servers.
		go func() { hint <- grepHint(ctx, d, opts.hintWithin, ev.Pattern) }()
	} else {
		hint <- ""
	}
	res, err := d.Burst(ctx, p)
	answer.Context = <-hint
	if err != nil {
		return hookFailed(ev, root, err, stdout, stderr)
	}
	switch {
	case res.Hold:
		answer.Hold = res.Text
	case ev.Kind == hooks.AfterTool:
		answer.Context = res.Text
	}
	out, code := hooks.Write(ev, answer)
	stdout.Write(out)
	return code
}

// hookFailed says, when lspkit could not be asked, what that means for
// the model: with the result of its next tool, once a session, that its
// edits could not be checked and why; nothing before a tool (said after
// it), and a turn is never held for lspkit's own failure.
func hookFailed(ev hooks.Event, root string, err error, stdout, stderr io.Writer) int {
	fmt.Fprintf(stderr, "lspkit hook: %v\n", err)
	if ev.Kind != hooks.AfterTool {
		return 0
	}
	// Said once: a daemon that cannot start would fail every hook.
	sum := sha256.Sum256([]byte(ev.Answer + "\x00" + ev.Session + "\x00" + root))
	marker := filepath.Join(os.TempDir(), "lspkit-hook-failed-"+hex.EncodeToString(sum[:8]))
	f, ferr := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if ferr != nil {
		return 0
	}
	f.Close()
	out, code := hooks.Write(ev, hooks.Answer{Context: fmt.Sprintf("LSP could not check your edits (lspkit's hook could not reach its daemon): %v\n", err)})
	stdout.Write(out)
	return code
}

// copilotHooked reports whether root has lspkit's own Copilot CLI hooks
// (lspkit init --host copilot), which Copilot runs beside Claude Code's.
func copilotHooked(root string) bool {
	data, err := os.ReadFile(filepath.Join(root, ".github", "hooks", "lspkit.json"))
	return err == nil && strings.Contains(string(data), "hook copilot")
}

// hookOptions are lspkit hook's flags.
type hookOptions struct {
	common
	each       bool
	noGrepHint bool
	shared     bool // always: the hooks keep their state in the shared daemon
	hintWithin time.Duration
}

func (o *hookOptions) define(fs *flag.FlagSet) {
	o.common.define(fs)
	fs.BoolVar(&o.each, "each", false, "say after each edit what is new since the burst of edits began (with the files it broke), rather than once when the burst ends")
	fs.BoolVar(&o.noGrepHint, "no-grep-hint", false, "claude-code: add nothing before a Grep for a symbol's name")
	fs.BoolVar(&o.shared, "shared", true, "(always) the hooks keep the bursts in the root's shared daemon, started if none runs")
	fs.DurationVar(&o.hintWithin, "hint-within", defaultHintWithin, "how long a Grep's hint may look for its symbol before the Grep runs without one")
}
