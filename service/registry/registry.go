// Package registry knows lspkit's language servers: the built-ins, read
// from the embedded servers.json (the one place their commands, file types,
// root markers, settings and pinned install recipes are written), with the
// configuration's additions and overrides applied; and the server store,
// where installed servers live, how a command is found and how a recipe is
// installed.
package registry

import (
	_ "embed"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/service/config"
)

//go:embed servers.json
var serversJSON []byte

// Spec is everything lspkit knows about one language server.
type Spec struct {
	ID       string            `json:"id"`
	Language string            `json:"language"` // for status: "go", "typescript", …
	Command  string            `json:"command"`  // an absolute path, or a name looked up on PATH and in the store
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	// GoRuntime marks a server written in Go: under a memory bound
	// (maxServerMemoryMB, maxMemoryMB) lspkit gives it the bound as its
	// runtime's soft limit (GOMEMLIMIT), so that it collects its garbage
	// before the bound makes lspkit restart or stop it.
	GoRuntime bool `json:"goRuntime,omitempty"`
	// Extensions (with the dot) and exact file names (Dockerfile) it serves.
	Extensions []string `json:"extensions"`
	FileNames  []string `json:"fileNames,omitempty"`
	// LanguageIDs maps an extension or file name to the LSP language id;
	// unlisted ones use Language.
	LanguageIDs map[string]string `json:"languageIds,omitempty"`
	// RootMarkers are the files or directories whose nearest ancestor
	// directory becomes the server's root.
	RootMarkers []string `json:"rootMarkers,omitempty"`
	// RequireMarker keeps the server off files with no marker above them
	// (eslint without an eslint config).
	RequireMarker bool `json:"requireMarker,omitempty"`
	// Roots says how many processes serve the roots the markers make:
	// "" one per root; RootsFolders one for them all, each root a
	// workspace folder (when the server takes folder changes, as its
	// capabilities say at start; else one per root again); RootsOutermost
	// one per outermost root — the server finds each file's project
	// itself, as tsserver does from a monorepo's top.
	Roots string `json:"roots,omitempty"`
	// DefaultDisabled servers run only when the configuration enables them
	// (alternatives to a default one: TypeScript 7, basedpyright).
	DefaultDisabled bool `json:"defaultDisabled,omitempty"`
	// InitializationOptions and Settings (what workspace/configuration
	// answers); "${servers}" in them stands for the store's directory.
	InitializationOptions jsontext.Value `json:"initializationOptions,omitempty"`
	Settings              jsontext.Value `json:"settings,omitempty"`
	// CompileCommands: for a root without a compilation database
	// (compile_commands.json at the root or in build/), lspkit writes one
	// listing every C-family source file under the root, with the flags of
	// the root's compile_flags.txt, into its cache and points the server
	// at it with CompileCommandsFlag, so that clangd's background index
	// covers the whole project (it indexes the database's files; a
	// compile_flags.txt lists none). Off when Args turn the index off.
	CompileCommands bool `json:"compileCommands,omitempty"`
	// Impact says how the files that depend on a changed file are found
	// (the Impact… constants); empty: lspkit knows no way for this server,
	// and a check's impact says so.
	Impact string `json:"impact,omitempty"`
	// Alternatives are commands that serve when Command is absent: a
	// distribution's versioned names (clangd-19, clangd-18, …).
	Alternatives []string `json:"alternatives,omitempty"`
	// Settle says how to know the server is done with a text, when its
	// diagnostics alone do not say (client.SettlePolicy); nil waits for
	// them as the protocol allows.
	Settle *Settle `json:"settle,omitempty"`
	// Sidecar is a helper command run beside the server, or nil (see
	// config.Sidecar).
	Sidecar *config.Sidecar `json:"-"`
	// Install is how to install a pinned version, or nil.
	Install *Recipe `json:"install,omitempty"`
	// Helpers are other programs the server uses, installed with it
	// (shellcheck for bash-language-server's diagnostics).
	Helpers []*Recipe `json:"helpers,omitempty"`
	// Tested marks the servers the live test suite runs against.
	Tested bool `json:"tested,omitempty"`
	// TestedIn says where a tested server's live rows run: "" in the test
	// command (scripts/test.sh), TestedInCI in CI's live suite alone
	// (.ci/run), which keeps the test command within its budget.
	TestedIn string `json:"testedIn,omitempty"`
	// Enabled is false when the configuration disables it (or it is off by
	// default and not enabled).
	Enabled bool `json:"-"`
}

// TestedInCI is Spec.TestedIn for servers live-tested in CI's suite alone.
const TestedInCI = "ci"

// How a server's processes serve roots (Spec.Roots).
const (
	RootsFolders   = "folders"
	RootsOutermost = "outermost"
)

