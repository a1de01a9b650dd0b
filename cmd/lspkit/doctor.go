package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/registry"
)

// doctorReport is what lspkit doctor found; --json prints it as is.
type doctorReport struct {
	OK         bool              `json:"ok"`
	Root       string            `json:"root"`
	Config     doctorConfig      `json:"config"`
	Toolchains []doctorToolchain `json:"toolchains"`
	Servers    []doctorServer    `json:"servers"`
	Cache      doctorCache       `json:"cache"`
	Watch      doctorWatch       `json:"watch"`
}

// doctorConfig is the configuration in force and what is wrong with it.
type doctorConfig struct {
	Source      string   `json:"source"`
	Error       string   `json:"error,omitempty"`
	UnknownKeys []string `json:"unknownKeys,omitempty"`
	// Ignored is what a host's bootstrap set that lspkit did not take,
	// and server entries read a certain way, each with why.
	Ignored []string `json:"ignored,omitempty"`
}

// doctorToolchain is one program the servers are installed or run with.
type doctorToolchain struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Path    string `json:"path,omitempty"`
	// Problem is set when the toolchain is missing and a server this
	// root needs depends on it.
	Problem string `json:"problem,omitempty"`
}

// doctorServer is one built-in or configured server.
type doctorServer struct {
	ID       string `json:"id"`
	Language string `json:"language"`
	// State is found, installable (on first need, or by lspkit install),
	// missing or disabled.
	State   string `json:"state"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	Hint    string `json:"hint,omitempty"`
	// Needed is set when files under the root are of its types.
	Needed bool `json:"needed"`
	// Probe is how a found server's one-shot start went: doctor starts
	// each (initialize, then shutdown) before it calls it found.
	Probe   string `json:"probe,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// doctorCache is lspkit's user cache: the server store and its siblings.
type doctorCache struct {
	Dir   string `json:"dir"`
	Bytes int64  `json:"bytes"`
}

// doctorWatch is the system's file watch limit against the tree.
type doctorWatch struct {
	Limit       int    `json:"limit,omitempty"`
	Setting     string `json:"setting,omitempty"`
	Directories int    `json:"directories"`
	Budget      int    `json:"budget"`
	Note        string `json:"note,omitempty"`
	Problem     string `json:"problem,omitempty"`
}

// doctorScanLimit bounds the entries of the tree doctor looks at.
const doctorScanLimit = 200_000

// doctor says what lspkit needs here and what is missing. It starts each
// server it finds once, to know it runs, and installs nothing.
func doctor(args []string, stdout, stderr io.Writer) int {
	var opts doctorOptions
	fs := newFlags("doctor", opts.define)
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lspkit doctor: unexpected argument %q (see lspkit doctor --help)\n", fs.Arg(0))
		return exitUsage
	}
	c := &opts.common
	var r doctorReport
	cfg, _, err := c.load()
	if errors.Is(err, errNotADirectory) {
		fmt.Fprintf(stderr, "lspkit doctor: %v\n", err)
		return exitUsage
	}
	if c.root == "" { // the bootstrap did not parse: the working directory
		c.root, _ = os.Getwd()
	}
	r.Root = c.root
	r.Config = configFindings(c, cfg, err)
	if err != nil {
		cfg = config.Default()
	}
	dirs, seen, truncated := scanTree(c.root, cfg.Exclude)
	specs, notes, err := registry.Resolve(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit doctor: %v\n", err)
		return 1
	}
	for _, n := range notes {
		if n.Ignored {
			r.Config.Ignored = append(r.Config.Ignored, n.Text)
		}
	}
	store := registry.NewStore(registry.DefaultDir(), nil)
	r.Toolchains = toolchains()
	have := map[string]bool{}
	for _, t := range r.Toolchains {
		have[t.Name] = t.Path != ""
	}
	needs := map[string][]string{} // toolchain → needed servers depending on it
	for _, id := range slices.Sorted(maps.Keys(specs)) {
		s := serverFinding(store, specs[id], seen, have, cfg.AutoInstall)
		r.Servers = append(r.Servers, s)
		if s.Needed && s.State != "disabled" {
			for _, t := range toolchainsOf(specs[id]) {
				needs[t] = append(needs[t], id)
			}
		}
	}
	startEachServer(context.Background(), c.root, cfg, r.Servers)
	for i, t := range r.Toolchains {
		if t.Path == "" && len(needs[t.Name]) > 0 {
			r.Toolchains[i].Problem = fmt.Sprintf("needed by %s, which this root's files use", strings.Join(needs[t.Name], ", "))
		}
	}
	r.Cache = doctorCache{Dir: filepath.Dir(store.Dir()), Bytes: treeBytes(filepath.Dir(store.Dir()))}
	r.Watch = watchFindings(dirs, truncated, cfg.WatchBudget)
	r.OK = r.Config.Error == "" && len(r.Config.UnknownKeys) == 0 && len(r.Config.Ignored) == 0 && r.Watch.Problem == ""
	for _, t := range r.Toolchains {
		r.OK = r.OK && t.Problem == ""
	}
	for _, s := range r.Servers {
		r.OK = r.OK && s.Problem == ""
	}
	if opts.json {
		out, _ := json.Marshal(r, jsontext.WithIndent("  "))
		fmt.Fprintf(stdout, "%s\n", out)
	} else {
		r.write(stdout)
	}
	if !r.OK {
		return 1
	}
	return 0
}

