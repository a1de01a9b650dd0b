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

// Load finds the configuration for root: file when given (it must exist),
// else root/lspkit.json, else the lsp key of root/opencode.json, else the
// defaults; then a host's bootstrap, when given, is laid over it (see
// Bootstrap.Apply).
func Load(root, file string, boot *Bootstrap) (Config, error) {
	cfg, err := loadFile(root, file)
	if err != nil || boot == nil {
		return cfg, err
	}
	return boot.Apply(cfg), nil
}

// loadFile is Load without the bootstrap.
func loadFile(root, file string) (Config, error) {
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return Config{}, &Error{Source: file, Msg: fmt.Sprintf("cannot read: %v", errors.Unwrap(err))}
		}
		return Parse(data, file)
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

// Parse parses an lspkit configuration document ({"lsp": ...}), refusing
// the first key it does not know or whose value is not what the key takes.
func Parse(data []byte, source string) (Config, error) {
	cfg, lsp, err := lspValue(data, source)
	if err != nil || lsp == nil || lsp.Kind() == 't' {
		return cfg, err
	}
	if lsp.Kind() != '{' {
		return cfg, &Error{Source: source, Key: "lsp", Msg: "expected true, false or an object, got " + describe(lsp)}
	}
	p := &parser{source: source, prefix: "lsp"}
	p.lsp(&cfg, lsp)
	return cfg, p.err
}

// aliases are other names hosts give lspkit's keys (LLxprt Code's
// bootstrap: packages/ide-integration/src/lsp/lsp-service-client.ts),
// accepted wherever the key is.
var aliases = map[string]string{
	"diagnosticsTimeoutMs": "diagnosticTimeout",
	"firstTouchTimeoutMs":  "firstTouchTimeout",
	"navigationTimeoutMs":  "navigationTimeout",
	"requestTimeoutMs":     "requestTimeout",
}

// serverAliases are other names of a server entry's keys.
var serverAliases = map[string]string{
	"workspaceRootMarkers": "rootMarkers", // LLxprt Code's server registry
}

// hostOnly are server keys hosts send that have no use in lspkit, with why.
var hostOnly = map[string]string{
	"rootUri": "lspkit finds each file's root from the server's rootMarkers",
}

// parser checks configuration values' types. A strict parser keeps the
// first problem as err; a lenient one (a host's bootstrap) notes each in
// ignored, leaves that key as it was, and goes on.
type parser struct {
	source  string
	prefix  string // the lsp object's name in messages: "lsp", or "config" in a bootstrap
	lenient bool
	err     error
	ignored []string
	failed  bool // a problem since the caller last cleared it
}

func (p *parser) fail(key, msg string) {
	p.failed = true
	if p.lenient {
		p.ignored = append(p.ignored, key+": "+msg)
		return
	}
	if p.err == nil {
		p.err = &Error{Source: p.source, Key: key, Msg: msg}
	}
}

// failErr records an *Error from object.
func (p *parser) failErr(err error) {
	var e *Error
	if errors.As(err, &e) {
		p.fail(e.Key, e.Msg)
		return
	}
	p.fail("", err.Error())
}

// object is object(), its problem recorded.
func (p *parser) object(v jsontext.Value, key string) (map[string]jsontext.Value, bool) {
	m, err := object(v, p.source, key)
	if err != nil {
		p.failErr(err)
		return nil, false
	}
	return m, true
}

// lsp parses the members of an lsp object into cfg.
func (p *parser) lsp(cfg *Config, v jsontext.Value) {
	opts, ok := p.object(v, p.prefix)
	if !ok {
		return
	}
	setBy := map[string]string{} // canonical key → the name that set it
	for _, k := range sorted(opts) {
		v, key := opts[k], p.prefix+"."+k
		name := k
		if a, ok := aliases[k]; ok {
			name = a
		}
		p.failed = false
		before := *cfg
		switch {
		case !known("lsp." + k):
			p.fail(key, "unknown key")
		case setBy[name] != "":
			p.fail(key, fmt.Sprintf("sets what %s.%s set already", p.prefix, setBy[name]))
		default:
			setBy[name] = k
			p.member(cfg, name, v, key)
		}
		if p.err != nil {
			return
		}
		if p.failed && name != "servers" {
			*cfg = before // a lenient parser leaves the key as it was
		}
	}
}

