package features

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// BenchmarkSymbolContextLive: lsp/symbolContext in process on chi with
// gopls, warm, against its parts one after another (sum-ms) and the
// slowest of them (slowest-ms), and at once (parts-at-once-ms: what the
// server's work for them costs together).
func BenchmarkSymbolContextLive(b *testing.B) {
	servertest.Binary(b, "gopls")
	root := filepath.Join(b.TempDir(), "chi")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "bench", "accuracy", "testdata", "chi"))); err != nil {
		b.Fatal(err)
	}
	o := liveIn(b, root, "")
	ctx := context.Background()
	at := api.PositionParams{File: "context.go", Line: 34, Symbol: "NewRouteContext"}
	parts := []func() error{
		func() error { _, err := o.Definition(ctx, at); return err },
		func() error { _, err := o.Hover(ctx, at); return err },
		func() error { _, err := o.References(ctx, at); return err },
		func() error {
			_, err := o.CallHierarchy(ctx, api.CallHierarchyParams{PositionParams: at, Direction: api.DirectionIncoming})
			return err
		},
	}
	for range 3 {
		if _, err := o.SymbolContext(ctx, at); err != nil {
			b.Fatal(err)
		}
	}
	var whole, sum, slowest, together time.Duration
	for b.Loop() {
		start0 := time.Now()
		var wg conc.WaitGroup
		for _, p := range parts {
			wg.Go(func() { p() })
		}
		wg.Wait()
		together += time.Since(start0)
		start := time.Now()
		if _, err := o.SymbolContext(ctx, at); err != nil {
			b.Fatal(err)
		}
		whole += time.Since(start)
		var worst time.Duration
		for _, p := range parts {
			start := time.Now()
			if err := p(); err != nil {
				b.Fatal(err)
			}
			took := time.Since(start)
			sum += took
			worst = max(worst, took)
		}
		slowest += worst
	}
	n := float64(b.N) * float64(time.Millisecond)
	b.ReportMetric(float64(whole)/n, "context-ms")
	b.ReportMetric(float64(sum)/n, "sum-ms")
	b.ReportMetric(float64(together)/n, "parts-at-once-ms")
	b.ReportMetric(float64(slowest)/n, "slowest-ms")
	b.ReportMetric(float64(whole)/float64(slowest), "ratio")
}