// errNotADirectory is load's error for a root that is not a directory.
var errNotADirectory = errors.New("not a directory")

// configFindings says which configuration is in force and what in it
// lspkit does not know.
func configFindings(c *common, cfg config.Config, err error) doctorConfig {
	d := doctorConfig{Source: cfg.Source}
	if err != nil {
		d.Error = err.Error()
		var ce *config.Error
		if errors.As(err, &ce) {
			d.Source = ce.Source
		}
	}
	var data []byte
	switch {
	case c.config != "":
		data, _ = os.ReadFile(c.config)
	case filepath.Base(d.Source) == "lspkit.json" || strings.HasSuffix(d.Source, string(filepath.Separator)+"lspkit.json"):
		data, _ = os.ReadFile(filepath.Join(c.root, "lspkit.json"))
	}
	d.Ignored = cfg.Ignored // a bootstrap's: what it set that lspkit did not take
	if data != nil {
		d.UnknownKeys = config.UnknownKeys(data)
	}
	return d
}

// scanTree counts the root's directories (excluded ones left out) and
// notes the file names and extensions under it, up to doctorScanLimit
// entries.
func scanTree(root string, exclude []string) (dirs int, seen map[string]bool, truncated bool) {
	seen = map[string]bool{}
	entries := 0
	excluded := func(rel string) bool {
		for _, g := range exclude {
			if ok, _ := doublestar.Match(g, rel); ok {
				return true
			}
		}
		return false
	}
	filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: skipped, as the watcher skips it
		}
		if entries++; entries > doctorScanLimit {
			truncated = true
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if rel != "." && excluded(rel+"/x") {
				return filepath.SkipDir
			}
			dirs++
			return nil
		}
		if !excluded(rel) {
			seen[e.Name()] = true
			seen[strings.ToLower(filepath.Ext(e.Name()))] = true
		}
		return nil
	})
	return dirs, seen, truncated
}

// toolchainsOf names the toolchains a server is installed and run with.
func toolchainsOf(s *registry.Spec) []string {
	if s.Install == nil || s.Install.From == nil {
		return nil
	}
	switch s.Install.From.Kind {
	case "go":
		return []string{"go"}
	case "npm":
		return []string{"node", "npm"}
	}
	return nil
}

// serverFinding says whether a server is found, installable or missing,
// and whether that is a problem here.
func serverFinding(store *registry.Store, s *registry.Spec, seen map[string]bool, have map[string]bool, autoInstall bool) doctorServer {
	d := doctorServer{ID: s.ID, Language: s.Language, Version: s.Version()}
	d.Needed = slices.ContainsFunc(s.Extensions, func(e string) bool { return seen[e] }) ||
		slices.ContainsFunc(s.FileNames, func(n string) bool { return seen[n] })
	if s.RequireMarker && !slices.ContainsFunc(s.RootMarkers, func(m string) bool { return seen[m] }) {
		d.Needed = false // it runs only where its marker is (biome.json), and none is here
	}
	if !s.Enabled {
		d.State = "disabled"
		return d
	}
	if p, ok := store.Find(s); ok {
		d.State, d.Path = "found", p
		return d
	}
	toolsThere := true
	for _, t := range toolchainsOf(s) {
		toolsThere = toolsThere && have[t]
	}
	switch {
	case s.Install == nil:
		d.State = "missing"
		d.Hint = fmt.Sprintf("install %s and put it on PATH, or set lsp.servers.%s.command", s.Command, s.ID)
	case s.Install.From.Kind == "apt":
		d.State = "missing"
		d.Hint = fmt.Sprintf("%s (or lspkit install %s)", s.Install.From.Describe(), s.ID)
	case !toolsThere:
		d.State = "missing"
		d.Hint = fmt.Sprintf("install %s first, then lspkit install %s", strings.Join(toolchainsOf(s), " and "), s.ID)
	case autoInstall:
		d.State = "installable"
		d.Hint = fmt.Sprintf("installed on first need (%s), or now: lspkit install %s", s.Install.From.Describe(), s.ID)
		return d
	default:
		d.State = "installable"
		d.Hint = fmt.Sprintf("autoInstall is off: lspkit install %s (%s)", s.ID, s.Install.From.Describe())
	}
	if d.Needed {
		d.Problem = fmt.Sprintf("this root has %s files and %s is %s", s.Language, s.ID, d.State)
	}
	return d
}

