// The end-to-end tests drive the built binary and read /proc: Linux only
// (the other systems are covered by cross-compiled builds and vets).

//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// probeServers are the faulty fake servers the probe starts (re-executed
// test binary, LSPKIT_FAKE naming one).
var probeServers = map[string]lsptest.Behavior{
	"probe-ok":      {Pull: true},
	"probe-crash":   {CrashOn: "textDocument/didOpen"},
	"probe-hang":    {HangOn: "initialize"},
	"probe-garbage": {RawOn: "initialize", Raw: "this is not a header\r\n\r\n{}"},
	"probe-huge":    {RawOn: "initialize", Raw: "Content-Length: 2147483648\r\n\r\n{"},
	"probe-silent":  {Silent: true},
	"probe-exits":   {ExitOnShutdown: true},
}

// probeRun is one hostile input fed to a fresh lspkit process.
type probeRun struct {
	stdout, stderr string
	code           int
	peakMiB        float64
}

// runLspkit feeds input to `lspkit ARGS` in root and returns what it did,
// with its peak resident set (VmHWM, sampled while it runs: the wait's
// rusage would count the test binary's own, inherited across exec).
func runLspkit(b *testing.B, root string, input []byte, args ...string) probeRun {
	cmd := exec.Command(lspkitBin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "LSPKIT_LOG=error")
	cmd.Stdin = bytes.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	peak := 0.0
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(servertest.Scale(60 * time.Second))
	for {
		select {
		case <-done:
			return probeRun{stdout: out.String(), stderr: errb.String(), code: cmd.ProcessState.ExitCode(), peakMiB: peak}
		case <-tick.C:
			peak = max(peak, vmHWM(cmd.Process.Pid))
		case <-timeout:
			cmd.Process.Kill()
			<-done
			return probeRun{code: -2, stderr: "hung: killed after 60 s"}
		}
	}
}

// vmHWM is a process's peak resident set in MiB so far (Linux), or 0.
func vmHWM(pid int) float64 { return procStatusMiB(pid, "VmHWM") }

// frame is one LSP frame.
func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// frames splits serve's output into message bodies; ok is false if any is
// not a whole JSON message.
func frames(out string) (bodies []string, ok bool) {
	for len(out) > 0 {
		var n int
		if _, err := fmt.Sscanf(out, "Content-Length: %d\r\n\r\n", &n); err != nil {
			return bodies, false
		}
		i := strings.Index(out, "\r\n\r\n") + 4
		if i+n > len(out) || !json.Valid([]byte(out[i:i+n])) {
			return bodies, false
		}
		bodies = append(bodies, out[i:i+n])
		out = out[i+n:]
	}
	return bodies, true
}

