//go:build linux

package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/service/hooks"
)

// TestHookHosts: what the model hears after it edits, in each agent host
// that has hooks, as shipped (npm, pinned), set up by `lspkit init --host
// X` and the trust step it prints, each host playing two scripted turns
// against the stand-in for its model API (testdata/hosts/fake-turns.mjs)
// on two real projects fetched from their registries — cobra (Go module
// proxy) and @tanstack/query-core (npm) — that carry errors of their own in
// files the edits touch:
//
//   - turn A: edit 1 changes an exported function's signature (its callers
//     in other files break), edit 2 adds an import that edit 3 uses, edit
//     4 fixes the callers; then a tool that edits nothing; then the model
//     ends its turn. The model hears nothing at all.
//   - turn B: the same without edit 4. The model hears, with the result of
//     the tool that edits nothing, the broken callers — exactly the
//     compiler's new errors (recall ≥ 95%, none stale, none old) — and at
//     its first end of turn the same list holds the turn; its second end
//     lets it go.
//
// Logged per host and project: the messages, recall, stale and old
// errors, each edit's own hook latency (p50, p95, whole process), the
// daemon's end-of-burst check time beside the compiler's own check of the
// same change. Cursor is not on npm and is not run (its hooks' shape is
// TestRead's); Continue's cn defines hooks but never calls them.
func TestHookHosts(t *testing.T) {
	hostsBin := os.Getenv("LSPKIT_HOSTS")
	if hostsBin == "" {
		t.Skip("LSPKIT_HOSTS (the hosts' node_modules/.bin) not set: scripts/test-hosts.sh runs this test")
	}
	testdata, _ := filepath.Abs("testdata/hosts")
	projects := []struct {
		name string
		make func(*testing.T) *hookProject
	}{{"cobra", cobraProject}, {"query-core", queryCoreProject}}
	var mu sync.Mutex
	var rows []string
	for _, pr := range projects {
		t.Run(pr.name, func(t *testing.T) {
			p := pr.make(t)
			{
				r := newHookRig(t, hostsBin, testdata, p)
				newB, compileB := p.newErrors(t, p.edits[:3])
				_, compileA := p.newErrors(t, p.edits)
				if len(newB) == 0 {
					t.Fatalf("%s: the compiler reports nothing new after edits 1-3: the turn breaks nothing", p.name)
				}
				t.Logf("%s: the compiler's new errors after edits 1-3: %v (its check: %v; of all the edits: %v)", p.name, newB, compileB.Round(time.Millisecond), compileA.Round(time.Millisecond))
				for _, h := range hookHosts(r) {
					t.Run(cmp.Or(h.label, h.name), func(t *testing.T) {
						row := r.play(t, h, newB, compileB)
						mu.Lock()
						rows = append(rows, row)
						mu.Unlock()
					})
				}
			}
		})
	}
	t.Logf("what the model heard, per host and project:\n| host | project | turn A: messages | turn B: messages, holds | recall | stale | old | edit hooks p50 / p95 | end-of-burst check (compiler) |\n|---|---|---|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}

// hookStep is one tool call of a scripted turn.
type hookStep struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// hookHost is an agent host as TestHookHosts drives it.
type hookHost struct {
	name string // lspkit init --host NAME
	// label names the host in the report when it is not name.
	label string
	// around, when set, prepares the project for the host's turns and
	// returns what undoes it.
	around func(t *testing.T, r *hookRig) func()
	// read is the tool call that reads a file, where the host wants a file
	// read before its edit tool edits it (nil: it does not).
	read func(abs string) hookStep
	// edit is the host's edit of e; other a tool that edits nothing.
	edit  func(p *hookProject, e lineEdit) hookStep
	other func(p *hookProject) hookStep
	// prepare is the user's part for the host, once, after init: trust,
	// the model.
	prepare func(t *testing.T, r *hookRig)
	// turn runs one turn of the host against the stand-in on port.
	turn func(t *testing.T, r *hookRig, port string) (string, error)
}

// hookRig is a project set up for every host: a scratch HOME, the hosts'
// environment, each host's lspkit init, and a wrapper on PATH that times
// each hook (its whole process) and keeps its payload.
type hookRig struct {
	p                  *hookProject
	home, testdata     string
	env                []string
	times              string // the wrapper's log: "µs payload-file args…" a line
	hostsBin, codexCfg string
	logDir             string
}

func newHookRig(t *testing.T, hostsBin, testdata string, p *hookProject) *hookRig {
	t.Helper()
	serversEnv(t)
	home := t.TempDir()
	env := hostEnv(t, home, hostsBin)
	logs := t.TempDir()
	bin := t.TempDir()
	wrapper := `#!/bin/sh
if [ "$1" = hook ]; then
	f=$(mktemp "` + logs + `/payload.XXXXXX")
	s=$(date +%s%N)
	tee "$f" | "` + lspkitBin + `" "$@"
	rc=$?
	e=$(date +%s%N)
	echo "$(( (e - s) / 1000 )) $f $*" >> "` + logs + `/times"
	exit $rc
fi
exec "` + lspkitBin + `" "$@"
`
	// lspkit itself on PATH first, so that init writes "lspkit" as the
	// hosts' command (as for a user who installed it); then the wrapper in
	// its place.
	if err := os.Symlink(lspkitBin, filepath.Join(bin, "lspkit")); err != nil {
		t.Fatal(err)
	}
	for i, kv := range env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + bin + ":" + path
		}
	}
	// The shared daemons' runtime directory, and so their logs, the
	// rig's own.
	env = append(env, "LSPKIT_RUNTIME_DIR="+t.TempDir())
	r := &hookRig{p: p, home: home, testdata: testdata, env: env, times: filepath.Join(logs, "times"), hostsBin: hostsBin, logDir: logs}
	// The user's own run of lspkit init for each host (its MCP entry and
	// its hooks), and the daemon warm, as an agent's MCP server leaves it.
	for _, h := range hookHosts(r) {
		if out, err := host(t, env, p.dir, "", "lspkit", "init", "--host", h.name, "--shared"); err != nil {
			t.Fatalf("lspkit init --host %s: %v\n%s", h.name, err, out)
		}
	}
	os.Remove(filepath.Join(bin, "lspkit"))
	if err := os.WriteFile(filepath.Join(bin, "lspkit"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(p.dir, ".claude", "settings.json")); !strings.Contains(string(data), `"lspkit hook claude-code"`) {
		t.Fatalf("lspkit init did not write the hook as \"lspkit hook claude-code\":\n%s", data)
	}
	for _, h := range hookHosts(r) {
		if h.prepare != nil {
			h.prepare(t, r)
		}
	}
	warm := func(event, extra string) {
		payload := fmt.Sprintf(`{"session_id":"warm-up","cwd":%q,"hook_event_name":%q%s}`, p.dir, event, extra)
		if out, err := host(t, env, p.dir, payload, "lspkit", "hook", "claude-code"); err != nil {
			t.Fatalf("warming the daemon: %v\n%s", err, out)
		}
	}
	for _, e := range p.edits {
		edit := fmt.Sprintf(`,"tool_name":"Edit","tool_input":{"file_path":%q}`, filepath.Join(p.dir, e.file))
		warm("PreToolUse", edit)
		warm("PostToolUse", edit)
	}
	warm("Stop", "")
	return r
}

// script is a turn's tool calls for h: the files it edits read first
// where h wants that, the edits, a tool that edits nothing.
func (r *hookRig) script(h hookHost, edits []lineEdit) []hookStep {
	var steps []hookStep
	if h.read != nil {
		var read []string
		for _, e := range r.p.edits { // every file of both turns, as a model looks before it edits
			if !slices.Contains(read, e.file) {
				read = append(read, e.file)
				steps = append(steps, h.read(filepath.Join(r.p.dir, e.file)))
			}
		}
	}
	for _, e := range edits {
		steps = append(steps, h.edit(r.p, e))
	}
	return append(steps, h.other(r.p))
}

// heard is what the stand-in received in one request of the turn: the
// step it answered, and the texts the host sent since the model's last
// answer.
type heard struct {
	Step int      `json:"step"`
	New  []string `json:"new"`
}

// turn plays one scripted turn of h and returns what the model heard.
func (r *hookRig) turn(t *testing.T, h hookHost, steps []hookStep) []heard {
	t.Helper()
	dir := t.TempDir()
	script, _ := json.Marshal(map[string]any{"steps": steps})
	scriptFile, logFile := filepath.Join(dir, "script.json"), filepath.Join(dir, "heard.jsonl")
	os.WriteFile(scriptFile, script, 0o644)
	fake := exec.Command("node", filepath.Join(r.testdata, "fake-turns.mjs"))
	fake.Env = append(slices.Clone(r.env), "FAKE_SCRIPT="+scriptFile, "FAKE_LOG="+logFile)
	port, stop := standIn(t, fake)
	defer stop()
	out, err := h.turn(t, r, port)
	if err != nil {
		t.Fatalf("%s: %v\n%s", h.name, err, out)
	}
	got := readHeard(t, logFile)
	if len(got) == 0 {
		t.Fatalf("%s: the stand-in model heard nothing\n%s", h.name, out)
	}
	return got
}

// claudeTurn plays a scripted turn of `claude -p` in dir against the
// stand-in (testdata/hosts/fake-turns.mjs), the tools allowed, and returns
// what the model heard in each request.
func claudeTurn(t *testing.T, env []string, dir, testdata string, steps []hookStep, allowed string) []heard {
	t.Helper()
	scratch := t.TempDir()
	script, _ := json.Marshal(map[string]any{"steps": steps})
	scriptFile, logFile := filepath.Join(scratch, "script.json"), filepath.Join(scratch, "heard.jsonl")
	os.WriteFile(scriptFile, script, 0o644)
	fake := exec.Command("node", filepath.Join(testdata, "fake-turns.mjs"))
	fake.Env = append(slices.Clone(env), "FAKE_SCRIPT="+scriptFile, "FAKE_LOG="+logFile)
	port, stop := standIn(t, fake)
	defer stop()
	out, err := host(t, append(slices.Clone(env), "ANTHROPIC_BASE_URL=http://127.0.0.1:"+port, "ANTHROPIC_API_KEY=sk-ant-stand-in"), dir, "",
		"claude", "-p", "go", "--allowedTools", allowed)
	if err != nil {
		t.Fatalf("claude -p: %v\n%s", err, out)
	}
	return readHeard(t, logFile)
}

// readHeard reads the stand-in's log of what the model heard.
func readHeard(t *testing.T, logFile string) []heard {
	t.Helper()
	data, _ := os.ReadFile(logFile)
	var got []heard
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var h heard
		if json.Unmarshal([]byte(line), &h) == nil {
			got = append(got, h)
		}
	}
	return got
}

