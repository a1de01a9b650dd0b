package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/conformance"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/registry"
)

// Exit statuses of lspkit conform.
const (
	conformClean      = 0
	conformViolations = 1
	conformCouldNot   = 2
)

// conform scores a language server against the protocol: a scripted live
// session (a built-in or configured server by id, or any command after --)
// or a recorded transcript, printed as a report card.
func conform(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var flagOpts conformOptions
	fs := newFlags("conform", flagOpts.define)
	c, file, asJSON, timeout, transcript, save := &flagOpts.common, &flagOpts.file, &flagOpts.json, &flagOpts.timeout, &flagOpts.transcript, &flagOpts.record
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "lspkit conform: "+format+"\n", args...)
		return conformCouldNot
	}
	v := protocol.NewValidator()
	print := func(card *conformance.Card) int {
		if *asJSON {
			out, _ := json.Marshal(card, jsontext.WithIndent("  "))
			fmt.Fprintf(stdout, "%s\n", out)
		} else {
			fmt.Fprint(stdout, card.Markdown())
		}
		switch {
		case card.Violations() > 0:
			return conformViolations
		case card.Stopped != "":
			// Nothing wrong was seen, but not everything was looked at:
			// not a clean card.
			fmt.Fprintf(stderr, "lspkit conform: the session stopped early (%s): the card is incomplete\n", card.Stopped)
			return conformCouldNot
		}
		return conformClean
	}
	if *transcript != "" {
		t, err := conformance.ReadTranscript(*transcript)
		if err != nil {
			return fail("%v", err)
		}
		card := conformance.ScoreTranscript(v, t, conformance.Facts{Timeout: *timeout})
		card.Lspkit = version()
		if card.Server == "" {
			card.Server = filepath.Base(*transcript)
		}
		return print(card)
	}
	if fs.NArg() == 0 {
		return fail("name a server (lspkit conform gopls) or give its command after -- (see lspkit --help)")
	}
	if *timeout <= 0 {
		return fail("--timeout must be positive")
	}
	if *file != "" && c.root == "" || *file == "" && c.root != "" {
		return fail("--root and --file go together: the workspace and the document in it to aim at")
	}
	cfg := config.Config{}
	if c.root != "" || c.config != "" {
		var err error
		if cfg, _, err = c.load(); err != nil {
			return fail("%v", err)
		}
	}
	specs, err := registry.Servers(cfg)
	if err != nil {
		return fail("%v", err)
	}
	store := registry.NewStore(registry.DefaultDir(), nil)
	opts := conformance.SessionOptions{Timeout: *timeout, Lspkit: version()}
	var spec *registry.Spec
	dashed := slices.Contains(args, "--")
	if dashed {
		opts.Command = client.Command{Path: fs.Arg(0), Args: fs.Args()[1:]}
		opts.Name = filepath.Base(fs.Arg(0))
		if *file == "" {
			return fail("a server given by its command needs --root and --file (the workspace and the document to aim at)")
		}
		for _, id := range slices.Sorted(maps.Keys(specs)) {
			if specs[id].Serves(*file) {
				spec = specs[id]
				break
			}
		}
	} else {
		if fs.NArg() != 1 {
			return fail("one server id, or a command after -- (got %s)", strings.Join(fs.Args(), " "))
		}
		var ok bool
		if spec, ok = specs[fs.Arg(0)]; !ok {
			return fail("no server %q (built-in: %s; or give a command after --)", fs.Arg(0), strings.Join(slices.Sorted(maps.Keys(specs)), ", "))
		}
		path, found := store.Find(spec)
		if !found {
			hint := "lspkit install " + spec.ID
			if spec.Install == nil {
				hint = "install " + spec.Command + " and put it on PATH"
			}
			return fail("%s is not installed (%s not found): %s", spec.ID, spec.Command, hint)
		}
		opts.Command = client.Command{Path: path, Args: spec.Args}
		opts.Name = spec.ID
		if v := spec.Version(); v != "" {
			opts.Name += " (" + v + ")" // for a server that does not name itself
		}
		opts.InitializationOptions = store.Expand(spec.InitializationOptions)
		opts.Settings = store.Expand(spec.Settings)
		for k, v := range spec.Env {
			opts.Command.Env = append(opts.Command.Env, k+"="+v)
		}
		opts.Command.Env = store.OnPath(opts.Command.Env)
	}
	if c.root != "" {
		opts.Root, opts.File = c.root, *file
		if filepath.IsAbs(*file) {
			rel, err := filepath.Rel(c.root, *file)
			if err != nil || strings.HasPrefix(rel, "..") {
				return fail("--file %s is outside --root %s", *file, c.root)
			}
			opts.File = rel
		}
	} else {
		dir, err := os.MkdirTemp("", "lspkit-conform-")
		if err != nil {
			return fail("%v", err)
		}
		defer os.RemoveAll(dir)
		language := spec.Language
		f, ok, err := conformance.WriteWorkspace(dir, language)
		switch {
		case err != nil:
			return fail("%v", err)
		case !ok:
			return fail("no sample workspace for %s (%s): give --root and --file of a project of yours (samples: %s)", spec.ID, language, strings.Join(conformance.Languages(), ", "))
		}
		opts.Root, opts.File = dir, f
	}
	if root, err := filepath.EvalSymlinks(opts.Root); err == nil {
		opts.Root = root
	}
	opts.Command.Dir = opts.Root
	opts.Command.Guard = guard()
	opts.LanguageID = "plaintext"
	if spec != nil {
		opts.LanguageID = spec.LanguageID(opts.File)
	}
	if *save != "" {
		f, err := os.Create(*save)
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		opts.Transcript = f
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	card, err := conformance.RunSession(ctx, v, opts)
	if errors.Is(err, conformance.ErrCouldNotRun) {
		return fail("%s: %v", opts.Name, err)
	}
	if err != nil {
		return fail("%v", err)
	}
	return print(card)
}

// conformOptions are lspkit conform's flags.
type conformOptions struct {
	common
	file       string
	json       bool
	timeout    time.Duration
	transcript string
	record     string
}

func (o *conformOptions) define(fs *flag.FlagSet) {
	o.common.define(fs)
	fs.StringVar(&o.file, "file", "", "the document to aim the requests at, `PATH` relative to --root (with --root)")
	fs.BoolVar(&o.json, "json", false, "print the card as JSON")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "the time `D` each request must be answered in")
	fs.StringVar(&o.transcript, "transcript", "", "score this recorded transcript `FILE` (JSON Lines) instead of a live server")
	fs.StringVar(&o.record, "record", "", "also write the live session's transcript to this `FILE`")
}
