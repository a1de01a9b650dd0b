//go:build linux

package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/internal/servertest"
)

// httpDaemon is a running `lspkit mcp --http`: its URL and token.
type httpDaemon struct {
	cmd              *exec.Cmd
	url, token, file string
}

// startHTTP starts `lspkit mcp --http 127.0.0.1:0` in root with env and
// reads the address and token file it prints.
func startHTTP(t *testing.T, root string, env []string, args ...string) *httpDaemon {
	t.Helper()
	cmd := exec.Command(lspkitBin, append([]string{"mcp", "--http", "127.0.0.1:0", "--root", root}, args...)...)
	cmd.Dir, cmd.Env = root, env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &httpDaemon{cmd: cmd}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	line, err := bufio.NewReader(stderr).ReadString('\n')
	m := regexp.MustCompile(`^lspkit mcp: MCP at (http://127\.0\.0\.1:\d+/mcp) for .*; the bearer token is in (\S+)\n$`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("lspkit mcp --http said %q (%v)", line, err)
	}
	d.url, d.file = m[1], m[2]
	data, err := os.ReadFile(d.file)
	info, _ := os.Stat(d.file)
	if err != nil || info.Mode().Perm() != 0o600 || len(strings.TrimSpace(string(data))) != 64 {
		t.Fatalf("the token file %s: %v %v %q", d.file, err, info.Mode(), data)
	}
	d.token = strings.TrimSpace(string(data))
	go func() { // the rest of its stderr, read so that it never blocks
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
		}
	}()
	return d
}

// TestHTTPStart: --http refuses an address other than loopback without
// LSPKIT_TOKEN (and a short token), and --shared with it; on loopback it
// writes a token of its own into a 0600 file, which is gone after
// SIGTERM.
func TestHTTPStart(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"lspkit.json": noInstall("")})
	env := func(kv ...string) []string { return append(withoutToken(), kv...) }
	for _, tc := range []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"--http", "0.0.0.0:0"}, env(), "refused to serve on 0.0.0.0:0: an address other than loopback needs a token: set LSPKIT_TOKEN"},
		{[]string{"--http", "0.0.0.0:0"}, env("LSPKIT_TOKEN=short"), "LSPKIT_TOKEN is shorter than 16 characters"},
		{[]string{"--http", "127.0.0.1:0", "--shared"}, env(), "--shared is for a host's stdio"},
		{[]string{"--http", "nonsense"}, env(), `--http "nonsense": want HOST:PORT, :PORT or PORT`},
	} {
		cmd := exec.Command(lspkitBin, append([]string{"mcp", "--root", root}, tc.args...)...)
		cmd.Env = tc.env
		out, _ := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != exitUsage || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, cmd.ProcessState.ExitCode(), out, tc.want)
		}
	}
	d := startHTTP(t, root, env())
	d.cmd.Process.Signal(syscall.SIGTERM)
	if err := d.cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
	if _, err := os.Stat(d.file); !os.IsNotExist(err) {
		t.Errorf("the token file is left after exit: %v", err)
	}
}

