// The end-to-end tests drive the built binary and read /proc: Linux only
// (the other systems are covered by cross-compiled builds and vets).

//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// median of durations, in milliseconds.
func medianMS(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}

// BenchmarkCheckVsRawClient: whole-process `lspkit check` on a one-file Go
// module with a type error, against a minimal raw LSP client that gets the
// same complete answer (initialize → didOpen → gopls.diagnose_files → the
// file's diagnostics) from the same gopls, alternating run by run.
// Target: ratio ≤ 1.15.
func BenchmarkCheckVsRawClient(b *testing.B) {
	gopls := servertest.Binary(b, "gopls")
	root := b.TempDir()
	writeFiles(b, root, map[string]string{"go.mod": goMod, "main.go": "package demo\n\nvar X int = \"s\"\n"})
	file := filepath.Join(root, "main.go")
	run := func(cmd *exec.Cmd, want int) time.Duration {
		var errb bytes.Buffer
		cmd.Stderr = &errb
		start := time.Now()
		cmd.Run()
		el := time.Since(start)
		if code := cmd.ProcessState.ExitCode(); code != want {
			b.Fatalf("%s: exit %d, want %d: %s", cmd, code, want, errb.String())
		}
		return el
	}
	exe, _ := os.Executable()
	var raw, check []time.Duration
	for b.Loop() {
		rc := exec.Command(exe)
		rc.Env = append(os.Environ(), "LSPKIT_FAKE=raw-client", "LSPKIT_RAW="+gopls+" "+file)
		raw = append(raw, run(rc, 0))
		lc := exec.Command(lspkitBin, "check", "--root", root, file)
		lc.Env = append(os.Environ(), "PATH="+filepath.Dir(gopls)+":"+os.Getenv("PATH"))
		check = append(check, run(lc, 1))
	}
	b.ReportMetric(medianMS(raw), "raw-ms")
	b.ReportMetric(medianMS(check), "check-ms")
	b.ReportMetric(medianMS(check)/medianMS(raw), "ratio")
}

// rawSession drives gopls directly for the overhead benchmark: didChange,
// then the publishDiagnostics carrying that version.
type rawSession struct {
	conn      *transport.Conn
	published chan int
	proc      *client.Process
}

func newRawSession(b *testing.B, gopls, root string) *rawSession {
	return newRawServer(b, client.Command{Path: gopls, Dir: root}, root, "")
}

// newRawServer starts a server and initializes it as a minimal client
// would (publishDiagnostics with versions; initOptions, when given, as
// initializationOptions).
func newRawServer(b *testing.B, cmd client.Command, root, initOptions string) *rawSession {
	proc, err := client.StartProcess(cmd)
	if err != nil {
		b.Fatal(err)
	}
	s := &rawSession{published: make(chan int, 1024), proc: proc}
	s.conn = transport.NewConn(proc.Stdio(), transport.Options{Handler: transport.HandlerFunc(func(_ context.Context, req *transport.Request) (any, error) {
		if req.Method == "textDocument/publishDiagnostics" {
			v := -1 // a publish without a version
			if i := bytes.Index(req.Params, []byte(`"version":`)); i >= 0 {
				rest := req.Params[i+len(`"version":`):]
				end := bytes.IndexAny(rest, ",}")
				if n, err := strconv.Atoi(string(rest[:end])); err == nil {
					v = n
				}
			}
			select {
			case s.published <- v:
			default: // nobody is waiting for this one
			}
		}
		return nil, nil
	})})
	b.Cleanup(func() { s.conn.Close(); proc.Stop(time.Second) })
	ctx := context.Background()
	opts := ""
	if initOptions != "" {
		opts = `,"initializationOptions":` + initOptions
	}
	init := fmt.Sprintf(`{"processId":%d,"rootUri":"file://%s","capabilities":{"textDocument":{"publishDiagnostics":{"versionSupport":true},%s}},"workspaceFolders":[{"uri":"file://%s","name":"ws"}]%s}`, os.Getpid(), root, rawCodeActionCapability, root, opts)
	if err := s.conn.Call(ctx, "initialize", []byte(init), nil); err != nil {
		b.Fatal(err)
	}
	s.conn.Notify(ctx, "initialized", []byte(`{}`))
	return s
}