// How a server's dependents are found (Spec.Impact).
const (
	// ImpactPackageReferences: references to the Go package clause, which
	// gopls answers with the files of the package and their importers.
	ImpactPackageReferences = "packageReferences"
	// ImpactFileReferences: tsserver's fileReferences, the importers of a
	// file.
	ImpactFileReferences = "fileReferences"
	// ImpactPythonImports and ImpactIncludes: lspkit reads the import
	// statements or #include directives of the server's files (the named
	// last resort: the server answers no such question).
	ImpactPythonImports = "pythonImports"
	ImpactIncludes      = "includes"
	// ImpactSelf: a file's findings depend on that file alone (linters,
	// data and markup languages): a change affects no other file.
	ImpactSelf = "self"
)

// Settle is a server's way of saying it is done with a text.
type Settle struct {
	// Command is run (workspace/executeCommand) after each change: when it
	// returns, the server has published every diagnostic for the document
	// (gopls.diagnose_files). "${uri}" and "${path}" in Arguments stand for
	// the document; "${uris}", quotes included, for the JSON array of the
	// documents one run answers for, which lets a check of many files (an
	// impact's dependents) run the command once for them all.
	Command   string         `json:"command,omitempty"`
	Arguments jsontext.Value `json:"arguments,omitempty"`
	// TSServer asks typescript-language-server's tsserver for the
	// document's diagnostics directly (typescript.tsserverRequest), since it
	// publishes nothing when an edit leaves them unchanged.
	TSServer bool `json:"tsserver,omitempty"`
	// SkipsSameText says the server ignores a change that leaves the text
	// as it was (clangd), so re-checking an unchanged file takes a real
	// change first.
	SkipsSameText bool `json:"skipsSameText,omitempty"`
	// SaveRebuildsAll says a didSave has the server rebuild every file it
	// has open and means nothing for the file saved (clangd): a file's
	// saved text is checked without one, and didSave is sent only to ask
	// for that rebuild (after a file it may include changed).
	SaveRebuildsAll bool `json:"saveRebuildsAll,omitempty"`
	// SavedOnly says the server analyses a file's saved content only (on
	// open and save): a check of text given instead of the disk's cannot
	// be answered, and says so.
	SavedOnly bool `json:"savedOnly,omitempty"`
	// PullDuringWork says a pull answer for a version is the whole answer
	// even while the server reports work running (pyright: its pull
	// analyses the file asked for on demand, while its background
	// analysis's progress, "1 file to analyze", was seen to run for
	// minutes after a check's dependents were opened and closed).
	PullDuringWork bool `json:"pullDuringWork,omitempty"`
	// PublishDuringWork says a publish for a version is the whole answer
	// even while the server reports work running (clangd with --sync: one
	// publish per version, from the whole file; its only progress is its
	// background index, which a compile command changed for a what-if's
	// includers sets to index them all again).
	PublishDuringWork bool `json:"publishDuringWork,omitempty"`
	// QuietMs is how long a server that publishes for a version must stay
	// quiet afterwards before its findings for it count as complete (more
	// may come in later waves); omitted: the client's default.
	QuietMs *int `json:"quietMs,omitempty"`
}

// Recipe installs one program: a group's packages, and the executable they
// provide.
type Recipe struct {
	Group string        `json:"group"` // the install group's name in servers.json
	Bin   string        `json:"bin"`   // the executable it provides (npm: under node_modules/.bin; apt: on PATH)
	From  *InstallGroup `json:"-"`     // the group itself
}

// InstallGroup is an install group of servers.json: packages installed
// together at pinned versions, shared by the servers that come from them.
type InstallGroup struct {
	Kind     string   `json:"kind"`               // "go" (go install), "npm" (npm install --prefix) or "apt" (a system package)
	Packages []string `json:"packages"`           // module@version, npm package@version, or Debian package names
	Requires []string `json:"requires,omitempty"` // other groups installed first
	name     string
}

// Name is the group's name.
func (g *InstallGroup) Name() string { return g.name }

// Describe is the command a person would run to install the group.
func (g *InstallGroup) Describe() string {
	switch g.Kind {
	case "go":
		return "go install " + strings.Join(g.Packages, " ")
	case "apt":
		return "apt-get install " + strings.Join(g.Packages, " ")
	}
	return "npm install -g " + strings.Join(g.Packages, " ")
}

// file is servers.json.
type file struct {
	Comment  string                   `json:"$comment"`
	Installs map[string]*InstallGroup `json:"installs"`
	Servers  []*Spec                  `json:"servers"`
}

// Builtins returns lspkit's built-in servers, by id, fresh: callers may
// change them.
func Builtins() (map[string]*Spec, error) { return parse(serversJSON) }