// member parses one member of the lsp object, by its canonical name.
func (p *parser) member(cfg *Config, name string, v jsontext.Value, key string) {
	switch name {
	case "servers":
		p.servers(cfg, v, key)
	case "diagnosticTimeout":
		p.millis(v, key, &cfg.DiagnosticTimeout)
	case "firstTouchTimeout":
		p.millis(v, key, &cfg.FirstTouchTimeout)
	case "navigationTimeout":
		p.millis(v, key, &cfg.NavigationTimeout)
	case "requestTimeout":
		p.millis(v, key, &cfg.RequestTimeout)
	case "includeSeverities":
		p.checkedStrings(v, key, &cfg.IncludeSeverities, func(s string) string {
			if slices.Contains([]string{"error", "warning", "info", "hint"}, s) {
				return ""
			}
			return fmt.Sprintf("unknown severity %q (expected error, warning, info or hint)", s)
		})
	case "maxDiagnosticsPerFile":
		p.count(v, key, &cfg.MaxDiagnosticsPerFile)
	case "maxProjectDiagnosticsFiles":
		p.count(v, key, &cfg.MaxProjectDiagnosticsFiles)
	case "navigationTools":
		p.boolean(v, key, &cfg.NavigationTools)
	case "autoInstall":
		p.boolean(v, key, &cfg.AutoInstall)
	case "exclude":
		p.checkedStrings(v, key, &cfg.Exclude, func(g string) string {
			if doublestar.ValidatePattern(g) {
				return ""
			}
			return fmt.Sprintf("bad glob %q", g)
		})
	case "maxFileBytes":
		p.count(v, key, &cfg.MaxFileBytes)
	case "maxOpenDocuments":
		n := cfg.MaxOpenDocuments
		p.count(v, key, &n)
		if !p.failed && n < 1 {
			p.fail(key, "expected a whole number ≥ 1, got 0")
		}
		if !p.failed {
			cfg.MaxOpenDocuments = n
		}
	case "impactMaxFiles":
		p.count(v, key, &cfg.ImpactMaxFiles)
	case "burstTimeoutMs":
		p.millis(v, key, &cfg.BurstTimeout)
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
	case "maxServers":
		p.count(v, key, &cfg.MaxServers)
	case "maxMemoryMB":
		p.count(v, key, &cfg.MaxMemoryMB)
	case "shareServers":
		p.boolean(v, key, &cfg.ShareServers)
	case "idleExitMs":
		p.millis(v, key, &cfg.IdleExit)
	case "fdWriteTools":
		p.boolean(v, key, &cfg.FDWriteTools)
	case "mcpStructuredContent":
		p.boolean(v, key, &cfg.MCPStructuredContent)
	case "mcpFormat":
		var f string
		p.str(v, key, &f)
		switch f {
		case "compact", "long":
			cfg.MCPFormat = f
		default:
			p.fail(key, fmt.Sprintf("expected \"compact\" or \"long\", got %q", f))
		}
	case "restart":
		r, ok := p.object(v, key)
		if !ok {
			return
		}
		for _, rk := range sorted(r) {
			name := rk
			if !known("lsp.restart." + rk) {
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
			if p.err != nil {
				return
			}
		}
	default:
		p.fail(key, "unknown key")
	}
}

// servers parses lsp.servers: an object of server entries by id, or an
// array of entries each with its "id" (as hosts send it). An entry for an
// id already given replaces it.
func (p *parser) servers(cfg *Config, v jsontext.Value, key string) {
	switch v.Kind() {
	case '{':
		m, ok := p.object(v, key)
		if !ok {
			return
		}
		for _, id := range sorted(m) {
			if sc, ok := p.server(m[id], key+"."+id, false); ok {
				cfg.Servers[id] = sc
			}
			if p.err != nil {
				return
			}
		}
	case '[':
		var entries []jsontext.Value
		if err := json.Unmarshal(v, &entries); err != nil {
			p.fail(key, "bad array: "+err.Error())
			return
		}
		given := map[string]string{}
		for i, e := range entries {
			ekey := fmt.Sprintf("%s[%d]", key, i)
			m, ok := p.object(e, ekey)
			if !ok {
				if p.err != nil {
					return
				}
				continue
			}
			var id string
			if raw, ok := m["id"]; !ok || raw.Kind() != '"' || json.Unmarshal(raw, &id) != nil || id == "" {
				p.fail(ekey+".id", "expected the server's id, a non-empty string, got "+describeMissing(raw, ok))
				if p.err != nil {
					return
				}
				continue
			}
			if prev, dup := given[id]; dup {
				p.fail(ekey, fmt.Sprintf("server %q again (first at %s): this entry replaces it", id, prev))
				if p.err != nil {
					return
				}
			}
			given[id] = ekey
			if sc, ok := p.server(e, ekey, true); ok {
				cfg.Servers[id] = sc
			}
			if p.err != nil {
				return
			}
		}
	default:
		p.fail(key, "expected an object of servers by id, or an array of servers each with an id, got "+describe(v))
	}
}

// describeMissing describes a member's value, or says it is absent.
func describeMissing(v jsontext.Value, present bool) string {
	if !present {
		return "none"
	}
	return describe(v)
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
	var s string
	if v.Kind() != '"' || json.Unmarshal(v, &s) != nil {
		p.fail(key, "expected a string, got "+describe(v))
		return
	}
	*out = s
}

func (p *parser) strings(v jsontext.Value, key string, out *[]string) {
	var ss []string
	if v.Kind() != '[' || json.Unmarshal(v, &ss) != nil {
		p.fail(key, "expected an array of strings, got "+describe(v))
		return
	}
	*out = ss
}

// checkedStrings reads an array of strings each of which refuse accepts
// (""), or says why not; out is set only when every one is accepted.
func (p *parser) checkedStrings(v jsontext.Value, key string, out *[]string, refuse func(string) string) {
	var ss []string
	p.strings(v, key, &ss)
	for _, s := range ss {
		if why := refuse(s); why != "" && !p.failed {
			p.fail(key, why)
		}
	}
	if !p.failed {
		*out = ss
	}
}

func (p *parser) env(v jsontext.Value, key string, out *map[string]string) {
	var m map[string]string
	if v.Kind() != '{' || json.Unmarshal(v, &m) != nil {
		p.fail(key, "expected an object of string values, got "+describe(v))
		return
	}
	*out = m
}

func (p *parser) obj(v jsontext.Value, key string, out *jsontext.Value) {
	if v.Kind() != '{' {
		p.fail(key, "expected an object, got "+describe(v))
		return
	}
	*out = slices.Clone(v)
}

// server parses one server entry; inArray entries carry their "id". A
// lenient parser takes the members it can and notes the others; ok is
// false when nothing of the entry can be taken.
func (p *parser) server(raw jsontext.Value, key string, inArray bool) (sc ServerConfig, ok bool) {
	m, ok := p.object(raw, key)
	if !ok {
		return sc, false
	}
	for _, k := range sorted(m) {
		v, sub := m[k], key+"."+k
		p.failed = false
		name := k
		if a, ok := serverAliases[k]; ok {
			name = a
		}
		switch {
		case inArray && k == "id":
			continue // the entry's key
		case p.lenient && hostOnly[k] != "":
			p.fail(sub, "not used: "+hostOnly[k])
			continue
		case !known("lsp.servers.ID." + k):
			name = "" // refused below, naming what is expected
		}
		switch name {
		case "enabled":
			var b bool
			p.boolean(v, sub, &b)
			if !p.failed {
				sc.Enabled = &b
			}
		case "command":
			p.str(v, sub, &sc.Command)
			if p.lenient && !p.failed && sc.Command == "" {
				sc.Enabled = new(false) // a host's empty command removes the server (LLxprt Code's meaning)
			}
		case "args":
			p.strings(v, sub, &sc.Args)
		case "extensions":
			var exts []string
			p.strings(v, sub, &exts)
			for _, e := range exts {
				if !strings.HasPrefix(e, ".") && !p.failed {
					p.fail(sub, fmt.Sprintf("extension %q must start with a dot", e))
				}
			}
			if !p.failed {
				sc.Extensions = exts
			}
		case "rootMarkers":
			p.strings(v, sub, &sc.RootMarkers)
		case "roots":
			var r string
			p.str(v, sub, &r)
			if !p.failed && r != "each" && r != "folders" && r != "outermost" {
				p.fail(sub, fmt.Sprintf("expected \"each\", \"folders\" or \"outermost\", got %q", r))
			}
			if !p.failed {
				sc.Roots = &r
			}
		case "env":
			p.env(v, sub, &sc.Env)
		case "initializationOptions":
			p.obj(v, sub, &sc.InitializationOptions)
		case "settings":
			p.obj(v, sub, &sc.Settings)
		case "language":
			p.str(v, sub, &sc.Language)
		case "impact":
			p.str(v, sub, &sc.Impact)
			if !p.failed && !slices.Contains(ImpactKinds, sc.Impact) {
				p.fail(sub, fmt.Sprintf("expected one of %s, got %q", strings.Join(ImpactKinds, ", "), sc.Impact))
			}
		case "sidecar":
			if side := p.sidecar(v, sub); !p.failed {
				sc.Sidecar = side
			}
		default:
			p.fail(sub, "unknown key (expected enabled, command, args, extensions, rootMarkers, roots, env, initializationOptions, settings, language, impact or sidecar)")
		}
		if p.err != nil {
			return sc, false
		}
	}
	p.failed = false
	return sc, true
}

// sidecar reads {"command": [...], "env": {...}}.
func (p *parser) sidecar(v jsontext.Value, key string) *Sidecar {
	m, ok := p.object(v, key)
	if !ok {
		return nil
	}
	var sc Sidecar
	p.failed = false
	for _, k := range sorted(m) {
		name := k
		if !known("lsp.servers.ID.sidecar." + k) { // in opencode.json too
			name = "" // refused below, naming what is expected
		}
		switch name {
		case "command":
			p.strings(m[k], key+".command", &sc.Command)
			if !p.failed && (len(sc.Command) == 0 || sc.Command[0] == "") {
				p.fail(key+".command", "expected a non-empty array of strings")
			}
		case "env":
			p.env(m[k], key+".env", &sc.Env)
		default:
			p.fail(key+"."+k, "unknown key (expected command or env)")
		}
	}
	if !p.failed && sc.Command == nil {
		p.fail(key+".command", "missing (the sidecar's executable and arguments)")
	}
	return &sc
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
	p := parser{source: source, prefix: "lsp"}
	fronted := false // an entry runs lspkit lsp
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
		if isLspkitLSP(sc) {
			// opencode's entry for lspkit lsp itself: lspkit does not
			// front itself.
			cfg.Ignored = append(cfg.Ignored, key+": lspkit lsp itself, which lspkit does not run as one of its servers")
			fronted = true
			continue
		}
		cfg.Servers[id] = sc
	}
	if fronted {
		// Beside an lspkit lsp entry, opencode's own servers are turned off
		// so that lspkit serves their files: that is opencode's choice,
		// not lspkit's.
		for _, id := range sorted(cfg.Servers) {
			if sc := cfg.Servers[id]; sc.Enabled != nil && !*sc.Enabled {
				sc.Enabled = nil
				cfg.Servers[id] = sc
				cfg.Ignored = append(cfg.Ignored, "lsp."+id+".disabled: opencode's own server, off beside its lspkit lsp entry; lspkit runs it")
			}
		}
	}
	return cfg, nil
}

// isLspkitLSP says whether a server's command is lspkit lsp.
func isLspkitLSP(sc ServerConfig) bool {
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(sc.Command)), ".exe")
	return base == "lspkit" && len(sc.Args) > 0 && sc.Args[0] == "lsp"
}
