package lspserver_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/orchestrator"
)

// BenchmarkLSPProxyLive: a warm hover and definition through lspkit lsp
// (an LSP client over a pipe, the server side, the orchestrator's hold,
// the server) against the same request sent to a second process of the
// same server directly through lspkit's client, one after the other,
// each way first every other time; overhead-ms is the difference of the
// medians (target ≤ 1 ms), for gopls and typescript-language-server.
func BenchmarkLSPProxyLive(b *testing.B) {
	for _, tc := range []diskCase{
		{name: "gopls", binary: "gopls", servers: []string{"gopls"},
			files: map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n"}, open: "main.go", languageID: "go",
			openText: "package main\n\nimport \"example.com/demo/lib\"\n\nfunc main() {\n\tvar n int = lib.Value()\n\tprintln(n)\n}\n",
			lib:      "lib/lib.go", libText: goLib, useAt: [2]int{5, 17}},
		{name: "typescript", binary: "typescript-language-server", servers: []string{"typescript"},
			files: map[string]string{"package.json": `{"name": "demo", "private": true}`, "tsconfig.json": `{"compilerOptions": {"strict": true}}`},
			open:  "main.ts", languageID: "typescript",
			openText: "import { value } from \"./lib\";\n\nconst n: number = value();\nconsole.log(n);\n",
			lib:      "lib.ts", libText: tsLib, useAt: [2]int{2, 19}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			servertest.Binary(b, tc.binary)
			e, root := startLive(b, tc, 0)
			ctx := context.Background()
			uri, _ := protocol.FileURI(filepath.Join(root, tc.open))
			if _, err := e.callB(b, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}); err != nil {
				b.Fatal(err)
			}
			e.conn.Notify(ctx, protocol.InitializedNotification.Method(), map[string]any{})
			e.conn.Notify(ctx, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{
				"uri": uri, "languageId": tc.languageID, "version": 1, "text": tc.openText}})

			// The server alone: a second process on a copy of the project,
			// the document open with the same text.
			rootB := b.TempDir()
			if err := os.CopyFS(rootB, os.DirFS(root)); err != nil {
				b.Fatal(err)
			}
			cfg, _ := config.Parse([]byte(`{"lsp": {"autoInstall": false}}`), "bench")
			o, err := orchestrator.New(orchestrator.Options{Root: rootB, Config: cfg, PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16}})
			if err != nil {
				b.Fatal(err)
			}
			defer o.Shutdown(ctx)
			ccfg, err := o.ClientConfig(tc.servers[0], o.Root())
			if err != nil {
				b.Fatal(err)
			}
			c, err := client.Start(ctx, ccfg)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Shutdown(ctx)
			pathB := filepath.Join(o.Root(), tc.open)
			if _, err := c.Diagnose(ctx, pathB, tc.languageID, tc.openText); err != nil {
				b.Fatal(err)
			}
			uriB, _ := protocol.FileURI(pathB)
			pos := protocol.Position{Line: uint32(tc.useAt[0]), Character: uint32(tc.useAt[1])}
			proxied := map[string]func() error{
				"hover": func() error {
					_, err := e.callB(b, protocol.HoverRequest.Method(), map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos})
					return err
				},
				"definition": func() error {
					_, err := e.callB(b, protocol.DefinitionRequest.Method(), map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos})
					return err
				},
			}
			direct := map[string]func() error{
				"hover": func() error {
					_, err := client.Forward(ctx, c, protocol.HoverRequest, protocol.HoverParams{TextDocument: protocol.TextDocumentIdentifier{URI: uriB}, Position: pos})
					return err
				},
				"definition": func() error {
					_, err := client.Forward(ctx, c, protocol.DefinitionRequest, protocol.DefinitionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uriB}, Position: pos})
					return err
				},
			}
			timed := func(f func() error) time.Duration {
				start := time.Now()
				if err := f(); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			for range 5 { // both warm
				for _, m := range []string{"hover", "definition"} {
					timed(proxied[m])
					timed(direct[m])
				}
			}
			through := map[string][]time.Duration{}
			alone := map[string][]time.Duration{}
			i := 0
			for b.Loop() {
				for _, m := range []string{"hover", "definition"} {
					if i%2 == 0 {
						through[m] = append(through[m], timed(proxied[m]))
						alone[m] = append(alone[m], timed(direct[m]))
					} else {
						alone[m] = append(alone[m], timed(direct[m]))
						through[m] = append(through[m], timed(proxied[m]))
					}
				}
				i++
			}
			median := func(ds []time.Duration) float64 {
				s := slices.Clone(ds)
				slices.Sort(s)
				return float64(s[len(s)/2]) / float64(time.Millisecond)
			}
			for _, m := range []string{"hover", "definition"} {
				b.ReportMetric(median(through[m]), m+"-lsp-ms")
				b.ReportMetric(median(alone[m]), m+"-alone-ms")
				b.ReportMetric(median(through[m])-median(alone[m]), m+"-overhead-ms")
			}
		})
	}
}
