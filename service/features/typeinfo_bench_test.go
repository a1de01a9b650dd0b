package features

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// chiLive copies bench/accuracy's chi into a new root and starts an
// orchestrator on it.
func chiLive(b *testing.B) *Service { return accuracyLive(b, "chi", "gopls") }

// accuracyLive copies a project of bench/accuracy into a new root and
// starts an orchestrator on it.
func accuracyLive(b *testing.B, project, binary string) *Service {
	servertest.Binary(b, binary)
	root := filepath.Join(b.TempDir(), project)
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "bench", "accuracy", "testdata", project))); err != nil {
		b.Fatal(err)
	}
	return liveIn(b, root, "")
}

// BenchmarkTypeInfoOverheadLive: each type-information method and
// addressing by name, in process on chi with gopls and ky with
// typescript-language-server, warm, against the same server asked directly for the same answer (the requests it takes,
// on the client lspkit holds): NAME-ms and NAME-server-ms, and
// overhead-ms, the largest of the medians' differences (target ≤ 1 ms).
func BenchmarkTypeInfoOverheadLive(b *testing.B) {
	b.Run("chi-gopls", benchTypeInfoChi)
	b.Run("ky-typescript", benchTypeInfoKy)
}

// overheadTask is a method asked through lspkit and the requests of the
// same answer asked of the server directly.
type overheadTask struct {
	name         string
	tool, server func() error
}

func benchTypeInfoChi(b *testing.B) {
	o := chiLive(b)
	ctx := context.Background()
	pos := func(file string, line int, sub string, off int) (*client.Client, protocol.DocumentURI, protocol.Position) {
		return positionIn(b, o, file, line, sub, off)
	}
	c, mux63, mx := pos("mux.go", 63, "mx", 0)
	_, _, key := pos("mux.go", 87, "RouteCtxKey", 0)
	_, _, dot := pos("mux.go", 82, "rctx.", 5)
	_, chi, router := pos("chi.go", 68, "Router", 0)
	_, ctxGo, newCtx := pos("context.go", 34, "NewRouteContext", 0)
	tasks := []overheadTask{
		{"highlights",
			func() error {
				_, err := o.DocumentHighlights(ctx, api.PositionParams{File: "mux.go", Line: 63, Symbol: "mx"})
				return err
			},
			func() error { _, err := c.DocumentHighlights(ctx, mux63, mx); return err }},
		{"signature",
			func() error {
				_, err := o.SignatureHelp(ctx, api.PositionParams{File: "mux.go", Line: 87, Symbol: "RouteCtxKey"})
				return err
			},
			func() error { _, _, err := c.SignatureHelp(ctx, mux63, key); return err }},
		{"inlay",
			func() error {
				_, err := o.InlayHints(ctx, api.InlayHintsParams{File: "mux.go", StartLine: 63, EndLine: 95})
				return err
			},
			func() error {
				_, err := c.InlayHints(ctx, mux63, protocol.Range{Start: protocol.Position{Line: 62}, End: protocol.Position{Line: 94, Character: 1}})
				return err
			}},
		{"completion",
			func() error {
				_, err := o.Completion(ctx, api.CompletionParams{PositionParams: api.PositionParams{File: "mux.go", Line: 82, Character: 7}})
				return err
			},
			func() error { _, _, err := c.Completion(ctx, mux63, dot); return err }},
		{"subtypes",
			func() error {
				_, err := o.TypeHierarchy(ctx, api.TypeHierarchyParams{PositionParams: api.PositionParams{File: "chi.go", Line: 68, Symbol: "Router"}, Direction: api.DirectionSubtypes})
				return err
			},
			func() error {
				items, err := c.PrepareTypeHierarchy(ctx, chi, router)
				if err == nil && len(items) > 0 {
					_, err = c.Subtypes(ctx, items[0])
				}
				return err
			}},
		{"by-name",
			func() error { _, err := o.Definition(ctx, api.PositionParams{Symbol: "NewRouteContext"}); return err },
			func() error {
				if _, err := c.WorkspaceSymbols(ctx, "NewRouteContext"); err != nil {
					return err
				}
				_, err := c.Definition(ctx, ctxGo, newCtx)
				return err
			}},
	}
	measureOverhead(b, tasks)
}