// toolchains finds go, node and npm and asks each its version.
func toolchains() []doctorToolchain {
	var out []doctorToolchain
	for _, t := range []struct{ name, arg string }{{"go", "version"}, {"node", "--version"}, {"npm", "--version"}} {
		d := doctorToolchain{Name: t.name}
		if p, err := exec.LookPath(t.name); err == nil {
			d.Path = p
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if b, err := exec.CommandContext(ctx, p, t.arg).Output(); err == nil {
				d.Version = strings.TrimSpace(strings.TrimPrefix(string(b), "go version "))
			}
			cancel()
		}
		out = append(out, d)
	}
	return out
}

// treeBytes is the size of the files under dir (0 when it does not exist).
func treeBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// watchFindings compares the tree's directories with the watch budget and
// the system's limit.
func watchFindings(dirs int, truncated bool, budget int) doctorWatch {
	w := doctorWatch{Directories: dirs, Budget: budget}
	w.Limit, w.Setting = watchLimit()
	watched := min(dirs, budget)
	switch {
	case w.Setting == "":
		w.Note = "this system has no per-user watch limit to check"
	case watched > w.Limit:
		w.Problem = fmt.Sprintf("each server root watches up to %d directories but %s is %d: raise it (sysctl -w %s=524288) or lower watchBudget", watched, w.Setting, w.Limit, w.Setting)
	}
	if dirs > budget {
		w.Note = strings.TrimPrefix(w.Note+fmt.Sprintf("; %d directories are beyond watchBudget %d: they are polled, and answers say so", dirs-budget, budget), "; ")
	}
	if truncated {
		w.Note = strings.TrimPrefix(w.Note+fmt.Sprintf("; counted the first %d entries only", doctorScanLimit), "; ")
	}
	return w
}

// write prints the report: "!" marks what needs attention, "-" what is
// fine but worth knowing.
func (r *doctorReport) write(w io.Writer) {
	mark := func(problem string) string {
		if problem != "" {
			return "!"
		}
		return " "
	}
	fmt.Fprintf(w, "root: %s\n", r.Root)
	switch {
	case r.Config.Error != "":
		fmt.Fprintf(w, "! config: %s\n", r.Config.Error)
	default:
		fmt.Fprintf(w, "  config: %s\n", r.Config.Source)
	}
	for _, k := range r.Config.UnknownKeys {
		fmt.Fprintf(w, "! config: unknown key %s (docs/configuration.md lists the keys)\n", k)
	}
	for _, note := range r.Config.Ignored {
		fmt.Fprintf(w, "! config: %s\n", note)
	}
	fmt.Fprintln(w, "toolchains:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range r.Toolchains {
		switch {
		case t.Path == "":
			fmt.Fprintf(tw, "%s %s\tnot found\t%s\n", mark(t.Problem), t.Name, t.Problem)
		default:
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, t.Version, t.Path)
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "servers (* files of its type are under the root):")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, s := range r.Servers {
		needed := " "
		if s.Needed {
			needed = "*"
		}
		detail := s.Path
		switch {
		case s.State != "found" && s.Probe != "":
			detail = s.Hint + " (" + s.Probe + ")"
		case s.State != "found":
			detail = s.Hint
		}
		fmt.Fprintf(tw, "%s %s %s\t%s\t%s\t%s\n", mark(s.Problem), needed, s.ID, s.State, s.Version, detail)
	}
	tw.Flush()
	fmt.Fprintf(w, "  cache: %s (%.1f MiB)\n", r.Cache.Dir, float64(r.Cache.Bytes)/(1<<20))
	watch := fmt.Sprintf("watches: %d directories under the root, watchBudget %d", r.Watch.Directories, r.Watch.Budget)
	if r.Watch.Setting != "" {
		watch += fmt.Sprintf(", %s %d", r.Watch.Setting, r.Watch.Limit)
	}
	fmt.Fprintf(w, "%s %s\n", mark(r.Watch.Problem), watch)
	if r.Watch.Problem != "" {
		fmt.Fprintf(w, "! watches: %s\n", r.Watch.Problem)
	}
	if r.Watch.Note != "" {
		fmt.Fprintf(w, "- watches: %s\n", r.Watch.Note)
	}
	if r.OK {
		fmt.Fprintln(w, "all is well")
	} else {
		fmt.Fprintln(w, "something needs attention: the lines marked !")
	}
}

// doctorOptions are lspkit doctor's flags.
type doctorOptions struct {
	common
	json bool
}

func (o *doctorOptions) define(fs *flag.FlagSet) {
	o.common.define(fs)
	fs.BoolVar(&o.json, "json", false, "print the findings as JSON")
}
