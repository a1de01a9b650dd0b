package hostconfig

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/service/skills"
)

// opts is Options for host in new directories, without the skills
// (TestSkills has them).
func opts(t *testing.T, host string) Options {
	t.Helper()
	return Options{Host: host, Root: t.TempDir(), Home: t.TempDir(), ConfigDir: t.TempDir(), Command: "lspkit", Shared: true, NoSkills: true}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMergeJSONKeepsEveryByte: comments, order, spacing and the other
// servers stay as they were; the entry is added once, then unchanged.
func TestMergeJSONKeepsEveryByte(t *testing.T) {
	o := opts(t, "cursor")
	file := filepath.Join(o.Root, ".cursor", "mcp.json")
	old := "{\n  // my servers\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\", /* keep */ \"args\": []},\n  },\n  \"extra\": [1, 2,],\n}\n"
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(old), 0o600)
	res, err := Init(o)
	if err != nil || res.Changes[0].Action != "added" {
		t.Fatalf("%+v %v", res, err)
	}
	got := read(t, file)
	if !strings.HasPrefix(got, "{\n  // my servers\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\", /* keep */ \"args\": []},") ||
		!strings.Contains(got, `"lspkit":{"args":["mcp","--shared"],"command":"lspkit"}`) || !strings.Contains(got, "\"extra\": [1, 2,],\n}") {
		t.Fatalf("merged:\n%s", got)
	}
	if info, _ := os.Stat(file); runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own", info.Mode())
	}
	if res, err := Init(o); err != nil || res.Changes[0].Action != "unchanged" || read(t, file) != got {
		t.Fatalf("second init: %+v %v", res, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(file), ".*lspkit-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestDifferentEntry: another lspkit entry is refused, named, unless
// Force; then it is replaced and nothing else changes.
func TestDifferentEntry(t *testing.T) {
	o := opts(t, "gemini")
	file := filepath.Join(o.Root, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	old := "{\"theme\": \"dark\", \"mcpServers\": {\"lspkit\": {\"command\": \"/old/lspkit\", \"args\": [\"mcp\"]}}}\n"
	os.WriteFile(file, []byte(old), 0o644)
	o.NoHooks = true
	_, err := Init(o)
	if !errors.Is(err, ErrDifferentEntry) || !strings.Contains(err.Error(), `{"command":"/old/lspkit","args":["mcp"]}`) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("want a refusal naming the entry: %v", err)
	}
	if read(t, file) != old {
		t.Fatal("the file changed")
	}
	o.Force = true
	if res, err := Init(o); err != nil || res.Changes[0].Action != "replaced" {
		t.Fatalf("%+v %v", res, err)
	}
	if got := read(t, file); got != "{\"theme\": \"dark\", \"mcpServers\": {\"lspkit\": {\"args\":[\"mcp\",\"--shared\"],\"command\":\"lspkit\"}}}\n" {
		t.Fatalf("replaced:\n%s", got)
	}
}

// TestUnparsable: a file that does not parse is left as it is and named
// with the line of the problem.
func TestUnparsable(t *testing.T) {
	for _, tc := range []struct{ host, file, text, want string }{
		{"opencode", "opencode.json", "{\n  \"mcp\": {\n    \"a\": tru\n  }\n}\n", "line 3"},
		{"codex", ".codex/config.toml", "model = \"o3\"\n\n[mcp_servers.x\ncommand = 1\n", "line 3"},
	} {
		o := opts(t, tc.host)
		file := filepath.Join(o.Root, tc.file)
		os.MkdirAll(filepath.Dir(file), 0o755)
		os.WriteFile(file, []byte(tc.text), 0o644)
		_, err := Init(o)
		if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "left as it is") {
			t.Errorf("%s: %v", tc.host, err)
		}
		if read(t, file) != tc.text {
			t.Errorf("%s: the file changed", tc.host)
		}
	}
}

// TestTOML: Codex's file gains a table at its end, the rest byte for
// byte; an equal entry is unchanged; Force replaces the table's lines and
// its subtables, and nothing else.
func TestTOML(t *testing.T) {
	o := opts(t, "codex")
	file := filepath.Join(o.Root, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(file), 0o755)
	old := "# mine\nmodel = \"o3\" # the model\n\n[mcp_servers.other]\ncommand = \"x\"\n"
	os.WriteFile(file, []byte(old), 0o644)
	res, err := Init(o)
	if err != nil || res.Changes[0].Action != "added" || !strings.Contains(res.Step, "trust_level = \"trusted\"") || !strings.Contains(res.Step, o.Root) {
		t.Fatalf("%+v %v", res, err)
	}
	got := read(t, file)
	if !strings.HasPrefix(got, old+"\n[mcp_servers.lspkit]\nargs = ['mcp', '--shared']\ncommand = 'lspkit'\nenv_vars = ['GOPATH',") {
		t.Fatalf("added:\n%s", got)
	}
	if res, _ := Init(o); res.Changes[0].Action != "unchanged" {
		t.Fatalf("again: %+v", res)
	}
	tail := "\n[profiles.fast]\nmodel = \"o4\"\n"
	different := old + "\n[mcp_servers.lspkit]\ncommand = \"/old\"\n\n[mcp_servers.lspkit.env]\nA = \"1\"\n" + tail
	os.WriteFile(file, []byte(different), 0o644)
	if _, err := Init(o); !errors.Is(err, ErrDifferentEntry) {
		t.Fatalf("different: %v", err)
	}
	o.Force = true
	if res, err := Init(o); err != nil || res.Changes[0].Action != "replaced" {
		t.Fatalf("force: %+v %v", res, err)
	}
	got = read(t, file)
	if !strings.HasPrefix(got, old+"\n[mcp_servers.lspkit]\nargs = ['mcp', '--shared']") || !strings.HasSuffix(got, "]\n"+tail) || strings.Contains(got, "/old") || strings.Contains(got, "A = ") {
		t.Fatalf("replaced:\n%s", got)
	}
}

// TestClaudeCode: .mcp.json and the hooks in .claude/settings.json —
// before and after every tool, and at the end of the turn — added beside
// the hooks already there; the step says how to approve; an lspkit hook
// of another shape (an older init's, or another's flags) is refused, then
// replaced with --force; --no-hooks writes the MCP entry alone.
func TestClaudeCode(t *testing.T) {
	o := opts(t, "claude-code")
	settings := filepath.Join(o.Root, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]}]}}`), 0o644)
	res, err := Init(o)
	if err != nil || len(res.Changes) != 2 || res.Changes[0].Action != "created" || res.Changes[1].Action != "added" || !strings.Contains(res.Step, "enabledMcpjsonServers") {
		t.Fatalf("%+v %v", res, err)
	}
	hook := `{"hooks":[{"command":"lspkit hook claude-code","timeout":120,"type":"command"}],"matcher":"*"}`
	got := read(t, settings)
	if !strings.Contains(got, `"command": "echo hi"`) || !strings.Contains(got, `"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]},`+hook+`]`) ||
		!strings.Contains(got, `"PreToolUse":[`+hook+`]`) || !strings.Contains(got, `"Stop":[{"hooks":[{"command":"lspkit hook claude-code","timeout":120,"type":"command"}]}]`) {
		t.Fatalf("settings:\n%s", got)
	}
	if res, err := Init(o); err != nil || res.Changes[1].Action != "unchanged" {
		t.Fatalf("again: %+v %v", res, err)
	}
	if mcp := read(t, filepath.Join(o.Root, ".mcp.json")); !strings.Contains(mcp, "\"type\": \"stdio\"") || !strings.Contains(mcp, "\"--shared\"") {
		t.Fatalf(".mcp.json:\n%s", mcp)
	}
	// --no-grep-hint and --each make another hook: refused, then replaced
	// in place.
	o.NoGrepHint, o.Each = true, true
	if _, err := Init(o); !errors.Is(err, ErrDifferentEntry) || !strings.Contains(err.Error(), "hooks.PreToolUse[0]") {
		t.Fatalf("another hook: %v", err)
	}
	o.Force = true
	if _, err := Init(o); err != nil {
		t.Fatal(err)
	}
	if got := read(t, settings); strings.Count(got, "lspkit hook claude-code --each --no-grep-hint") != 3 || strings.Count(got, "hook claude-code") != 3 || !strings.Contains(got, "echo hi") {
		t.Fatalf("settings after --force:\n%s", got)
	}
	// --no-hooks: the MCP entry alone.
	n := opts(t, "claude-code")
	n.NoHooks = true
	if res, err := Init(n); err != nil || len(res.Changes) != 1 {
		t.Fatalf("--no-hooks: %+v %v", res, err)
	}
}

