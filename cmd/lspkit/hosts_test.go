//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/service/registry"
)

// The hosts' project: a Go module with one deliberate type error in
// main.go and a library for the navigation tools.
var hostProject = map[string]string{
	"go.mod": "module example.com/hostdemo\n\ngo 1.22\n",
	"main.go": "package main\n\nimport \"fmt\"\n\nfunc answer() int { return 42 }\n\n" +
		"func main() {\n\tvar greeting string = answer() // deliberate: an int is not a string\n\tfmt.Println(greeting, Greet(\"x\"), NewCounter().Add(2))\n}\n",
	"lib.go": "package main\n\n// Greet says hello to name.\nfunc Greet(name string) string { return \"hello, \" + name }\n\n" +
		"// Counter counts.\ntype Counter struct{ n int }\n\n// NewCounter returns a zero Counter.\nfunc NewCounter() *Counter { return &Counter{} }\n\n" +
		"// Add adds d and returns the total.\nfunc (c *Counter) Add(d int) int { c.n += d; return c.n }\n\n" +
		"func twice() string { return Greet(\"a\") + Greet(\"b\") }\n",
	"README.md": "# hostdemo\n",
}

// hostEnv is the environment the hosts run in: a scratch HOME, lspkit and
// the hosts on PATH, the servers lspkit's test command installed, the Go
// caches of this machine, and XDG_RUNTIME_DIR and TMPDIR set to
// directories of their own — which Codex drops, and which must not split
// the shared daemon.
func hostEnv(t *testing.T, home, hostsBin string) []string {
	t.Helper()
	bin := t.TempDir()
	if err := os.Symlink(lspkitBin, filepath.Join(bin, "lspkit")); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME", k == "PATH", k == "XDG_RUNTIME_DIR", k == "TMPDIR", k == "XDG_CONFIG_HOME", k == "XDG_DATA_HOME", k == "XDG_STATE_HOME",
			strings.HasPrefix(k, "LSPKIT_"), strings.HasPrefix(k, "CLAUDE"), strings.HasPrefix(k, "ANTHROPIC"), strings.HasPrefix(k, "CODEX"),
			strings.HasPrefix(k, "OPENAI"), strings.HasPrefix(k, "GEMINI"), strings.HasPrefix(k, "GOOGLE"), strings.HasPrefix(k, "OPENCODE"),
			strings.HasPrefix(k, "COPILOT"), k == "GH_TOKEN", k == "GITHUB_TOKEN":
			continue
		}
		env = append(env, kv)
	}
	goEnv := func(name string) string {
		out, _ := exec.Command("go", "env", name).Output()
		return strings.TrimSpace(string(out))
	}
	return append(env, "HOME="+home, "PATH="+bin+":"+hostsBin+":"+os.Getenv("PATH"),
		"XDG_RUNTIME_DIR="+t.TempDir(), "TMPDIR="+t.TempDir(), "LSPKIT_SERVERS="+registry.DefaultDir(),
		"GOPATH="+goEnv("GOPATH"), "GOMODCACHE="+goEnv("GOMODCACHE"), "GOCACHE="+goEnv("GOCACHE"), "GOTOOLCHAIN=local")
}

// host runs a host's command in dir and returns its combined output.
func host(t *testing.T, env []string, dir string, stdin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lookPath(env, args[0]), args[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// lookPath finds name on env's PATH, as the hosts' shell would.
func lookPath(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if path, ok := strings.CutPrefix(env[i], "PATH="); ok {
			for _, dir := range filepath.SplitList(path) {
				if info, err := os.Stat(filepath.Join(dir, name)); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
					return filepath.Join(dir, name)
				}
			}
			break
		}
	}
	return name
}

