// Package config reads lspkit's configuration: lspkit.json (or a file
// given with --config, or LSPKIT_BOOTSTRAP's config), else the lsp key of
// opencode.json, else the defaults. Problems are one-line *Error values
// naming the file, the key and what was expected.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Config is the daemon's configuration: the `lsp` object of lspkit.json
// (or of LSPKIT_BOOTSTRAP's config, or of opencode.json), with defaults.
type Config struct {
	// Disabled is set by "lsp": false: no server runs.
	Disabled bool
	// Servers adds servers or overrides built-ins, by id.
	Servers map[string]ServerConfig
	// DiagnosticTimeout bounds a check's wait on a server that has seen a
	// file before; FirstTouchTimeout on a server's first file (it may still
	// be starting and indexing).
	DiagnosticTimeout time.Duration
	FirstTouchTimeout time.Duration
	// IncludeSeverities are the severities checks and reports keep.
	IncludeSeverities []string
	// MaxDiagnosticsPerFile and MaxProjectDiagnosticsFiles bound lsp/report.
	MaxDiagnosticsPerFile      int
	MaxProjectDiagnosticsFiles int
	// NavigationTools shows the MCP navigation tools.
	NavigationTools bool
	// AutoInstall installs missing built-in servers into the user cache.
	AutoInstall bool
	// Restart is the crash policy.
	Restart RestartPolicy
	// Exclude are globs (doublestar syntax, against '/'-separated paths
	// relative to the root) of files that are never checked, start no
	// server and are left out of reports.
	Exclude []string
	// MaxFileBytes is the largest file a server is sent; bigger ones are
	// refused with a reason.
	MaxFileBytes int
	// MaxOpenDocuments is how many documents each server keeps open; the
	// least recently checked is closed beyond it.
	MaxOpenDocuments int
	// WatchBudget is how many directories each server's file watcher
	// watches at most; the rest is polled.
	WatchBudget int
	// ServerIdleStop is how long a server may go unused before it is
	// stopped (it starts again on the next need); 0 keeps servers running.
	ServerIdleStop time.Duration
	// Prewarm has the daemon start, in the background as it starts, the
	// servers whose root markers are at the workspace root, each with one
	// of its files open, so that the first question finds them warm.
	Prewarm bool
	// MaxServerMemoryMB restarts a server whose resident memory (with its
	// helpers) exceeds it, at a moment it has no request in flight; 0 is
	// no limit.
	MaxServerMemoryMB int
	// Shared has `lspkit serve` and `lspkit mcp` attach to the workspace's
	// shared daemon (as --shared does) instead of running their own.
	Shared bool
	// IdleExit is how long a shared daemon lives after its last client
	// left; it then stops its servers and exits.
	IdleExit time.Duration
	// Source names where the configuration came from, for status and errors.
	Source string
}

// RestartPolicy says how often a crashed server is restarted: at most
// MaxRestarts times within Window, then it is broken for the session.
type RestartPolicy struct {
	MaxRestarts int
	Window      time.Duration
}

// ServerConfig is one server's entry in the configuration. Unset fields
// keep the built-in's values.
type ServerConfig struct {
	Enabled     *bool
	Command     string
	Args        []string
	Extensions  []string
	RootMarkers []string
	// Roots is how many processes serve the roots the markers make:
	// "each" (one per root), "folders" (one, each root a workspace folder)
	// or "outermost" (one per outermost root); nil keeps the built-in's.
	Roots                 *string
	Env                   map[string]string
	InitializationOptions jsontext.Value
	Settings              jsontext.Value
	Language              string
	// Sidecar is a long-running helper started with the server for the
	// same root, or nil.
	Sidecar *Sidecar
}

// Sidecar is a helper command that runs beside a server (rojo sourcemap
// --watch beside luau-lsp): started with it, in its root, restarted and
// stopped with it.
type Sidecar struct {
	Command []string          // the executable and its arguments
	Env     map[string]string // extra environment
}

// Default is the configuration when none is given.
func Default() Config {
	return Config{
		Servers:                    map[string]ServerConfig{},
		DiagnosticTimeout:          3 * time.Second,
		FirstTouchTimeout:          10 * time.Second,
		IncludeSeverities:          []string{"error"},
		MaxDiagnosticsPerFile:      20,
		MaxProjectDiagnosticsFiles: 5,
		NavigationTools:            true,
		AutoInstall:                true,
		Restart:                    RestartPolicy{MaxRestarts: 3, Window: 5 * time.Minute},
		Exclude:                    []string{"**/node_modules/**", "**/.git/**"},
		MaxFileBytes:               2 << 20,
		MaxOpenDocuments:           200,
		WatchBudget:                10000,
		ServerIdleStop:             15 * time.Minute,
		IdleExit:                   5 * time.Minute,
		Source:                     "defaults",
	}
}