// rawCodeActionCapability is the raw client's code action capability,
// lspkit's own (servers answer clients without it differently).
const rawCodeActionCapability = `"codeAction":{"codeActionLiteralSupport":{"codeActionKind":{"valueSet":["","quickfix","refactor","refactor.extract","refactor.inline","refactor.rewrite","source","source.organizeImports","source.fixAll"]}},"isPreferredSupport":true,"disabledSupport":true,"dataSupport":true,"resolveSupport":{"properties":["edit"]}}`

// BenchmarkWarmCheckOverhead: warm lsp/checkFile through the daemon against
// the same gopls's own time for the same edits, driven directly: didChange,
// then gopls.diagnose_files (which returns when every wave of findings is
// published) and the publish for the version. Target: overhead (median
// difference) ≤ 2 ms.
func BenchmarkWarmCheckOverhead(b *testing.B) {
	gopls := servertest.Binary(b, "gopls")
	texts := []string{"package demo\n\nvar X int = \"s\"\n", "package demo\n\nvar X int = 1\n"}
	rootA, rootB := b.TempDir(), b.TempDir()
	for _, r := range []string{rootA, rootB} {
		writeFiles(b, r, map[string]string{"go.mod": goMod, "a.go": texts[0], "lspkit.json": noInstall("")})
	}
	d := startDaemonB(b, rootA)
	raw := newRawSession(b, gopls, rootB)
	uri := "file://" + filepath.Join(rootB, "a.go")
	ctx := context.Background()
	raw.conn.Notify(ctx, "textDocument/didOpen", []byte(fmt.Sprintf(`{"textDocument":{"uri":%q,"languageId":"go","version":1,"text":%q}}`, uri, texts[0])))
	version := 1
	waitVersion := func(v int) {
		for got := range raw.published {
			if got >= v {
				return
			}
		}
	}
	waitVersion(1)
	var diags []api.Diagnostic
	d.must("lsp/checkFile", map[string]any{"filePath": "a.go", "text": texts[0]}, &diags) // warm
	var viaDaemon, direct []time.Duration
	i := 0
	for b.Loop() {
		i++
		text := texts[i%2]
		start := time.Now()
		d.must("lsp/checkFile", map[string]any{"filePath": "a.go", "text": text}, &diags)
		viaDaemon = append(viaDaemon, time.Since(start))
		version++
		start = time.Now()
		raw.conn.Notify(ctx, "textDocument/didChange", []byte(fmt.Sprintf(`{"textDocument":{"uri":%q,"version":%d},"contentChanges":[{"text":%q}]}`, uri, version, text)))
		// Complete findings, as the daemon gives: gopls's own signal that
		// every wave (analyzers too) is published.
		if err := raw.conn.Call(ctx, "workspace/executeCommand", []byte(fmt.Sprintf(`{"command":"gopls.diagnose_files","arguments":[{"Files":[%q]}]}`, uri)), nil); err != nil {
			b.Fatal(err)
		}
		waitVersion(version)
		direct = append(direct, time.Since(start))
	}
	b.ReportMetric(medianMS(viaDaemon), "checkFile-ms")
	b.ReportMetric(medianMS(direct), "server-ms")
	b.ReportMetric(medianMS(viaDaemon)-medianMS(direct), "overhead-ms")
}

// startDaemonB starts a daemon for a benchmark.
func startDaemonB(b *testing.B, root string) *daemon {
	proc, err := client.StartProcess(client.Command{Path: lspkitBin, Args: []string{"serve", "--root", root}, Env: []string{"LSPKIT_LOG=error"}, Dir: root})
	if err != nil {
		b.Fatal(err)
	}
	d := &daemon{t: b, proc: proc, ready: make(chan map[string]any, 1)}
	d.conn = transport.NewConn(proc.Stdio(), transport.Options{Handler: transport.HandlerFunc(func(_ context.Context, req *transport.Request) (any, error) {
		if req.Method == "lsp/ready" {
			d.ready <- nil
		}
		return nil, nil
	})})
	b.Cleanup(func() { d.conn.Close(); proc.Stop(5 * time.Second) })
	select {
	case <-d.ready:
	case <-time.After(servertest.Scale(10 * time.Second)):
		b.Fatal("no lsp/ready")
	}
	return d
}