// TestHosts: lspkit as the real agent hosts run it, installed from npm at
// pinned versions (scripts/test-hosts.sh; LSPKIT_HOSTS is their bin
// directory). In a scratch HOME, `lspkit init --host X --shared` and then
// the step init says the host leaves to the user, done as the user would;
// then the host's own status command says lspkit is connected (Codex
// through `codex app-server`, which connects and calls lsp_check_file
// without a model). All four at once, with XDG_RUNTIME_DIR and TMPDIR set
// (Codex drops both), share one daemon and one gopls. Claude Code, against
// a stand-in for the model API, shows the model each tool's text — not a
// JSON two to four times its size. The hooks init wrote hold a turn that
// broke a function's callers once, with those callers and not the error
// that was there before; their Grep hint reaches the model with a Grep for
// a symbol's name.
func TestHosts(t *testing.T) {
	hostsBin := os.Getenv("LSPKIT_HOSTS")
	if hostsBin == "" {
		t.Skip("LSPKIT_HOSTS (the hosts' node_modules/.bin) not set: scripts/test-hosts.sh runs this test")
	}
	home, proj, env := hostScratch(t, hostsBin)
	testdata, _ := filepath.Abs("testdata/hosts")

	// README's init line, the user's step, the host's own status command.
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	initHost := func(name, wantStep string) {
		t.Helper()
		line := regexp.MustCompile(`(?m)^lspkit init --host ` + regexp.QuoteMeta(name) + `( .*)?$`).Find(readme)
		if line == nil {
			t.Fatalf("README has no `lspkit init --host %s` line", name)
		}
		out, err := host(t, env, proj, "", strings.Fields(string(line))...)
		if err != nil || !strings.Contains(out, wantStep) {
			t.Fatalf("lspkit init --host %s: %v\n%s\nwant the step %q", name, err, out, wantStep)
		}
	}
	initHost("claude-code", "approve \"lspkit\"")
	writeFiles(t, proj, map[string]string{".claude/settings.local.json": `{"enabledMcpjsonServers": ["lspkit"]}` + "\n"})
	writeFiles(t, home, map[string]string{".claude.json": fmt.Sprintf(`{"projects": {%q: {"hasTrustDialogAccepted": true}}}`, proj)})
	initHost("codex", "trust_level = \"trusted\"")
	writeFiles(t, home, map[string]string{".codex/config.toml": fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", proj)})
	initHost("gemini", "trust")
	writeFiles(t, home, map[string]string{".gemini/trustedFolders.json": fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, proj)})
	initHost("opencode", "--read-only")

	checks := []struct {
		name string
		args []string
		want *regexp.Regexp
	}{
		{"claude-code", []string{"claude", "mcp", "list"}, regexp.MustCompile(`lspkit: lspkit mcp --shared - . Connected`)},
		{"gemini", []string{"gemini", "mcp", "list"}, regexp.MustCompile(`lspkit: lspkit mcp --shared \(stdio\) - Connected`)},
		{"opencode", []string{"opencode", "mcp", "list"}, regexp.MustCompile(`lspkit\S*\s+\S*connected`)},
		{"codex", []string{"node", filepath.Join(testdata, "codex-app-server.mjs"), "main.go"}, regexp.MustCompile(`"runtimeStatus":"connected","tools":\["lsp_apply_code_action",(?:"[a-z_]+",){28}"lsp_workspace_symbols"\].*main.go:8:24 error: cannot use answer\(\) \(value of type int\) as string value in variable declaration`)},
	}
	for _, c := range checks {
		out, err := host(t, env, proj, "", c.args...)
		if err != nil || !c.want.MatchString(out) {
			t.Errorf("%s: %v\n%s\nwant %s", c.name, err, out, c.want)
		}
	}

	// All four at once, after the daemon is gone: one daemon, one gopls.
	stopShared(t, proj)
	var wg sync.WaitGroup
	outs := make([]string, len(checks))
	for i, c := range checks {
		wg.Go(func() { outs[i], _ = host(t, env, proj, "", c.args...) })
	}
	wg.Wait()
	for i, c := range checks {
		if !c.want.MatchString(outs[i]) {
			t.Errorf("%s, all four at once:\n%s", c.name, outs[i])
		}
	}
	if d := sharedDaemons(proj); len(d) != 1 {
		t.Errorf("shared daemons for the root after all four hosts: %v, want one", d)
	}
	if g := serverProcesses(proj, "gopls"); len(g) != 1 {
		t.Errorf("gopls processes: %v, want one", g)
	}
	if out, _ := host(t, env, proj, "", "lspkit", "status"); !strings.Contains(out, "shared daemon: pid ") || !regexp.MustCompile(`(?m)^gopls +go +active`).MatchString(out) {
		t.Errorf("lspkit status does not show the shared daemon and its gopls:\n%s", out)
	}

	// The first check through a daemon Codex started, under Codex's
	// environment, against the same check in a daemon of its own.
	stopShared(t, proj)
	codexFirst := firstCheck(t, func() string {
		out, _ := host(t, env, proj, "", "node", filepath.Join(testdata, "codex-app-server.mjs"), "main.go")
		return out
	})
	own := firstCheck(t, func() string { return mcpCheckOwn(t, env, proj) })
	t.Logf("first check: %d ms through the shared daemon Codex started, %d ms in a daemon of its own (%.2f×)", codexFirst, own, float64(codexFirst)/float64(own))
	if codexFirst > 5000 {
		t.Errorf("the first check through the daemon Codex started took %d ms (a daemon of its own: %d ms)", codexFirst, own)
	}

	modelSees(t, env, proj, testdata)

	// The hooks init wrote, as Claude Code runs them: a turn that changes
	// Greet's signature and ends is held once with the calls it broke —
	// main.go's, lib.go's — and not main.go's deliberate error, which was
	// there before.
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	data, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json"))
	if err := json.Unmarshal(data, &settings); err != nil || len(settings.Hooks["PostToolUse"]) != 1 || len(settings.Hooks["Stop"]) != 1 {
		t.Fatalf(".claude/settings.json: %v\n%s", err, data)
	}
	hook := settings.Hooks["PostToolUse"][0].Hooks[0].Command
	lib := filepath.Join(proj, "lib.go")
	heard := claudeTurn(t, env, proj, testdata, []hookStep{
		{Tool: "Read", Args: map[string]any{"file_path": lib}},
		{Tool: "Edit", Args: map[string]any{"file_path": lib, "old_string": "func Greet(name string) string", "new_string": "func Greet(name string, n int) string"}},
	}, "Read Edit")
	writeFiles(t, proj, map[string]string{"lib.go": hostProject["lib.go"]})
	if said := lspkitSays(heard[len(heard)-1].New); len(heard) != 4 || !strings.Contains(said, "Your turn is ending") ||
		!regexp.MustCompile(`<diagnostics file="main.go">\nERROR \[9:\d+\] not enough arguments in call to Greet`).MatchString(said) || !strings.Contains(said, "<diagnostics file=\"lib.go\">") ||
		strings.Contains(said, "cannot use answer()") || lspkitSays(heard[2].New) != "" {
		t.Errorf("Claude Code's turn that broke Greet's callers: the model heard %+v", heard)
	}

	// The Grep hint init wrote: Claude Code runs it before its Grep, and
	// the model gets, with the Grep's result, the lspkit calls that answer
	// a search for a symbol — for no other search.
	if len(settings.Hooks["PreToolUse"]) != 1 || settings.Hooks["PreToolUse"][0].Hooks[0].Command != hook || strings.Contains(hook, "--no-grep-hint") {
		t.Fatalf(".claude/settings.json has no Grep hint as init --shared writes it:\n%s", data)
	}
	for pattern, want := range map[string]bool{"Greet": true, "hello, ": false} {
		turn := string(claudeSends(t, env, proj, testdata, "Grep", map[string]any{"pattern": pattern}, true))
		hinted := strings.Contains(turn, "function Greet (lib.go:4)") && strings.Contains(turn, "mcp__lspkit__lsp_find_references")
		if hinted != want || !strings.Contains(turn, "tool_result") {
			t.Errorf("Claude Code's Grep for %q: the model's turn (hint wanted: %v):\n%s", pattern, want, turn)
		}
	}
}

// hostScratch is a host test's scratch: a HOME, the hosts' project
// (hostProject; its shared daemons ended and no process left in it when
// the test ends) and the environment the hosts run in (hostEnv), with the
// servers the test command installed.
func hostScratch(t *testing.T, hostsBin string) (home, proj string, env []string) {
	t.Helper()
	serversEnv(t)
	home = t.TempDir()
	proj, err := os.MkdirTemp("", "hostproj")
	if err != nil {
		t.Fatal(err)
	}
	proj, _ = filepath.EvalSymlinks(proj)
	writeFiles(t, proj, hostProject)
	t.Cleanup(func() {
		for _, pid := range sharedDaemons(proj) {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		noProcessesIn(t, proj)
		os.RemoveAll(proj)
	})
	return home, proj, hostEnv(t, home, hostsBin)
}

// stopShared ends the root's shared daemon and waits until it is gone.
func stopShared(t *testing.T, root string) {
	t.Helper()
	for _, pid := range sharedDaemons(root) {
		syscall.Kill(pid, syscall.SIGTERM)
		gone(t, pid, 20*time.Second)
	}
}

// serverProcesses lists the processes in root whose command line names
// server.
func serverProcesses(root, server string) []string {
	var out []string
	for _, p := range processesIn(root) {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", p, "cmdline"))
		if exe, _, _ := bytes.Cut(cmdline, []byte{0}); filepath.Base(string(exe)) == server {
			out = append(out, p)
		}
	}
	return out
}

// settledIn reads "[gopls: settled in N ms]" from a check's text.
var settledIn = regexp.MustCompile(`gopls: settled in (\d+) ms`)

// firstCheck runs run, a first check of main.go, and returns the time
// gopls took to settle, as the answer says.
func firstCheck(t *testing.T, run func() string) int {
	t.Helper()
	out := run()
	m := settledIn.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the first check did not settle:\n%s", out)
	}
	var ms int
	fmt.Sscan(m[1], &ms)
	return ms
}

// mcpCheckOwn checks main.go through `lspkit mcp` with a daemon of its own.
func mcpCheckOwn(t *testing.T, env []string, root string) string {
	t.Helper()
	res := ownSession(t, env, root, func(s *mcp.ClientSession) []string {
		return []string{callText(t, s, "lsp_check_file", map[string]any{"file": "main.go"})}
	})
	return res[0]
}

// ownSession runs fn on an MCP session with `lspkit mcp` (a daemon of its
// own) for root.
func ownSession(t *testing.T, env []string, root string, fn func(*mcp.ClientSession) []string) []string {
	t.Helper()
	cmd := exec.Command(lspkitBin, "mcp", "--root", root)
	cmd.Dir, cmd.Env = root, env
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "hosts-test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return fn(s)
}

// callText calls a tool and returns its text.
func callText(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || len(res.Content) == 0 {
		t.Fatalf("%s: %v %+v", name, err, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// modelTools are the calls whose model-visible size is measured.
var modelTools = []struct {
	tool string
	args map[string]any
}{
	{"lsp_check_file", map[string]any{"file": "main.go"}},
	{"lsp_diagnostics", map[string]any{"file": "main.go"}},
	{"lsp_goto_definition", map[string]any{"file": "main.go", "line": 9, "symbol": "Greet"}},
	{"lsp_find_references", map[string]any{"file": "lib.go", "line": 4, "symbol": "Greet"}},
	{"lsp_hover", map[string]any{"file": "lib.go", "line": 4, "symbol": "Greet"}},
	{"lsp_document_symbols", map[string]any{"file": "lib.go"}},
	{"lsp_workspace_symbols", map[string]any{"query": "Counter"}},
	{"lsp_call_hierarchy", map[string]any{"file": "lib.go", "line": 4, "symbol": "Greet", "direction": "incoming"}},
	{"lsp_code_actions", map[string]any{"file": "main.go", "line": 8}},
	{"lsp_status", map[string]any{}},
}

// timings are what differs from one answer to the next: times, and the
// pids of servers started again.
var timings = regexp.MustCompile(`\d+ ms|pid \d+`)

// modelSees runs Claude Code (`claude -p`) against a stand-in for the model
// API that asks for each tool once, and compares what Claude Code gives the
// model — the tool_result it sends — with lspkit's text for the same call:
// at most 1.1 times its characters. The same with mcpStructuredContent is
// logged, for the record.
func modelSees(t *testing.T, env []string, proj, testdata string) {
	t.Helper()
	texts := ownSession(t, env, proj, func(s *mcp.ClientSession) []string {
		var out []string
		for _, c := range modelTools {
			out = append(out, callText(t, s, c.tool, c.args))
		}
		return out
	})
	table := []string{"| tool | text | shown to the model | with mcpStructuredContent |", "|---|---:|---:|---:|"}
	seen := make([][2]int, len(modelTools))
	for round, structured := range []bool{false, true} {
		stopShared(t, proj)
		if structured {
			writeFiles(t, proj, map[string]string{"lspkit.json": `{"lsp": {"mcpStructuredContent": true}}` + "\n"})
			defer os.Remove(filepath.Join(proj, "lspkit.json"))
		}
		for i, c := range modelTools {
			shown := claudeShows(t, env, proj, testdata, c.tool, c.args)
			seen[i][round] = len([]rune(shown))
			if !structured && timings.ReplaceAllString(shown, "") != timings.ReplaceAllString(texts[i], "") {
				t.Errorf("%s: Claude Code showed the model %q; lspkit's text is %q", c.tool, shown, texts[i])
			}
		}
	}
	stopShared(t, proj)
	os.Remove(filepath.Join(proj, "lspkit.json"))
	for i, c := range modelTools {
		text := len([]rune(texts[i]))
		table = append(table, fmt.Sprintf("| %s | %d | %d (%.2f×) | %d (%.2f×) |", c.tool, text, seen[i][0], float64(seen[i][0])/float64(text), seen[i][1], float64(seen[i][1])/float64(text)))
		if float64(seen[i][0]) > 1.1*float64(text) {
			t.Errorf("%s: the model is shown %d characters for a %d-character text", c.tool, seen[i][0], text)
		}
	}
	t.Logf("what Claude Code shows the model, in characters:\n%s", strings.Join(table, "\n"))
}

// claudeShows runs `claude -p` with the stand-in model asking for tool and
// returns what Claude Code sent the model as its result: the text of a
// text block, or the JSON it sent otherwise.
func claudeShows(t *testing.T, env []string, proj, testdata, tool string, args map[string]any) string {
	t.Helper()
	data := claudeSends(t, env, proj, testdata, tool, args, false)
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var plain string
	if json.Unmarshal(data, &plain) == nil {
		return plain
	}
	if json.Unmarshal(data, &blocks) == nil && len(blocks) == 1 && blocks[0].Type == "text" {
		return blocks[0].Text
	}
	return string(data)
}

// claudeSends runs `claude -p` in proj against the stand-in model
// (testdata/hosts/fake-model.mjs) asking for tool — an MCP tool of
// lspkit's, or one of Claude Code's own such as Write — with args, and
// returns what Claude Code sent the model after running it: the
// tool_result's content, or with whole the turn's every block (a hook's
// feedback comes in a block of its own).
func claudeSends(t *testing.T, env []string, proj, testdata, tool string, args map[string]any, whole bool) []byte {
	t.Helper()
	argsJSON, _ := json.Marshal(args)
	outFile := filepath.Join(t.TempDir(), "shown.json")
	fake := exec.Command("node", filepath.Join(testdata, "fake-model.mjs"))
	fake.Env = append(env, "FAKE_TOOL="+tool, "FAKE_ARGS="+string(argsJSON), "FAKE_OUT="+outFile)
	allowed := "mcp__lspkit__" + tool
	if whole {
		fake.Env = append(fake.Env, "FAKE_WHOLE=1")
	}
	if !strings.HasPrefix(tool, "lsp_") {
		allowed = tool
	}
	port, stop := standIn(t, fake)
	defer stop()
	out, err := host(t, append(env, "ANTHROPIC_BASE_URL=http://127.0.0.1:"+port, "ANTHROPIC_API_KEY=sk-ant-stand-in"), proj, "",
		"claude", "-p", "use the tool", "--allowedTools", allowed)
	data, rerr := os.ReadFile(outFile)
	if rerr != nil {
		t.Fatalf("claude -p for %s sent the model no tool result: %v\n%s", tool, err, out)
	}
	return data
}

// standIn starts a stand-in for a model API (a testdata/hosts script that
// prints its port) and returns the port and what stops it.
func standIn(t *testing.T, fake *exec.Cmd) (string, func()) {
	t.Helper()
	stdout, _ := fake.StdoutPipe()
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() { fake.Process.Kill(); fake.Wait() }
	port, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		t.Fatalf("the stand-in model: %v", err)
	}
	return strings.TrimSpace(port), stop
}