// Error is a problem in a configuration file: where, which key, and
// what was expected.
type Error struct {
	Source string // the file, or LSPKIT_BOOTSTRAP
	Key    string // dotted path, e.g. lsp.servers.gopls.args
	Msg    string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", e.Source, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Source, e.Key, e.Msg)
}

// Bootstrap is the LSPKIT_BOOTSTRAP environment variable's content.
type Bootstrap struct {
	WorkspaceRoot string         `json:"workspaceRoot"`
	Config        jsontext.Value `json:"config"`
}

// ParseBootstrap reads LSPKIT_BOOTSTRAP.
func ParseBootstrap(data string) (Bootstrap, error) {
	var b Bootstrap
	if err := json.Unmarshal([]byte(data), &b); err != nil {
		return b, &Error{Source: "LSPKIT_BOOTSTRAP", Msg: "not a JSON object with workspaceRoot and config: " + err.Error()}
	}
	return b, nil
}

// Load finds the configuration for root: file when given (it must
// exist), else bootstrap's config when given, else root/lspkit.json, else
// the lsp key of root/opencode.json, else the defaults.
func Load(root, file string, bootstrap jsontext.Value) (Config, error) {
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return Config{}, &Error{Source: file, Msg: fmt.Sprintf("cannot read: %v", errors.Unwrap(err))}
		}
		return Parse(data, file)
	}
	if len(bootstrap) > 0 && string(bootstrap) != "null" {
		return Parse(bootstrap, "LSPKIT_BOOTSTRAP")
	}
	path := filepath.Join(root, "lspkit.json")
	if data, err := os.ReadFile(path); err == nil {
		return Parse(data, path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Config{}, &Error{Source: path, Msg: fmt.Sprintf("cannot read: %v", err)}
	}
	path = filepath.Join(root, "opencode.json")
	if data, err := os.ReadFile(path); err == nil {
		return ParseOpencode(data, path)
	}
	return Default(), nil
}

// object decodes raw as a JSON object, or says what it is instead.
func object(raw jsontext.Value, source, key string) (map[string]jsontext.Value, error) {
	var m map[string]jsontext.Value
	if raw.Kind() != '{' {
		return nil, &Error{Source: source, Key: key, Msg: "expected an object, got " + describe(raw)}
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &Error{Source: source, Key: key, Msg: "bad object: " + err.Error()}
	}
	return m, nil
}

// describe names a JSON value's kind for error messages.
func describe(raw jsontext.Value) string {
	switch raw.Kind() {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string " + string(raw)
	case '0':
		return "the number " + string(raw)
	case 't', 'f':
		return "the boolean " + string(raw)
	case 'n':
		return "null"
	}
	return "invalid JSON"
}