// BenchmarkTwoServers: a .ts file served by typescript-language-server and
// eslint, edited warm: the check's wall time against its slower server and
// the sum of both. Target: wall ≈ slowest, well under the sum.
func BenchmarkTwoServers(b *testing.B) {
	servertest.Binary(b, "typescript-language-server")
	servertest.Binary(b, "vscode-eslint-language-server")
	root := b.TempDir()
	texts := []string{"const n = 1;\nn = 2;\ndebugger;\nexport {};\n", "const n = 1;\nconsole.log(n);\ndebugger;\nexport {};\n"}
	writeFiles(b, root, map[string]string{
		"tsconfig.json":     `{"compilerOptions":{"strict":true}}`,
		"eslint.config.mjs": "export default [{ files: [\"**/*.ts\"], rules: { \"no-debugger\": \"error\" } }];\n",
		"a.ts":              texts[0],
		"lspkit.json":       noInstall(""),
	})
	d := startDaemonB(b, root)
	var res api.CheckResult
	d.must("lsp/check", map[string]any{"filePath": "a.ts"}, &res) // cold start of both
	var wall, slowest, sum []time.Duration
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		d.must("lsp/check", map[string]any{"filePath": "a.ts", "text": texts[i%2]}, &res)
		wall = append(wall, time.Since(start))
		mx, total := serverTimes(b, res)
		slowest, sum = append(slowest, mx), append(sum, total)
	}
	b.ReportMetric(medianMS(wall), "wall-ms")
	b.ReportMetric(medianMS(slowest), "slowest-ms")
	b.ReportMetric(medianMS(sum), "sum-ms")
}

// BenchmarkReady: spawn → lsp/ready, and the idle daemon's resident memory.
// Target: ready ≤ 100 ms.
func BenchmarkReady(b *testing.B) {
	root := b.TempDir()
	var ready []time.Duration
	var rss int64
	for b.Loop() {
		start := time.Now()
		d := startDaemonB(b, root)
		ready = append(ready, time.Since(start))
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.proc.PID()))
		for line := range strings.Lines(string(status)) {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
				rss, _ = strconv.ParseInt(f[1], 10, 64)
			}
		}
		d.conn.Close()
		<-d.proc.Done()
	}
	b.ReportMetric(medianMS(ready), "ready-ms")
	b.ReportMetric(float64(rss), "idle-rss-KiB")
}

// BenchmarkTwoServersCold: a fresh daemon's first check of a .go file
// served by gopls twice (the built-in and a second id on the same binary):
// two cold starts side by side. Target: wall ≈ the slower, not the sum.
func BenchmarkTwoServersCold(b *testing.B) {
	gopls := servertest.Binary(b, "gopls")
	root := b.TempDir()
	writeFiles(b, root, map[string]string{
		"go.mod":      goMod,
		"a.go":        "package demo\n\nvar X int = \"s\"\n",
		"lspkit.json": fmt.Sprintf(`{"lsp":{"autoInstall":false,"servers":{"gopls2":{"command":%q,"extensions":[".go"],"rootMarkers":["go.mod"]}}}}`, gopls),
	})
	var wall, slowest, sum []time.Duration
	for b.Loop() {
		d := startDaemonB(b, root)
		var res api.CheckResult
		start := time.Now()
		d.must("lsp/check", map[string]any{"filePath": "a.go"}, &res)
		wall = append(wall, time.Since(start))
		mx, total := serverTimes(b, res)
		if len(res.Servers) != 2 || len(res.Diagnostics) != 1 {
			b.Fatalf("check: %+v", res)
		}
		slowest, sum = append(slowest, mx), append(sum, total)
		d.conn.Close()
		<-d.proc.Done()
	}
	b.ReportMetric(medianMS(wall), "wall-ms")
	b.ReportMetric(medianMS(slowest), "slowest-ms")
	b.ReportMetric(medianMS(sum), "sum-ms")
}

