package config

import (
	"maps"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The environment variables a host gives the daemon its workspace root and
// configuration in: lspkit's name first, then the seed contract's (LLxprt
// Code sets it).
var BootstrapVars = []string{"LSPKIT_BOOTSTRAP", "LSP_BOOTSTRAP"}

// Bootstrap is what a host that spawns the daemon says in a bootstrap
// variable: {"workspaceRoot": "...", "config": {...}}. Its config is
// either lspkit's lsp object ({"servers": …, "diagnosticTimeout": …}, the
// host's key names accepted as aliases) or a whole lspkit document
// ({"lsp": …}), or true or false.
type Bootstrap struct {
	// Var is the variable it was read from, for messages.
	Var           string
	WorkspaceRoot string
	Config        jsontext.Value
	// Ignored notes the bootstrap's own members lspkit did not take.
	Ignored []string
}

// ParseBootstrap reads a bootstrap variable's value. Only what leaves
// nothing usable is an error — not JSON, or not an object; anything else
// lspkit does not take is noted in Ignored and the rest used.
func ParseBootstrap(variable, data string) (Bootstrap, error) {
	b := Bootstrap{Var: variable}
	raw := jsontext.Value(data)
	if err := raw.Compact(); err != nil {
		return b, &Error{Source: variable, Msg: "not valid JSON: " + err.Error()}
	}
	m, err := object(raw, variable, "")
	if err != nil {
		return b, &Error{Source: variable, Msg: "expected an object with workspaceRoot and config, got " + describe(raw)}
	}
	for _, k := range sorted(m) {
		v := m[k]
		switch k {
		case "workspaceRoot":
			if v.Kind() != '"' || json.Unmarshal(v, &b.WorkspaceRoot) != nil {
				b.Ignored = append(b.Ignored, variable+" workspaceRoot: expected a directory's path, got "+describe(v))
				b.WorkspaceRoot = ""
			}
		case "config":
			b.Config = v
		default:
			b.Ignored = append(b.Ignored, variable+" "+k+": unknown key (expected workspaceRoot and config)")
		}
	}
	return b, nil
}

// Apply lays the bootstrap's configuration over cfg (the project's
// lspkit.json or opencode.json, or the defaults): each key it sets
// replaces cfg's, each server entry replaces that server's. A host's
// configuration never stops the daemon: a key lspkit does not know, or a
// value of the wrong type, leaves that key as it was and is noted in
// cfg.Ignored.
func (b Bootstrap) Apply(cfg Config) Config {
	cfg.Ignored = append(cfg.Ignored, b.Ignored...)
	v := b.Config
	if len(v) == 0 || v.Kind() == 'n' {
		return cfg
	}
	cfg.Servers = maps.Clone(cfg.Servers) // the configuration's own map stays as it was
	if cfg.Servers == nil {
		cfg.Servers = map[string]ServerConfig{}
	}
	if cfg.Source == "defaults" {
		cfg.Source = b.Var
	} else {
		cfg.Source = b.Var + " over " + cfg.Source
	}
	p := &parser{source: b.Var, prefix: "config", lenient: true}
	switch v.Kind() {
	case 't':
		cfg.Disabled = false
	case 'f':
		cfg.Disabled = true
	case '{':
		var doc map[string]jsontext.Value
		if json.Unmarshal(v, &doc) == nil {
			if lsp, ok := doc["lsp"]; ok {
				// A whole lspkit document.
				for _, k := range sorted(doc) {
					if k != "lsp" && k != "$schema" {
						p.fail("config."+k, "unknown key (expected lsp)")
					}
				}
				switch lsp.Kind() {
				case 't':
					cfg.Disabled = false
				case 'f':
					cfg.Disabled = true
				default:
					p.prefix = "config.lsp"
					cfg.Disabled = false
					p.lsp(&cfg, lsp)
				}
				break
			}
		}
		cfg.Disabled = false
		p.lsp(&cfg, v)
	default:
		p.fail("config", "expected an object, true or false, got "+describe(v))
	}
	for _, note := range p.ignored {
		cfg.Ignored = append(cfg.Ignored, b.Var+" "+note)
	}
	return cfg
}