// sorted returns m's keys in order, so errors are deterministic.
func sorted[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// lspValue reads a configuration document's "lsp" value: nil when absent,
// and cfg.Disabled set for false. The defaults come with it.
func lspValue(data []byte, source string) (Config, jsontext.Value, error) {
	cfg := Default()
	cfg.Source = source
	raw := jsontext.Value(data)
	if err := raw.Compact(); err != nil {
		return cfg, nil, &Error{Source: source, Msg: "not valid JSON: " + err.Error()}
	}
	top, err := object(raw, source, "")
	if err != nil {
		return cfg, nil, err
	}
	lsp := top["lsp"]
	if lsp.Kind() == 'f' {
		cfg.Disabled = true
		return cfg, nil, nil
	}
	return cfg, lsp, nil
}

// Parse parses an lspkit configuration document ({"lsp": ...}).
func Parse(data []byte, source string) (Config, error) {
	cfg, lsp, err := lspValue(data, source)
	if err != nil || lsp == nil || lsp.Kind() == 't' {
		return cfg, err
	}
	opts, err := object(lsp, source, "lsp")
	if err != nil {
		return cfg, &Error{Source: source, Key: "lsp", Msg: "expected true, false or an object, got " + describe(lsp)}
	}
	p := parser{source: source}
	for _, k := range sorted(opts) {
		v, key := opts[k], "lsp."+k
		if !known(key) {
			p.fail(key, "unknown key")
			return cfg, p.err
		}
		switch k {
		case "servers":
			servers, err := object(v, source, key)
			if err != nil {
				return cfg, err
			}
			for _, id := range sorted(servers) {
				sc, err := p.server(servers[id], key+"."+id)
				if err != nil {
					return cfg, err
				}
				cfg.Servers[id] = sc
			}
		case "diagnosticTimeout":
			p.millis(v, key, &cfg.DiagnosticTimeout)
		case "firstTouchTimeout":
			p.millis(v, key, &cfg.FirstTouchTimeout)
		case "includeSeverities":
			p.strings(v, key, &cfg.IncludeSeverities)
			for _, s := range cfg.IncludeSeverities {
				if !slices.Contains([]string{"error", "warning", "info", "hint"}, s) && p.err == nil {
					p.fail(key, fmt.Sprintf("unknown severity %q (expected error, warning, info or hint)", s))
				}
			}
		case "maxDiagnosticsPerFile":
			p.count(v, key, &cfg.MaxDiagnosticsPerFile)
		case "maxProjectDiagnosticsFiles":
			p.count(v, key, &cfg.MaxProjectDiagnosticsFiles)
		case "navigationTools":
			p.boolean(v, key, &cfg.NavigationTools)
		case "autoInstall":
			p.boolean(v, key, &cfg.AutoInstall)
		case "exclude":
			p.strings(v, key, &cfg.Exclude)
			for _, g := range cfg.Exclude {
				if !doublestar.ValidatePattern(g) && p.err == nil {
					p.fail(key, fmt.Sprintf("bad glob %q", g))
				}
			}
		case "maxFileBytes":
			p.count(v, key, &cfg.MaxFileBytes)
		case "maxOpenDocuments":
			p.count(v, key, &cfg.MaxOpenDocuments)
			if p.err == nil && cfg.MaxOpenDocuments < 1 {
				p.fail(key, "expected a whole number ≥ 1, got 0")
			}
		case "watchBudget":
			p.count(v, key, &cfg.WatchBudget)
		case "prewarm":
			p.boolean(v, key, &cfg.Prewarm)
		case "serverIdleStopMs":
			p.millis(v, key, &cfg.ServerIdleStop)
		case "shared":
			p.boolean(v, key, &cfg.Shared)
		case "maxServerMemoryMB":
			p.count(v, key, &cfg.MaxServerMemoryMB)
		case "idleExitMs":
			p.millis(v, key, &cfg.IdleExit)
		case "restart":
			r, err := object(v, source, key)
			if err != nil {
				return cfg, err
			}
			for _, rk := range sorted(r) {
				name := rk
				if !known(key + "." + rk) {
					name = "" // refused below, naming what is expected
				}
				switch name {
				case "maxRestarts":
					p.count(r[rk], key+"."+rk, &cfg.Restart.MaxRestarts)
				case "windowMs":
					p.millis(r[rk], key+"."+rk, &cfg.Restart.Window)
				default:
					p.fail(key+"."+rk, "unknown key (expected maxRestarts or windowMs)")
				}
			}
		default:
			p.fail(key, "unknown key")
		}
		if p.err != nil {
			return cfg, p.err
		}
	}
	return cfg, nil
}

// ParseOpencode reads the lsp key of an opencode.json: "lsp": true (the
// defaults), "lsp": false (off), or servers by id with command (an array), extensions, env,
// initialization and disabled.
func ParseOpencode(data []byte, source string) (Config, error) {
	cfg, lsp, err := lspValue(data, source)
	if err != nil || lsp == nil || lsp.Kind() == 't' {
		return cfg, err // "lsp": true is the defaults
	}
	servers, err := object(lsp, source, "lsp")
	if err != nil {
		return cfg, &Error{Source: source, Key: "lsp", Msg: "expected true, false or an object, got " + describe(lsp)}
	}
	p := parser{source: source}
	for _, id := range sorted(servers) {
		key := "lsp." + id
		entry, err := object(servers[id], source, key)
		if err != nil {
			return cfg, err
		}
		var sc ServerConfig
		for _, k := range sorted(entry) {
			v := entry[k]
			switch k {
			case "command":
				var argv []string
				p.strings(v, key+".command", &argv)
				if p.err == nil && len(argv) == 0 {
					p.fail(key+".command", "expected a non-empty array of strings")
				}
				if p.err == nil {
					sc.Command, sc.Args = argv[0], argv[1:]
				}
			case "extensions":
				p.strings(v, key+"."+k, &sc.Extensions)
			case "env":
				p.env(v, key+"."+k, &sc.Env)
			case "initialization":
				p.obj(v, key+"."+k, &sc.InitializationOptions)
			case "sidecar":
				sc.Sidecar = p.sidecar(v, key+"."+k)
			case "disabled":
				var d bool
				p.boolean(v, key+"."+k, &d)
				sc.Enabled = new(!d)
			default:
				// opencode keys lspkit has no use for are ignored.
			}
			if p.err != nil {
				return cfg, p.err
			}
		}
		cfg.Servers[id] = sc
	}
	return cfg, nil
}

// parser checks configuration values' types, keeping the first error.
type parser struct {
	source string
	err    error
}

func (p *parser) fail(key, msg string) {
	if p.err == nil {
		p.err = &Error{Source: p.source, Key: key, Msg: msg}
	}
}

func (p *parser) millis(v jsontext.Value, key string, out *time.Duration) {
	var n float64
	if v.Kind() != '0' || json.Unmarshal(v, &n) != nil || n < 0 || n != float64(int64(n)) {
		p.fail(key, "expected a whole number of milliseconds ≥ 0, got "+describe(v))
		return
	}
	*out = time.Duration(n) * time.Millisecond
}

func (p *parser) count(v jsontext.Value, key string, out *int) {
	var n float64
	if v.Kind() != '0' || json.Unmarshal(v, &n) != nil || n < 0 || n != float64(int(n)) {
		p.fail(key, "expected a whole number ≥ 0, got "+describe(v))
		return
	}
	*out = int(n)
}

func (p *parser) boolean(v jsontext.Value, key string, out *bool) {
	if k := v.Kind(); k != 't' && k != 'f' {
		p.fail(key, "expected true or false, got "+describe(v))
		return
	}
	*out = v.Kind() == 't'
}

func (p *parser) str(v jsontext.Value, key string, out *string) {
	if v.Kind() != '"' || json.Unmarshal(v, out) != nil {
		p.fail(key, "expected a string, got "+describe(v))
	}
}

func (p *parser) strings(v jsontext.Value, key string, out *[]string) {
	if v.Kind() != '[' || json.Unmarshal(v, out) != nil {
		p.fail(key, "expected an array of strings, got "+describe(v))
	}
}

func (p *parser) env(v jsontext.Value, key string, out *map[string]string) {
	if v.Kind() != '{' || json.Unmarshal(v, out) != nil {
		p.fail(key, "expected an object of string values, got "+describe(v))
	}
}

func (p *parser) obj(v jsontext.Value, key string, out *jsontext.Value) {
	if v.Kind() != '{' {
		p.fail(key, "expected an object, got "+describe(v))
		return
	}
	*out = slices.Clone(v)
}

// server parses one entry of lsp.servers.
func (p *parser) server(raw jsontext.Value, key string) (ServerConfig, error) {
	var sc ServerConfig
	m, err := object(raw, p.source, key)
	if err != nil {
		return sc, err
	}
	for _, k := range sorted(m) {
		v, sub := m[k], key+"."+k
		if !known(serverPath(sub)) {
			k = "" // refused below, naming what is expected
		}
		switch k {
		case "enabled":
			var b bool
			p.boolean(v, sub, &b)
			sc.Enabled = &b
		case "command":
			p.str(v, sub, &sc.Command)
		case "args":
			p.strings(v, sub, &sc.Args)
		case "extensions":
			p.strings(v, sub, &sc.Extensions)
			for _, e := range sc.Extensions {
				if !strings.HasPrefix(e, ".") && p.err == nil {
					p.fail(sub, fmt.Sprintf("extension %q must start with a dot", e))
				}
			}
		case "rootMarkers":
			p.strings(v, sub, &sc.RootMarkers)
		case "roots":
			var r string
			p.str(v, sub, &r)
			if p.err == nil && r != "each" && r != "folders" && r != "outermost" {
				p.fail(sub, fmt.Sprintf("expected \"each\", \"folders\" or \"outermost\", got %q", r))
			}
			sc.Roots = &r
		case "env":
			p.env(v, sub, &sc.Env)
		case "initializationOptions":
			p.obj(v, sub, &sc.InitializationOptions)
		case "settings":
			p.obj(v, sub, &sc.Settings)
		case "language":
			p.str(v, sub, &sc.Language)
		case "sidecar":
			sc.Sidecar = p.sidecar(v, sub)
		default:
			p.fail(sub, "unknown key (expected enabled, command, args, extensions, rootMarkers, roots, env, initializationOptions, settings, language or sidecar)")
		}
		if p.err != nil {
			return sc, p.err
		}
	}
	return sc, nil
}

// sidecar reads {"command": [...], "env": {...}}.
func (p *parser) sidecar(v jsontext.Value, key string) *Sidecar {
	m, err := object(v, p.source, key)
	if err != nil {
		if p.err == nil {
			p.err = err
		}
		return nil
	}
	var sc Sidecar
	for _, k := range sorted(m) {
		name := k
		if !known("lsp.servers.ID.sidecar." + k) { // in opencode.json too
			name = "" // refused below, naming what is expected
		}
		switch name {
		case "command":
			p.strings(m[k], key+".command", &sc.Command)
			if p.err == nil && (len(sc.Command) == 0 || sc.Command[0] == "") {
				p.fail(key+".command", "expected a non-empty array of strings")
			}
		case "env":
			p.env(m[k], key+".env", &sc.Env)
		default:
			p.fail(key+"."+k, "unknown key (expected command or env)")
		}
	}
	if p.err == nil && sc.Command == nil {
		p.fail(key+".command", "missing (the sidecar's executable and arguments)")
	}
	return &sc
}