func parse(data []byte) (map[string]*Spec, error) {
	var f file
	if err := json.Unmarshal(data, &f, json.RejectUnknownMembers(true)); err != nil {
		return nil, fmt.Errorf("registry: servers.json: %w", err)
	}
	for name, g := range f.Installs {
		g.name = name
		for _, r := range g.Requires {
			if f.Installs[r] == nil {
				return nil, fmt.Errorf("registry: servers.json: install group %s requires unknown group %s", name, r)
			}
		}
	}
	out := make(map[string]*Spec, len(f.Servers))
	for _, s := range f.Servers {
		if s.ID == "" || s.Command == "" || len(s.Extensions)+len(s.FileNames) == 0 {
			return nil, fmt.Errorf("registry: servers.json: incomplete server %+v", s)
		}
		if out[s.ID] != nil {
			return nil, fmt.Errorf("registry: servers.json: server %s twice", s.ID)
		}
		if s.Roots != "" && s.Roots != RootsFolders && s.Roots != RootsOutermost {
			return nil, fmt.Errorf("registry: servers.json: server %s: roots %q (expected %q or %q)", s.ID, s.Roots, RootsFolders, RootsOutermost)
		}
		for _, r := range append([]*Recipe{s.Install}, s.Helpers...) {
			if r == nil {
				continue
			}
			if r.From = f.Installs[r.Group]; r.From == nil {
				return nil, fmt.Errorf("registry: servers.json: server %s: unknown install group %s", s.ID, r.Group)
			}
		}
		s.Enabled = !s.DefaultDisabled
		out[s.ID] = s
	}
	return out, nil
}

// Groups returns servers.json's install groups, by name.
func Groups() (map[string]*InstallGroup, error) {
	var f file
	if err := json.Unmarshal(serversJSON, &f); err != nil {
		return nil, fmt.Errorf("registry: servers.json: %w", err)
	}
	for name, g := range f.Installs {
		g.name = name
	}
	return f.Installs, nil
}

// Servers returns the built-ins with the configuration applied: entries
// override fields by id, add new servers, and enable or disable them.
func Servers(cfg config.Config) (map[string]*Spec, error) {
	specs, _, err := Resolve(cfg)
	return specs, err
}

// hostServers are the file types of servers hosts name by ids of their
// own, where neither the id nor the command is one of lspkit's built-ins:
// LLxprt Code's built-in "python" runs pylsp
// (packages/lsp/src/service/server-registry.ts).
var hostServers = map[string][]string{
	"python": {".py", ".pyi"},
}

// A Note says what Resolve made of a server entry.
type Note struct {
	Text    string // "servers.ID: …"
	Ignored bool   // the entry was left out
}

// Resolve is Servers, and says what it made of entries that name no
// built-in and give no file types, as hosts send them: an entry whose
// command is a built-in's configures that built-in ({"id": "ts",
// "command": "typescript-language-server"} is typescript); one a host
// names by its own id serves that id's files; any other serves nothing and
// is left out. Each such decision is one note.
func Resolve(cfg config.Config) (map[string]*Spec, []Note, error) {
	out, err := Builtins()
	if err != nil {
		return nil, nil, err
	}
	var notes []Note
	for _, id := range slices.Sorted(maps.Keys(cfg.Servers)) {
		sc := cfg.Servers[id]
		s, ok := out[id]
		if !ok && sc.Extensions == nil && sc.Command != "" {
			if b := builtinByCommand(out, sc.Command); b != nil {
				notes = append(notes, Note{Text: fmt.Sprintf("servers.%s: configures the built-in %s (the same command, %s)", id, b.ID, filepath.Base(sc.Command))})
				s, ok = b, true
			} else if exts := hostServers[id]; exts != nil {
				sc.Extensions = exts
				notes = append(notes, Note{Text: fmt.Sprintf("servers.%s: serves %s, as the host's own %s server does", id, strings.Join(exts, " "), id)})
			} else {
				notes = append(notes, Note{Ignored: true, Text: fmt.Sprintf("servers.%s: ignored: it names no file types (extensions), and neither its id nor its command %s is a built-in server's", id, sc.Command)})
				continue
			}
		}
		if !ok {
			s = &Spec{ID: id, Language: sc.Language, Enabled: true}
			if s.Language == "" {
				s.Language = id
			}
			out[id] = s
		}
		if sc.Enabled != nil {
			s.Enabled = *sc.Enabled
		} else if ok && sc.Command != "" {
			s.Enabled = true // configuring a command for a built-in means using it
		}
		if sc.Command != "" {
			s.Command, s.Args, s.Install, s.Helpers, s.Alternatives = sc.Command, sc.Args, nil, nil, nil
		} else if sc.Args != nil {
			s.Args = sc.Args
		}
		if sc.Extensions != nil {
			s.Extensions = lower(sc.Extensions)
			s.FileNames = nil
		}
		if sc.RootMarkers != nil {
			s.RootMarkers = sc.RootMarkers
		}
		if sc.Roots != nil {
			s.Roots = *sc.Roots
			if s.Roots == "each" {
				s.Roots = ""
			}
		}
		if sc.Env != nil {
			s.Env = maps.Clone(sc.Env)
		}
		if sc.InitializationOptions != nil {
			s.InitializationOptions = sc.InitializationOptions
		}
		if sc.Settings != nil {
			s.Settings = sc.Settings
		}
		if sc.Impact != "" {
			s.Impact = sc.Impact
		}
		if sc.Language != "" {
			s.Language = sc.Language
		}
		if sc.Sidecar != nil {
			s.Sidecar = sc.Sidecar
		}
	}
	for _, s := range out {
		if s.Sidecar == nil {
			s.Sidecar = rojoSidecar(s)
		}
	}
	return out, notes, nil
}