// measureOverhead times each task's two ways, warm, and reports their
// medians and the largest difference.
func measureOverhead(b *testing.B, tasks []overheadTask) {
	timeOf := func(f func() error) time.Duration {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for range 3 {
		for _, t := range tasks {
			timeOf(t.tool)
			timeOf(t.server)
		}
	}
	tool := make([][]time.Duration, len(tasks))
	server := make([][]time.Duration, len(tasks))
	// Each way goes first every other time: a server answers a question
	// it was just asked faster (tsserver keeps its last completions).
	first := true
	for b.Loop() {
		for i, t := range tasks {
			if first {
				tool[i] = append(tool[i], timeOf(t.tool))
				server[i] = append(server[i], timeOf(t.server))
			} else {
				server[i] = append(server[i], timeOf(t.server))
				tool[i] = append(tool[i], timeOf(t.tool))
			}
		}
		first = !first
	}
	median := func(ds []time.Duration) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[len(s)/2]) / float64(time.Millisecond)
	}
	worst := 0.0
	for i, t := range tasks {
		b.ReportMetric(median(tool[i]), t.name+"-ms")
		b.ReportMetric(median(server[i]), t.name+"-server-ms")
		worst = max(worst, median(tool[i])-median(server[i]))
	}
	b.ReportMetric(worst, "overhead-ms")
}

// positionIn is the client lspkit holds for file (Held) and the
// position of sub (plus off) on its 1-based line.
func positionIn(b *testing.B, o *Service, file string, line int, sub string, off int) (*client.Client, protocol.DocumentURI, protocol.Position) {
	op, err := o.open(context.Background(), file, protocol.HoverRequest.Method())
	if err != nil {
		b.Fatal(err)
	}
	defer op.Release()
	col := strings.Index(op.Lines[line-1], sub)
	if col < 0 {
		b.Fatalf("%q not on %s:%d", sub, file, line)
	}
	return op.Client, op.URI, protocol.Position{Line: uint32(line - 1), Character: uint32(col + off)}
}

func benchTypeInfoKy(b *testing.B) {
	o := accuracyLive(b, "ky", "typescript-language-server")
	ctx := context.Background()
	const merge = "source/utils/merge.ts"
	c, uri, decl := positionIn(b, o, merge, 64, "mergeHeaders", 0)
	_, _, arg := positionIn(b, o, merge, 127, "source2", 0)
	_, _, call := positionIn(b, o, merge, 61, "deepMerge", 0)
	tasks := []overheadTask{
		{"highlights",
			func() error {
				_, err := o.DocumentHighlights(ctx, api.PositionParams{File: merge, Line: 64, Symbol: "mergeHeaders"})
				return err
			},
			func() error { _, err := c.DocumentHighlights(ctx, uri, decl); return err }},
		{"signature",
			func() error {
				_, err := o.SignatureHelp(ctx, api.PositionParams{File: merge, Line: 127, Symbol: "source2"})
				return err
			},
			func() error { _, _, err := c.SignatureHelp(ctx, uri, arg); return err }},
		{"inlay",
			func() error {
				_, err := o.InlayHints(ctx, api.InlayHintsParams{File: merge, StartLine: 54, EndLine: 90})
				return err
			},
			func() error {
				_, err := c.InlayHints(ctx, uri, protocol.Range{Start: protocol.Position{Line: 53}, End: protocol.Position{Line: 89}})
				return err
			}},
		{"completion",
			func() error {
				_, err := o.Completion(ctx, api.CompletionParams{PositionParams: api.PositionParams{File: merge, Line: 61, Symbol: "deepMerge"}})
				return err
			},
			func() error { _, _, err := c.Completion(ctx, uri, call); return err }},
		{"by-name",
			func() error { _, err := o.Definition(ctx, api.PositionParams{Symbol: "mergeHeaders"}); return err },
			func() error {
				if _, err := c.WorkspaceSymbols(ctx, "mergeHeaders"); err != nil {
					return err
				}
				_, err := c.Definition(ctx, uri, decl)
				return err
			}},
	}
	measureOverhead(b, tasks)
}