// serverTimes returns the slowest server's time in a check and the sum of
// all, requiring every server to have settled.
func serverTimes(b *testing.B, res api.CheckResult) (slowest, sum time.Duration) {
	for _, s := range res.Servers {
		if s.Verdict != api.VerdictSettled {
			b.Fatalf("servers: %+v", res.Servers)
		}
		d := time.Duration(s.MS) * time.Millisecond
		slowest, sum = max(slowest, d), sum+d
	}
	return slowest, sum
}

// BenchmarkFirstCheckTree: the daemon's first check of a file in a Go
// module whose root also holds 1k, 20k or 100k directories, against the
// raw client's on the same tree (the floor: no file watching), alternating
// run by run. gopls registers watched files for the whole tree; the
// daemon watches it in the background, within its budget, so the check
// does not wait for the walk. Reports both medians, their ratio (target ≤
// 1.1), and the daemon's resident set after the check and once the
// watcher's scan is done.
func BenchmarkFirstCheckTree(b *testing.B) {
	gopls := servertest.Binary(b, "gopls")
	for _, dirs := range []int{1000, 20000, 100000} {
		b.Run(fmt.Sprintf("dirs=%dk", dirs/1000), func(b *testing.B) {
			root := b.TempDir()
			writeFiles(b, root, map[string]string{"go.mod": goMod, "main.go": "package demo\n\nvar X int = \"s\"\n",
				"lspkit.json": `{"lsp":{"autoInstall":false}}`})
			for i := range dirs {
				if err := os.MkdirAll(filepath.Join(root, "tree", fmt.Sprintf("%03d", i/1000), fmt.Sprintf("%03d", i%1000)), 0o755); err != nil {
					b.Fatal(err)
				}
			}
			file := filepath.Join(root, "main.go")
			exe, _ := os.Executable()
			env := []string{"PATH=" + filepath.Dir(gopls) + ":" + os.Getenv("PATH")}
			var raw, check []time.Duration
			var rssCheck, rssScanned []float64
			for b.Loop() {
				rc := exec.Command(exe)
				rc.Env = append(os.Environ(), "LSPKIT_FAKE=raw-client", "LSPKIT_RAW="+gopls+" "+file)
				start := time.Now()
				if out, err := rc.CombinedOutput(); err != nil {
					b.Fatalf("raw client: %v: %s", err, out)
				}
				raw = append(raw, time.Since(start))

				d := startDaemon(b, root, env...)
				var res api.CheckResult
				start = time.Now()
				d.must("lsp/check", api.CheckParams{FilePath: "main.go"}, &res)
				check = append(check, time.Since(start))
				if !res.Checked || len(res.Diagnostics) != 1 {
					b.Fatalf("check: %+v", res)
				}
				rssCheck = append(rssCheck, rssMiB(b, d.proc.PID()))
				deadline := time.Now().Add(2 * time.Minute)
				for w := d.status()["gopls"].Watching; w == "" || strings.Contains(w, "scanning"); w = d.status()["gopls"].Watching {
					if time.Now().After(deadline) {
						b.Fatalf("the watcher's scan did not finish: %q", w)
					}
					time.Sleep(50 * time.Millisecond) // polling the daemon's status, with a deadline
				}
				rssScanned = append(rssScanned, rssMiB(b, d.proc.PID()))
				b.Logf("watching: %s", d.status()["gopls"].Watching)
				d.must("lsp/shutdown", nil, nil)
			}
			b.ReportMetric(medianMS(raw), "raw-ms")
			b.ReportMetric(medianMS(check), "check-ms")
			b.ReportMetric(medianMS(check)/medianMS(raw), "ratio")
			b.ReportMetric(median(rssCheck), "rss-MiB-check")
			b.ReportMetric(median(rssScanned), "rss-MiB-scanned")
		})
	}
}

