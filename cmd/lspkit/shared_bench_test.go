//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// TestSharedStress: 16 clients of one shared daemon make 100 mixed
// requests each at once (30 each in the test command, 100 in CI's pass) — checks from disk and (2 each) of given text, hovers,
// status, diagnostics, epochs — and every one is answered (the daemon
// built with -race under the test command's -race). Then one client is
// killed with SIGKILL and the others go on; then the daemon is, and no
// process of it is left.
func TestSharedStress(t *testing.T) {
	t.Parallel()
	perClient := 30
	if servertest.Heavy(t) {
		perClient = 100
	}
	root, runtime := sharedFixture(t, "shared-plain", 60000)
	for i := range 16 {
		writeFiles(t, root, map[string]string{fmt.Sprintf("c%d.fk", i): "ERROR\n"})
	}
	clients := make([]*daemon, 16)
	var pid int
	for i := range clients {
		clients[i], pid = attach(t, root, runtime)
	}
	request := func(d *daemon, i, j int) error {
		switch j % 6 {
		case 0:
			// Each client its own file: checks of one document take
			// turns (each answer is for the text its check sent).
			var res api.CheckResult
			if err := d.call("lsp/check", map[string]any{"filePath": fmt.Sprintf("c%d.fk", i)}, &res); err != nil {
				return err
			}
			if !res.Checked || len(res.Diagnostics) != 1 {
				return fmt.Errorf("check: %+v", res)
			}
		case 1:
			if j%50 != 1 {
				// Mostly from disk: a check of given text holds its
				// server alone until its answer.
				var diags []api.Diagnostic
				if err := d.call("lsp/checkFile", map[string]any{"filePath": fmt.Sprintf("c%d.fk", i)}, &diags); err != nil {
					return err
				}
				if len(diags) != 1 {
					return fmt.Errorf("checkFile from disk: %+v", diags)
				}
				return nil
			}
			text := fmt.Sprintf("ERROR %d %d\nERROR\n", i, j)
			var res api.CheckResult
			if err := d.call("lsp/check", map[string]any{"filePath": "b.fk", "text": text}, &res); err != nil {
				return err
			}
			if !res.Checked || len(res.Diagnostics) != 2 {
				return fmt.Errorf("check of given text: %+v", res)
			}
		case 2:
			var res api.HoverResult
			if err := d.call("lsp/hover", map[string]any{"file": "b.fk", "line": 1, "character": 1}, &res); err != nil {
				return err
			}
			if res.Content == nil || !strings.Contains(*res.Content, "fine") {
				return fmt.Errorf("hover of b.fk answered %v, not the disk's line", res.Content)
			}
		case 3:
			var sts []api.ServerStatus
			return d.call("lsp/status", nil, &sts)
		case 4:
			var diags api.FileDiagnostics
			return d.call("lsp/diagnostics", nil, &diags)
		case 5:
			var epoch uint64
			return d.call("lsp/getDiagnosticEpoch", nil, &epoch)
		}
		return nil
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	for i, d := range clients {
		wg.Go(func() {
			for j := range perClient {
				if err := request(d, i, j); err != nil {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("client %d request %d: %v", i, j, err))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("%d of %d requests failed; first: %s", len(failed), 16*perClient, failed[0])
	}
	syscall.Kill(clients[3].proc.PID(), syscall.SIGKILL)
	for i, d := range clients {
		if i == 3 {
			continue
		}
		if err := request(d, i, 0); err != nil {
			t.Fatalf("client %d after another was killed: %v", i, err)
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	noProcessesIn(t, root)
}

// goTSRepo is a small repository with a Go module at its root and a
// TypeScript project under web/: gopls for the one, typescript-language-
// server for the other.
func goTSRepo(tb testing.TB) string {
	tb.Helper()
	root := tb.TempDir()
	writeFiles(tb, root, map[string]string{
		"go.mod":              goMod,
		"lib.go":              "package demo\n\n// Greeting says hello.\nfunc Greeting(name string) string { return \"hello, \" + name }\n",
		"use.go":              "package demo\n\nfunc Use() int { return Greeting(\"x\") }\n",
		"web/package.json":    `{"name":"web","private":true,"type":"module"}`,
		"web/tsconfig.json":   `{"compilerOptions":{"strict":true,"target":"es2022","module":"nodenext"}}`,
		"web/src/lib.ts":      "export function greeting(name: string): string {\n  return `hello, ${name}`;\n}\n",
		"web/src/use.ts":      "import { greeting } from \"./lib.js\";\n\nexport const n: number = greeting(\"x\");\n",
		"lspkit.json":         noInstall(""),
		"web/src/.gitkeep.ts": "export {};\n",
	})
	return root
}

// A workload is a repository and one agent's work on it: a check of a
// file of each language (its findings counted) and a definition in each.
type workload struct {
	repo     func(testing.TB) string
	checks   map[string]int // file → findings
	navigate []map[string]any
}

// smallGoTS is goTSRepo's workload.
var smallGoTS = workload{
	repo:     goTSRepo,
	checks:   map[string]int{"use.go": 1, "web/src/use.ts": 1},
	navigate: []map[string]any{{"file": "use.go", "line": 3, "symbol": "Greeting"}, {"file": "web/src/use.ts", "line": 3, "symbol": "greeting"}},
}

// chiKy is a real repository: go-chi/chi at the root, sindresorhus/ky
// under web/ (copies in bench/accuracy/testdata, SOURCES.md there).
var chiKy = workload{
	repo: func(tb testing.TB) string {
		tb.Helper()
		root := tb.TempDir()
		src := filepath.Join("..", "..", "bench", "accuracy", "testdata")
		if err := os.CopyFS(root, os.DirFS(filepath.Join(src, "chi"))); err != nil {
			tb.Fatal(err)
		}
		if err := os.CopyFS(filepath.Join(root, "web"), os.DirFS(filepath.Join(src, "ky"))); err != nil {
			tb.Fatal(err)
		}
		writeFiles(tb, root, map[string]string{"lspkit.json": noInstall("")})
		return root
	},
	// ky has two tsc errors of its own (SOURCES.md).
	checks:   map[string]int{"mux.go": 0, "web/source/core/Ky.ts": -1},
	navigate: []map[string]any{{"file": "mux.go", "line": 55, "symbol": "NewRouteContext"}, {"file": "web/source/core/Ky.ts", "line": 1, "symbol": "HTTPError"}},
}

// fourLanguages is chiKy with pallets/click under py/ and cJSON under c/
// (copies in bench/accuracy/testdata): gopls, typescript-language-server,
// pyright and clangd, each on a real project.
var fourLanguages = workload{
	repo: func(tb testing.TB) string {
		tb.Helper()
		root := chiKy.repo(tb)
		src := filepath.Join("..", "..", "bench", "accuracy", "testdata")
		for dir, from := range map[string]string{"py": "click", "c": "cjson"} {
			if err := os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join(src, from))); err != nil {
				tb.Fatal(err)
			}
		}
		return root
	},
	// ky has two tsc errors of its own, click eleven pyright errors
	// (SOURCES.md).
	checks: map[string]int{"mux.go": 0, "web/source/core/Ky.ts": -1, "py/src/click/core.py": -1, "c/cJSON.c": 0},
	navigate: []map[string]any{{"file": "mux.go", "line": 55, "symbol": "NewRouteContext"}, {"file": "web/source/core/Ky.ts", "line": 1, "symbol": "HTTPError"},
		{"file": "py/src/click/core.py", "line": 2069, "symbol": "make_str"}, {"file": "c/cJSON.c", "line": 459, "symbol": "cJSON_strdup"}},
}

// run is one agent's session on w's repository.
func (w workload) run(tb testing.TB, d *daemon) {
	for f, n := range w.checks {
		var res api.CheckResult
		d.must("lsp/check", map[string]any{"filePath": f}, &res)
		if !res.Checked || (n >= 0 && len(res.Diagnostics) != n) {
			tb.Fatalf("check %s: %+v", f, res)
		}
	}
	for _, p := range w.navigate {
		var res api.LocationsResult
		d.must("lsp/definition", p, &res)
		if len(res.Locations) != 1 {
			tb.Fatalf("definition %v: %+v", p, res)
		}
	}
}

// treeMiB is the resident memory of the processes pids and all their
// descendants, each counted once, and the same by command name.
func treeMiB(pids ...int) (float64, map[string]float64) {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces; read after its ')'.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 {
			ppid, _ := strconv.Atoi(fields[1])
			children[ppid] = append(children[ppid], pid)
		}
	}
	seen := map[int]bool{}
	var total float64
	byName := map[string]float64{}
	var walk func(int)
	walk = func(pid int) {
		if seen[pid] {
			return
		}
		seen[pid] = true
		mib := procStatusMiB(pid, "VmRSS")
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		total += mib
		byName[strings.TrimSpace(string(comm))] += mib
		for _, c := range children[pid] {
			walk(c)
		}
	}
	for _, p := range pids {
		walk(p)
	}
	return total, byName
}

// BenchmarkSharedMemory: agents on one Go + TypeScript repository (a
// small one, and chi with ky under web/), each checking a file of each
// language and asking a definition in each, all at once: the resident
// memory of lspkit and its servers for one session, for four sessions of
// their own, and for four sessions attached to one shared daemon; medians
// of the rounds (-benchtime 5x). Target: four shared ≤ 1.2× one.
func BenchmarkSharedMemory(b *testing.B) {
	servertest.Binary(b, "gopls")
	servertest.Binary(b, "typescript-language-server")
	for _, w := range []struct {
		name string
		workload
	}{{"small", smallGoTS}, {"chi+ky", chiKy}} {
		b.Run(w.name, func(b *testing.B) {
			measure := func(n int, shared bool) float64 {
				root := w.repo(b)
				runtime, err := os.MkdirTemp("", "rt")
				if err != nil {
					b.Fatal(err)
				}
				defer os.RemoveAll(runtime)
				var args []string
				if shared {
					args = []string{"--shared"}
				}
				ds := make([]*daemon, n)
				var wg sync.WaitGroup
				for i := range ds {
					wg.Go(func() {
						ds[i] = startServe(b, root, b.TempDir(), args, "LSPKIT_RUNTIME_DIR="+runtime, "LSPKIT_LOG=error")
						w.run(b, ds[i])
					})
				}
				wg.Wait()
				pids := []int{}
				for _, d := range ds {
					pids = append(pids, d.proc.PID(), int(d.readyParams["pid"].(float64)))
				}
				// Resident memory of Go and node processes moves as their
				// collectors run and give pages back, and helpers come and
				// go (gopls's telemetry child): the least of ten samples
				// 200 ms apart, the same for each configuration.
				mib, byName := treeMiB(pids...)
				for range 9 {
					time.Sleep(200 * time.Millisecond) // sampling memory over time: nothing to wait for
					if m, by := treeMiB(pids...); m < mib {
						mib, byName = m, by
					}
				}
				b.Logf("%d sessions (shared %v): %.0f MiB: %v", n, shared, mib, byName)
				for _, d := range ds {
					d.proc.Stdio().Close()
					<-d.proc.Done()
				}
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGTERM)
				}
				return mib
			}
			// A server's own heap is not the same after the same work each
			// time (gopls: 48 or 144 MiB, as its collector last ran):
			// medians of the rounds (-benchtime Nx).
			var one, four, shared []float64
			for b.Loop() {
				one = append(one, measure(1, false))
				four = append(four, measure(4, false))
				shared = append(shared, measure(4, true))
			}
			b.ReportMetric(median(one), "one-MiB")
			b.ReportMetric(median(four), "four-MiB")
			b.ReportMetric(median(shared), "four-shared-MiB")
			b.ReportMetric(median(four)/median(one), "four/one")
			b.ReportMetric(median(shared)/median(one), "shared/one")
		})
	}
}

// BenchmarkSharedAttach: `lspkit serve --shared` started with the shared
// daemon running: spawn to lsp/ready (target ≤ 20 ms).
func BenchmarkSharedAttach(b *testing.B) {
	root := b.TempDir()
	writeFiles(b, root, map[string]string{"lspkit.json": noInstall("")})
	runtime, err := os.MkdirTemp("", "rt")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(runtime)
	env := []string{"LSPKIT_RUNTIME_DIR=" + runtime, "LSPKIT_LOG=error"}
	first := startServe(b, root, b.TempDir(), []string{"--shared"}, env...) // the daemon, kept up
	defer syscall.Kill(int(first.readyParams["pid"].(float64)), syscall.SIGTERM)
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		d := startServe(b, root, b.TempDir(), []string{"--shared"}, env...)
		took = append(took, time.Since(start))
		d.proc.Stdio().Close()
		<-d.proc.Done()
	}
	b.ReportMetric(medianMS(took), "ready-ms")
}