// lspkitSays is lspkit's feedback among texts, or "". (Some hosts escape
// a hook's text as they pass it on: Gemini CLI's and Codex's model reads
// "&lt;diagnostics …".)
func lspkitSays(texts []string) string {
	var out []string
	unescape := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&amp;", "&")
	for _, s := range texts {
		s = unescape.Replace(s)
		if strings.Contains(s, "LSP errors detected") || strings.Contains(s, "LSP could not") || strings.Contains(s, "Your turn is ending") {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n")
}

// listed are the errors a feedback text lists: file and line.
var (
	listedFile = regexp.MustCompile(`<diagnostics file="([^"]+)">`)
	listedLine = regexp.MustCompile(`^ERROR \[(\d+):\d+\]`)
)

func listed(text string) []compilerError {
	var out []compilerError
	file := ""
	for _, line := range strings.Split(text, "\n") {
		if m := listedFile.FindStringSubmatch(line); m != nil {
			file = m[1]
			continue
		}
		if m := listedLine.FindStringSubmatch(line); m != nil && file != "" {
			n, _ := strconv.Atoi(m[1])
			out = append(out, compilerError{file: file, line: n})
		}
	}
	return out
}

// play runs h's turns A and B on the rig's project and checks what the
// model heard; it returns the report's row.
func (r *hookRig) play(t *testing.T, h hookHost, compilerNew []compilerError, compilerTook time.Duration) string {
	t.Helper()
	p := r.p
	before, _ := p.compile(t)
	if h.around != nil {
		defer h.around(t, r)()
	}
	os.Remove(r.times)
	daemonLog := r.daemonLog()
	logFrom := len(daemonLog)

	// Turn A: nothing at all.
	p.restore(t)
	stepsA := r.script(h, p.edits)
	heardA := r.turn(t, h, stepsA)
	p.restore(t)
	messagesA := 0
	for _, x := range heardA {
		if said := lspkitSays(x.New); said != "" {
			messagesA++
			t.Errorf("turn A: after step %d the model heard:\n%s", x.Step, said)
		}
	}
	if ends := countStep(heardA, len(stepsA)); ends != 1 {
		t.Errorf("turn A: the model was asked %d times after its last tool, want once (no hold): %+v", ends, heardA)
	}

	// Turn B: one message after the tool that edits nothing, one hold.
	stepsB := r.script(h, p.edits[:3])
	heardB := r.turn(t, h, stepsB)
	p.restore(t)
	var said []string
	for _, x := range heardB {
		if s := lspkitSays(x.New); s != "" {
			said = append(said, s)
			if x.Step != len(stepsB) {
				t.Errorf("turn B: after step %d (of %d) the model heard:\n%s", x.Step, len(stepsB), s)
			}
		}
	}
	if ends := countStep(heardB, len(stepsB)); ends != 2 {
		t.Errorf("turn B: the model was asked %d times after its last tool, want twice (its result with the message, then the hold once): %+v", ends, heardB)
	}
	recall, stale, old := 1.0, 0, 0
	if len(said) != 2 {
		t.Errorf("turn B: the model heard lspkit %d times, want twice (before the tool, at the stop): %q", len(said), said)
	}
	for i, s := range said {
		got := listed(s)
		hit := 0
		for _, want := range compilerNew {
			if slices.ContainsFunc(got, func(g compilerError) bool { return g.file == want.file && g.line == want.line }) {
				hit++
			}
		}
		rc := float64(hit) / float64(len(compilerNew))
		recall = min(recall, rc)
		for _, g := range got {
			if !slices.ContainsFunc(compilerNew, func(w compilerError) bool { return w.file == g.file && w.line == g.line }) {
				if slices.ContainsFunc(before, func(b compilerError) bool { return b.file == g.file && b.line == g.line }) {
					old++
				} else {
					stale++
				}
			}
		}
		if rc < 0.95 || stale > 0 || old > 0 {
			t.Errorf("turn B, message %d: recall %.2f, %d stale, %d old; it said:\n%s\nthe compiler's new errors: %v", i+1, rc, stale, old, s, compilerNew)
		}
	}
	if len(said) == 2 && !strings.Contains(said[1], "Your turn is ending") {
		t.Errorf("turn B: the second message is not the hold at the end of the turn:\n%s", said[1])
	}

	// The hooks' own times: each edit's hook, and the daemon's checks.
	var editHooks []time.Duration
	data, _ := os.ReadFile(r.times)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		us, _ := strconv.Atoi(f[0])
		payload, _ := os.ReadFile(f[1])
		event := ""
		if len(f) > 4 {
			event = f[4]
		}
		ev, err := hooks.Read(f[3], event, payload, func(string) string { return "" })
		if err == nil && ev.Edit && (ev.Kind == hooks.BeforeTool || ev.Kind == hooks.AfterTool) {
			editHooks = append(editHooks, time.Duration(us)*time.Microsecond)
		}
	}
	p50, p95 := percentile(editHooks, 50), percentile(editHooks, 95)
	t.Logf("%s: each edit's hook, in order: %v", h.name, editHooks)
	if len(editHooks) == 0 {
		t.Errorf("no edit's hook ran: the hooks' log:\n%s", data)
	}
	var ends []string
	for _, m := range burstLog.FindAllStringSubmatch(r.daemonLog()[logFrom:], -1) {
		ends = append(ends, m[1]+" "+m[2]+" ms")
	}
	holds := 0
	for _, s := range said {
		if strings.Contains(s, "Your turn is ending") {
			holds++
		}
	}
	return fmt.Sprintf("| %s | %s | %d | %d, %d | %.0f%% | %d | %d | %v / %v (%d) | %s (%v) |", cmp.Or(h.label, h.name), p.name, messagesA, len(said)-holds, holds,
		recall*100, stale, old, p50.Round(100*time.Microsecond), p95.Round(100*time.Microsecond), len(editHooks), strings.Join(ends, ", "), compilerTook.Round(time.Millisecond))
}

// burstLog is the daemon's log line of a burst's check: its event and ms.
var burstLog = regexp.MustCompile(`msg=burst event=(end|stop)\b.* ms=(\d+)`)

// daemonLog is the text of the shared daemons' logs under the rig's
// runtime directory.
func (r *hookRig) daemonLog() string {
	dir := ""
	for _, kv := range r.env {
		if v, ok := strings.CutPrefix(kv, "LSPKIT_RUNTIME_DIR="); ok {
			dir = v
		}
	}
	var b strings.Builder
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(path, ".log") {
			data, _ := os.ReadFile(path)
			b.Write(data)
		}
		return nil
	})
	return b.String()
}

