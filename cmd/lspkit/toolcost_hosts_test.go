//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/service/skills"
)

// searchRequests are 30 requests as users phrase them, and the lspkit
// tool each asks for.
var searchRequests = []struct{ query, tool string }{
	{"who calls this function", "lsp_call_hierarchy"},
	{"rename this across the project", "lsp_rename"},
	{"did my edit break anything", "lsp_check_file"},
	{"what type is this variable", "lsp_hover"},
	{"where is this function defined", "lsp_goto_definition"},
	{"find all usages of this method", "lsp_find_references"},
	{"which classes implement this interface", "lsp_goto_implementation"},
	{"show me the outline of this file", "lsp_document_symbols"},
	{"search the project for a symbol by name", "lsp_workspace_symbols"},
	{"does the whole project build", "lsp_workspace_diagnostics"},
	{"list the current errors", "lsp_diagnostics"},
	{"quick fix for this error", "lsp_code_actions"},
	{"apply the suggested quick fix", "lsp_apply_code_action"},
	{"fix everything in this file", "lsp_fix_all"},
	{"format this file", "lsp_format"},
	{"edit a file without breaking the build", "lsp_apply_edits"},
	{"rewrite the body of this function", "lsp_replace_symbol_body"},
	{"add code below this function", "lsp_insert_after_symbol"},
	{"add code above this function", "lsp_insert_before_symbol"},
	{"delete this unused function safely", "lsp_safe_delete"},
	{"what arguments does this function take", "lsp_signature_help"},
	{"what methods does this object have", "lsp_completion"},
	{"show the inferred types in this file", "lsp_inlay_hints"},
	{"what does this class inherit from", "lsp_type_hierarchy"},
	{"go to the declaration in the header", "lsp_goto_declaration"},
	{"where is this variable written in this file", "lsp_document_highlights"},
	{"everything about this symbol before I change it", "lsp_symbol_context"},
	{"go to the type of this variable", "lsp_goto_type_definition"},
	{"ask many questions at once", "lsp_batch"},
	{"is the language server running", "lsp_status"},
}

// firstRequest is what the stand-in received first in a trace
// (FAKE_TRACE): the body of the first request to the model API that
// offered tools, as sent.
func firstRequest(t *testing.T, trace string) string {
	t.Helper()
	data, _ := os.ReadFile(trace)
	for _, line := range strings.Split(string(data), "\n") {
		method, rest, _ := strings.Cut(line, " ")
		url, body, _ := strings.Cut(rest, " ")
		if method == "POST" && !strings.Contains(url, "count_tokens") && strings.Contains(body, `"tools"`) && strings.Contains(body, "go") {
			return body
		}
	}
	t.Fatalf("no request with tools in %s", trace)
	return ""
}