// TestHTTPHosts: the hosts as shipped (pinned, as TestHosts) reach
// `lspkit mcp --http` through the entry `lspkit init --host X --url URL`
// writes, the token from LSPKIT_TOKEN, and say so when the token is
// wrong or missing: Claude Code (`claude mcp list`: connected / failed), opencode
// (connected / needs authentication), Codex (app-server's status
// connected and lsp_check_file answered / the handshake refused).
func TestHTTPHosts(t *testing.T) {
	hostsBin := os.Getenv("LSPKIT_HOSTS")
	if hostsBin == "" {
		t.Skip("LSPKIT_HOSTS (the hosts' node_modules/.bin) not set: scripts/test-hosts.sh runs this test")
	}
	home, proj, env := hostScratch(t, hostsBin)
	testdata, _ := filepath.Abs("testdata/hosts")
	d := startHTTP(t, proj, env)
	right, wrong := append(slices.Clone(env), "LSPKIT_TOKEN="+d.token), append(slices.Clone(env), "LSPKIT_TOKEN="+strings.Repeat("w", 64))
	run := func(env []string, want *regexp.Regexp, args ...string) {
		t.Helper()
		out, err := host(t, env, proj, "", args...)
		if !want.MatchString(out) {
			t.Errorf("%s: %v\n%s\nwant %s", strings.Join(args, " "), err, out, want)
		}
	}
	for _, h := range []string{"claude-code", "opencode", "codex"} {
		run(env, regexp.MustCompile(`LSPKIT_TOKEN`), "lspkit", "init", "--host", h, "--url", d.url)
	}
	// The user's steps, as TestHosts takes them: approve, trust.
	writeFiles(t, proj, map[string]string{".claude/settings.local.json": `{"enabledMcpjsonServers": ["lspkit"]}` + "\n"})
	writeFiles(t, home, map[string]string{
		".claude.json":       fmt.Sprintf(`{"projects": {%q: {"hasTrustDialogAccepted": true}}}`, proj),
		".codex/config.toml": fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", proj),
	})

	start := time.Now()
	run(right, regexp.MustCompile(`lspkit: `+regexp.QuoteMeta(d.url)+` \(HTTP\) - ✔ Connected`), "claude", "mcp", "list")
	t.Logf("claude mcp list over HTTP: %d ms", time.Since(start).Milliseconds())
	run(wrong, regexp.MustCompile(`lspkit: `+regexp.QuoteMeta(d.url)+` \(HTTP\) - ✘ Failed to connect`), "claude", "mcp", "list")

	run(right, regexp.MustCompile(`✓ lspkit \S*connected`), "opencode", "mcp", "list")
	run(wrong, regexp.MustCompile(`lspkit \S*needs authentication`), "opencode", "mcp", "list")

	codex := []string{"node", filepath.Join(testdata, "codex-app-server.mjs"), "main.go"}
	run(right, regexp.MustCompile(`"runtimeStatus":"connected".*main.go:8:24 error: cannot use answer\(\) \(value of type int\) as string value in variable declaration`), codex...)
	run(wrong, regexp.MustCompile(`AuthRequired`), codex...)

	// No token at all: each host says so.
	run(env, regexp.MustCompile(`lspkit: `+regexp.QuoteMeta(d.url)+` \(HTTP\) - ✘ Failed to connect`), "claude", "mcp", "list")
	run(env, regexp.MustCompile(`lspkit \S*needs authentication`), "opencode", "mcp", "list")
	run(env, regexp.MustCompile(`Environment variable LSPKIT_TOKEN for MCP server 'lspkit' is not set`), codex...)
}

// TestHTTPConnect: `lspkit mcp --connect URL` (the token from
// LSPKIT_TOKEN) relays a session — check, definition, references, hover —
// to `lspkit mcp --http`, and answers as `lspkit mcp` on stdio does for
// the same root; without a token, or with a wrong one, it says so and
// exits.
func TestHTTPConnect(t *testing.T) {
	t.Parallel()
	serversEnv(t)
	root, env := httpProject(t)
	d := startHTTP(t, root, env)
	calls := sessionCalls
	session := func(cmd *exec.Cmd) []string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(2*time.Minute))
		defer cancel()
		s, err := mcp.NewClient(&mcp.Implementation{Name: "connect-test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var out []string
		for _, c := range calls {
			out = append(out, timings.ReplaceAllString(callText(t, s, c.tool, c.args), ""))
		}
		return out
	}
	relay := exec.Command(lspkitBin, "mcp", "--connect", d.url)
	relay.Dir, relay.Env = t.TempDir(), append(env, "LSPKIT_TOKEN="+d.token)
	through := session(relay)
	direct := exec.Command(lspkitBin, "mcp", "--root", root)
	direct.Dir, direct.Env = root, env
	own := session(direct)
	for i, c := range calls {
		if through[i] != own[i] {
			t.Errorf("%s through --connect:\n%s\non stdio:\n%s", c.tool, through[i], own[i])
		}
	}
	if !strings.Contains(through[0], "main.go:8:24 error: cannot use answer()") {
		t.Errorf("the check through --connect: %q", through[0])
	}
	for name, token := range map[string]string{"no token": "", "a wrong token": strings.Repeat("w", 64)} {
		cmd := exec.Command(lspkitBin, "mcp", "--connect", d.url)
		cmd.Env = append(env, "LSPKIT_TOKEN="+token)
		out, _ := cmd.CombinedOutput()
		want := "--connect needs the remote's token in LSPKIT_TOKEN"
		if token != "" {
			want = "Unauthorized"
		}
		if cmd.ProcessState.ExitCode() == 0 || !strings.Contains(string(out), want) {
			t.Errorf("%s: exit %d, %q; want %q", name, cmd.ProcessState.ExitCode(), out, want)
		}
	}
}