// median of numbers.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// rssMiB is a process's resident set in MiB (Linux; 0 elsewhere).
func rssMiB(tb testing.TB, pid int) float64 { return procStatusMiB(pid, "VmRSS") }

// procStatusMiB reads a kB field of /proc/PID/status in MiB (Linux; 0
// elsewhere).
func procStatusMiB(pid int, field string) float64 { return procFieldMiB(pid, "status", field) }

// procPSSMiB is a process's proportional set size in MiB: its private
// memory and its share of the pages it shares (the binary's, with every
// other process of the same binary). The sum over processes is what they
// cost together, which the sum of their VmRSS overstates.
func procPSSMiB(pid int) float64 { return procFieldMiB(pid, "smaps_rollup", "Pss") }

// procFieldMiB reads a "Field: N kB" line of /proc/PID/file, in MiB.
func procFieldMiB(pid int, file, field string) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if kb, ok := strings.CutPrefix(line, field+":"); ok {
			var n float64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), &n)
			return n / 1024
		}
	}
	return 0
}

// BenchmarkCheckFiles: one `lspkit check a.go b.ts c.py` (gopls,
// typescript-language-server and pyright, all cold) against each file
// checked alone, run by run: the files are checked concurrently, so the
// whole costs about the slowest alone, not the sum — or, where the
// servers' cold starts need more processor time than the machine has
// cores for the slowest's duration, the processor-time floor (the
// machine's processor time during the run, divided by its cores:
// floor-ms, Linux only).
func BenchmarkCheckFiles(b *testing.B) {
	gopls := servertest.Binary(b, "gopls")
	servertest.Binary(b, "typescript-language-server")
	servertest.Binary(b, "pyright-langserver")
	root := b.TempDir()
	writeFiles(b, root, map[string]string{
		"go.mod": goMod, "a.go": "package demo\n\nvar X int = \"s\"\n",
		"tsconfig.json": `{"compilerOptions":{"strict":true}}`, "b.ts": "export const n: number = \"s\";\n",
		"c.py":        "x: int = \"s\"\n",
		"lspkit.json": `{"lsp":{"autoInstall":false}}`,
	})
	files := []string{"a.go", "b.ts", "c.py"}
	env := append(os.Environ(), "PATH="+filepath.Dir(gopls)+":"+os.Getenv("PATH"))
	var floor []time.Duration
	run := func(args ...string) time.Duration {
		cmd := exec.Command(lspkitBin, append([]string{"check", "--root", root}, args...)...)
		cmd.Dir = root
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cpu0 := machineCPU()
		start := time.Now()
		cmd.Run()
		el := time.Since(start)
		if len(args) == len(files) {
			floor = append(floor, (machineCPU()-cpu0)/time.Duration(runtime.NumCPU()))
		}
		if code := cmd.ProcessState.ExitCode(); code != 1 || strings.Count(out.String(), ": error: ") != len(args) {
			b.Fatalf("check %v: exit %d\n%s", args, code, out.String())
		}
		return el
	}
	var all, slowest, sum []time.Duration
	for b.Loop() {
		var mx, total time.Duration
		for _, f := range files {
			d := run(f)
			mx, total = max(mx, d), total+d
		}
		slowest, sum = append(slowest, mx), append(sum, total)
		all = append(all, run(files...))
	}
	b.ReportMetric(medianMS(all), "together-ms")
	b.ReportMetric(medianMS(slowest), "slowest-alone-ms")
	b.ReportMetric(medianMS(sum), "sum-alone-ms")
	b.ReportMetric(medianMS(floor), "floor-ms")
}

// machineCPU is the processor time the machine has spent (user, nice,
// system, irq, softirq; Linux /proc/stat at 100 ticks a second), or 0.
func machineCPU() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	var ticks int64
	for _, i := range []int{1, 2, 3, 6, 7} {
		if i < len(f) {
			n, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
