package orchestrator_test

import (
	"context"
	"testing"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/features"
	"github.com/lspkit/lspkit/service/orchestrator"
)

// BenchmarkSweepLive measures a sweep of a 100-file project per server
// against checking the same files at once (every file's check in
// parallel, as a client that opens them all would): the target is sweep ≤
// 1.5 × that.
func BenchmarkSweepLive(b *testing.B) {
	for _, server := range []string{"gopls", "typescript", "pyright", "clangd"} {
		b.Run(server, func(b *testing.B) {
			servertest.Binary(b, orchestrator.ImpactBinaries[server])
			files := orchestrator.SweepProject(server)
			root := b.TempDir()
			lsptest.WriteFiles(b, root, files)
			o := orchestrator.LiveIn(b, root, "")
			sweeper := features.New(o)
			// The files all at once on a daemon of their own: one whose
			// servers hold every file open is another case.
			raw := orchestrator.LiveIn(b, root, "")
			ctx := context.Background()
			var sources []string
			for name := range files {
				abs, _ := o.Resolve(name)
				if len(o.ServersOf(abs)) > 0 {
					sources = append(sources, name)
				}
			}
			if _, err := sweeper.Sweep(ctx, api.DiagnosticsParams{Sweep: true}); err != nil { // warm it
				b.Fatal(err)
			}
			checkAll := func() {
				var wg conc.WaitGroup
				for _, f := range sources {
					wg.Go(func() { orchestrator.MustCheck(b, raw, api.CheckParams{FilePath: f}) })
				}
				wg.Wait()
				orchestrator.CloseAll(raw)
			}
			checkAll() // warm it
			var sweep, all time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := sweeper.Sweep(ctx, api.DiagnosticsParams{Sweep: true})
				sweep += time.Since(start)
				if err != nil || !res.Complete || res.Checked != len(sources) {
					b.Fatalf("sweep: %d of %d checked: %s %v", res.Checked, res.Files, res.Reason, err)
				}
				start = time.Now()
				checkAll()
				all += time.Since(start)
			}
			n := float64(b.N)
			b.ReportMetric(float64(sweep.Milliseconds())/n, "sweep-ms")
			b.ReportMetric(float64(all.Milliseconds())/n, "all-at-once-ms")
			b.ReportMetric(float64(sweep)/float64(all), "ratio")
			b.ReportMetric(float64(len(sources)), "files")
		})
	}
}