// TestHTTPPathMap: with --path-map CLIENT=ROOT, a client that names files
// by its own paths gets a check, a definition and a rename's diff, and a
// refusal naming the root names the client's, none the daemon's root,
// and a sweep's progress notifications come over SSE; without the map
// the same path is outside the root.
func TestHTTPPathMap(t *testing.T) {
	t.Parallel()
	serversEnv(t)
	root, env := httpProject(t)
	const client = "/Users/me/hostdemo"
	for _, mapped := range []bool{true, false} {
		var args []string
		if mapped {
			args = []string{"--path-map", client + "=" + root}
		}
		d := startHTTP(t, root, env, args...)
		ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(2*time.Minute))
		defer cancel()
		transport := &mcp.StreamableClientTransport{Endpoint: d.url, HTTPClient: &http.Client{Transport: bearerTransport{d.token}}}
		progress := make(chan string, 100)
		s, err := mcp.NewClient(&mcp.Implementation{Name: "path-map-test"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				select {
				case progress <- r.Params.Message:
				default:
				}
			}}).Connect(ctx, transport, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !mapped {
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "lsp_check_file", Arguments: map[string]any{"file": client + "/main.go"}})
			if err == nil && !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "outside") {
				t.Errorf("a client path without the map: %+v %v", res, err)
			}
			s.Close()
			continue
		}
		if ins := s.InitializeResult(); ins != nil && strings.Contains(ins.Instructions, root) {
			t.Errorf("the instructions name the daemon's root: %q", ins.Instructions)
		}
		for _, c := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"lsp_check_file", map[string]any{"file": client + "/main.go"}, "main.go:8:24 error: cannot use answer()"},
			{"lsp_goto_definition", map[string]any{"file": client + "/main.go", "line": 9, "symbol": "Greet"}, "lib.go:4"},
			{"lsp_rename", map[string]any{"file": client + "/lib.go", "line": 4, "symbol": "Greet", "newName": "Hello"}, "+func Hello(name string) string"},
			{"lsp_check_file", map[string]any{"file": "/elsewhere/x.go"}, "outside the workspace root " + client + "\n"}, // the refusal names the root
		} {
			text := callText(t, s, c.tool, c.args)
			if strings.Contains(text, root) || !strings.Contains(text, c.want) {
				t.Errorf("%s through the map (root %s):\n%s\nwant %q and not the root", c.tool, root, text, c.want)
			}
		}
		// A long call's progress comes over the call's SSE stream.
		params := &mcp.CallToolParams{Name: "lsp_workspace_diagnostics", Arguments: map[string]any{}}
		params.SetProgressToken("sweep")
		if res, err := s.CallTool(ctx, params); err != nil || res.IsError {
			t.Fatalf("lsp_workspace_diagnostics: %+v %v", res, err)
		}
		select {
		case msg := <-progress:
			if strings.Contains(msg, root) {
				t.Errorf("a progress message names the daemon's root: %q", msg)
			}
		case <-time.After(servertest.Scale(30 * time.Second)): // handlers may run just after the answer
			t.Error("no progress notification came with lsp_workspace_diagnostics over HTTP")
		}
		s.Close()
	}
}