// searched reads, from what the stand-in heard after each of
// searchRequests' searches, the lspkit tools the search returned, in
// order: a request found its tool when it is one of the first three, or
// one of loaded (always in the request). It returns how many did and a
// table row for each.
func searched(heard []heard, loaded []string) (int, []string) {
	found := 0
	var rows []string
	for i, r := range searchRequests {
		var results []string
		for _, h := range heard {
			if h.Step != i+1 {
				continue
			}
			for _, text := range h.New {
				for _, name := range toolNamesIn(text) {
					if !slices.Contains(results, name) {
						results = append(results, name)
					}
				}
			}
		}
		rank := slices.Index(results, r.tool) + 1
		ok := rank >= 1 && rank <= 3 || slices.Contains(loaded, r.tool)
		if ok {
			found++
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %v |", r.query, r.tool, strings.Join(results, ", "), ok))
	}
	return found, rows
}

// toolNames finds tool names in a search's result: Claude Code's
// tool_reference blocks name "mcp__lspkit__lsp_…" tools; Codex's
// tool_search_output lists tools with their names, maybe within a
// namespace.
var toolNames = regexp.MustCompile(`"(?:tool_)?name"\s*:\s*"(?:mcp__lspkit__)?(lsp_[a-z_]+)"|mcp__lspkit__(lsp_[a-z_]+)`)

// toolNamesIn is the lspkit tools a search's result names, in order.
func toolNamesIn(text string) []string {
	var out []string
	for _, m := range toolNames.FindAllStringSubmatch(text, -1) {
		name := m[1] + m[2]
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// lspkitTools is how many of lspkit's tools a request names.
func lspkitTools(req string) int {
	seen := map[string]bool{}
	for _, name := range regexp.MustCompile(`lsp_[a-z]+(?:_[a-z]+)*`).FindAllString(req, -1) {
		seen[name] = true
	}
	return len(seen)
}

// tokens counts text in o200k_base tokens with js-tiktoken (count.mjs's
// library, LSPKIT_TIKTOKEN).
func tokens(t *testing.T, text string) int {
	t.Helper()
	modules := os.Getenv("LSPKIT_TIKTOKEN")
	if modules == "" {
		t.Skip("LSPKIT_TIKTOKEN is not set (scripts/test.sh installs js-tiktoken)")
	}
	cmd := exec.Command("node", "-e", `const {getEncoding}=require(require('path').join(process.env.LSPKIT_TIKTOKEN,'js-tiktoken'));let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(getEncoding('o200k_base').encode(s).length))`)
	cmd.Env = append(os.Environ(), "LSPKIT_TIKTOKEN="+modules)
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("counting tokens: %v", err)
	}
	var n int
	fmt.Sscan(string(out), &n)
	return n
}

// TestToolCostHosts: what lspkit costs the model, in the real hosts as
// shipped. In Claude Code with tool search on (ENABLE_TOOL_SEARCH), the
// stand-in model sends ToolSearch 30 requests phrased as users phrase
// them: the right lspkit tool is one of the first three results, or is
// one of the tools always loaded (anthropic/alwaysLoad), in the request
// itself, for at least 27. The stand-in sees lspkit's skills in Claude
// Code's first request. And the tokens lspkit adds to the first model
// request of a session — a project set up by lspkit init against the
// same project without it, o200k_base tokens of the request as sent —
// in Claude Code with tool search on and off, Codex and Copilot CLI.
func TestToolCostHosts(t *testing.T) {
	hostsBin := os.Getenv("LSPKIT_HOSTS")
	if hostsBin == "" {
		t.Skip("LSPKIT_HOSTS (the hosts' node_modules/.bin) not set: scripts/test-hosts.sh runs this test")
	}
	testdata, _ := filepath.Abs("testdata/hosts")
	home := t.TempDir()
	env := hostEnv(t, home, hostsBin)
	project := func(withLSPKit bool) string {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"})
		if withLSPKit {
			for _, h := range []string{"claude-code", "codex", "copilot"} {
				if out, err := host(t, env, dir, "", "lspkit", "init", "--host", h); err != nil {
					t.Fatalf("lspkit init --host %s: %v\n%s", h, err, out)
				}
			}
			writeFiles(t, dir, map[string]string{".claude/settings.local.json": `{"enabledMcpjsonServers": ["lspkit"]}` + "\n"})
		}
		return dir
	}
	with, without := project(true), project(false)
	writeFiles(t, home, map[string]string{
		".claude.json":         fmt.Sprintf(`{"projects": {%q: {"hasTrustDialogAccepted": true}, %q: {"hasTrustDialogAccepted": true}}}`, with, without),
		".copilot/config.json": fmt.Sprintf(`{"trustedFolders": [%q, %q]}`, with, without),
	})

	// run plays steps in a host against the stand-in and returns the
	// trace of what it received and the log of what the model heard.
	run := func(t *testing.T, dir string, steps []hookStep, hostEnv []string, args ...string) (trace, heardLog string) {
		scratch := t.TempDir()
		script, _ := json.Marshal(map[string]any{"steps": steps})
		scriptFile := filepath.Join(scratch, "script.json")
		trace, heardLog = filepath.Join(scratch, "trace"), filepath.Join(scratch, "heard.jsonl")
		os.WriteFile(scriptFile, script, 0o644)
		fake := exec.Command("node", filepath.Join(testdata, "fake-turns.mjs"))
		fake.Env = append(slices.Clone(env), "FAKE_SCRIPT="+scriptFile, "FAKE_LOG="+heardLog, "FAKE_TRACE="+trace)
		port, stop := standIn(t, fake)
		defer stop()
		e := slices.Clone(env)
		for _, kv := range hostEnv {
			e = append(e, strings.ReplaceAll(kv, "PORT", port))
		}
		if out, err := host(t, e, dir, "", args...); err != nil {
			t.Logf("%v: %v\n%s", args, err, out) // the turn's end is the stand-in's; what it received is the answer
		}
		return trace, heardLog
	}
	claudeEnv := func(search string) []string {
		return []string{"ANTHROPIC_BASE_URL=http://127.0.0.1:PORT", "ANTHROPIC_API_KEY=sk-ant-stand-in", "ENABLE_TOOL_SEARCH=" + search,
			// The first request after the MCP servers connected, as a session's
			// first prompt typed by hand is.
			"MCP_CONNECTION_NONBLOCKING=false"}
	}
	claude := []string{"claude", "-p", "go", "--allowedTools", "Read"}

	// Tool search: 30 ToolSearch calls in one turn.
	var steps []hookStep
	for _, r := range searchRequests {
		steps = append(steps, hookStep{Tool: "ToolSearch", Args: map[string]any{"query": r.query}})
	}
	trace, heardLog := run(t, with, steps, claudeEnv("true"), claude...)
	first := firstRequest(t, trace)
	var req struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	json.Unmarshal([]byte(first), &req)
	var loaded []string
	for _, tool := range req.Tools {
		if name, ok := strings.CutPrefix(tool.Name, "mcp__lspkit__"); ok {
			loaded = append(loaded, name)
		}
	}
	for _, s := range skills.All() {
		if !strings.Contains(first, s.Name) || !strings.Contains(first, s.Description) {
			t.Errorf("Claude Code's first request does not carry the skill %s (%q)", s.Name, s.Description)
		}
	}
	found, rows := searched(readHeard(t, heardLog), loaded)
	t.Logf("Claude Code with tool search: always loaded %v; %d of %d requests found their tool\n| request | tool | ToolSearch's results | found |\n|---|---|---|---|\n%s",
		loaded, found, len(searchRequests), strings.Join(rows, "\n"))
	if found < 27 {
		t.Errorf("Claude Code: %d of %d requests found their tool, want at least 27", found, len(searchRequests))
	}

	// The first request's cost, with lspkit and without.
	type hostRun struct {
		name string
		env  []string
		args []string
	}
	codexCfg := fmt.Sprintf("model = \"gpt-5.5\"\nmodel_provider = \"standin\"\n\n[model_providers.standin]\nname = \"stand-in\"\nbase_url = \"http://127.0.0.1:PORT/v1\"\nwire_api = \"responses\"\nenv_key = \"STANDIN_KEY\"\n\n[projects.%q]\ntrust_level = \"trusted\"\n[projects.%q]\ntrust_level = \"trusted\"\n", with, without)
	runs := []hostRun{
		{"Claude Code, tool search on", claudeEnv("true"), claude},
		{"Claude Code, tool search off", claudeEnv("false"), claude},
		{"Copilot CLI", []string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:PORT/v1", "COPILOT_PROVIDER_API_KEY=stand-in", "COPILOT_MODEL=stand-in"},
			[]string{"copilot", "-p", "go", "--allow-all-tools"}},
	}
	var costs []string
	for _, hr := range runs {
		var n [2]int
		for i, dir := range []string{without, with} {
			tr, _ := run(t, dir, []hookStep{}, hr.env, hr.args...)
			req := firstRequest(t, tr)
			n[i] = tokens(t, req)
			if i == 1 {
				t.Logf("%s: the first request names %d of lspkit's tools", hr.name, lspkitTools(req))
				if d := os.Getenv("LSPKIT_DUMP_REQUESTS"); d != "" {
					os.WriteFile(filepath.Join(d, strings.ReplaceAll(hr.name, " ", "_")+".json"), []byte(req), 0o644)
				}
			}
		}
		costs = append(costs, fmt.Sprintf("| %s | %d | %d | %d |", hr.name, n[0], n[1], n[1]-n[0]))
		if n[1] <= n[0] {
			t.Errorf("%s: the first request is %d tokens with lspkit, %d without: lspkit's tools are not in it", hr.name, n[1], n[0])
		}
	}
	// Codex reads its model provider from the user's config.toml, which
	// names the stand-in's port: written for each run.
	{
		var n [2]int
		for i, dir := range []string{without, with} {
			scratch := t.TempDir()
			trace := filepath.Join(scratch, "trace")
			script := filepath.Join(scratch, "script.json")
			os.WriteFile(script, []byte(`{"steps": []}`), 0o644)
			fake := exec.Command("node", filepath.Join(testdata, "fake-turns.mjs"))
			fake.Env = append(slices.Clone(env), "FAKE_SCRIPT="+script, "FAKE_TRACE="+trace)
			port, stop := standIn(t, fake)
			writeFiles(t, home, map[string]string{".codex/config.toml": strings.ReplaceAll(codexCfg, "PORT", port)})
			if out, err := host(t, append(slices.Clone(env), "STANDIN_KEY=stand-in"), dir, "", "codex", "exec", "--skip-git-repo-check", "go"); err != nil {
				t.Logf("codex exec: %v\n%s", err, out)
			}
			stop()
			req := firstRequest(t, trace)
			n[i] = tokens(t, req)
			if i == 1 {
				t.Logf("Codex: the first request names %d of lspkit's tools", lspkitTools(req))
				if d := os.Getenv("LSPKIT_DUMP_REQUESTS"); d != "" {
					os.WriteFile(filepath.Join(d, "codex.json"), []byte(req), 0o644)
				}
			}
		}
		costs = append(costs, fmt.Sprintf("| Codex | %d | %d | %d |", n[0], n[1], n[1]-n[0]))
		if n[1] <= n[0] {
			t.Errorf("Codex: the first request is %d tokens with lspkit, %d without", n[1], n[0])
		}
	}
	// Codex's tool search (tool_search, which it runs itself over the MCP
	// tools it defers): the same 30 requests.
	{
		var steps []hookStep
		for _, r := range searchRequests {
			steps = append(steps, hookStep{Tool: "tool_search", Args: map[string]any{"query": r.query}})
		}
		scratch := t.TempDir()
		script, _ := json.Marshal(map[string]any{"steps": steps})
		scriptFile, heardLog := filepath.Join(scratch, "script.json"), filepath.Join(scratch, "heard.jsonl")
		os.WriteFile(scriptFile, script, 0o644)
		fake := exec.Command("node", filepath.Join(testdata, "fake-turns.mjs"))
		fake.Env = append(slices.Clone(env), "FAKE_SCRIPT="+scriptFile, "FAKE_LOG="+heardLog)
		port, stop := standIn(t, fake)
		writeFiles(t, home, map[string]string{".codex/config.toml": strings.ReplaceAll(codexCfg, "PORT", port)})
		if out, err := host(t, append(slices.Clone(env), "STANDIN_KEY=stand-in"), with, "", "codex", "exec", "--skip-git-repo-check", "go"); err != nil {
			t.Logf("codex exec: %v\n%s", err, out)
		}
		stop()
		found, rows := searched(readHeard(t, heardLog), nil)
		t.Logf("Codex with its tool search: %d of %d requests found their tool\n| request | tool | tool_search's results | found |\n|---|---|---|---|\n%s",
			found, len(searchRequests), strings.Join(rows, "\n"))
	}

	t.Logf("the first model request of a session, o200k_base tokens as the stand-in received it\n| host | without lspkit | with lspkit (lspkit init) | lspkit's cost |\n|---|---|---|---|\n%s", strings.Join(costs, "\n"))
}
