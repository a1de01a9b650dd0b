package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/service/hostconfig"
	"github.com/lspkit/lspkit/service/registry"
)

// initCommand is `lspkit init --host NAME`: lspkit's entry in that host's
// configuration, and the step the host leaves to the user.
func initCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var opts initOptions
	fs := newFlags("init", opts.define)
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lspkit init: unexpected argument %q (see lspkit --help)\n", fs.Arg(0))
		return exitUsage
	}
	if opts.host == "" {
		fmt.Fprintf(stderr, "lspkit init: --host: name the host (%s)\n", joinOr(hostconfig.Hosts()))
		return exitUsage
	}
	root := opts.root
	if root == "" {
		root = "."
	}
	root, err := filepath.Abs(root)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lspkit init: root: %v\n", err)
		return exitUsage
	}
	if opts.url != "" {
		u, err := url.Parse(opts.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			fmt.Fprintf(stderr, "lspkit init: --url %q: want the http(s) URL lspkit mcp --http printed (…/mcp)\n", opts.url)
			return exitUsage
		}
		if opts.shared {
			fmt.Fprintln(stderr, "lspkit init: --url names a daemon elsewhere; --shared is for one the host starts")
			return exitUsage
		}
	}
	home, _ := os.UserHomeDir()
	configDir, _ := os.UserConfigDir()
	command, note := selfCommand()
	languages, err := builtinLanguages()
	if err != nil {
		fmt.Fprintf(stderr, "lspkit init: %v\n", err)
		return 1
	}
	res, err := hostconfig.Init(hostconfig.Options{Host: opts.host, Root: root, Home: home, ConfigDir: configDir,
		Command: command, Languages: languages, Shared: opts.shared, URL: opts.url, NoGrepHint: opts.noGrepHint, NoHooks: opts.noHooks, NoSkills: opts.noSkills, Each: opts.each, Force: opts.force, DryRun: opts.dryRun})
	switch {
	case errors.Is(err, hostconfig.ErrUnknownHost):
		fmt.Fprintf(stderr, "lspkit init: %v\n", err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "lspkit init: %v\n", err)
		return 1
	}
	for _, c := range res.Changes {
		name := c.File
		if rel, err := filepath.Rel(root, c.File); err == nil && filepath.IsLocal(rel) {
			name = rel
		}
		fmt.Fprintf(stdout, "%s: %s\n", name, c.Action)
		if opts.dryRun && c.Action != "would be unchanged" {
			fmt.Fprintf(stdout, "%s\n", indent(string(c.Content)))
		}
	}
	if note != "" {
		fmt.Fprintf(stdout, "\nNote: %s\n", note)
	}
	if res.Step != "" {
		fmt.Fprintf(stdout, "\nNext: %s\n", res.Step)
	}
	return 0
}

// builtinLanguages maps each extension the built-in servers serve to its
// language id (the first server's, by id), for hosts whose LSP client
// starts `lspkit lsp` by extension.
func builtinLanguages() (map[string]string, error) {
	specs, err := registry.Builtins()
	if err != nil {
		return nil, err
	}
	languages := map[string]string{}
	for _, id := range slices.Sorted(maps.Keys(specs)) {
		s := specs[id]
		for _, ext := range s.Extensions {
			if _, seen := languages[ext]; !seen && strings.HasPrefix(ext, ".") {
				languages[ext] = s.LanguageID("file" + ext)
			}
		}
	}
	return languages, nil
}

// selfCommand is how a host should start this lspkit: "lspkit" when that
// name on PATH is this executable, else its absolute path — unless this
// executable is a temporary build (go run), which will be gone: then
// "lspkit", with a note to install it.
func selfCommand() (command, note string) {
	exe, err := os.Executable()
	if err != nil {
		return "lspkit", ""
	}
	exe, _ = filepath.EvalSymlinks(exe)
	found, err := exec.LookPath("lspkit")
	if err == nil {
		if real, err := filepath.EvalSymlinks(found); err == nil && real == exe {
			return "lspkit", ""
		}
	}
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		if found != "" {
			return "lspkit", ""
		}
		return "lspkit", "lspkit is not on PATH, and this one is a temporary build (go run): install it (go install ./cmd/lspkit) so that the host finds it."
	}
	return exe, ""
}

// indent prefixes each line of s with four spaces.
func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ")
}

// joinOr is "a, b or c".
func joinOr(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// initOptions are lspkit init's flags.
type initOptions struct {
	host, root, url                                            string
	shared, noGrepHint, noHooks, noSkills, each, force, dryRun bool
}

func (o *initOptions) define(fs *flag.FlagSet) {
	fs.StringVar(&o.host, "host", "", "the agent host `NAME`: "+strings.Join(hostconfig.Hosts(), ", "))
	fs.StringVar(&o.root, "root", "", "the project's root `DIR` (default: the working directory)")
	fs.BoolVar(&o.shared, "shared", false, "have every session of the host attach to the root's shared daemon")
	fs.StringVar(&o.url, "url", "", "write the host's entry for a remote lspkit's MCP endpoint at URL (lspkit mcp --http), the token from $LSPKIT_TOKEN: claude-code, codex, gemini, opencode, cursor")
	fs.BoolVar(&o.noHooks, "no-hooks", false, "write the MCP entry alone, without the host's hooks (what the model hears after its edits, and the hold at the end of a turn with errors it introduced)")
	fs.BoolVar(&o.noSkills, "no-skills", false, "leave out lspkit's Agent Skills (when to ask lspkit, checked edits, after a burst of edits, renaming), written by default where the host reads skills")
	fs.BoolVar(&o.each, "each", false, "the hooks say after each edit what is new since the burst of edits began, rather than once when the model moves on")
	fs.BoolVar(&o.noGrepHint, "no-grep-hint", false, "claude-code: the hook adds nothing before a Grep for a symbol's name (by default it adds the lspkit calls that answer it)")
	fs.BoolVar(&o.force, "force", false, "replace an lspkit entry that differs from the one init writes")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print what would be written; write nothing")
}
