//go:build linux

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/google/jsonschema-go/jsonschema"

	lspskills "github.com/lspkit/lspkit/service/skills"
)

// TestReleaseManifests: what the release publishes and the plugin
// registries read, validated against their own schemas, vendored in
// testdata/schemas (see its README): server.json (and dist/server.json,
// the snapshot's, when LSPKIT_RELEASE_DIST is set) against the MCP
// Registry's 2025-12-11 schema; the Agent Plugins layout
// (plugins/agent-plugins) against Agent Plugins 1.0.0's plugin and mcp
// schemas, its skill against the Agent Skills rules for SKILL.md; and the
// marketplaces Copilot CLI and Claude Code read. Each schema also refuses
// a broken copy, so that a validator that passes everything fails here.
func TestReleaseManifests(t *testing.T) {
	schemas := filepath.Join("testdata", "schemas")
	registry := loadSchema(t, filepath.Join(schemas, "mcp-registry", "server.schema.json"))
	plugin := loadSchema(t, filepath.Join(schemas, "agent-plugins", "plugin.schema.json"))
	mcpConfig := loadSchema(t, filepath.Join(schemas, "agent-plugins", "mcp.schema.json"))
	agent := filepath.Join(repo, "plugins", "agent-plugins")

	files := []struct {
		path   string
		schema *jsonschema.Resolved
		broken func(map[string]any) // a change the schema must refuse
	}{
		{filepath.Join(repo, "server.json"), registry, func(m map[string]any) { m["description"] = strings.Repeat("x", 101) }},
		{filepath.Join(agent, "plugin.json"), plugin, func(m map[string]any) { m["mcpServers"] = map[string]any{} }},
		{filepath.Join(agent, "plugin.json"), plugin, func(m map[string]any) { m["name"] = "lsp--kit" }},
		{filepath.Join(agent, "mcp.json"), mcpConfig, func(m map[string]any) {
			delete(m["mcpServers"].(map[string]any)["lspkit"].(map[string]any), "type")
		}},
	}
	if dist := os.Getenv("LSPKIT_RELEASE_DIST"); dist != "" {
		files = append(files, struct {
			path   string
			schema *jsonschema.Resolved
			broken func(map[string]any)
		}{filepath.Join(dist, "server.json"), registry, func(m map[string]any) { m["version"] = 1 }})
	}
	for _, f := range files {
		var doc map[string]any
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		if err := f.schema.Validate(doc); err != nil {
			t.Errorf("%s does not validate against its schema: %v", f.path, err)
		}
		f.broken(doc)
		if err := f.schema.Validate(doc); err == nil {
			t.Errorf("%s, broken, still validates: the validator checks nothing", f.path)
		}
	}

	// server.json names what npm and the other manifests name.
	var server struct {
		Name     string `json:"name"`
		Packages []struct {
			Identifier string `json:"identifier"`
		} `json:"packages"`
	}
	var pkg struct {
		Name    string `json:"name"`
		MCPName string `json:"mcpName"`
	}
	readJSON(t, filepath.Join(repo, "server.json"), &server)
	readJSON(t, filepath.Join(repo, "npm", "lspkit", "package.json"), &pkg)
	if len(server.Packages) != 1 || server.Packages[0].Identifier != pkg.Name || pkg.MCPName != server.Name {
		t.Errorf("server.json (%+v) and npm/lspkit/package.json (%+v) disagree: the registry proves ownership by mcpName", server, pkg)
	}

	// The skill, by the Agent Skills rules: a directory per skill whose
	// SKILL.md starts with YAML front matter naming it.
	skills, err := os.ReadDir(filepath.Join(agent, "skills"))
	if err != nil || len(skills) == 0 {
		t.Fatalf("plugins/agent-plugins/skills: %v, %d skills", err, len(skills))
	}
	for _, dir := range skills {
		checkSkill(t, filepath.Join(agent, "skills", dir.Name()))
	}
	// They are lspkit's skills (service/skills), as lspkit init writes them
	// and the MCP server offers them as prompts (-update rewrites them).
	var names []string
	for _, sk := range lspskills.All() {
		names = append(names, sk.Name)
		path := filepath.Join(agent, "skills", sk.Name, "SKILL.md")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(sk.Text), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if data, err := os.ReadFile(path); err != nil || string(data) != sk.Text {
			t.Errorf("%s is not lspkit's skill %s (go test ./cmd/lspkit -run TestReleaseManifests -update rewrites it): %v", path, sk.Name, err)
		}
	}
	var dirs []string
	for _, d := range skills {
		dirs = append(dirs, d.Name())
	}
	if !slices.Equal(dirs, names) && !*update {
		t.Errorf("plugins/agent-plugins/skills holds %v, lspkit's skills are %v", dirs, names)
	}

	// The marketplaces: Copilot CLI reads .github/plugin's first (the Agent
	// Plugins layout), Claude Code .claude-plugin's (its own).
	for market, source := range map[string]string{
		filepath.Join(repo, ".github", "plugin", "marketplace.json"): "./plugins/agent-plugins",
		filepath.Join(repo, ".claude-plugin", "marketplace.json"):    "./plugins/claude-code",
	} {
		var m struct {
			Name    string `json:"name"`
			Plugins []struct {
				Name   string `json:"name"`
				Source string `json:"source"`
			} `json:"plugins"`
		}
		readJSON(t, market, &m)
		if m.Name != "lspkit" || len(m.Plugins) != 1 || m.Plugins[0].Name != "lspkit" || m.Plugins[0].Source != source {
			t.Errorf("%s: %+v, want the one plugin lspkit from %s", market, m, source)
		}
	}
}