// BenchmarkHostileProbe feeds lspkit serve and lspkit mcp hostile input —
// broken frames, invalid JSON-RPC, bad MCP lines, huge and odd paths,
// FIFOs — and runs servers that crash, hang, send garbage or lie, then
// 2,000 checks on one daemon. It fails on any case not handled as the
// contract says and reports: cases tried, failures, the largest peak RSS
// of one bad input, the RSS slope over the checks, and processes left.
func BenchmarkHostileProbe(b *testing.B) {
	root := b.TempDir()
	exe, _ := os.Executable()
	var servers []string
	for name := range probeServers {
		ext := strings.TrimPrefix(name, "probe-")
		servers = append(servers, fmt.Sprintf(`%q:{"command":%q,"extensions":[".%s"],"env":{"LSPKIT_FAKE":%q}}`, ext, exe, ext, name))
	}
	files := map[string]string{"lspkit.json": `{"lsp":{"autoInstall":false,"diagnosticTimeout":2000,"firstTouchTimeout":3000,"servers":{` + strings.Join(servers, ",") + `}}}`}
	for name := range probeServers {
		ext := strings.TrimPrefix(name, "probe-")
		files["a."+ext] = "x ERROR\n"
	}
	writeFiles(b, root, files)
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.ok"), 0o644); err != nil {
		b.Fatal(err)
	}
	status := `{"jsonrpc":"2.0","id":"after","method":"lsp/status"}`
	var tried, failed int
	peak := 0.0
	fail := func(name, format string, args ...any) {
		failed++
		b.Errorf("%s: "+format, append([]any{name}, args...)...)
	}
	for b.Loop() {
		tried, failed, peak = 0, 0, 0
		// Framing the stream cannot be read past: exit 1 with the reason, what came before answered.
		for name, in := range map[string]string{
			"bad length": "Content-Length: abc\r\n\r\n", "negative length": "Content-Length: -5\r\n\r\n",
			"huge length": "Content-Length: 100000000000000000000\r\n\r\n", "2 GiB": "Content-Length: 2147483648\r\n\r\n{",
			"conflicting": "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "no length": "X-Other: 1\r\n\r\n{}",
			"1 MiB header": "X-" + strings.Repeat("a", 1<<20) + "\r\n\r\n", "cut body": "Content-Length: 100\r\n\r\n{}",
		} {
			tried++
			r := runLspkit(b, root, []byte(frame(status)+in), "serve")
			peak = max(peak, r.peakMiB)
			bodies, ok := frames(r.stdout)
			if r.code != 1 || !strings.Contains(r.stderr, "lspkit serve: rpc: input: ") || !ok || len(bodies) != 2 || !strings.Contains(bodies[1], `"id":"after","result"`) {
				fail("serve "+name, "exit %d, stderr %q, %d messages (valid %v): %.300q", r.code, r.stderr, len(bodies), ok, bodies)
			}
		}
		// Messages that are not valid JSON-RPC: answered with the spec's code, the stream goes on.
		for name, tc := range map[string]struct{ in, want string }{
			"not JSON": {"hello", `"id":null,"error":{"code":-32700`}, "empty": {"", `"id":null,"error":{"code":-32700`},
			"batch":       {`[{"jsonrpc":"2.0","id":1,"method":"lsp/status"}]`, `"id":null,"error":{"code":-32600`},
			"empty batch": {`[]`, `"id":null,"error":{"code":-32600`},
			"object id":   {`{"jsonrpc":"2.0","id":{},"method":"lsp/status"}`, `"id":null,"error":{"code":-32600`},
			"1.5 id":      {`{"jsonrpc":"2.0","id":1.5,"method":"lsp/status"}`, `"id":null,"error":{"code":-32600`},
			"1e30 id":     {`{"jsonrpc":"2.0","id":1e30,"method":"lsp/status"}`, `"id":null,"error":{"code":-32600`},
			"true id":     {`{"jsonrpc":"2.0","id":true,"method":"lsp/status"}`, `"id":null,"error":{"code":-32600`},
			"jsonrpc 1.0": {`{"jsonrpc":"1.0","id":7,"method":"lsp/status"}`, `"id":7,"error":{"code":-32600`},
			"no jsonrpc":  {`{"id":7,"method":"lsp/status"}`, `"id":7,"error":{"code":-32600`},
			"bad UTF-8":   {"{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"lsp/\xff\"}", `"id":41,"error":{"code":-32601`},
			"unknown":     {`{"jsonrpc":"2.0","id":8,"method":"lsp/nope"}`, `"id":8,"error":{"code":-32601`},
			"bad params":  {`{"jsonrpc":"2.0","id":9,"method":"lsp/check","params":{"filePath":3}}`, `"id":9,"error":{"code":-32602`},
			"deep":        {`{"jsonrpc":"2.0","id":10,"method":"lsp/check","params":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`, `"id":10,"error":{"code":-32`},
			"10 MB path":  {`{"jsonrpc":"2.0","id":11,"method":"lsp/check","params":{"filePath":"` + strings.Repeat("a", 10<<20) + `"}}`, `"id":11,"error":{"code":-32602`},
			"FIFO":        {`{"jsonrpc":"2.0","id":12,"method":"lsp/check","params":{"filePath":"fifo.ok"}}`, `"reason":"fifo.ok is not a regular file"`},
			"newline":     {`{"jsonrpc":"2.0","id":13,"method":"lsp/check","params":{"filePath":"a\nb.ok"}}`, `"id":13,"result":{"checked":false`},
			"outside":     {`{"jsonrpc":"2.0","id":14,"method":"lsp/check","params":{"filePath":"/etc/passwd"}}`, `is outside the workspace root`},
		} {
			tried++
			r := runLspkit(b, root, []byte(frame(tc.in)+frame(status)), "serve")
			peak = max(peak, r.peakMiB)
			bodies, ok := frames(r.stdout)
			replied, answered := false, false
			for _, body := range bodies { // answers may come in any order
				replied = replied || strings.Contains(body, tc.want) && len(body) < 4096
				answered = answered || strings.Contains(body, `"id":"after","result"`)
			}
			if r.code != 0 || !ok || len(bodies) != 3 || !replied || !answered {
				fail("serve "+name, "exit %d, valid %v, %d messages: %.300q", r.code, ok, len(bodies), bodies)
			}
		}
		// MCP lines: answered, the session goes on.
		init := `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"p","version":"1"}}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
		mcpAfter := `{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"lsp_status","arguments":{}}}` + "\n"
		for name, tc := range map[string]struct{ in, want string }{
			"not JSON": {"hello\n", `"code":-32700`}, "NUL": {"{\x00}\n", `"code":-32700`}, "bad UTF-8": {"{\"a\":\"\xff\"}\n", `"code":-32700`},
			"batch":       {`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]` + "\n", `"code":-32600`},
			"jsonrpc 1.0": {`{"jsonrpc":"1.0","id":1,"method":"tools/list"}` + "\n", `"code":-32600`},
			"deep":        {strings.Repeat("[", 100000) + "\n", `"code":-32700`},
			"unknown":     {`{"jsonrpc":"2.0","id":2,"method":"nope"}` + "\n", `"code":-32601`},
			"256 MiB":     {strings.Repeat("x", 256<<20) + "\n", `"code":-32600,"message":"message longer than`},
			"10 MB path":  {`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lsp_check_file","arguments":{"file":"` + strings.Repeat("a", 10<<20) + `"}}}` + "\n", `bytes long; a path is at most 4096`},
		} {
			tried++
			r := runLspkit(b, root, []byte(init+tc.in+mcpAfter), "mcp")
			peak = max(peak, r.peakMiB)
			valid, answered, replied := true, false, false
			for line := range strings.Lines(r.stdout) {
				valid = valid && json.Valid([]byte(line))
				answered = answered || strings.Contains(line, `"id":"after","result"`)
				replied = replied || strings.Contains(line, tc.want) && len(line) < 4096
			}
			if r.code != 0 || !valid || !answered || !replied {
				fail("mcp "+name, "exit %d, valid %v, answered %v, replied %v: %.300s", r.code, valid, answered, replied, r.stdout)
			}
		}
		// Faulty servers: each check says what happened; the daemon goes on.
		d := startDaemon(b, root)
		for name := range probeServers {
			tried++
			ext := strings.TrimPrefix(name, "probe-")
			var res api.CheckResult
			err := d.call("lsp/check", map[string]any{"filePath": "a." + ext}, &res)
			good := err == nil && len(res.Servers) == 1
			switch ext {
			case "ok", "exits":
				good = good && res.Checked
			case "silent":
				good = good && !res.Checked && res.Servers[0].Verdict == api.VerdictTimedOut
			default:
				good = good && !res.Checked && res.Reason != ""
			}
			if !good {
				fail("server "+name, "%+v %v", res, err)
			}
		}
		// 2,000 checks of changing text: the resident set's slope.
		var rss500 float64
		for i := range 2000 {
			text := fmt.Sprintf("x ERROR %d\n", i)
			var res api.CheckResult
			d.must("lsp/check", map[string]any{"filePath": "a.ok", "text": text}, &res)
			if i == 499 {
				rss500 = rssMiB(b, d.proc.PID())
			}
		}
		slope := (rssMiB(b, d.proc.PID()) - rss500) / 1.5
		tried++
		if peak > 256 {
			fail("peak", "a single bad input took %.0f MiB", peak)
		}
		if slope >= 1 {
			fail("memory", "RSS grew %.2f MiB per 1,000 checks", slope)
		}
		if err := syscall.Kill(d.proc.PID(), syscall.SIGKILL); err != nil {
			b.Fatal(err)
		}
		<-d.proc.Done()
		deadline := time.Now().Add(5 * time.Second)
		left := processesIn(root)
		for len(left) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond) // polling the process table, with a deadline
			left = processesIn(root)
		}
		tried++
		if len(left) > 0 {
			fail("orphans", "%d processes left after SIGKILL of the daemon: %v", len(left), left)
		}
		b.ReportMetric(float64(tried), "cases")
		b.ReportMetric(float64(failed), "failures")
		b.ReportMetric(peak, "peak-MiB")
		b.ReportMetric(slope, "rss-MiB/1k-checks")
		b.ReportMetric(float64(len(left)), "orphans")
	}
}