func countStep(hs []heard, step int) int {
	n := 0
	for _, h := range hs {
		if h.Step == step {
			n++
		}
	}
	return n
}

// percentile is the p-th percentile of ds (nearest rank).
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (p*len(s) + 99) / 100
	return s[max(i-1, 0)]
}

// patch is e as an apply_patch patch (Codex's).
func patch(e lineEdit) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: " + e.file + "\n@@\n")
	for _, l := range strings.Split(e.old, "\n") {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range strings.Split(e.new, "\n") {
		b.WriteString("+" + l + "\n")
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// withTools is h with its tools: readTool reads a file and editTool edits
// one, their file argument fileKey, the edit's old and new text oldKey and
// newKey; the tool that edits nothing reads the project's other file.
// readFirst: the host wants a file read before its edit tool edits it.
// extra are more arguments of the edit tool, key and value in turn.
func withTools(h hookHost, readTool, editTool, fileKey, oldKey, newKey string, readFirst bool, extra ...string) hookHost {
	read := func(abs string) hookStep { return hookStep{Tool: readTool, Args: map[string]any{fileKey: abs}} }
	if readFirst {
		h.read = read
	}
	h.edit = func(p *hookProject, e lineEdit) hookStep {
		args := map[string]any{fileKey: filepath.Join(p.dir, e.file), oldKey: e.old, newKey: e.new}
		for i := 0; i+1 < len(extra); i += 2 {
			args[extra[i]] = extra[i+1]
		}
		return hookStep{Tool: editTool, Args: args}
	}
	if h.other == nil {
		h.other = func(p *hookProject) hookStep { return read(filepath.Join(p.dir, p.other)) }
	}
	return h
}

// copilotTurn is a turn of Copilot CLI against the stand-in on port.
func copilotTurn(t *testing.T, r *hookRig, port string) (string, error) {
	return host(t, append(slices.Clone(r.env), "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:"+port+"/v1", "COPILOT_PROVIDER_API_KEY=stand-in", "COPILOT_MODEL=stand-in"),
		r.p.dir, "", "copilot", "-p", "go", "--allow-all-tools")
}

// hookHosts are the hosts TestHookHosts runs.
func hookHosts(r *hookRig) []hookHost {
	return []hookHost{
		withTools(hookHost{
			name: "claude-code",
			prepare: func(t *testing.T, r *hookRig) {
				writeFiles(t, r.home, map[string]string{".claude.json": fmt.Sprintf(`{"projects": {%q: {"hasTrustDialogAccepted": true}}}`, r.p.dir)})
				writeFiles(t, r.p.dir, map[string]string{".claude/settings.local.json": `{"enabledMcpjsonServers": ["lspkit"]}` + "\n"})
			},
			turn: func(t *testing.T, r *hookRig, port string) (string, error) {
				return host(t, append(slices.Clone(r.env), "ANTHROPIC_BASE_URL=http://127.0.0.1:"+port, "ANTHROPIC_API_KEY=sk-ant-stand-in"), r.p.dir, "",
					"claude", "-p", "go", "--allowedTools", "Read Edit Bash")
			},
		}, "Read", "Edit", "file_path", "old_string", "new_string", true),
		{
			name: "codex",
			edit: func(p *hookProject, e lineEdit) hookStep {
				return hookStep{Tool: "apply_patch", Args: map[string]any{"input": patch(e)}}
			},
			other: func(p *hookProject) hookStep {
				return hookStep{Tool: "exec_command", Args: map[string]any{"cmd": "cat " + p.other}}
			},
			prepare: func(t *testing.T, r *hookRig) {
				// The user's trust: the project, then each of lspkit's
				// hooks as /hooks trusts them.
				base := fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", r.p.dir)
				writeFiles(t, r.home, map[string]string{".codex/config.toml": base})
				out, err := host(t, r.env, r.p.dir, "", "node", filepath.Join(r.testdata, "codex-trust-hooks.mjs"))
				if err != nil || strings.Count(out, "trusted_hash") != 3 {
					t.Fatalf("trusting lspkit's Codex hooks: %v\n%s", err, out)
				}
				trust := ""
				for _, line := range strings.Split(out, "\n") {
					if strings.HasPrefix(line, "[hooks.state.") || strings.HasPrefix(line, "trusted_hash") {
						trust += line + "\n"
					}
				}
				r.codexCfg = base + trust
			},
			turn: func(t *testing.T, r *hookRig, port string) (string, error) {
				cfg := fmt.Sprintf("model = \"gpt-5.5\"\nmodel_provider = \"standin\"\n\n[model_providers.standin]\nname = \"stand-in\"\nbase_url = \"http://127.0.0.1:%s/v1\"\nwire_api = \"responses\"\nenv_key = \"STANDIN_KEY\"\n\n%s", port, r.codexCfg)
				writeFiles(t, r.home, map[string]string{".codex/config.toml": cfg})
				return host(t, append(slices.Clone(r.env), "STANDIN_KEY=stand-in"), r.p.dir, "", "codex", "exec", "--skip-git-repo-check", "go")
			},
		},
		withTools(hookHost{
			name: "copilot",
			prepare: func(t *testing.T, r *hookRig) {
				writeFiles(t, r.home, map[string]string{".copilot/config.json": fmt.Sprintf(`{"trustedFolders": [%q]}`, r.p.dir)})
			},
			turn: copilotTurn,
		}, "view", "edit", "path", "old_str", "new_str", false),
		withTools(hookHost{
			// Copilot CLI runs a project's Claude Code hooks too: with
			// lspkit's own Copilot hooks away, the claude-code hook
			// answers it in Copilot's shape.
			name: "copilot", label: "copilot (Claude Code's hooks)",
			around: func(t *testing.T, r *hookRig) func() {
				own := filepath.Join(r.p.dir, ".github", "hooks", "lspkit.json")
				if err := os.Rename(own, own+".away"); err != nil {
					t.Fatal(err)
				}
				return func() { os.Rename(own+".away", own) }
			},
			turn: copilotTurn,
		}, "view", "edit", "path", "old_str", "new_str", false),
		withTools(hookHost{
			name: "gemini",
			prepare: func(t *testing.T, r *hookRig) {
				writeFiles(t, r.home, map[string]string{
					".gemini/settings.json":       `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`,
					".gemini/trustedFolders.json": fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, r.p.dir),
				})
			},
			turn: func(t *testing.T, r *hookRig, port string) (string, error) {
				return host(t, append(slices.Clone(r.env), "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:"+port, "GEMINI_API_KEY=stand-in"), r.p.dir, "",
					"gemini", "-p", "go", "--yolo", "-m", "stand-in")
			},
		}, "read_file", "replace", "file_path", "old_string", "new_string", false, "instruction", "edit"),
		withTools(hookHost{
			name: "qwen",
			turn: func(t *testing.T, r *hookRig, port string) (string, error) {
				return host(t, node22(t, r.env, r.hostsBin), r.p.dir, "", "qwen", "--auth-type", "openai", "--openai-base-url", "http://127.0.0.1:"+port+"/v1",
					"--openai-api-key", "stand-in", "--model", "stand-in", "-p", "go", "--yolo")
			},
		}, "read_file", "edit", "file_path", "old_string", "new_string", true),
		withTools(hookHost{
			name: "droid",
			turn: func(t *testing.T, r *hookRig, port string) (string, error) {
				writeFiles(t, r.home, map[string]string{".factory/settings.json": fmt.Sprintf(`{"customModels": [{"model": "stand-in", "displayName": "Stand-in", "baseUrl": "http://127.0.0.1:%s/v1", "apiKey": "stand-in", "provider": "generic-chat-completion-api", "maxOutputTokens": 1000}]}`, port)})
				return host(t, r.env, r.p.dir, "", "droid", "exec", "-m", "custom:Stand-in-0", "--auto", "high", "go")
			},
		}, "Read", "Edit", "file_path", "old_str", "new_str", true),
		opencodeHost("opencode", "opencode.json"),
		opencodeHost("kilo", "kilo.json"),
	}
}

// opencodeHost is opencode, or Kilo (its fork), whose hooks are lspkit's
// plugin: a turn is its server's (`serve`, as its TUI runs it) session
// given one message, then the plugin's end of the turn — once, or, when
// it holds the turn, twice.
func opencodeHost(name, config string) hookHost {
	return withTools(hookHost{
		name: name,
		turn: func(t *testing.T, r *hookRig, port string) (string, error) {
			// The user's model, beside what lspkit init wrote.
			path := filepath.Join(r.p.dir, config)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var cfg map[string]any
			if err := json.Unmarshal(data, &cfg); err != nil {
				t.Fatal(err)
			}
			orig := data
			defer os.WriteFile(path, orig, 0o644)
			cfg["provider"] = map[string]any{"standin": map[string]any{"npm": "@ai-sdk/openai-compatible", "name": "Stand-in",
				"options": map[string]any{"baseURL": "http://127.0.0.1:" + port + "/v1", "apiKey": "stand-in"}, "models": map[string]any{"stand-in": map[string]any{"name": "Stand-in"}}}}
			cfg["model"] = "standin/stand-in"
			data, _ = json.Marshal(cfg)
			os.WriteFile(path, data, 0o644)
			return opencodeTurn(t, r, name)
		},
	}, "read", "edit", "filePath", "oldString", "newString", true)
}

// opencodeTurn starts name's server in the project, gives a new session
// the message "go", and waits for the plugin's end of the turn: the
// lspkit hook of its idle event, and, when that held the turn, the next.
func opencodeTurn(t *testing.T, r *hookRig, name string) (string, error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lookPath(r.env, name), "serve", "--port", port, "--hostname", "127.0.0.1")
	cmd.Dir, cmd.Env = r.p.dir, r.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		cmd.Wait()
	}()
	listening := make(chan struct{})
	go func() {
		s := bufio.NewScanner(stdout)
		once := sync.Once{}
		for s.Scan() {
			out.WriteString(s.Text() + "\n")
			if strings.Contains(s.Text(), "listening on") {
				once.Do(func() { close(listening) })
			}
		}
	}()
	select {
	case <-listening:
	case <-ctx.Done():
		return out.String(), fmt.Errorf("%s serve did not listen", name)
	}
	base := "http://127.0.0.1:" + port
	post := func(path, body string) (map[string]any, error) {
		req, _ := http.NewRequestWithContext(ctx, "POST", base+path, strings.NewReader(body))
		req.Header.Set("content-type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		var v map[string]any
		err = json.UnmarshalRead(resp.Body, &v, json.RejectUnknownMembers(false))
		if resp.StatusCode != 200 {
			return v, fmt.Errorf("%s: %s", path, resp.Status)
		}
		return v, err
	}
	idleBefore, logFrom := r.idleHooks(), len(r.daemonLog())
	session, err := post("/session", "{}")
	if err != nil {
		return out.String(), err
	}
	id, _ := session["id"].(string)
	if _, err := post("/session/"+id+"/message", `{"parts":[{"type":"text","text":"go"}]}`); err != nil {
		return out.String(), err
	}
	// The plugin's end of the turn: the hook of the idle event, and after
	// a hold (a prompt) the next one.
	for want := 1; ; {
		select {
		case <-ctx.Done():
			return out.String(), fmt.Errorf("the plugin's end of the turn did not come: %d idle hooks", r.idleHooks()-idleBefore)
		case <-time.After(50 * time.Millisecond):
		}
		n := r.idleHooks() - idleBefore
		if n < want {
			continue
		}
		if want == 1 && heldTurn.MatchString(r.daemonLog()[logFrom:]) {
			want = 2
			continue
		}
		return out.String(), nil
	}
}

// idleHooks counts the plugin's idle events lspkit's hook has answered.
func (r *hookRig) idleHooks() int {
	n := 0
	for _, p := range r.hookPayloads() {
		if strings.Contains(p, `"event":"idle"`) {
			n++
		}
	}
	return n
}

// heldTurn is the daemon's log line of a stop that held the turn.
var heldTurn = regexp.MustCompile(`msg=burst event=stop .*hold=true`)

// hookPayloads are the payloads of the hooks the wrapper ran, in order.
func (r *hookRig) hookPayloads() []string {
	data, _ := os.ReadFile(r.times)
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			p, _ := os.ReadFile(f[1])
			out = append(out, string(p))
		}
	}
	return out
}