// BenchmarkSharedWarmCheck: a warm check of given text with gopls through
// `lspkit serve --shared` (relay, socket, shared daemon) against the same
// through `lspkit serve`. Target: ≤ 1 ms over.
func BenchmarkSharedWarmCheck(b *testing.B) {
	servertest.Binary(b, "gopls")
	texts := []string{"package demo\n\nvar X int = \"s\"\n", "package demo\n\nvar X int = 1\n"}
	rootA, rootB := b.TempDir(), b.TempDir()
	for _, r := range []string{rootA, rootB} {
		writeFiles(b, r, map[string]string{"go.mod": goMod, "a.go": texts[0], "lspkit.json": noInstall("")})
	}
	runtime, err := os.MkdirTemp("", "rt")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(runtime)
	plain := startServe(b, rootA, rootA, nil, "LSPKIT_LOG=error")
	shared := startServe(b, rootB, b.TempDir(), []string{"--shared"}, "LSPKIT_RUNTIME_DIR="+runtime, "LSPKIT_LOG=error")
	defer syscall.Kill(int(shared.readyParams["pid"].(float64)), syscall.SIGTERM)
	var diags []api.Diagnostic
	for _, d := range []*daemon{plain, shared} {
		d.must("lsp/checkFile", map[string]any{"filePath": "a.go", "text": texts[0]}, &diags) // warm
	}
	var viaPlain, viaShared []time.Duration
	i := 0
	for b.Loop() {
		i++
		for _, v := range []struct {
			d   *daemon
			out *[]time.Duration
		}{{plain, &viaPlain}, {shared, &viaShared}} {
			start := time.Now()
			v.d.must("lsp/checkFile", map[string]any{"filePath": "a.go", "text": texts[i%2]}, &diags)
			*v.out = append(*v.out, time.Since(start))
		}
	}
	b.ReportMetric(medianMS(viaPlain), "serve-ms")
	b.ReportMetric(medianMS(viaShared), "shared-ms")
	b.ReportMetric(medianMS(viaShared)-medianMS(viaPlain), "overhead-ms")
}
