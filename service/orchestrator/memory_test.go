package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
)

// TestMemoryFlat: 2,000 check cycles on one file, its text alternating
// between an error and a fix so the server re-diagnoses each time, leave
// the heap where it was after the first 400.
func TestMemoryFlat(t *testing.T) {
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