// bearerTransport adds the bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPLoadLive: 8 HTTP clients of one `lspkit mcp --http` (gopls),
// 500 mixed requests each — checks, definitions, references, hovers,
// symbols — at once: every answer is the one a lone client got first
// (timings aside), none is an error, and the daemon's resident memory
// after them is within 1.2× of what it was after a warm-up round (8 × 50).
// LSPKIT_HTTP_LOAD=1 runs it (.ci/run).
func TestHTTPLoadLive(t *testing.T) {
	if os.Getenv("LSPKIT_HTTP_LOAD") == "" {
		t.Skip("LSPKIT_HTTP_LOAD=1 runs it (.ci/run)")
	}
	serversEnv(t)
	root, env := httpProject(t)
	d := startHTTP(t, root, env)
	calls := append(slices.Clone(sessionCalls), toolCall{"lsp_document_symbols", map[string]any{"file": "lib.go"}},
		toolCall{"lsp_workspace_symbols", map[string]any{"query": "Counter"}})
	connect := func() *mcp.ClientSession {
		ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(2*time.Minute))
		defer cancel()
		transport := &mcp.StreamableClientTransport{Endpoint: d.url, HTTPClient: &http.Client{Transport: bearerTransport{d.token}}}
		s, err := mcp.NewClient(&mcp.Implementation{Name: "load"}, nil).Connect(ctx, transport, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := connect()
	want := make([]string, len(calls))
	for range 2 { // the second answers: the first check also says which dependents it checked
		for i, c := range calls {
			want[i] = timings.ReplaceAllString(callText(t, first, c.tool, c.args), "")
		}
	}
	first.Close()

	const clients = 8
	var mu sync.Mutex
	var wrong, failed int
	var firstErr string
	round := func(each int) {
		var wg sync.WaitGroup
		for n := range clients {
			s := connect()
			wg.Go(func() {
				defer s.Close()
				ctx := context.Background()
				for i := range each {
					c := calls[(n+i)%len(calls)]
					res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
					mu.Lock()
					switch {
					case err != nil || res.IsError || len(res.Content) == 0:
						failed++
						if firstErr == "" {
							firstErr = fmt.Sprintf("%s: %v %+v", c.tool, err, res)
						}
					case timings.ReplaceAllString(res.Content[0].(*mcp.TextContent).Text, "") != want[(n+i)%len(calls)]:
						wrong++
						if firstErr == "" {
							firstErr = fmt.Sprintf("%s: %q", c.tool, res.Content[0].(*mcp.TextContent).Text)
						}
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	round(50) // the warm-up: 8 sessions' worth of everything allocated once
	warm := residentKB(t, d.cmd.Process.Pid)
	const each = 500
	start := time.Now()
	round(each)
	took := time.Since(start)
	after := residentKB(t, d.cmd.Process.Pid)
	t.Logf("%d clients × %d requests over HTTP in %s (%.2f ms a request, %d at once); the daemon's resident memory %d MiB after the warm-up, %d MiB after",
		clients, each, took.Round(time.Millisecond), float64(took.Microseconds())/1000/float64(clients*each), clients, warm/1024, after/1024)
	if wrong != 0 || failed != 0 {
		t.Errorf("%d wrong answers, %d errors; the first: %s", wrong, failed, firstErr)
	}
	if float64(after) > 1.2*float64(warm) {
		t.Errorf("the daemon's resident memory grew from %d to %d KiB", warm, after)
	}
}

// residentKB is the resident memory of process pid, in KiB.
func residentKB(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int
			fmt.Sscan(rest, &kb)
			return kb
		}
	}
	t.Fatalf("no VmRSS for %d", pid)
	return 0
}

// httpProject is a root holding the hosts' project (hostProject; no
// process left in it when the test ends) and this environment without
// LSPKIT_TOKEN.
func httpProject(t *testing.T) (string, []string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{"lspkit.json": noInstall("")}
	for name, text := range hostProject {
		files[name] = text
	}
	writeFiles(t, root, files)
	t.Cleanup(func() { noProcessesIn(t, root) })
	return root, withoutToken()
}

// withoutToken is this process's environment without LSPKIT_TOKEN.
func withoutToken() []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "LSPKIT_TOKEN=") {
			env = append(env, e)
		}
	}
	return env
}

// A toolCall is an MCP tool and its arguments.
type toolCall struct {
	tool string
	args map[string]any
}

// sessionCalls are the hidden-task style session on the hosts' project:
// a check, a definition, references, a hover.
var sessionCalls = []toolCall{
	{"lsp_check_file", map[string]any{"file": "main.go"}},
	{"lsp_goto_definition", map[string]any{"file": "main.go", "line": 9, "symbol": "Greet"}},
	{"lsp_find_references", map[string]any{"file": "lib.go", "line": 4, "symbol": "Greet"}},
	{"lsp_hover", map[string]any{"file": "lib.go", "line": 4, "symbol": "Greet"}},
}