// skillName is the Agent Skills rule for a skill's name: lowercase letters,
// digits and single hyphens, neither first nor last, at most 64 characters.
var skillName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// checkSkill checks dir's SKILL.md: front matter between --- lines with
// name (dir's own name) and description (1 to 1,024 characters), an
// optional compatibility of at most 500, and a body after it.
func checkSkill(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	front, body, ok := strings.Cut(strings.TrimPrefix(string(data), "---\n"), "\n---\n")
	if !strings.HasPrefix(string(data), "---\n") || !ok || strings.TrimSpace(body) == "" {
		t.Fatalf("%s/SKILL.md: no front matter between --- lines, or no body", dir)
	}
	fields := map[string]string{}
	for _, line := range strings.Split(front, "\n") {
		key, value, ok := strings.Cut(line, ": ")
		if !ok || strings.ContainsAny(key, " \t") {
			t.Fatalf("%s/SKILL.md: front matter line %q is not `key: value`", dir, line)
		}
		fields[key] = value
	}
	name, description := fields["name"], fields["description"]
	if name != filepath.Base(dir) || len(name) > 64 || !skillName.MatchString(name) {
		t.Errorf("%s/SKILL.md: name %q (the directory is %q)", dir, name, filepath.Base(dir))
	}
	if n := len([]rune(description)); n == 0 || n > 1024 {
		t.Errorf("%s/SKILL.md: description of %d characters, want 1 to 1,024", dir, n)
	}
	if n := len([]rune(fields["compatibility"])); n > 500 {
		t.Errorf("%s/SKILL.md: compatibility of %d characters, want at most 500", dir, n)
	}
	for key := range fields {
		switch key {
		case "name", "description", "license", "compatibility", "metadata", "allowed-tools":
		default:
			t.Errorf("%s/SKILL.md: front matter field %q is not one of Agent Skills'", dir, key)
		}
	}
}

// loadSchema reads and resolves a JSON Schema. A pattern that opens with
// a negative lookahead, ^(?!A)B, which Go's regexp does not have, is
// rewritten to its equivalent: allOf ^B and not ^A.
func loadSchema(t *testing.T, path string) *jsonschema.Resolved {
	t.Helper()
	var raw any
	readJSON(t, path, &raw)
	data, err := json.Marshal(withoutLookahead(raw))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return resolved
}

// withoutLookahead rewrites every "pattern": "^(?!A)B" in a schema.
func withoutLookahead(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = withoutLookahead(x)
		}
		if p, ok := v["pattern"].(string); ok && strings.HasPrefix(p, "^(?!") {
			depth, end := 0, -1
			for i := 1; i < len(p) && end < 0; i++ {
				switch {
				case p[i] == '\\':
					i++
				case p[i] == '(':
					depth++
				case p[i] == ')':
					if depth--; depth == 0 {
						end = i
					}
				}
			}
			if end > 0 {
				delete(v, "pattern")
				all, _ := v["allOf"].([]any)
				v["allOf"] = append(all,
					map[string]any{"pattern": "^" + p[end+1:]},
					map[string]any{"not": map[string]any{"pattern": "^" + p[len("^(?!"):end]}})
			}
		}
	case []any:
		for i, x := range v {
			v[i] = withoutLookahead(x)
		}
	}
	return v
}

// readJSON decodes path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