// TestHookFiles: Codex's, Gemini CLI's, Cursor's and opencode's hooks
// where each reads them; a plugin file of the user's is refused; the step
// says how Codex trusts its hooks.
func TestHookFiles(t *testing.T) {
	o := opts(t, "codex")
	res, err := Init(o)
	if err != nil || !strings.Contains(res.Step, "/hooks") {
		t.Fatalf("codex: %+v %v", res, err)
	}
	if got := read(t, filepath.Join(o.Root, ".codex", "hooks.json")); !strings.Contains(got, `"PreToolUse"`) || !strings.Contains(got, `"Stop"`) || strings.Count(got, `"command": "lspkit hook codex"`) != 3 {
		t.Fatalf("codex hooks.json:\n%s", got)
	}
	o = opts(t, "gemini")
	if _, err := Init(o); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(o.Root, ".gemini", "settings.json")); !strings.Contains(got, `"AfterAgent"`) || !strings.Contains(got, `"BeforeTool"`) || !strings.Contains(got, `"timeout": 120000`) {
		t.Fatalf("gemini settings.json:\n%s", got)
	}
	o = opts(t, "cursor")
	if _, err := Init(o); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(o.Root, ".cursor", "hooks.json")); !strings.Contains(got, `"version": 1`) || !strings.Contains(got, `"afterFileEdit"`) || !strings.Contains(got, `"stop"`) {
		t.Fatalf("cursor hooks.json:\n%s", got)
	}
	o = opts(t, "opencode")
	mine := filepath.Join(o.Root, ".opencode", "plugins", "lspkit.js")
	os.MkdirAll(filepath.Dir(mine), 0o755)
	os.WriteFile(mine, []byte("export const Mine = async () => ({});\n"), 0o644)
	if _, err := Init(o); !errors.Is(err, ErrDifferentEntry) || !strings.Contains(err.Error(), "a file of yours") {
		t.Fatalf("opencode over the user's plugin: %v", err)
	}
	o.Force = true
	if _, err := Init(o); err != nil {
		t.Fatal(err)
	}
	if got := read(t, mine); !strings.HasPrefix(got, pluginMarker) || !strings.Contains(got, "promptAsync") {
		t.Fatalf("the plugin:\n%s", got)
	}
}

