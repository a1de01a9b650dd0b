package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/service/registry"
)

// installOptions are lspkit install's flags.
type installOptions struct {
	tested bool
	ci     bool
}

func (o *installOptions) define(fs *flag.FlagSet) {
	fs.BoolVar(&o.tested, "tested", false, "install the servers lspkit's live tests use")
	fs.BoolVar(&o.ci, "ci", false, "with --tested, also the servers only CI's live suite uses")
}

// install installs servers at their pinned versions into the store: the
// named ones, or --tested, the set the live tests use. System packages
// (apt) are installed too; already installed ones are left alone.
func install(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var opts installOptions
	fs := newFlags("install", opts.define)
	tested := &opts.tested
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	specs, err := registry.Builtins()
	if err != nil {
		fmt.Fprintf(stderr, "lspkit install: %v\n", err)
		return 1
	}
	ids := fs.Args()
	if *tested {
		for _, id := range slices.Sorted(maps.Keys(specs)) {
			if specs[id].Tested && (specs[id].TestedIn == "" || opts.ci) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		fmt.Fprintln(stderr, "lspkit install: name the servers to install, or --tested (see lspkit --help)")
		return exitUsage
	}
	store := registry.NewStore(registry.DefaultDir(), func(p registry.Progress) {
		if p.Elapsed == 0 || p.Done {
			fmt.Fprintln(stderr, p.String())
		}
	})
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	fmt.Fprintf(stdout, "== language servers into %s\n", store.Dir())
	// Groups install concurrently (npm waits on the network while go
	// compiles); the report comes in the order asked.
	lines := make([]string, len(ids))
	var failed atomic.Bool
	var wg conc.WaitGroup
	for i, id := range ids {
		spec := specs[id]
		switch {
		case spec == nil:
			fmt.Fprintf(stderr, "lspkit install: no built-in server %q\n", id)
			failed.Store(true)
			continue
		case spec.Install == nil:
			fmt.Fprintf(stderr, "lspkit install: %s has no install recipe: install %s yourself\n", id, spec.Command)
			failed.Store(true)
			continue
		}
		wg.Go(func() {
			cached := store.Installed(spec)
			if err := store.Install(ctx, spec, true); err != nil {
				lines[i] = fmt.Sprintf("  %-14s failed: %v", id, err)
				failed.Store(true)
				return
			}
			state := "installed"
			if cached {
				state = "cached"
			}
			lines[i] = fmt.Sprintf("  %-14s %-42s %s", id, strings.Join(spec.Install.From.Packages, " "), state)
		})
	}
	if p := wg.WaitAndRecover(); p != nil {
		fmt.Fprintf(stderr, "lspkit install: %v\n", p.Value)
		return 1
	}
	for _, l := range lines {
		if l != "" {
			fmt.Fprintln(stdout, l)
		}
	}
	if failed.Load() {
		return 1
	}
	return 0
}

// progressBar draws auto-install progress on stderr: on a terminal one
// line redrawn each second with a moving bar; elsewhere (logs, pipes) the
// start, every tenth second and the end.
func progressBar(w io.Writer) func(registry.Progress) {
	tty := false
	if f, ok := w.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return func(p registry.Progress) {
		switch {
		case !tty:
			if p.Done || p.Elapsed == 0 || int(p.Elapsed.Seconds())%10 == 0 {
				fmt.Fprintln(w, p.String())
			}
		case p.Done:
			fmt.Fprintf(w, "\r\033[K%s\n", p)
		case p.Elapsed == 0:
			fmt.Fprintln(w, p.String())
		default:
			const width = 20
			pos := int(p.Elapsed.Seconds()) % width
			bar := strings.Repeat(" ", pos) + "=" + strings.Repeat(" ", width-pos-1)
			fmt.Fprintf(w, "\r\033[Klspkit: installing %s [%s] %.0f s", p.Server, bar, p.Elapsed.Seconds())
		}
	}
}