// builtinByCommand is the one built-in whose command (or one of its
// alternatives) is command's base name, or nil.
func builtinByCommand(specs map[string]*Spec, command string) *Spec {
	name := filepath.Base(command)
	if ext := strings.ToLower(filepath.Ext(name)); ext == ".exe" || ext == ".cmd" || ext == ".bat" {
		name = strings.TrimSuffix(name, filepath.Ext(name))
	}
	var found *Spec
	for _, id := range slices.Sorted(maps.Keys(specs)) {
		s := specs[id]
		if s.Command == name || slices.Contains(s.Alternatives, name) {
			if found != nil {
				return nil // two built-ins run it: the entry must say which files
			}
			found = s
		}
	}
	return found
}

// rojoSidecar is the default sidecar of a luau-lsp server whose
// initialization options (or settings) turn on sourcemap autogeneration
// with a Rojo project file: rojo regenerating sourcemap.json as files
// change, which luau-lsp reads. Nil for any other server.
func rojoSidecar(s *Spec) *config.Sidecar {
	if filepath.Base(s.Command) != "luau-lsp" && s.ID != "luau" {
		return nil
	}
	for _, opts := range []jsontext.Value{s.InitializationOptions, s.Settings} {
		var auto bool
		var project string
		if lookup(opts, "luau-lsp.sourcemap.autogenerate", &auto) && auto && lookup(opts, "luau-lsp.sourcemap.rojoProjectFile", &project) && project != "" {
			return &config.Sidecar{Command: []string{"rojo", "sourcemap", project, "--watch", "-o", "sourcemap.json"}}
		}
	}
	return nil
}

// lookup finds a dotted key in a JSON object, as nested objects or as a
// flat dotted member at any level ({"luau-lsp": {"sourcemap.autogenerate":
// true}} too), and decodes it into out.
func lookup(raw jsontext.Value, key string, out any) bool {
	var m map[string]jsontext.Value
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return false
	}
	if v, ok := m[key]; ok {
		return json.Unmarshal(v, out) == nil
	}
	for i := range len(key) {
		if key[i] == '.' {
			if v, ok := m[key[:i]]; ok && lookup(v, key[i+1:], out) {
				return true
			}
		}
	}
	return false
}

func lower(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// LanguageID returns the LSP language id for a file.
func (s *Spec) LanguageID(path string) string {
	if id, ok := s.LanguageIDs[filepath.Base(path)]; ok {
		return id
	}
	if id, ok := s.LanguageIDs[strings.ToLower(filepath.Ext(path))]; ok {
		return id
	}
	return s.Language
}

// Serves reports whether the server handles the file at path.
func (s *Spec) Serves(path string) bool {
	if slices.Contains(s.FileNames, filepath.Base(path)) {
		return true
	}
	ext := strings.ToLower(filepath.Ext(path))
	return ext != "" && slices.Contains(s.Extensions, ext)
}

// Version is the pinned version of a server's first package ("v0.23.0",
// "5.3.0 + typescript 6.0.3" for a group of several), the package name of a
// system package ("clangd-19"), or "" without a recipe.
func (s *Spec) Version() string {
	if s.Install == nil || s.Install.From == nil {
		return ""
	}
	if s.Install.From.Kind == "apt" {
		return strings.Join(s.Install.From.Packages, " ") // the distribution's version
	}
	var parts []string
	for i, p := range s.Install.From.Packages {
		name, version := splitPackage(p)
		if i == 0 {
			parts = append(parts, version)
		} else {
			parts = append(parts, name+" "+version)
		}
	}
	return strings.Join(parts, " + ")
}

// splitPackage splits "name@version" (an npm scope's @ aside).
func splitPackage(p string) (name, version string) {
	i := strings.LastIndexByte(p, '@')
	if i <= 0 {
		return p, ""
	}
	return p[:i], p[i+1:]
}