// TestDryRunAndUnknown: a dry run writes nothing; an unknown host lists
// the known ones; Claude Desktop's entry names the root.
func TestDryRunAndUnknown(t *testing.T) {
	o := opts(t, "claude-desktop")
	o.DryRun = true
	res, err := Init(o)
	root := tomlQuote(o.Root) // as JSON writes it
	if err != nil || res.Changes[0].Action != "would be created" || !strings.Contains(string(res.Changes[0].Content), root[1:len(root)-1]) {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Stat(res.Changes[0].File); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a dry run wrote %s", res.Changes[0].File)
	}
	// opencode runs MCP tools without asking: only the tools that write
	// nothing.
	oc := opts(t, "opencode")
	if res, err := Init(oc); err != nil || !strings.Contains(read(t, res.Changes[0].File), `"--read-only"`) || !strings.Contains(res.Step, "--read-only") {
		t.Fatalf("opencode: %+v %v", res, err)
	}
	o.Host = "vim"
	if _, err := Init(o); !errors.Is(err, ErrUnknownHost) || !strings.Contains(err.Error(), "claude-code, codex, gemini, opencode, cursor, copilot, qwen, kilo, droid, crush, continue, antigravity, claude-desktop") {
		t.Fatalf("%v", err)
	}
}

// TestSkills: init writes lspkit's skills where each host reads them —
// Claude Code's .claude/skills, the shared .agents/skills, Qwen's,
// Droid's, Copilot's — a SKILL.md per skill; again, unchanged; another
// version of lspkit's own skill is replaced; a skill of the user's of the
// same name is refused without --force; --no-skills writes none, and a
// host without skills gets none.
func TestSkills(t *testing.T) {
	for host, dir := range map[string]string{"claude-code": ".claude/skills", "codex": ".agents/skills", "qwen": ".qwen/skills", "droid": ".factory/skills", "copilot": ".github/skills"} {
		o := opts(t, host)
		o.NoSkills = false
		res, err := Init(o)
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		var written []string
		for _, c := range res.Changes {
			if rel, err := filepath.Rel(o.Root, c.File); err == nil && strings.HasPrefix(filepath.ToSlash(rel), dir+"/") {
				written = append(written, filepath.ToSlash(rel))
				if c.Action != "created" {
					t.Errorf("%s: %s %s", host, rel, c.Action)
				}
			}
		}
		if want := len(skills.All()); len(written) != want {
			t.Fatalf("%s: wrote %v, want %d skills under %s", host, written, want, dir)
		}
		for _, s := range skills.All() {
			if got := read(t, filepath.Join(o.Root, dir, s.Name, "SKILL.md")); got != s.Text {
				t.Errorf("%s: %s/%s/SKILL.md is %q", host, dir, s.Name, got)
			}
		}
	}
	o := opts(t, "claude-code")
	o.NoSkills = false
	if _, err := Init(o); err != nil {
		t.Fatal(err)
	}
	first := skills.All()[0]
	path := filepath.Join(o.Root, ".claude", "skills", first.Name, "SKILL.md")
	if res, err := Init(o); err != nil || !slices.ContainsFunc(res.Changes, func(c Change) bool { return c.File == path && c.Action == "unchanged" }) {
		t.Fatalf("again: %+v %v", res.Changes, err)
	}
	os.WriteFile(path, []byte(strings.Replace(first.Text, "# ", "# An older ", 1)), 0o644)
	if res, err := Init(o); err != nil || !slices.ContainsFunc(res.Changes, func(c Change) bool { return c.File == path && c.Action == "replaced" }) || read(t, path) != first.Text {
		t.Fatalf("an older version: %+v %v", res.Changes, err)
	}
	os.WriteFile(path, []byte("---\nname: "+first.Name+"\ndescription: mine.\n---\n\n# Mine\n"), 0o644)
	if _, err := Init(o); !errors.Is(err, ErrDifferentEntry) {
		t.Fatalf("a skill of the user's: %v", err)
	}
	o.Force = true
	if _, err := Init(o); err != nil || read(t, path) != first.Text {
		t.Fatalf("--force: %v", err)
	}
	o = opts(t, "claude-desktop")
	o.NoSkills = false
	if res, err := Init(o); err != nil || slices.ContainsFunc(res.Changes, func(c Change) bool { return strings.Contains(c.File, "skills") }) {
		t.Fatalf("claude-desktop: %+v %v", res.Changes, err)
	}
}
