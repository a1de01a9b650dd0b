package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/registry"
)

// TestMemoryFlat: 1,200 check cycles on one file, its text alternating
// between an error and a fix so the server re-diagnoses each time, leave
// the heap where it was after the first 300. A soak of gopls's CPU:
// LSPKIT_SOAK=1 (.ci/run) runs it, beside the test command's budget.
func TestMemoryFlat(t *testing.T) {
	if os.Getenv("LSPKIT_SOAK") == "" {
		t.Skip("LSPKIT_SOAK=1 runs it (.ci/run's soak step)")
	}
	gopls := servertest.Binary(t, "gopls")
	root := t.TempDir()
	texts := []string{"package demo\n\nvar X int = \"s\"\n", "package demo\n\nvar X int = 1\n"}
	for name, text := range map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n", "a.go": texts[0]} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Default()
	cfg.AutoInstall = false
	cfg.Servers["gopls"] = config.ServerConfig{Command: gopls}
	o, err := New(Options{Root: root, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Shutdown(context.Background())
	ctx := context.Background()
	check := func(i int) {
		res, err := o.Check(ctx, api.CheckParams{FilePath: "a.go", Text: &texts[i%2], TimeoutMs: 10000})
		if err != nil || len(res.Servers) != 1 || res.Servers[0].Verdict != api.VerdictSettled || len(res.Diagnostics) != 1-i%2 {
			t.Fatalf("cycle %d: %+v %v", i, res, err)
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	const warm, cycles = 300, 1200
	for i := range warm {
		check(i)
	}
	before := heap()
	for i := warm; i < cycles; i++ {
		check(i)
	}
	after := heap()
	t.Logf("heap after %d cycles: %d KiB; after %d: %d KiB", warm, before/1024, cycles, after/1024)
	if after > before+512*1024 {
		t.Fatalf("heap grew from %d KiB to %d KiB over %d cycles", before/1024, after/1024, cycles-warm)
	}
}

// BenchmarkManyFiles checks 5,000 distinct files, each once, through an
// in-process fake server (answering pulls), and reports the daemon's heap
// and resident set after 1,000 and after 5,000 files: with the default
// open-document limit (200) the least recently checked documents are
// closed and both stay flat; "unbounded" keeps every document open, for
// comparison. (The fake shares the process; it forgets closed documents
// too.)
func BenchmarkManyFiles(b *testing.B) {
	const files = 5000
	contents := map[string]string{}
	for i := range files {
		contents[fmt.Sprintf("d%02d/f%04d.fk", i%50, i)] = fmt.Sprintf("// file %d\n%s\n", i, strings.Repeat("x", 512))
	}
	root := b.TempDir()
	lsptest.WriteFiles(b, root, contents)
	for _, bc := range []struct{ name, options string }{{"lru200", ""}, {"unbounded", `,"maxOpenDocuments":1000000`}} {
		b.Run(bc.name, func(b *testing.B) {
			cfg, err := config.Parse([]byte(lsptest.Config(bc.options, `"fake": `+lsptest.ServerEntry("fake"))), "bench")
			if err != nil {
				b.Fatal(err)
			}
			l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"fake": {Pull: true}}}
			var heap1k, heap5k, rss1k, rss5k float64
			for b.Loop() {
				o, err := New(Options{Root: root, Config: cfg, Launch: l.Launch})
				if err != nil {
					b.Fatal(err)
				}
				for i := range files {
					res, err := o.Check(b.Context(), api.CheckParams{FilePath: fmt.Sprintf("d%02d/f%04d.fk", i%50, i)})
					if err != nil || !res.Checked {
						b.Fatalf("file %d: %+v %v", i, res, err)
					}
					switch i + 1 {
					case 1000:
						heap1k, rss1k = memory()
					case files:
						heap5k, rss5k = memory()
					}
				}
				o.Shutdown(context.Background())
			}
			b.ReportMetric(heap1k, "heap-MiB@1k")
			b.ReportMetric(heap5k, "heap-MiB@5k")
			b.ReportMetric(rss1k, "rss-MiB@1k")
			b.ReportMetric(rss5k, "rss-MiB@5k")
		})
	}
}

// memory returns the live heap after a collection and the resident set
// (Linux; 0 elsewhere), in MiB.
func memory() (heap, rss float64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	heap = float64(m.HeapAlloc) / (1 << 20)
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		for line := range strings.Lines(string(data)) {
			if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				var n float64
				fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), &n)
				rss = n / 1024
			}
		}
	}
	return heap, rss
}

// TestSoftMemoryLimit: a server written in Go gets the smaller of the
// memory bounds as GOMEMLIMIT; none without a bound, for a server not
// written in Go, or where its env or lspkit's environment sets one.
func TestSoftMemoryLimit(t *testing.T) {
	goServer, nodeServer := &registry.Spec{ID: "gopls", GoRuntime: true}, &registry.Spec{ID: "pyright"}
	for _, c := range []struct {
		name        string
		server, all int
		spec        *registry.Spec
		env         []string
		user, want  string
	}{
		{name: "no bound", spec: goServer},
		{name: "per server", server: 2048, spec: goServer, want: "GOMEMLIMIT=2048MiB"},
		{name: "daemon's", all: 4096, spec: goServer, want: "GOMEMLIMIT=4096MiB"},
		{name: "the smaller", server: 2048, all: 1024, spec: goServer, want: "GOMEMLIMIT=1024MiB"},
		{name: "not Go", server: 2048, spec: nodeServer},
		{name: "the server's env", server: 2048, spec: goServer, env: []string{"GOMEMLIMIT=3GiB"}},
		{name: "lspkit's environment", server: 2048, spec: goServer, user: "500MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.user != "" {
				t.Setenv("GOMEMLIMIT", c.user)
			} else if v, ok := os.LookupEnv("GOMEMLIMIT"); ok {
				t.Setenv("GOMEMLIMIT", v)
				os.Unsetenv("GOMEMLIMIT")
			}
			o := &Orchestrator{cfg: config.Config{MaxServerMemoryMB: c.server, MaxMemoryMB: c.all}}
			if got := o.softMemoryLimit(c.spec, c.env); got != c.want {
				t.Fatalf("%q, want %q", got, c.want)
			}
		})
	}
}
